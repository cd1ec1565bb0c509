package main

import (
	"fmt"

	"github.com/edged-robotics/edged/config"
	"github.com/spf13/cobra"
)

func init() { register(newConfigCmd) }

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Work with edged's config file"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Validate a config file; print its problems, or the effective config with every default",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config.Load(args[0])
			if err != nil {
				return err
			}
			out, err := c.Marshal()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "# %s is valid; effective config:\n%s", args[0], out)
			return err
		},
	})
	return cmd
}

package main

import (
	"fmt"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
	"github.com/spf13/cobra"
)

func init() { register(newConfigCmd) }

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Work with edged's config file"}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Check a config file as edged run does; print its problems, or the effective config with every default",
		Long: "Parses and validates the file, checks that the files it names are readable (run it as\n" +
			"edged's user), and applies every rule edged run applies before starting (daemon.Check).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config.Load(args[0])
			if err != nil {
				return err
			}
			if err := daemon.CheckWithArgs(c, rosArgs); err != nil { // run's ROS arguments too (__name:=...)
				return fmt.Errorf("config %s: %w", args[0], err)
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

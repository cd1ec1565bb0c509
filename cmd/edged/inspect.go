package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/spf13/cobra"
)

func init() { register(newInspectCmd) }

func newInspectCmd() *cobra.Command {
	var asJSON bool
	var cfgFile string
	cmd := &cobra.Command{
		Use:   "inspect [DIR] [EPISODE]",
		Short: "List recorded episodes, or show one episode's timeline",
		Long: "inspect lists the episodes in DIR (a data_dir or its episodes/ directory; default the config's\n" +
			"data_dir, else " + config.DefaultDataDir + "), or shows one EPISODE (an id, a unique id prefix or an\n" +
			"episode directory): start, end, duration, label and outcome of every segment. It never writes.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, ref, err := inspectArgs(cfgFile, args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if ref == "" {
				ms, err := episode.List(dir)
				if err != nil {
					return err
				}
				if asJSON {
					if ms == nil {
						ms = []episode.Manifest{}
					}
					return json.NewEncoder(out).Encode(ms)
				}
				return episode.WriteList(out, ms)
			}
			e, err := episode.Load(dir, ref)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(e)
			}
			return episode.WriteTimeline(out, e)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().StringVar(&cfgFile, "config", "", "take the data_dir from this config file")
	return cmd
}

// inspectArgs sorts out [DIR] [EPISODE]: a single argument is an episode
// directory, a store directory, or an episode id in the default store.
func inspectArgs(cfgFile string, args []string) (dir, ref string, err error) {
	dir = config.DefaultDataDir
	if cfgFile != "" {
		c, err := config.Load(cfgFile)
		if err != nil {
			return "", "", err
		}
		dir = c.DataDir
	}
	switch len(args) {
	case 2:
		return episode.StoreDir(args[0]), args[1], nil
	case 1:
		if _, err := os.Stat(filepath.Join(args[0], "manifest.json")); err == nil {
			return "", args[0], nil
		}
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			return episode.StoreDir(args[0]), "", nil
		}
		return episode.StoreDir(dir), args[0], nil
	}
	return episode.StoreDir(dir), "", nil
}

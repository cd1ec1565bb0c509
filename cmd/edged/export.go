package main

import (
	"fmt"
	"os"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/spf13/cobra"
)

func init() { register(newExportCmd) }

func newExportCmd() *cobra.Command {
	var format, dir, outFile string
	var rate float64
	cmd := &cobra.Command{
		Use:   "export EPISODE",
		Short: "Export an episode's segments as WGO JSON, a step table or Foxglove events",
		Long: "export writes the recorded segments of EPISODE (an id, a unique id prefix or an episode\n" +
			"directory) as --format wgo ({\"segments\":[{start_sec,end_sec,subtask}]}), steps (CSV step,subtask,stage\n" +
			"at --rate Hz) or foxglove (a JSON list of Foxglove event bodies).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := readable(cmd.Context(), dir)
			if err != nil {
				return err
			}
			e, err := episode.Load(episode.StoreDir(d), args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if outFile != "" && outFile != "-" {
				f, err := os.Create(outFile)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			if err := view.Export(w, e, format, rate); err != nil {
				return err
			}
			for _, p := range e.Problems {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", view.FormatWGO, "wgo, steps or foxglove")
	cmd.Flags().StringVar(&dir, "dir", config.DefaultDataDir, "data_dir or episode store directory")
	cmd.Flags().Float64Var(&rate, "rate", 10, "steps per second for --format steps")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

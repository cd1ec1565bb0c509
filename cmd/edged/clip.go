package main

import (
	"encoding/json"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
	"github.com/spf13/cobra"
)

func init() { register(newClipCmd) }

func newClipCmd() *cobra.Command {
	var addr, reason string
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "clip",
		Short: "ask a running edged for an incident clip now (POST /clip on its http.listen)",
		Long: `clip asks the edged run listening on --http for an incident clip of
the last clips.pre and the next clips.post seconds (clips.enabled must be
true), and prints its answer as JSON: the clip's name, episode and path
once written, or its name alone when not written within --wait.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			a, err := daemon.RequestClip(ctx, addr, reason, wait)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(a)
		},
	}
	cmd.Flags().StringVar(&addr, "http", config.DefaultListen, "the daemon's http.listen (host:port or URL)")
	cmd.Flags().StringVar(&reason, "reason", "", "why: stored in the clip's metadata")
	cmd.Flags().DurationVar(&wait, "wait", daemon.DefaultClipWait, "how long to wait for the clip to be written (0: answer at once; at most 25s)")
	return cmd
}

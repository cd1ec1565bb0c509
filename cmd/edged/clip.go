package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
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
	cmd.AddCommand(newClipFetchCmd())
	cmd.Flags().StringVar(&addr, "http", config.DefaultListen, "the daemon's http.listen (host:port or URL)")
	cmd.Flags().StringVar(&reason, "reason", "", "why: stored in the clip's metadata")
	cmd.Flags().DurationVar(&wait, "wait", daemon.DefaultClipWait, "how long to wait for the clip to be written (0: answer at once; at most 25s)")
	return cmd
}

func newClipFetchCmd() *cobra.Command {
	f := daemon.Fetch{}
	cmd := &cobra.Command{
		Use:   "fetch --from http://HOST:PORT|s3://BUCKET[/PREFIX] [NAME...|--latest|--all] [--episode ID] [-o DIR]",
		Short: "download incident clips from a robot's running edged (GET /clips on its http.listen) or the fleet's object store",
		Long: `fetch downloads clips from the edged run listening on --from (its
http.listen), or from an object store: --from the sink's store URL (its
--out, s3://BUCKET[/PREFIX]; the manifests say which clips exist and
where) or one clip's URL (the where edged inspect shows; no NAME
needed). Each goes into -o as NAME.part, resumed where an interrupted
fetch stopped (a Range request; run it again), its size (and sha256,
when the sink's manifest lists it) checked, then renamed to NAME. A clip
already in -o is not fetched again. The sink's manifest (edged inspect
EPISODE on the sink) says which clips are still on the robot. The store's
endpoint and credentials are edged sink's (AWS_ENDPOINT_URL, ...).`,
		RunE: func(cmd *cobra.Command, names []string) error {
			f.Names = names
			if !daemon.IsClipURL(f.From) && (len(names) > 0) == (f.Latest || f.All) || f.Latest && f.All {
				return fmt.Errorf("clip fetch: name clips, or give --latest or --all (one of them)")
			}
			got, err := daemon.FetchClips(cmd.Context(), f)
			for _, c := range got {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%d bytes\t%s\n", filepath.Join(f.Dir, c.Name), c.Bytes, c.Episode)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&f.From, "from", config.DefaultListen, "the daemon's http.listen (host:port or URL), a sink's s3:// store or a clip's s3:// URL")
	cmd.Flags().BoolVar(&f.Latest, "latest", false, "the latest clip (of --episode)")
	cmd.Flags().BoolVar(&f.All, "all", false, "every clip (of --episode)")
	cmd.Flags().StringVar(&f.Episode, "episode", "", "only this episode's clips")
	cmd.Flags().StringVarP(&f.Dir, "out", "o", ".", "the directory the clips go to")
	return cmd
}

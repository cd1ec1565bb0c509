package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
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
			"episode directory): start, end, duration, label and outcome of every segment. It never writes.\n\n" +
			"--json prints snake_case keys only. The list is an array of manifests, each exactly as the\n" +
			"episode's manifest.json holds it (id, robot, start, end, closed, outcome, segments, ...). One\n" +
			"episode is an object whose keys are:\n" +
			"  manifest     the same manifest\n" +
			"  dir          the episode directory\n" +
			"  segments     the closed segments as recorded (index, start_sec, end_sec, label, outcome, ...)\n" +
			"  transitions  the raw FSM transitions as recorded (seq, stamp, sec, kind, from, to, ...)\n" +
			"  problems     what reading found wrong (corrupt records, a torn tail), as sentences\n" +
			"  cost         the cost line of the episode's files: bytes of contact sheets, labeling sheets,\n" +
			"               snippets and the rest, VLM tokens to show every sheet once, and both per\n" +
			"               camera-hour of episode time (contact_sheet_bytes, vlm_tokens, ...)\n" +
			"  annotations  what edged annotate stored, each scored against the FSM segments (name, annotation,\n" +
			"               score as edged score --json prints it, invalid or unscored: why not); omitted when none\n" +
			"Lists are [] when empty, never null.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			list, load, err := inspectReads(cmd.Context(), cfgFile, args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if load == nil {
				ms, err := list()
				if err != nil {
					return err
				}
				if asJSON {
					if ms == nil {
						ms = []episode.Manifest{}
					}
					return json.NewEncoder(out).Encode(ms)
				}
				return view.WriteList(out, ms)
			}
			e, store, err := load()
			if err != nil {
				return err
			}
			anns, err := view.StoredAnnotations(store, e, score.Options{})
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				ie := newInspectEpisode(e)
				ie.Annotations = anns
				return enc.Encode(ie)
			}
			if err := view.WriteTimeline(out, e); err != nil {
				return err
			}
			return view.WriteAnnotations(out, anns)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().StringVar(&cfgFile, "config", "", "take the data_dir from this config file")
	return cmd
}

// inspectEpisode is the JSON of `edged inspect --json EPISODE`. episode.Episode
// has no JSON tags (it is an in-memory type; its Manifest is the on-disk
// format and is not changed here), so it would print Go field names
// (Manifest, Dir) beside the manifest's snake_case. Every field of
// episode.Episode must appear here (a test checks it).
type inspectEpisode struct {
	Manifest    episode.Manifest     `json:"manifest"`
	Dir         string               `json:"dir"`
	Segments    []episode.Segment    `json:"segments"`
	Transitions []episode.Transition `json:"transitions"`
	Problems    []string             `json:"problems"`
	Cost        episode.Cost         `json:"cost"`
	// Lack: what a receiver lacks of an episode its end closed (omitted
	// elsewhere).
	Lack *episode.Lack `json:"lack,omitempty"`
	// Annotations: the episode's stored annotations, scored (omitted
	// when none).
	Annotations []view.AnnotationScore `json:"annotations,omitempty"`
}

func newInspectEpisode(e *episode.Episode) inspectEpisode {
	return inspectEpisode{Manifest: e.Manifest, Dir: e.Dir, Segments: nonNil(e.Segments),
		Transitions: nonNil(e.Transitions), Problems: nonNil(e.Problems), Cost: e.Cost, Lack: e.Lack}
}

// nonNil makes an empty list print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// inspectReads are the reads inspect makes of its arguments: the
// store's list, or one episode (load not nil). A store in an object
// store (an s3:// URL: a data_dir, its episodes/ or one episode) is
// read where it is (episode.ListBlobs, LoadBlobs), never copied.
func inspectReads(ctx context.Context, cfgFile string, args []string) (list func() ([]episode.Manifest, error), load func() (*episode.Episode, blob.Blobs, error), err error) {
	urls := 0
	for _, a := range args {
		if s3.IsURL(a) {
			urls++
		}
	}
	if urls == 0 {
		dir, ref, err := inspectArgs(cfgFile, args)
		if err != nil {
			return nil, nil, err
		}
		if ref == "" {
			return func() ([]episode.Manifest, error) { return episode.List(dir) }, nil, nil
		}
		return nil, func() (*episode.Episode, blob.Blobs, error) {
			e, err := episode.Load(dir, ref)
			if err != nil {
				return nil, nil, err
			}
			return e, blob.Dir{Root: filepath.Dir(e.Dir)}, nil // e.Dir's store, whatever ref named
		}, nil
	}
	named := args[len(args)-1] // EPISODE's URL, else DIR's
	if len(args) == 2 && !s3.IsURL(named) {
		named = args[0]
	}
	store, id, err := remote.Open(ctx, named)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(args) == 2 && named == args[0]: // s3://DIR EPISODE
		id = args[1]
	case len(args) == 2 && id == "":
		return nil, nil, fmt.Errorf("%s holds no episode (give an episode's URL or an id)", named)
	case id == "":
		return func() ([]episode.Manifest, error) { return episode.ListBlobs(store) }, nil, nil
	}
	return nil, func() (*episode.Episode, blob.Blobs, error) {
		e, err := episode.LoadBlobs(store, id)
		return e, store, err
	}, nil
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

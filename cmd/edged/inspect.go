package main

import (
	"encoding/json"
	"io"

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
			dataDir, err := dataDirOf("", cfgFile)
			if err != nil {
				return err
			}
			reads, err := remote.Named(cmd.Context(), dataDir, args)
			if err != nil {
				return err
			}
			if reads.Load == nil {
				return inspectList(cmd.OutOrStdout(), reads, asJSON)
			}
			return inspectEpisode(cmd.OutOrStdout(), reads, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().StringVar(&cfgFile, "config", "", "take the data_dir from this config file")
	return cmd
}

// inspectList prints the episodes reads lists: a table, or a JSON array
// ([] when none).
func inspectList(out io.Writer, reads remote.Reads, asJSON bool) error {
	ms, err := reads.List()
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

// inspectEpisode prints the one episode reads loads, with its stored
// annotations scored: a timeline, or indented JSON.
func inspectEpisode(out io.Writer, reads remote.Reads, asJSON bool) error {
	e, store, err := reads.Load()
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
		ej := view.NewEpisodeJSON(e)
		ej.Annotations = anns
		return enc.Encode(ej)
	}
	if err := view.WriteTimeline(out, e); err != nil {
		return err
	}
	if err := view.WriteClips(out, e); err != nil {
		return err
	}
	return view.WriteAnnotations(out, anns)
}

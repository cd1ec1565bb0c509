package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/dataset"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/mcapexport"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/spf13/cobra"
)

func init() { register(newExportCmd) }

func newExportCmd() *cobra.Command {
	var format, dir, outFile string
	var rate float64
	cmd := &cobra.Command{
		Use:   "export EPISODE",
		Short: "Export an episode's segments as WGO JSON, a step table, Foxglove events, ViSTa and ETP-Bench samples, or the whole episode as MCAP",
		Long: "export writes the recorded segments of EPISODE (an id, a unique id prefix or an episode\n" +
			"directory) as --format wgo ({\"segments\":[{start_sec,end_sec,subtask}]}), steps (CSV step,subtask,stage\n" +
			"at --rate Hz) or foxglove (a JSON list of Foxglove event bodies); as --format vista (a ViSTa sample:\n" +
			"the steps as a sequential description with their level, and per step its labeling sheets and time\n" +
			"range; with -o FILE, an episode whose robot shipped no labeling sheets gets them composed from its\n" +
			"contact sheets into FILE's directory, labels/CAMERA/label-SSSS.jpg) or etp (an ETP-Bench sample: -o DIR gets etp.json with the instruction and the executed plan,\n" +
			"and first_frame.jpg). docs/rtl.md has the vista and etp schemas with samples. --format mcap -o FILE\n" +
			"writes the episode as the store holds it (sheets, snippets as joint states, segments, transitions,\n" +
			"annotations on a timeline) as one MCAP file that Foxglove opens like a clip (docs/clips.md).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, id, err := remote.OpenEpisode(cmd.Context(), dir, args[0])
			if err != nil {
				return err
			}
			e, err := episode.LoadBlobs(store, id)
			if err != nil {
				return err
			}
			if format == mcapexport.Format {
				return writeMCAP(e, store, outFile, cmd.ErrOrStderr())
			}
			if err := writeExport(e, blob.Sub(store, e.Manifest.ID), format, rate, outFile, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
				return err
			}
			for _, p := range e.Problems {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", view.FormatWGO, "wgo, steps, foxglove, vista, etp or mcap")
	cmd.Flags().StringVar(&dir, "dir", config.DefaultDataDir, "data_dir or episode store directory, or an s3:// URL of either")
	cmd.Flags().Float64Var(&rate, "rate", 10, "steps per second for --format steps")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write to this file instead of stdout (etp: this directory; mcap: required)")
	return cmd
}

// writeExport writes episode e (its files in files) in format to
// outFile: a directory for etp, else a file, "" or "-" for stdout. Notes
// for the user go to stderr.
func writeExport(e *episode.Episode, files blob.Blobs, format string, rate float64, outFile string, stdout, stderr io.Writer) error {
	if format == "etp" {
		if outFile == "" || outFile == "-" {
			return fmt.Errorf("export: --format etp writes a directory (etp.json, first_frame.jpg): give it with -o DIR")
		}
		_, err := dataset.WriteETP(outFile, e, files)
		return err
	}
	w := stdout
	if outFile != "" && outFile != "-" {
		f, err := os.Create(outFile)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if format != "vista" {
		return view.Export(w, e, format, rate)
	}
	v, err := dataset.NewVista(e, files)
	if err != nil {
		return err
	}
	if w != stdout { // labeling sheets composed beside the sample when the robot shipped none
		if _, err := dataset.ComposeVistaSheets(filepath.Dir(outFile), &v, e, files); err != nil {
			return err
		}
	} else if noSheets(v) {
		fmt.Fprintln(stderr, "note: the robot shipped no labeling sheets (sheet.ship_label_sheets off, the default): "+
			"give -o FILE to compose them from the contact sheets beside the sample")
	}
	return writeIndented(w, v)
}

// writeMCAP writes episode e of store to outFile as MCAP, naming on
// stderr every file left out and the episode's reading problems.
func writeMCAP(e *episode.Episode, store blob.Blobs, outFile string, stderr io.Writer) error {
	if outFile == "" || outFile == "-" {
		return fmt.Errorf("export: --format mcap writes a binary file: give it with -o FILE.mcap")
	}
	f, err := os.Create(outFile)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	res, err := mcapexport.Write(f, e, store)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(outFile)
		return err
	}
	for _, p := range append(res.Problems, e.Problems...) {
		fmt.Fprintln(stderr, "warning:", p)
	}
	return nil
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// noSheets reports whether v has steps and none of them a labeling sheet.
func noSheets(v dataset.Vista) bool {
	for _, st := range v.Steps {
		if len(st.Sheets) > 0 {
			return false
		}
	}
	return len(v.Steps) > 0
}

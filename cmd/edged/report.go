package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/report"
	"github.com/edged-robotics/edged/score"
	"github.com/spf13/cobra"
)

func init() { register(newReportCmd) }

func newReportCmd() *cobra.Command {
	var out, dir, cfgFile, verdicts string
	var annotations []string
	var o report.Options
	var overlap float64
	var imageMiB int
	cmd := &cobra.Command{
		Use:   "report EPISODE --out report.html",
		Short: "Write one self-contained HTML report of an episode: FSM timeline, contact sheets, annotation scores",
		Long: "report renders EPISODE (an episode directory, or an id or unique id prefix in DATA_DIR) as one HTML\n" +
			"file that loads nothing from the network: the header, the FSM segments as a timeline with a table\n" +
			"(each segment with its labeling sheets), the contact sheets per camera at their times, and for each\n" +
			"--annotation (a cloud VLM annotation, {\"segments\":[{start_sec,end_sec,subtask}]}) a timeline row\n" +
			"with tau_k, tau_zeta, segment F1 and end-to-end F1 against the FSM ground truth; so is every annotation\n" +
			"edged annotate stored in the episode, named with its model and prompt version. Images are capped\n" +
			"(--max-sheets per camera, evenly spaced; --max-image-mib in all) and the page says what it left out.\n" +
			"DATA_DIR is --dir, else the config's data_dir, else " + config.DefaultDataDir + ". It never writes the store.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := remote.Readable(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(ref, "manifest.json")); err != nil {
				d, err := reportDataDir(dir, cfgFile)
				if err != nil {
					return err
				}
				if d, err = remote.ReadableEpisode(cmd.Context(), d, args[0]); err != nil {
					return err
				}
				o.StoreDir = episode.StoreDir(d)
			}
			o.Annotations = annotations
			o.MaxImageBytes = int64(imageMiB) << 20
			o.Generator = "edged " + version
			o.Judge = score.LexicalJudge{MinOverlap: overlap}
			if verdicts != "" {
				b, err := os.ReadFile(verdicts)
				if err != nil {
					return err
				}
				if o.Judge, err = score.ParseVerdicts(b); err != nil {
					return fmt.Errorf("--verdicts: %w", err)
				}
			}
			s, err := report.WriteFile(out, ref, o)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "wrote %s (%.1f MB): episode %s, segments %d, cameras %d, contact sheets %d",
				out, float64(s.HTMLBytes)/(1<<20), s.Episode, s.Segments, s.Cameras, s.Sheets)
			if s.SheetsOmitted > 0 {
				fmt.Fprintf(w, " (%d more not inlined)", s.SheetsOmitted)
			}
			fmt.Fprintf(w, ", labeling sheets %d, annotations %d\n", s.LabelSheets, s.Annotations)
			for _, n := range s.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "the HTML file to write (required)")
	f.StringVar(&dir, "dir", "", "data_dir (or its episodes/ directory) holding the episode")
	f.StringVar(&cfgFile, "config", "", "take the data_dir from this config file")
	f.StringArrayVar(&annotations, "annotation", nil, "a cloud annotation file to show and score (repeatable)")
	f.StringVar(&verdicts, "verdicts", "", "an external judge's label verdicts for end-to-end F1 (JSON)")
	f.Float64Var(&overlap, "lexical-overlap", 0.5, "content-word overlap the offline lexical judge needs")
	f.IntVar(&o.MaxSheets, "max-sheets", report.DefaultMaxSheets, "contact sheets inlined per camera (evenly spaced)")
	f.IntVar(&o.MaxLabelSheets, "max-label-sheets", report.DefaultMaxLabelSheets, "labeling sheets inlined per camera")
	f.IntVar(&imageMiB, "max-image-mib", report.DefaultMaxImageBytes>>20, "all inlined images together, MiB")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func reportDataDir(dir, cfgFile string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	if cfgFile != "" {
		c, err := config.Load(cfgFile)
		if err != nil {
			return "", err
		}
		return c.DataDir, nil
	}
	return config.DefaultDataDir, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/report"
	"github.com/edged-robotics/edged/score"
	"github.com/spf13/cobra"
)

func init() { register(newReportCmd) }

// reportFlags are edged report's flags.
type reportFlags struct {
	out, dir, cfgFile, verdicts string
	annotations                 []string
	overlap                     float64
	imageMiB                    int
	o                           report.Options
	sem                         semanticFlags
}

func newReportCmd() *cobra.Command {
	var fl reportFlags
	cmd := &cobra.Command{
		Use:   "report EPISODE --out report.html",
		Short: "Write one self-contained HTML report of an episode: FSM timeline, contact sheets, annotation scores",
		Long: "report renders EPISODE (an episode directory or s3:// URL, or an id or unique id prefix in DATA_DIR)\n" +
			"as one HTML file that loads nothing from the network: the header, the FSM segments as a timeline\n" +
			"with a table (each segment with its labeling sheets), the contact sheets per camera at their times,\n" +
			"and for each --annotation (a cloud VLM annotation, {\"segments\":[{start_sec,end_sec,subtask}]}) a\n" +
			"timeline row with tau_k, tau_zeta, segment F1 and end-to-end F1 against the FSM ground truth; so is\n" +
			"every annotation edged annotate stored in the episode, named with its model and prompt version. Images\n" +
			"are capped (--max-sheets per camera, evenly spaced; --max-image-mib in all) and the page says what\n" +
			"it left out. DATA_DIR is --dir (a directory or an s3:// URL), else the config's data_dir, else\n" +
			config.DefaultDataDir + ". It never writes the store, and reads an object store where it is.\n\n" + semanticHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, id, err := reportEpisode(cmd.Context(), fl.dir, fl.cfgFile, args[0])
			if err != nil {
				return err
			}
			o := fl.o
			o.Store, o.Annotations, o.MaxImageBytes = store, fl.annotations, int64(fl.imageMiB)<<20
			o.Generator = "edged " + version
			o.Judge = score.LexicalJudge{MinOverlap: fl.overlap}
			if fl.verdicts != "" {
				if o.Judge, err = view.ReadVerdicts(fl.verdicts); err != nil {
					return fmt.Errorf("--verdicts: %w", err)
				}
			}
			api, err := fl.sem.open(cmd.Context(), fl.verdicts != "")
			if err != nil {
				return err
			}
			if api.enc != nil {
				o.Encoder = api.enc
			}
			if api.judge != nil {
				o.Judge = api.judge
			}
			s, err := report.WriteFile(fl.out, id, o)
			if err != nil {
				return err
			}
			if err := api.err(); err != nil {
				_ = os.Remove(fl.out) // its scores are wrong
				return fmt.Errorf("%s not written: %w", fl.out, err)
			}
			printReportSummary(cmd.OutOrStdout(), fl.out, s)
			return nil
		},
	}
	fl.define(cmd)
	return cmd
}

func (fl *reportFlags) define(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&fl.out, "out", "", "the HTML file to write (required)")
	f.StringVar(&fl.dir, "dir", "", "data_dir (or its episodes/ directory, or an s3:// URL) holding the episode")
	f.StringVar(&fl.cfgFile, "config", "", "take the data_dir from this config file")
	f.StringArrayVar(&fl.annotations, "annotation", nil, "a cloud annotation file to show and score (repeatable)")
	f.StringVar(&fl.verdicts, "verdicts", "", "an external judge's label verdicts for end-to-end F1 (JSON)")
	f.Float64Var(&fl.overlap, "lexical-overlap", 0.5, "content-word overlap the offline lexical judge needs")
	f.IntVar(&fl.o.MaxSheets, "max-sheets", report.DefaultMaxSheets, "contact sheets inlined per camera (evenly spaced)")
	f.IntVar(&fl.o.MaxLabelSheets, "max-label-sheets", report.DefaultMaxLabelSheets, "labeling sheets inlined per camera")
	f.IntVar(&fl.imageMiB, "max-image-mib", report.DefaultMaxImageBytes>>20, "all inlined images together, MiB")
	fl.sem.define(cmd)
	_ = cmd.MarkFlagRequired("out")
}

func printReportSummary(w io.Writer, out string, s *report.Summary) {
	fmt.Fprintf(w, "wrote %s (%.1f MB): episode %s, segments %d, cameras %d, contact sheets %d",
		out, float64(s.HTMLBytes)/(1<<20), s.Episode, s.Segments, s.Cameras, s.Sheets)
	if s.SheetsOmitted > 0 {
		fmt.Fprintf(w, " (%d more not inlined)", s.SheetsOmitted)
	}
	fmt.Fprintf(w, ", labeling sheets %d, annotations %d\n", s.LabelSheets, s.Annotations)
	for _, n := range s.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// reportEpisode names the episode report reads, where it is: ref
// itself (an episode directory or URL), else ref in the data_dir.
func reportEpisode(ctx context.Context, dir, cfgFile, ref string) (blob.Blobs, string, error) {
	if s3.IsURL(ref) || episode.IsEpisodeDir(ref) {
		return remote.OpenEpisode(ctx, "", ref)
	}
	d, err := dataDirOf(dir, cfgFile)
	if err != nil {
		return nil, "", err
	}
	return remote.OpenEpisode(ctx, d, ref)
}

// dataDirOf is the data_dir a command reads: dir (--dir) if given,
// else the data_dir of the config file cfgFile (--config), else the
// default.
func dataDirOf(dir, cfgFile string) (string, error) {
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

package main

import (
	"fmt"
	"os"

	"github.com/edged-robotics/edged/sheet"
	"github.com/spf13/cobra"
)

func init() { register(newSheetCmd) }

func newSheetCmd() *cobra.Command {
	r := sheet.DefaultRecipe()
	var (
		fps    float64
		stamps string
		out    string
		camera string
	)
	cmd := &cobra.Command{
		Use:   "sheet [--fps F | --stamps FILE] [--out DIR] [recipe flags] FRAME...",
		Short: "Build contact sheets offline from JPEG or PNG frames",
		Long: `Build contact sheets from JPEG or PNG files, in the order given, exactly as
edged run does on the robot: writes sheet-0001.jpg, ... with a .json of
metadata each, and sheets.json (all metadata plus bytes and VLM token cost).
Frame times come from --fps (default 30) or from --stamps, a file of one
time in seconds per line; the first frame is the episode start.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("fps") && stamps != "" {
				return fmt.Errorf("give --fps or --stamps, not both")
			}
			times := sheet.FPSStamps(len(args), fps)
			if stamps != "" {
				f, err := os.Open(stamps)
				if err != nil {
					return err
				}
				defer f.Close()
				if times, err = sheet.ParseStamps(f); err != nil {
					return fmt.Errorf("%s: %w", stamps, err)
				}
			} else if fps <= 0 {
				return fmt.Errorf("--fps: must be > 0")
			}
			sum, err := sheet.BuildFiles(args, times, r, camera, out)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", out, sum)
			return err
		},
	}
	f := cmd.Flags()
	f.Float64Var(&fps, "fps", 30, "frames per second of the input (frame i at i/fps seconds)")
	f.StringVar(&stamps, "stamps", "", "file with one stamp in seconds per line, one per frame")
	f.StringVar(&out, "out", "sheets", "output directory")
	f.StringVar(&camera, "camera", "offline", "camera name written in the metadata")
	f.DurationVar(&r.Interval, "interval", r.Interval, "time between ticks (sheet.interval)")
	f.IntVar(&r.TileWidth, "tile-width", r.TileWidth, "tile width in pixels (sheet.tile_width)")
	f.IntVar(&r.Columns, "columns", r.Columns, "tiles per row (sheet.columns)")
	f.IntVar(&r.Rows, "rows", r.Rows, "rows per sheet (sheet.rows)")
	f.IntVar(&r.Quality, "quality", r.Quality, "JPEG quality 1..100 (sheet.quality)")
	f.DurationVar(&r.Grace, "grace", r.Grace, "wait for late frames after a tick's window (sheet.grace)")
	return cmd
}

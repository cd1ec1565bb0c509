package recipe

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// TestRecipeBudget: the recipes of issues 10 and 15 that passed config
// check and then could not run (15 GB canvas; 900 tiles) are refused,
// naming the field; recipes at the budget pass.
func TestRecipeBudget(t *testing.T) {
	for _, tc := range []struct {
		name            string
		tw, cols, rows  int
		labelTiles      int
		wantField, want string // "" = valid
	}{
		{"default", 224, 5, 4, 5, "", ""},
		{"400 default tiles", 224, 20, 20, 5, "", ""},
		{"one 2048 tile", 2048, 1, 1, 5, "", ""},
		{"one 4096 tile, one label tile", 4096, 1, 1, 1, "", ""},
		{"issue 10: 15 GB", 4096, 20, 20, 5, "columns", "px wide"},
		{"issue 10 narrower: pixels", 1024, 8, 8, 5, "tile_width", "pixels"},
		{"issue 15: 30x30", 224, 30, 30, 5, "rows", "columns x rows must be <= 400"},
		{"tall", 640, 1, 40, 5, "rows", "px high"},
		{"label row too wide", 4096, 1, 1, 5, "tile_width", "labeling sheet"},
		{"label tiles cap", 224, 5, 4, 401, "label_tiles", "must be <= 400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Default()
			r.TileWidth, r.Columns, r.Rows, r.LabelTiles = tc.tw, tc.cols, tc.rows, tc.labelTiles
			err := r.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var fe *fielderr.Error
			if !errors.As(err, &fe) || fe.Field != "sheet."+tc.wantField || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a sheet.%s error containing %q", err, tc.wantField, tc.want)
			}
		})
	}
}

// TestMaxTileHeightBoundsTheCanvas: whatever the camera's aspect ratio,
// the canvas of a valid recipe (sheet and labeling sheet) stays within
// MaxSheetPixels and MaxSheetSide, and a 4:3 camera is never letterboxed.
func TestMaxTileHeightBoundsTheCanvas(t *testing.T) {
	for _, tw := range []int{1, 16, 224, 640, 1024, 3000, 4096} {
		for _, cols := range []int{1, 3, 5, 20} {
			for _, rows := range []int{1, 4, 20} {
				r := Default()
				r.TileWidth, r.Columns, r.Rows = tw, cols, rows
				if r.Validate() != nil {
					continue
				}
				mh := r.MaxTileHeight()
				for _, aspect := range [][2]int{{4, 3}, {16, 9}, {1, 1}, {3, 4}, {1, 1000}} {
					th := min(TileHeight(tw, aspect[0], aspect[1]), mh)
					sheet := int64(cols*tw) * int64(rows*th)
					label := int64(r.LabelTiles*tw) * int64(th)
					if sheet > MaxSheetPixels || label > MaxSheetPixels || rows*th > MaxSheetSide {
						t.Fatalf("%+v aspect %v: canvas %d / label %d pixels over the budget", r, aspect, sheet, label)
					}
				}
				if TileHeight(tw, 4, 3) > mh {
					t.Fatalf("%+v: a 4:3 tile (%d px) is capped to %d", r, TileHeight(tw, 4, 3), mh)
				}
			}
		}
	}
}

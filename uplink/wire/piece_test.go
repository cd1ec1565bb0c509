package wire

import (
	"strings"
	"testing"
)

func TestPieceRoundTrip(t *testing.T) {
	for _, p := range []Piece{EndPiece, {Kind: KindEpisodeStart}, {Kind: KindSegment, Index: 7},
		{Kind: KindSheet, Camera: "top", Index: 12}, {Kind: KindLabelSheet, Camera: "wrist_cam", Index: 0},
		{Kind: KindSnippet, Camera: "a.b-c", Index: 1 << 40}} {
		got, err := ParsePiece(p.String())
		if err != nil || got != p {
			t.Errorf("%v -> %q -> %v, %v", p, p.String(), got, err)
		}
	}
}

func TestParsePieceRefuses(t *testing.T) {
	for _, s := range []string{"", "segment", "segment/-1", "segment/01", "segment/x", "segment/cam/1", "sheet/1",
		"status/1", "nope/1", "sheet/../1", "sheet/a:b/1", "sheet/.x/1", "sheet/a/b/1", "sheet//1",
		"sheet/" + strings.Repeat("c", 200) + "/1", "segment/99999999999999999999"} {
		if p, err := ParsePiece(s); err == nil {
			t.Errorf("ParsePiece(%q) = %v, want an error", s, p)
		}
	}
}

func TestDecodeRepair(t *testing.T) {
	ok := Repair{Robot: "arm-01", Episode: "arm-01-20260101T000000.000Z", Time: 1, Missing: []string{"segment/2", "sheet/top/3"}}
	b, _ := ok.MarshalMsg(nil)
	if r, err := DecodeRepair(b); err != nil || len(r.Missing) != 2 {
		t.Fatalf("DecodeRepair = %+v, %v", r, err)
	}
	bad := []Repair{{Robot: "", Episode: "e"}, {Robot: "r", Episode: "../e"}, {Robot: "r", Episode: "e", Missing: []string{"sheet/../1"}}}
	for _, r := range bad {
		b, _ := r.MarshalMsg(nil)
		if _, err := DecodeRepair(b); err == nil {
			t.Errorf("DecodeRepair(%+v) accepted", r)
		}
	}
	many := Repair{Robot: "r", Episode: "e", Missing: make([]string, MaxRepairPieces+1)}
	for i := range many.Missing {
		many.Missing[i] = "segment/1"
	}
	b, _ = many.MarshalMsg(nil)
	if _, err := DecodeRepair(b); err == nil {
		t.Error("a request naming more than MaxRepairPieces pieces accepted")
	}
	if _, err := DecodeRepair(make([]byte, MaxRepair+1)); err == nil {
		t.Error("an oversized request accepted")
	}
}

// A repair request is not an acknowledgement to a robot that reads it as
// one (a robot from before repair: it would mark the episode uploaded).
func TestRepairIsNoAck(t *testing.T) {
	b, _ := (&Repair{Robot: "arm-01", Episode: "arm-01-20260101T000000.000Z", Time: 1, Missing: []string{"segment/1"}}).MarshalMsg(nil)
	if a, err := DecodeAck(b); err == nil {
		t.Fatalf("a repair request decodes as an acknowledgement: %+v", a)
	}
}

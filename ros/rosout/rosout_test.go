package rosout

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/msg"
)

// The definition edged sends must hash to the md5sum rospy and roscpp
// check in the handshake.
func TestDefinitionMD5(t *testing.T) {
	d, err := msg.Parse(Type, Definition)
	if err != nil {
		t.Fatal(err)
	}
	if d.MD5() != MD5Sum {
		t.Fatalf("md5 of Definition = %s, want %s", d.MD5(), MD5Sum)
	}
}

// Marshal's bytes decode, through the definition-driven decoder, to the
// fields that went in.
func TestMarshalDecodes(t *testing.T) {
	d, err := msg.Parse(Type, Definition)
	if err != nil {
		t.Fatal(err)
	}
	in := Log{Seq: 7, Stamp: time.Unix(1700000000, 5), Level: LevelWarn, Name: "/edged", Msg: "disk full",
		File: "f.go", Function: "pkg.F", Line: 42, Topics: []string{"/rosout"}}
	v, err := d.Decode(in.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{"header.seq": uint32(7), "level": int8(LevelWarn), "name": "/edged",
		"msg": "disk full", "file": "f.go", "function": "pkg.F", "line": uint32(42)} {
		got, err := v.Get(path)
		if err != nil || got != want {
			t.Errorf("%s = %#v (%v), want %#v", path, got, err, want)
		}
	}
	if got, _ := v.Get("topics"); len(got.([]string)) != 1 {
		t.Errorf("topics = %#v", got)
	}
}

type capture struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (c *capture) Publish(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, b)
}

func TestHandler(t *testing.T) {
	d, _ := msg.Parse(Type, Definition)
	var term bytes.Buffer
	h := New(slog.NewTextHandler(&term, &slog.HandlerOptions{Level: slog.LevelWarn}), slog.LevelInfo)
	log := slog.New(h)
	log.Info("before attach") // the terminal's level drops it; /rosout is not attached yet
	pub := &capture{}
	h.Attach(pub, "/edged", []string{"/rosout"}, func() time.Time { return time.Unix(100, 0) })
	log.With("camera", "front").WithGroup("g").Info("tick late", "by", "2 s", "n", 3)
	log.Debug("below the level")
	log.Error("store", "err", "no space")
	if len(pub.msgs) != 2 {
		t.Fatalf("published %d records, want 2", len(pub.msgs))
	}
	want := []struct {
		level int8
		msg   string
	}{{int8(LevelInfo), `tick late camera=front g.by="2 s" g.n=3`}, {int8(LevelError), `store err="no space"`}}
	for i, w := range want {
		v, err := d.Decode(pub.msgs[i])
		if err != nil {
			t.Fatal(err)
		}
		lvl, _ := v.Get("level")
		text, _ := v.Get("msg")
		seq, _ := v.Get("header.seq")
		if lvl != w.level || text != w.msg || seq != uint32(i+1) {
			t.Errorf("record %d: level %v msg %q seq %v, want %v %q", i, lvl, text, seq, w.level, w.msg)
		}
		if fn, _ := v.Get("function"); !strings.Contains(fn.(string), "TestHandler") {
			t.Errorf("record %d: function %q", i, fn)
		}
	}
	if strings.Contains(term.String(), "tick late") || !strings.Contains(term.String(), "no space") {
		t.Errorf("terminal got %q: its own level must hold", term.String())
	}
	h.Detach()
	log.Error("after detach")
	if len(pub.msgs) != 2 {
		t.Error("published after Detach")
	}
	_ = h.Handle(context.Background(), slog.NewRecord(time.Now(), slog.LevelError, strings.Repeat("x", 2*MaxMessage), 0))
}

func TestLevels(t *testing.T) {
	for l, want := range map[slog.Level]byte{slog.LevelDebug: LevelDebug, slog.LevelInfo: LevelInfo,
		slog.LevelWarn: LevelWarn, slog.LevelError: LevelError, slog.LevelError + 4: LevelFatal} {
		if got := level(l); got != want {
			t.Errorf("level(%v) = %d, want %d", l, got, want)
		}
	}
}

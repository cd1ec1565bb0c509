package wire

import (
	"bytes"
	"testing"
)

func TestSplitAndValidate(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 1000)
	e := New(NewID(), "arm-01", "ep", KindSheet, 1, 1, body)
	parts, err := Split(e, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for i, p := range parts {
		if len(p) > 2048 {
			t.Fatalf("chunk %d has %d bytes", i, len(p))
		}
		c, err := Decode(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if c.Chunk != uint32(i) || c.Chunks != uint32(len(parts)) || c.ID != e.ID {
			t.Fatalf("chunk %d: %+v", i, c)
		}
		got = append(got, c.Body...)
	}
	if !bytes.Equal(got, body) || Checksum(got) != e.CRC {
		t.Fatal("reassembly differs")
	}
	for _, bad := range []Envelope{
		{Version: 2, ID: "a", Robot: "r", Episode: "e", Kind: KindSegment, Chunks: 1},
		{Version: 1, ID: "a/b", Robot: "r", Episode: "e", Kind: KindSegment, Chunks: 1},
		{Version: 1, ID: "a", Robot: "..", Episode: "e", Kind: KindSegment, Chunks: 1},
		{Version: 1, ID: "a", Robot: "r", Episode: "e", Kind: "nope", Chunks: 1},
		{Version: 1, ID: "a", Robot: "r", Episode: "e", Kind: KindSegment, Chunks: 0},
		{Version: 1, ID: "a", Robot: "r", Episode: "e", Kind: KindSegment, Chunks: 2, Chunk: 2, Size: 5},
		{Version: 1, ID: "a", Robot: "r", Episode: "e", Kind: KindSegment, Chunks: 1, Size: 3, Body: []byte("ab")},
	} {
		if bad.Validate() == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestDecodeAck(t *testing.T) {
	good, _ := (&Ack{Robot: "arm-01", Episode: "arm-01-20231114T221320.000Z", Time: 1}).MarshalMsg(nil)
	if a, err := DecodeAck(good); err != nil || a.Episode != "arm-01-20231114T221320.000Z" {
		t.Fatalf("%+v, %v", a, err)
	}
	if AckTopic("edged", "arm-01") != "edged/arm-01/ack/uploaded" {
		t.Error(AckTopic("edged", "arm-01"))
	}
	badName, _ := (&Ack{Robot: "arm-01", Episode: "../x"}).MarshalMsg(nil)
	for name, b := range map[string][]byte{
		"garbage":   []byte("nope"),
		"bad name":  badName,
		"too large": make([]byte, MaxAck+1),
		"trailing":  append(append([]byte(nil), good...), 0xc0),
		"huge str":  {0x81, 0xa5, 'r', 'o', 'b', 'o', 't', 0xdb, 0x7f, 0xff, 0xff, 0xff},
	} {
		if _, err := DecodeAck(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

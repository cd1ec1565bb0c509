package episode

import (
	"bytes"
	"errors"
	"testing"
)

func FuzzScanRecords(f *testing.F) {
	var b []byte
	b = frameRecord(b, []byte(`{"index":0,"label":"reach"}`))
	b = frameRecord(b, []byte(`{"index":1,"label":"grasp"}`))
	f.Add(b)
	f.Add(b[:len(b)-3])
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0})
	f.Add(append(FileHeader(), b...))
	f.Add(append(FileHeader(), b[:len(b)-3]...))
	f.Add(FileHeader()[:5])
	f.Add(append(append([]byte(fileMagic), fileVersion+1), b...))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := ScanRecords(b)
		if err != nil {
			if !errors.Is(err, ErrNewerFormat) || len(sc.Records) != 0 {
				t.Fatalf("scan error %v with %d records", err, len(sc.Records))
			}
			return
		}
		start, _ := recordsStart(b)
		total := start + sc.Torn.Len
		clean := FileHeader()
		for _, p := range sc.Records {
			total += recordHeader + len(p)
			clean = frameRecord(clean, p)
		}
		for _, r := range sc.Bad {
			total += r.Len
		}
		if total != len(b) {
			t.Fatalf("records, corrupt regions and tail cover %d of %d bytes", total, len(b))
		}
		// What recovery writes back scans clean and identical.
		again, err := ScanRecords(clean)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Bad) != 0 || again.Torn.Len != 0 || len(again.Records) != len(sc.Records) {
			t.Fatalf("rewritten file is not clean: %+v", again)
		}
		for i := range again.Records {
			if !bytes.Equal(again.Records[i], sc.Records[i]) {
				t.Fatal("rewritten record differs")
			}
		}
	})
}

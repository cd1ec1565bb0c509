package episode

import (
	"errors"
	"testing"
)

// Every scan rule holds for files with the header and for files written
// before it (robots in the field have those).
func TestScanRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []byte
	}{
		{"with header", FileHeader()},
		{"without header (before format headers)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := len(tc.header)
			b := append([]byte(nil), tc.header...)
			b = frameRecord(b, []byte(`{"a":1}`))
			b = frameRecord(b, []byte(`{"a":2}`))
			second := len(b)
			b = frameRecord(b, []byte(`{"a":3}`))
			good := append([]byte(nil), b...)

			sc := mustScan(t, good)
			if len(sc.Records) != 3 || len(sc.Bad) != 0 || sc.Torn.Len != 0 || sc.GoodEnd != len(good) {
				t.Fatalf("clean scan = %+v", sc)
			}
			// Flip a payload byte of record 2: quarantined, record 3 survives.
			c := append([]byte(nil), good...)
			c[second-2] ^= 0xff
			sc = mustScan(t, c)
			if len(sc.Records) != 2 || len(sc.Bad) != 1 || sc.Bad[0].Off != second-15 || string(sc.Records[1]) != `{"a":3}` {
				t.Fatalf("corrupt scan = %+v", sc)
			}
			// Cut anywhere inside the last record: torn tail.
			for cut := second + 1; cut < len(good); cut++ {
				sc = mustScan(t, good[:cut])
				if len(sc.Records) != 2 || sc.Torn.Off != second || sc.Torn.Len != cut-second {
					t.Fatalf("cut at %d: %+v", cut, sc)
				}
			}
			// An absurd length does not allocate or panic.
			sc = mustScan(t, append(append([]byte(nil), tc.header...), 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5))
			if len(sc.Records) != 0 || sc.Torn.Off != h || sc.Torn.Len != 9 {
				t.Fatalf("absurd length: %+v", sc)
			}
		})
	}
}

func mustScan(t *testing.T, b []byte) Scan {
	t.Helper()
	sc, err := ScanRecords(b)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestScanRecordsHeaderDamage(t *testing.T) {
	rec := frameRecord(nil, []byte(`{"a":1}`))
	newer := append([]byte(fileMagic), fileVersion+1)
	if _, err := ScanRecords(append(newer, rec...)); !errors.Is(err, ErrNewerFormat) {
		t.Errorf("newer version: %v, want ErrNewerFormat", err)
	}
	// A flipped magic byte is a corrupt region before a good record.
	bad := append(FileHeader(), rec...)
	bad[1] ^= 0xff
	sc := mustScan(t, bad)
	if len(sc.Records) != 1 || len(sc.Bad) != 1 || sc.Bad[0] != (Region{0, fileHeaderBytes}) {
		t.Errorf("damaged magic: %+v", sc)
	}
	// A header cut short (a crash while creating the file) is a torn tail.
	sc = mustScan(t, FileHeader()[:3])
	if len(sc.Records) != 0 || sc.Torn != (Region{0, 3}) || sc.GoodEnd != 0 {
		t.Errorf("torn header: %+v", sc)
	}
}

// TestAppendRecord: the one record writer gives a new file its header,
// frames every record as the readers scan it, and refuses a record or a
// file over its cap (the robot's store used to append past MaxFileBytes,
// making a file no reader reads), leaving dst as it was.
func TestAppendRecord(t *testing.T) {
	payload := []byte(`{"index":0}`)
	framed := frameRecord(nil, payload)
	big := make([]byte, MaxRecordBytes+1)
	for _, tc := range []struct {
		name    string
		dst     []byte
		size    int64
		payload []byte
		want    []byte // what is appended to dst
		tooBig  bool
		refused bool
	}{
		{"a new file gets the header", nil, 0, payload, append(FileHeader(), framed...), false, false},
		{"an existing file does not", []byte("old"), 3, payload, framed, false, false},
		{"a file before headers does not", nil, 100, payload, framed, false, false},
		{"a record over MaxRecordBytes", []byte("old"), 3, big, nil, true, false},
		{"a file that would pass MaxFileBytes", nil, MaxFileBytes - int64(len(framed)) + 1, payload, nil, true, false},
		{"a file that reaches MaxFileBytes", nil, MaxFileBytes - int64(len(framed)), payload, framed, false, false},
		{"an empty record", []byte("old"), 3, nil, nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := string(tc.dst)
			got, err := AppendRecord(tc.dst, tc.size, tc.payload)
			if tc.refused {
				if err == nil || string(got) != old {
					t.Fatalf("got %q, %v; want dst unchanged and an error", got, err)
				}
				return
			}
			if tc.tooBig {
				if !errors.Is(err, ErrRecordTooLarge) || string(got) != old {
					t.Fatalf("got %d bytes, %v; want dst unchanged and ErrRecordTooLarge", len(got), err)
				}
				return
			}
			if err != nil || string(got) != old+string(tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, old+string(tc.want))
			}
			if tc.size == 0 {
				if sc, err := ScanRecords(got); err != nil || len(sc.Records) != 1 || string(sc.Records[0]) != string(payload) {
					t.Errorf("scan of a new file: %+v, %v", sc, err)
				}
			}
		})
	}
}

package mcap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
)

// TestDataSectionCRC: the G1 file's data section CRC (written by
// @mcap/core) is checked where the data section is read whole (a scan,
// or Options.VerifyDataCRC), and a byte changed in the data section
// that nothing else covers (the header's library name) is reported with
// the DataEnd record's offset.
func TestDataSectionCRC(t *testing.T) {
	orig, err := readSample(t, "ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap")
	if err != nil {
		t.Fatal(err)
	}
	foot := len(orig) - footerSize
	sumStart := binary.LittleEndian.Uint64(orig[foot+recordPrefix:])
	dataEnd := int64(sumStart) - dataEndSize
	if orig[dataEnd] != opDataEnd {
		t.Fatalf("no DataEnd record at %d", dataEnd)
	}
	// the library string is the header's last field: its last byte
	hdrLen := binary.LittleEndian.Uint64(orig[len(Magic)+1:])
	lib := len(Magic) + recordPrefix + int(hdrLen) - 1

	unindexed := func(b []byte) []byte { // footer's summary start 0: scanned
		binary.LittleEndian.PutUint64(b[foot+recordPrefix:], 0)
		return b
	}
	damaged := func(b []byte) []byte { b[lib] ^= 0x20; return b }
	for _, tc := range []struct {
		name    string
		edit    []func([]byte) []byte
		verify  bool
		checked bool
		problem string
	}{
		{"indexed, not asked", nil, false, false, ""},
		{"indexed, verified", nil, true, true, ""},
		{"scanned", []func([]byte) []byte{unindexed}, false, true, ""},
		{"indexed, damaged, not asked", []func([]byte) []byte{damaged}, false, false, ""},
		{"indexed, damaged, verified", []func([]byte) []byte{damaged}, true, false, fmt.Sprintf("data section CRC mismatch (DataEnd says %08x", binary.LittleEndian.Uint32(orig[dataEnd+recordPrefix:]))},
		{"scanned, damaged", []func([]byte) []byte{unindexed, damaged}, false, false, fmt.Sprintf("at byte offset %d", dataEnd)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			for _, e := range tc.edit {
				b = e(b)
			}
			r, err := NewReader(bytes.NewReader(b), int64(len(b)), "g1", Options{VerifyDataCRC: tc.verify})
			if err != nil {
				t.Fatal(err)
			}
			info := r.Info()
			if info.DataCRCChecked != tc.checked {
				t.Errorf("DataCRCChecked %v, want %v", info.DataCRCChecked, tc.checked)
			}
			got := strings.Join(info.Problems, "; ")
			if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) {
				t.Errorf("problems %q, want %q", got, tc.problem)
			}
			if tc.problem != "" && !strings.Contains(got, fmt.Sprintf("at byte offset %d", dataEnd)) {
				t.Errorf("problems %q do not name DataEnd's offset %d", got, dataEnd)
			}
		})
	}
}

func readSample(t *testing.T, name string) ([]byte, error) {
	t.Helper()
	r, err := Open(sampledata.Path(t, name), Options{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, r.size)
	_, err = r.ra.ReadAt(b, 0)
	return b, err
}

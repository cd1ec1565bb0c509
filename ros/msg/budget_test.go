package msg

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"
)

const budgetDefs = `Empty[] empties
Byte[] bytes
string[] names
Point[] points
================================================================================
MSG: test_msgs/Empty
================================================================================
MSG: test_msgs/Byte
uint8 b
================================================================================
MSG: test_msgs/Point
float64 x
float64 y
float64 z
`

// arrayMessage is a test_msgs/Budget with n elements in the array at
// index which (0: Empty, 1: Byte, 2: string, 3: Point) of elemSize
// zero bytes each.
func arrayMessage(which, n, elemSize int) []byte {
	var b []byte
	for i := 0; i < 4; i++ {
		if i != which {
			b = binary.LittleEndian.AppendUint32(b, 0)
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		b = append(b, make([]byte, n*elemSize)...)
	}
	return b
}

func budgetDef(t testing.TB) *Definition {
	d, err := Parse("test_msgs/Budget", budgetDefs)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The decoder never materializes more than DecodeBudget for a message:
// arrays of empty or one-byte messages (40-56x their wire size; the
// finding: 60 MiB took 2.6 GB) are refused before the array is
// allocated, ordinary arrays still decode.
func TestDecodeBudget(t *testing.T) {
	d := budgetDef(t)
	const n = 4 << 20
	tests := []struct {
		name      string
		data      []byte
		want      error
		wantCount int
	}{
		{"empty messages, trailing bytes", arrayMessage(0, n, 1), ErrBudget, 0},
		{"one-byte messages", arrayMessage(1, n, 1), ErrBudget, 0},
		{"empty strings", arrayMessage(2, n/4, 4), nil, n / 4},
		{"points", arrayMessage(3, n/24, 24), nil, n / 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			v, err := d.Decode(tt.data)
			runtime.ReadMemStats(&after)
			if grown := after.TotalAlloc - before.TotalAlloc; grown > uint64(DecodeBudget(len(tt.data))) {
				t.Errorf("allocated %d MiB for %d MiB, budget %d MiB", grown>>20, len(tt.data)>>20, DecodeBudget(len(tt.data))>>20)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if tt.want == nil {
				var count int
				for _, f := range v.Fields {
					switch a := f.(type) {
					case []*Value:
						count += len(a)
					case []string:
						count += len(a)
					}
				}
				if count != tt.wantCount {
					t.Errorf("decoded %d elements, want %d", count, tt.wantCount)
				}
			}
		})
	}
}

// FuzzDecodeBudget decodes arbitrary bytes as test_msgs/Budget, whose
// arrays of tiny messages amplify the most: any input is decoded or
// refused, never a panic (TestDecodeBudget checks the memory).
func FuzzDecodeBudget(f *testing.F) {
	d := budgetDef(f)
	f.Add(arrayMessage(0, 20000, 1))
	f.Add(arrayMessage(1, 20000, 1))
	f.Add(arrayMessage(3, 10, 24))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := d.Decode(data)
		if err != nil {
			return
		}
		if _, err := v.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}

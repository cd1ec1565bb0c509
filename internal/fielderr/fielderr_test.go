package fielderr

import (
	"errors"
	"io"
	"testing"
)

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   *Error
		want  string
		cause error
	}{
		{"plain", New("a.b", "must be >= %d", 1), "a.b: must be >= 1", nil},
		{"wrapped cause", New("fsm[0].field", "%w", io.EOF), "fsm[0].field: EOF", io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if tc.cause != nil && !errors.Is(tc.err, tc.cause) {
				t.Errorf("the cause %v is lost", tc.cause)
			}
		})
	}
}

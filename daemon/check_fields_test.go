package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestCheckErrorsAreFieldErrors: every problem Check reports is a
// *config.FieldError naming the YAML key, whichever component's rule
// refused it, so that RenameFields can name the flag a command took the
// value from. ringbuf's and ros's rules returned plain errors (the key
// only in the text) and the recipe its own error type; so did two
// ros2.qos keys of one topic and the checks section's rules.
func TestCheckErrorsAreFieldErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, field string }{
		{"ring: {max_bytes: 1000}", "ring.max_bytes"},
		{"ring: {max_age: 0}", "ring.max_age"},
		{"ros: {master_uri: 'localhost:11311'}", "ros.master_uri"},
		{"ros: {node_name: '~edged'}", "ros.node_name"},
		{"ros: {node_name: 'a b'}", "ros.node_name"},
		{"ros: {host: 'a b'}", "ros.host"},
		{"sheet: {columns: 30, rows: 30}", "sheet.rows"},
		{"sheet: {preset: cheap}", "sheet.preset"},
		{"ros2: {qos: {/cam: bogus}}", "ros2.qos"},
		{"ros2: {qos: {cam: latched, /cam: sensor_data}}", "ros2.qos"}, // one topic once resolved
		{"checks: {rules: {checks: [{name: a, formula: 'tr.Exists(a'}]}}", "checks.rules"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			cfg, err := config.Parse([]byte("data_dir: " + t.TempDir() + "\nrobot_id: r\n" + tc.yaml + "\n"))
			if err == nil {
				err = Check(cfg)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			renamed := config.RenameFields(err, map[string]string{tc.field: "--flag"})
			var ve *config.ValidationError
			if !errors.As(renamed, &ve) {
				t.Fatalf("%v: no field error in it", err)
			}
			for _, p := range ve.Problems {
				var fe *config.FieldError
				if !errors.As(p, &fe) {
					t.Errorf("%q is not a field error", p)
				}
			}
			if !strings.Contains(renamed.Error(), "--flag: ") {
				t.Errorf("renaming %s gave %q", tc.field, renamed)
			}
		})
	}
}

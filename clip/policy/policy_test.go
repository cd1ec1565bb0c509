package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// TestCheckGoalSources: on_goal_failure, when clips are on, needs an
// actionlib fsm source; the error names the field and what to do.
func TestCheckGoalSources(t *testing.T) {
	for _, tc := range []struct {
		name             string
		enabled, on, has bool
		wantErr          bool
	}{
		{"on without a source", true, true, false, true},
		{"on with a source", true, true, true, false},
		{"off without a source", true, false, false, false},
		{"clips disabled", false, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Enabled, c.OnGoalFailure = tc.enabled, tc.on
			err := c.CheckGoalSources(tc.has)
			var fe *fielderr.Error
			switch {
			case !tc.wantErr && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr && (!errors.As(err, &fe) || !strings.Contains(err.Error(), "clips.on_goal_failure") ||
				!strings.Contains(err.Error(), "fsm[].type: actionlib")):
				t.Fatalf("error %v, want a clips.on_goal_failure field error saying what to add", err)
			}
		})
	}
}

// TestValidateUpload: the upload settings' rules, each error naming its
// clips key; the defaults pass and keep clips on the robot.
func TestValidateUpload(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(*Config)
		wantKey string // "" : valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"bucket", func(c *Config) { c.Upload = "s3://fleet" }, ""},
		{"bucket and prefix", func(c *Config) { c.Upload = "s3://fleet/clips/" }, ""},
		{"not s3", func(c *Config) { c.Upload = "https://fleet/clips" }, "clips.upload"},
		{"no bucket", func(c *Config) { c.Upload = "s3:///clips" }, "clips.upload"},
		{"a path", func(c *Config) { c.Upload = "/var/clips" }, "clips.upload"},
		{"rate zero", func(c *Config) { c.UploadRate = 0 }, "clips.upload_rate"},
		{"rate too slow", func(c *Config) { c.UploadRate = MinUploadRate - 1 }, "clips.upload_rate"},
		{"rate at the floor", func(c *Config) { c.UploadRate = MinUploadRate }, ""},
		{"part under S3's minimum", func(c *Config) { c.UploadPart = MinUploadPart - 1 }, "clips.upload_part"},
		{"part at S3's minimum", func(c *Config) { c.UploadPart = MinUploadPart }, ""},
		{"part over S3's maximum", func(c *Config) { c.UploadPart = MaxUploadPart + 1 }, "clips.upload_part"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.edit(&c)
			err := c.Validate()
			var fe *fielderr.Error
			switch {
			case tc.wantKey == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantKey != "" && (!errors.As(err, &fe) || !strings.Contains(err.Error(), tc.wantKey+":")):
				t.Fatalf("error %v, want a %s field error", err, tc.wantKey)
			}
		})
	}
	if d := Default(); d.Upload != "" || d.KeepUploaded {
		t.Fatalf("default upload %q keep %v: clips must stay on the robot unless an upload is configured", d.Upload, d.KeepUploaded)
	}
}

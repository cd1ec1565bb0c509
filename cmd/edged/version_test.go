package main

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

func TestReadBuildInfoSettings(t *testing.T) {
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "-tags", Value: "purego,netgo"}, {Key: "CGO_ENABLED", Value: "0"},
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-04-22T07:22:06Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	got := readBuildInfo(bi)
	if !slices.Equal(got.Tags, []string{"purego", "netgo"}) || got.CGO || got.Commit != "0123abcd" || !got.Modified ||
		got.CommitTime != "2026-04-22T07:22:06Z" || got.GoVersion != runtime.Version() {
		t.Fatalf("readBuildInfo = %+v", got)
	}
	var text strings.Builder
	if err := got.writeText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0123abcd (modified)", "tags:     purego,netgo", "cgo:      false"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if none := readBuildInfo(nil); none.Commit != "" || none.Tags == nil || none.GoVersion == "" {
		t.Fatalf("without build info: %+v", none)
	}
	commit = "fedcba98"
	defer func() { commit = "" }()
	if got := readBuildInfo(bi); got.Commit != "fedcba98" {
		t.Fatalf("-X main.commit does not win over vcs.revision: %+v", got)
	}
}

// TestVersionBinary: the built binary (TestMain, a cgo build in this
// checkout) reports its commit, Go, cgo and the libturbojpeg it loaded,
// in text and as JSON.
func TestVersionBinary(t *testing.T) {
	var got buildInfo
	if err := json.Unmarshal([]byte(edged(t, true, "version", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.GoVersion != runtime.Version() || got.Platform != runtime.GOOS+"/"+runtime.GOARCH || got.Version == "" {
		t.Fatalf("version --json = %+v", got)
	}
	if got.JPEG.Backend != turbojpeg.Backend || got.JPEG.Linked != (turbojpeg.Backend == "libturbojpeg") {
		t.Fatalf("jpeg = %+v, want the backend %s", got.JPEG, turbojpeg.Backend)
	}
	if got.JPEG.Linked && (!got.CGO || !strings.Contains(got.JPEG.Path, "libturbojpeg.so")) {
		t.Fatalf("cgo build: %+v", got)
	}
	if got.Commit == "" {
		t.Log("no commit: the test binary was built without VCS stamping (-buildvcs=false in GOFLAGS or go env)")
	} else if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && got.Commit != strings.TrimSpace(string(head)) {
		t.Errorf("commit = %q, want HEAD %s", got.Commit, head)
	}
	text := edged(t, true, "version")
	if !strings.HasPrefix(text, "edged "+got.Version+"\n") || !strings.Contains(text, "libturbojpeg linked: "+got.JPEG.Path) {
		t.Fatalf("version:\n%s", text)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// commit may be set with -ldflags "-X main.commit=..." where the Go
// toolchain cannot stamp the revision itself (-buildvcs=false, a source
// tarball); it wins over vcs.revision.
var commit string

// buildInfo is what `edged version` reports: enough to tell which source,
// toolchain and JPEG backend a robot runs.
type buildInfo struct {
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from (vcs.revision);
	// empty when built outside a checkout. Modified: uncommitted changes.
	Commit     string                `json:"commit,omitempty"`
	CommitTime string                `json:"commit_time,omitempty"`
	Modified   bool                  `json:"modified,omitempty"`
	GoVersion  string                `json:"go_version"`
	Platform   string                `json:"platform"`
	Tags       []string              `json:"tags"`
	CGO        bool                  `json:"cgo"`
	JPEG       turbojpeg.LibraryInfo `json:"jpeg"`
}

// readBuildInfo gathers the report from the version set with -ldflags,
// the build settings the Go toolchain embedded (bi may be nil: none) and the JPEG backend compiled in.
func readBuildInfo(bi *debug.BuildInfo) buildInfo {
	info := buildInfo{Version: version, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Tags: []string{}, JPEG: turbojpeg.Library()}
	var settings []debug.BuildSetting
	if bi != nil {
		settings = bi.Settings
	}
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.CommitTime = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		case "-tags":
			for _, tag := range strings.Split(s.Value, ",") {
				if tag = strings.TrimSpace(tag); tag != "" {
					info.Tags = append(info.Tags, tag)
				}
			}
		case "CGO_ENABLED":
			info.CGO = s.Value == "1"
		}
	}
	if commit != "" {
		info.Commit = commit
	}
	return info
}

func (b buildInfo) writeText(w io.Writer) error {
	commit := b.Commit
	switch {
	case commit == "":
		commit = "unknown (built outside a git checkout)"
	case b.Modified:
		commit += " (modified)"
	}
	if b.CommitTime != "" {
		commit += " " + b.CommitTime
	}
	tags := strings.Join(b.Tags, ",")
	if tags == "" {
		tags = "none"
	}
	jpeg := "pure Go (image/jpeg), libturbojpeg not linked"
	if b.JPEG.Linked {
		jpeg = "libturbojpeg linked"
		if b.JPEG.Path != "" {
			jpeg += ": " + b.JPEG.Path
		}
		if b.JPEG.HeaderVersion != "" {
			jpeg += " (built with libjpeg-turbo " + b.JPEG.HeaderVersion + " headers)"
		}
	}
	_, err := fmt.Fprintf(w, "edged %s\ncommit:   %s\ngo:       %s %s\ntags:     %s\ncgo:      %t\njpeg:     %s\n",
		b.Version, commit, b.GoVersion, b.Platform, tags, b.CGO, jpeg)
	return err
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print edged's version, commit, Go version, build tags and JPEG backend",
		Long: `Print the version (set at build time), the git commit the binary was built
from, the Go version and platform, the build tags (purego: the pure-Go JPEG
fallback), and whether libturbojpeg is linked, with the library file loaded
and the libjpeg-turbo release of the headers it was built with.
--json prints the same as one object with snake_case keys.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			info := readBuildInfo(bi)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			return info.writeText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

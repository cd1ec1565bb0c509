package rosbag2

import (
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// MetadataFile is the name of a bag directory's metadata.
const MetadataFile = "metadata.yaml"

// maxMetadataBytes caps metadata.yaml (it lists topics and files).
const maxMetadataBytes = 16 << 20

// Metadata versions this reader understands (rosbag2 wrote 1..9 from
// Dashing to Kilted; every field it needs is in all of them).
const (
	minMetadataVersion = 1
	maxMetadataVersion = 9
)

// Metadata is what edged reads of metadata.yaml.
type Metadata struct {
	Version           int      `yaml:"version"`
	StorageIdentifier string   `yaml:"storage_identifier"` // mcap or sqlite3
	RelativeFilePaths []string `yaml:"relative_file_paths"`
	Files             []struct {
		Path string `yaml:"path"`
	} `yaml:"files"`
	MessageCount uint64 `yaml:"message_count"`
	Topics       []struct {
		Meta struct {
			Name                string `yaml:"name"`
			Type                string `yaml:"type"`
			SerializationFormat string `yaml:"serialization_format"`
		} `yaml:"topic_metadata"`
		MessageCount uint64 `yaml:"message_count"`
	} `yaml:"topics_with_message_count"`
	CompressionFormat string `yaml:"compression_format"` // "" or zstd
	CompressionMode   string `yaml:"compression_mode"`   // "", FILE or MESSAGE
	ROSDistro         string `yaml:"ros_distro"`
}

// parseMetadata parses metadata.yaml and checks what the reader relies on.
func parseMetadata(b []byte) (*Metadata, error) {
	var doc struct {
		Info *Metadata `yaml:"rosbag2_bagfile_information"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", MetadataFile, err)
	}
	if doc.Info == nil {
		return nil, fmt.Errorf("%s: no rosbag2_bagfile_information: not a rosbag2 bag", MetadataFile)
	}
	m := *doc.Info
	if m.Version < minMetadataVersion || m.Version > maxMetadataVersion {
		return nil, fmt.Errorf("%s: version %d not supported (%d..%d are)", MetadataFile, m.Version, minMetadataVersion, maxMetadataVersion)
	}
	switch m.StorageIdentifier {
	case "mcap", "sqlite3":
	default:
		return nil, fmt.Errorf("%s: storage %q not supported (mcap and sqlite3 are)", MetadataFile, m.StorageIdentifier)
	}
	if err := m.checkCompression(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Metadata) checkCompression() error {
	switch {
	case m.CompressionMode == "" || strings.EqualFold(m.CompressionMode, "none"):
		m.CompressionMode = ""
		return nil
	case m.CompressionFormat != "zstd":
		return fmt.Errorf("%s: compression format %q not supported (zstd is)", MetadataFile, m.CompressionFormat)
	case strings.EqualFold(m.CompressionMode, "file"):
		m.CompressionMode = "FILE"
	case strings.EqualFold(m.CompressionMode, "message"):
		m.CompressionMode = "MESSAGE"
	default:
		return fmt.Errorf("%s: compression mode %q not supported (FILE and MESSAGE are)", MetadataFile, m.CompressionMode)
	}
	return nil
}

// files returns the storage files in order, as paths under dir. A name
// that leaves the directory is refused.
func (m *Metadata) files(dir string) ([]string, error) {
	names := m.RelativeFilePaths
	if len(names) == 0 {
		for _, f := range m.Files {
			names = append(names, f.Path)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: lists no storage files", MetadataFile)
	}
	out := make([]string, len(names))
	listed := make(map[string]int, len(names))
	for i, n := range names {
		if !filepath.IsLocal(n) {
			return nil, fmt.Errorf("%s: file %q is outside the bag directory", MetadataFile, n)
		}
		out[i] = filepath.Join(dir, n)
		if j, ok := listed[out[i]]; ok {
			return nil, fmt.Errorf("%s: file %q is listed twice (entries %d and %d): a bag lists each storage file once", MetadataFile, n, j+1, i+1)
		}
		listed[out[i]] = i
	}
	return out, nil
}

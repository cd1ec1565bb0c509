package mcap

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// mcapCorePackages is what mcapcore.cjs needs from npm: Foxglove's
// reader (the version ../shared/data/ros2 was checked with) and the
// decompressors Foxglove's tools use.
var mcapCorePackages = []string{"@mcap/core@2.2.2", "@foxglove/wasm-zstd@1.0.1", "@foxglove/wasm-lz4@1.0.2"}

var mcapCore struct {
	once       sync.Once
	modules    string // a node_modules directory
	skip, fail string
}

// mcapCoreModules installs mcapCorePackages once into the user's cache
// directory (CACHE/edged/npm/mcap-core-2.2.2, reused by later runs) and
// returns its node_modules; it skips the test when node or npm is
// missing or npm cannot install them (offline).
func mcapCoreModules(t *testing.T) string {
	t.Helper()
	mcapCore.once.Do(installMcapCore)
	if mcapCore.fail != "" {
		t.Fatal(mcapCore.fail)
	}
	if mcapCore.skip != "" {
		t.Skip(mcapCore.skip)
	}
	return mcapCore.modules
}

func installMcapCore() {
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			mcapCore.skip = fmt.Sprintf("%s not installed: Foxglove's @mcap/core reader needs node and npm (Debian nodejs, npm; make deps)", bin)
			return
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "edged", "npm", "mcap-core-2.2.2")
	mcapCore.modules = filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(mcapCore.modules, "@mcap", "core", "package.json")); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		mcapCore.fail = err.Error()
		return
	}
	// install beside it and rename into place, so a concurrent test
	// process never sees half an install
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		mcapCore.fail = err.Error()
		return
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock", "--prefix", tmp}, mcapCorePackages...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		mcapCore.skip = fmt.Sprintf("npm could not install %v (offline?): %v\n%s", mcapCorePackages, err, tail(out, 800))
		return
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(mcapCore.modules, "@mcap", "core")); serr != nil {
			mcapCore.fail = fmt.Sprintf("installing @mcap/core into %s: %v", dir, err)
		}
	}
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// coreView is what mcapcore.cjs prints.
type coreView struct {
	Indexed struct {
		Profile, Library string
		Compressions     []string
		Schemas          []struct {
			ID             uint16
			Name, Encoding string
			Data           []byte
		}
		Channels []struct {
			ID                     uint16
			SchemaID               uint16 `json:"schemaId"`
			Topic, MessageEncoding string
			Metadata               map[string]string
		}
		Statistics *struct {
			MessageCount              string
			ChunkCount, MetadataCount int
			ChannelMessageCounts      map[string]string
		}
		DataCrcMatches    bool
		Messages, Reverse []coreMessage
		ByTopic           map[string]int
		Metadata          []Metadata
	}
	Stream struct {
		Records  map[string]int
		Messages []coreMessage
		Done     bool
	}
}

// coreMessage: channel id, sequence, log time, publish time, data.
type coreMessage [5]any

func (m coreMessage) message() (Message, error) {
	lt, err1 := strconv.ParseUint(fmt.Sprint(m[2]), 10, 64)
	pt, err2 := strconv.ParseUint(fmt.Sprint(m[3]), 10, 64)
	data, err3 := base64.StdEncoding.DecodeString(fmt.Sprint(m[4]))
	ch, ok1 := m[0].(float64)
	seq, ok2 := m[1].(float64)
	if err1 != nil || err2 != nil || err3 != nil || !ok1 || !ok2 {
		return Message{}, fmt.Errorf("message %v does not parse", m)
	}
	return Message{Channel: &Channel{ID: uint16(ch)}, Sequence: uint32(seq), LogTime: lt, PublishTime: pt, Data: data}, nil
}

// readWithCore runs mcapcore.cjs over file.
func readWithCore(t *testing.T, file []byte) coreView {
	t.Helper()
	modules := mcapCoreModules(t)
	path := filepath.Join(t.TempDir(), "written.mcap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "mcapcore.cjs"), path)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("@mcap/core rejects the file: %v\n%s", err, stderr.Bytes())
	}
	var v coreView
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("mcapcore.cjs output: %v", err)
	}
	return v
}

// TestWriterWithMcapCore: Foxglove's own reader opens what the writer
// wrote, through the summary and indexes and front to back, and finds
// every message, channel, schema and metadata record, CRCs matching.
func TestWriterWithMcapCore(t *testing.T) {
	s := testScript(1500)
	for _, tc := range []struct {
		compression string
		chunkSize   int64
	}{
		{CompressionZstd, 16 << 10},
		{CompressionLZ4, 16 << 10},
		{CompressionNone, 16 << 10},
		{CompressionZstd, 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.compression, tc.chunkSize), func(t *testing.T) {
			file := s.write(t, WriterOptions{Profile: "ros2", Compression: tc.compression, ChunkSize: tc.chunkSize})
			v := readWithCore(t, file)
			checkCoreIndexed(t, s, v, tc.compression)
			checkCoreMessages(t, "streamed", s.messages, v.Stream.Messages)
			checkCoreStream(t, s, v)
		})
	}
}

func checkCoreIndexed(t *testing.T, s script, v coreView, compression string) {
	t.Helper()
	ix := v.Indexed
	if compression == CompressionNone {
		compression = ""
	}
	if ix.Profile != "ros2" || ix.Library != DefaultLibrary || !ix.DataCrcMatches || len(ix.Compressions) == 0 ||
		slices.IndexFunc(ix.Compressions, func(c string) bool { return c != compression }) >= 0 {
		t.Errorf("indexed: header %q %q, data CRC matches %v, chunks %v", ix.Profile, ix.Library, ix.DataCrcMatches, ix.Compressions)
	}
	if st := ix.Statistics; st == nil || st.MessageCount != fmt.Sprint(len(s.messages)) || st.ChunkCount != len(ix.Compressions) || st.MetadataCount != len(s.metadata) {
		t.Errorf("statistics %+v", st)
	}
	if len(ix.Schemas) != len(s.schemas) || len(ix.Channels) != len(s.channels) {
		t.Fatalf("%d schemas, %d channels", len(ix.Schemas), len(ix.Channels))
	}
	for _, c := range ix.Channels {
		w := s.channels[c.ID-1]
		if c.Topic != w.Topic || c.SchemaID != w.SchemaID || c.MessageEncoding != w.MessageEncoding || !maps.Equal(c.Metadata, w.Metadata) {
			t.Errorf("channel %+v, want %+v", c, w)
		}
	}
	for _, sc := range ix.Schemas {
		w := s.schemas[sc.ID-1]
		if sc.Name != w.Name || sc.Encoding != w.Encoding || !bytes.Equal(sc.Data, w.Data) {
			t.Errorf("schema %+v, want %+v", sc, w)
		}
	}
	want := s.inLogTimeOrder()
	checkCoreMessages(t, "indexed", want, ix.Messages)
	slices.Reverse(want)
	checkCoreMessages(t, "indexed in reverse", want, ix.Reverse)
	for i, c := range s.channels {
		if n, want := ix.ByTopic[c.Topic], (len(s.messages)+3-i)/4; n != want {
			t.Errorf("topic %s: %d messages through its message indexes, want %d", c.Topic, n, want)
		}
	}
	if len(ix.Metadata) != 1 || ix.Metadata[0].Name != s.metadata[0].Name || !maps.Equal(ix.Metadata[0].Metadata, s.metadata[0].Metadata) {
		t.Errorf("metadata %+v", ix.Metadata)
	}
}

func checkCoreMessages(t *testing.T, how string, want []Message, got []coreMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", how, len(got), len(want))
	}
	for i, g := range got {
		m, err := g.message()
		w := want[i]
		if err != nil || m.Channel.ID != w.Channel.ID || m.Sequence != w.Sequence || m.LogTime != w.LogTime ||
			m.PublishTime != w.PublishTime || !bytes.Equal(m.Data, w.Data) {
			t.Fatalf("%s: message %d is %v (%v), want channel %d seq %d at %d", how, i, g, err, w.Channel.ID, w.Sequence, w.LogTime)
		}
	}
}

// checkCoreStream: the stream reader met every record once (schemas and
// channels twice: in the chunks and in the summary) and the file's end.
func checkCoreStream(t *testing.T, s script, v coreView) {
	t.Helper()
	chunks := len(v.Indexed.Compressions)
	want := map[string]int{"Header": 1, "Schema": 2 * len(s.schemas), "Channel": 2 * len(s.channels),
		"Message": len(s.messages), "Metadata": 1, "DataEnd": 1, "Statistics": 1, "ChunkIndex": chunks,
		"MetadataIndex": 1, "SummaryOffset": 5, "Footer": 1}
	got := maps.Clone(v.Stream.Records)
	indexes := got["MessageIndex"]
	delete(got, "MessageIndex")
	if !v.Stream.Done || !maps.Equal(got, want) || indexes < chunks || indexes > chunks*len(s.channels) {
		t.Errorf("stream reader: done %v, records %v, want %v and %d to %d message indexes", v.Stream.Done, v.Stream.Records, want, chunks, chunks*len(s.channels))
	}
}

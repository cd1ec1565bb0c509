package turbojpeg

import (
	"os"
	"strings"
	"testing"
)

// TestLibrary: the report matches the backend compiled in; with cgo the
// library it names is the one mapped into this process.
func TestLibrary(t *testing.T) {
	info := Library()
	if info.Backend != Backend {
		t.Fatalf("Backend = %q, want %q", info.Backend, Backend)
	}
	if Backend == "purego" {
		if info.Linked || info.Path != "" || info.HeaderVersion != "" {
			t.Fatalf("purego build reports a library: %+v", info)
		}
		return
	}
	if !info.Linked {
		t.Fatalf("cgo build says libturbojpeg is not linked: %+v", info)
	}
	if !strings.Contains(info.Path, "libturbojpeg.so") {
		t.Fatalf("Path = %q, want the loaded libturbojpeg.so", info.Path)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps to check the path against: %v", err)
	}
	if !strings.Contains(string(maps), info.Path) {
		t.Fatalf("%s is not mapped into this process", info.Path)
	}
	t.Logf("%+v", info)
}

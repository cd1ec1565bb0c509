//go:build unix && !linux

package ringbuf

// adviseHugePages does nothing where transparent huge pages are Linux's.
func adviseHugePages([]byte) {}

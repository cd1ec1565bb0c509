//go:build !unix

package ringbuf

// allocArena allocates the arena on the Go heap where mmap is not
// available.
func allocArena(n int) (arena []byte, free func()) { return make([]byte, n), func() {} }

//go:build unix

package ringbuf

import "syscall"

// allocArena maps the arena outside the Go heap: it is the bulk of
// edged's memory (max_bytes per camera), and on the heap it would double
// the garbage collector's target (GOGC counts live heap), letting garbage
// pile up to the size of all rings before a collection. Pages become
// resident as frames are written. Falls back to the heap if mmap fails.
func allocArena(n int) (arena []byte, free func()) {
	if n == 0 {
		return nil, func() {}
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	adviseHugePages(b)
	return b, func() { _ = syscall.Munmap(b) }
}

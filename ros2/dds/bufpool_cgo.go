//go:build cgo && !purego

package dds

/*
#include "edged_dds.h"
*/
import "C"

import "unsafe"

// The large-sample buffer pool (bufpool.c) as the tests drive it.

// bufClass is the pool's size class for a buffer of size bytes (-1: a
// plain malloc).
func bufClass(size int) int { return int(C.edged_buf_class(C.size_t(size))) }

// bufGet takes a buffer of at least size bytes; bufPut gives it back.
func bufGet(size int) (p unsafe.Pointer, class int) {
	var c C.int
	p = C.edged_buf_get(C.size_t(size), &c)
	return p, int(c)
}

func bufPut(p unsafe.Pointer, class int) { C.edged_buf_put(p, C.int(class)) }

// bufDrain frees every idle buffer.
func bufDrain() { C.edged_buf_drain() }

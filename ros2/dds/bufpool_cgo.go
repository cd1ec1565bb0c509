//go:build cgo && !purego

package dds

/*
#include "edged_dds.h"

// edged_from_short_iov builds a sample of size bytes from an iovec of
// have bytes: whether a serdata came back, and the type's refusals.
static int edged_from_short_iov(size_t have, size_t size, uint32_t *refused) {
	edged_sertype *st = edged_sertype_new("t", 64 << 20);
	if (st == NULL)
		return -1;
	unsigned char *b = calloc(1, have);
	ddsrt_iovec_t iov = {.iov_base = b, .iov_len = (ddsrt_iov_len_t)have};
	struct ddsi_serdata *sd = ddsi_serdata_from_ser_iov(&st->c, SDK_DATA, 1, &iov, size);
	int built = sd != NULL;
	if (sd != NULL)
		ddsi_serdata_unref(sd);
	free(b);
	*refused = ddsrt_atomic_ld32(&st->refused);
	ddsi_sertype_unref(&st->c);
	return built;
}
*/
import "C"

import "unsafe"

// The large-sample buffer pool (bufpool.c) and the serdata built in its
// buffers (serdata.c) as the tests drive them.

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

// fromShortIOV has the sertype build a sample of size bytes from have
// bytes given: whether it built one, and the refusals it counted.
func fromShortIOV(have, size int) (built bool, refused uint32) {
	var r C.uint32_t
	b := C.edged_from_short_iov(C.size_t(have), C.size_t(size), &r)
	return b == 1, uint32(r)
}

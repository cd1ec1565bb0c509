//go:build cgo && !purego

// Buffers for large samples (serdata.c), kept for reuse. A camera's raw
// images (2.7 MB at 720p rgb8, 30 a second) each got a fresh malloc,
// which glibc serves from fresh mappings: every page of every sample was
// faulted in by the receive thread's copy and given back on free. perf
// on scripts/bench-ros2.sh's load: ~3,700 page faults a second, three
// quarters of them in that copy, against the C reference subscriber's
// ~1,000; a fault costs ~10-20 us of kernel time on a virtual machine.

#include <pthread.h>
#include <stdlib.h>
#include "edged_dds.h"

// Size classes are powers of two from POOL_MIN: a buffer is the smallest
// class that holds the request (pages past the request are never
// touched, so they cost address space, not memory). Smaller requests
// are plain mallocs (glibc reuses those well).
#define POOL_MIN ((size_t)64 << 10)
#define POOL_CLASSES 16 // up to 2 GiB
// What the pool keeps idle: at most POOL_KEEP buffers a class and
// POOL_MAX_IDLE bytes in all; more is freed.
#define POOL_KEEP 8
#define POOL_MAX_IDLE ((size_t)32 << 20)

typedef struct pool_buf {
	struct pool_buf *next;
} pool_buf;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pool_buf *pool_free[POOL_CLASSES];
static int pool_count[POOL_CLASSES];
static size_t pool_idle;
static uint64_t pool_fresh, pool_reused;

static int class_of(size_t size) {
	if (size < POOL_MIN)
		return -1;
	for (int c = 0; c < POOL_CLASSES; c++)
		if (size <= POOL_MIN << c)
			return c;
	return -1;
}

// edged_buf_get returns a buffer of at least size bytes and its class
// (-1: a plain malloc), or NULL when out of memory.
void *edged_buf_get(size_t size, int *cls) {
	int c = class_of(size);
	*cls = c;
	if (c < 0)
		return malloc(size);
	pthread_mutex_lock(&pool_mu);
	pool_buf *b = pool_free[c];
	if (b != NULL) {
		pool_free[c] = b->next;
		pool_count[c]--;
		pool_idle -= POOL_MIN << c;
		pool_reused++;
	} else {
		pool_fresh++;
	}
	pthread_mutex_unlock(&pool_mu);
	return b != NULL ? (void *)b : malloc(POOL_MIN << c);
}

// edged_buf_put gives back a buffer edged_buf_get returned with class cls.
void edged_buf_put(void *p, int cls) {
	if (p == NULL)
		return;
	if (cls >= 0) {
		size_t size = POOL_MIN << cls;
		pthread_mutex_lock(&pool_mu);
		if (pool_count[cls] < POOL_KEEP && pool_idle + size <= POOL_MAX_IDLE) {
			pool_buf *b = p;
			b->next = pool_free[cls];
			pool_free[cls] = b;
			pool_count[cls]++;
			pool_idle += size;
			p = NULL;
		}
		pthread_mutex_unlock(&pool_mu);
	}
	free(p);
}

// edged_buf_stats reports how many pooled-class buffers were malloc'd
// and how many reused (tests).
void edged_buf_stats(uint64_t *fresh, uint64_t *reused) {
	pthread_mutex_lock(&pool_mu);
	*fresh = pool_fresh;
	*reused = pool_reused;
	pthread_mutex_unlock(&pool_mu);
}

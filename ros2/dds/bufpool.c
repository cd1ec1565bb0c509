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
// class that holds the request (pages past the request are touched only
// by a larger sample of the same class). Smaller requests are plain
// mallocs (glibc reuses those well), and so are larger ones than the
// pool could ever keep (rounding a 33 MiB sample up to 64 MiB would buy
// nothing).
#define POOL_MIN ((size_t)64 << 10)
#define POOL_CLASSES 10 // up to POOL_MAX_IDLE
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

// edged_buf_class is the class of a request of size bytes, -1 for a
// plain malloc.
int edged_buf_class(size_t size) {
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
	int c = edged_buf_class(size);
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

// evict_for unlinks idle buffers of classes other than keep, largest
// first, until size more bytes fit the idle budget, and returns them (to
// be freed outside the lock): buffers of a class no longer received (a
// closed camera, one hostile 17 MiB sample) would otherwise hold the
// budget for good and no other buffer could be kept. Called with
// pool_mu held.
static pool_buf *evict_for(size_t size, int keep) {
	pool_buf *evicted = NULL;
	for (int c = POOL_CLASSES - 1; c >= 0 && pool_idle + size > POOL_MAX_IDLE; c--) {
		while (c != keep && pool_free[c] != NULL && pool_idle + size > POOL_MAX_IDLE) {
			pool_buf *b = pool_free[c];
			pool_free[c] = b->next;
			pool_count[c]--;
			pool_idle -= POOL_MIN << c;
			b->next = evicted;
			evicted = b;
		}
	}
	return evicted;
}

static void free_list(pool_buf *b) {
	while (b != NULL) {
		pool_buf *next = b->next;
		free(b);
		b = next;
	}
}

// edged_buf_put gives back a buffer edged_buf_get returned with class
// cls. The buffer given back is kept rather than an idle one of another
// class: it is of a size being received now.
void edged_buf_put(void *p, int cls) {
	if (p == NULL)
		return;
	pool_buf *evicted = NULL;
	if (cls >= 0) {
		size_t size = POOL_MIN << cls;
		pthread_mutex_lock(&pool_mu);
		// Room for one more of its class, once others are evicted?
		if (pool_count[cls] < POOL_KEEP && (size_t)(pool_count[cls] + 1) * size <= POOL_MAX_IDLE) {
			evicted = evict_for(size, cls);
			if (pool_idle + size <= POOL_MAX_IDLE) {
				pool_buf *b = p;
				b->next = pool_free[cls];
				pool_free[cls] = b;
				pool_count[cls]++;
				pool_idle += size;
				p = NULL;
			}
		}
		pthread_mutex_unlock(&pool_mu);
	}
	free(p);
	free_list(evicted);
}

// edged_buf_drain frees every idle buffer (tests: a known start).
void edged_buf_drain(void) {
	pthread_mutex_lock(&pool_mu);
	pool_buf *evicted = evict_for(POOL_MAX_IDLE + 1, -1);
	pthread_mutex_unlock(&pool_mu);
	free_list(evicted);
}

// edged_buf_stats reports how many pooled-class buffers were malloc'd
// and how many reused (tests).
void edged_buf_stats(uint64_t *fresh, uint64_t *reused) {
	pthread_mutex_lock(&pool_mu);
	*fresh = pool_fresh;
	*reused = pool_reused;
	pthread_mutex_unlock(&pool_mu);
}

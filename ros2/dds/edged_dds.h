// Declarations shared by edged's Cyclone DDS binding (cgo.go and the C
// files beside it).
#ifndef EDGED_DDS_H
#define EDGED_DDS_H

#include <stdint.h>
#include "dds/dds.h"
#include "dds/ddsi/ddsi_sertype.h"
#include "dds/ddsi/ddsi_serdata.h"

// A keyless sertype carrying raw serialized samples; max_bytes caps one
// sample (larger ones are refused and counted in refused).
typedef struct edged_sertype {
	struct ddsi_sertype c;
	uint32_t max_bytes;
	ddsrt_atomic_uint32_t refused;
} edged_sertype;

// One sample's serialized bytes, encapsulation header included.
typedef struct edged_serdata {
	struct ddsi_serdata c;
	uint32_t size;
	unsigned char *data;
	int cls; // its buffer's class in bufpool.c
} edged_serdata;

// What edged_write takes: bytes to send as one sample.
typedef struct edged_raw {
	const unsigned char *data;
	uint32_t size;
} edged_raw;

// One taken sample: the serdata (released with edged_unref) and what Go
// needs of it, so that a batch costs one cgo call.
typedef struct edged_sample {
	edged_serdata *sd;
	unsigned char *data;
	uint32_t size;
	int64_t source_ns;
	uint64_t writer;
} edged_sample;

// One publication from the DCPSPublication built-in topic.
typedef struct edged_pub {
	uint64_t handle;
	int alive;
	int reliable;
	int transient_local;
	int depth;
	char guid[16];
	char topic[256];
	char type_name[256];
	int truncated;
} edged_pub;

// Batch helpers (reader.c): Go crosses into C once per batch.
int edged_take(dds_entity_t rd, edged_sample *out, int n);
int edged_graph_take(dds_entity_t rd, edged_pub *out, int n);
void edged_unref(edged_serdata *sd);

void *edged_buf_get(size_t size, int *cls);
void edged_buf_put(void *p, int cls);
void edged_buf_stats(uint64_t *fresh, uint64_t *reused);
int edged_buf_class(size_t size);
void edged_buf_drain(void);

edged_sertype *edged_sertype_new(const char *type_name, uint32_t max_bytes);
dds_entity_t edged_topic(dds_entity_t pp, const char *topic, const char *type, uint32_t max_bytes, edged_sertype **stp);

#endif

//go:build cgo && !purego

// A keyless sertype whose serdata holds a sample's serialized bytes as
// received (4-byte encapsulation header included), so that edged can
// read any ROS 2 type without generated code. Written from the Cyclone
// DDS 0.10 headers (ddsi_sertype.h, ddsi_serdata.h, q_radmin.h).

#include <stdlib.h>
#include <string.h>
#include "edged_dds.h"
#include "dds/ddsi/q_radmin.h"

static const struct ddsi_serdata_ops edged_serdata_ops;
static const struct ddsi_sertype_ops edged_sertype_ops;

// Allocates a serdata with room for size bytes (one buffer: the bytes
// follow the struct; large ones from bufpool.c). NULL when out of
// memory.
static edged_serdata *serdata_new(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, size_t size) {
	int cls;
	edged_serdata *sd = edged_buf_get(sizeof(*sd) + size, &cls);
	if (sd == NULL)
		return NULL;
	ddsi_serdata_init(&sd->c, type, kind);
	sd->cls = cls;
	sd->size = (uint32_t)size;
	sd->data = (unsigned char *)(sd + 1);
	return sd;
}

// refuse counts a sample the type will not build; the caller returns
// NULL, which Cyclone treats as a sample that cannot be read.
static void refuse(const struct ddsi_sertype *type) {
	const edged_sertype *st = (const edged_sertype *)type;
	ddsrt_atomic_inc32((ddsrt_atomic_uint32_t *)&st->refused);
}

// oversize counts and refuses a sample over the type's cap.
static bool oversize(const struct ddsi_sertype *type, size_t size) {
	const edged_sertype *st = (const edged_sertype *)type;
	if (size <= st->max_bytes && size >= 4)
		return false;
	refuse(type);
	return true;
}

// short_fill counts and frees a serdata built from fewer bytes than its
// size (the rest would be a previous sample's bytes: bufpool.c).
static struct ddsi_serdata *short_fill(edged_serdata *sd) {
	refuse(sd->c.type);
	edged_buf_put(sd, sd->cls);
	return NULL;
}

// Key-only serdata: a keyless topic has one instance, so the key is the
// encapsulation header alone.
static struct ddsi_serdata *key_serdata(const struct ddsi_sertype *type) {
	edged_serdata *sd = serdata_new(type, SDK_KEY, 4);
	if (sd == NULL)
		return NULL;
	memset(sd->data, 0, 4);
	sd->data[1] = 1; // CDR_LE
	return &sd->c;
}

static struct ddsi_serdata *sd_from_ser(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
		const struct nn_rdata *frag, size_t size) {
	if (kind != SDK_DATA)
		return key_serdata(type);
	if (oversize(type, size))
		return NULL;
	edged_serdata *sd = serdata_new(type, kind, size);
	if (sd == NULL)
		return NULL;
	// Fragments arrive in order and may overlap: copy what each adds
	// past the bytes already filled.
	uint32_t filled = 0;
	for (; frag != NULL && filled < size; frag = frag->nextfrag) {
		if (frag->maxp1 <= filled || frag->min > filled)
			continue;
		uint32_t end = frag->maxp1 < size ? frag->maxp1 : (uint32_t)size;
		const unsigned char *p = NN_RMSG_PAYLOADOFF(frag->rmsg, NN_RDATA_PAYLOAD_OFF(frag));
		memcpy(sd->data + filled, p + (filled - frag->min), end - filled);
		filled = end;
	}
	if (filled != size)
		return short_fill(sd);
	return &sd->c;
}

static struct ddsi_serdata *sd_from_ser_iov(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
		ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov, size_t size) {
	if (kind != SDK_DATA)
		return key_serdata(type);
	if (oversize(type, size))
		return NULL;
	edged_serdata *sd = serdata_new(type, kind, size);
	if (sd == NULL)
		return NULL;
	size_t off = 0;
	for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
		size_t n = iov[i].iov_len < size - off ? iov[i].iov_len : size - off;
		memcpy(sd->data + off, iov[i].iov_base, n);
		off += n;
	}
	if (off != size)
		return short_fill(sd);
	return &sd->c;
}

static struct ddsi_serdata *sd_from_keyhash(const struct ddsi_sertype *type, const struct ddsi_keyhash *kh) {
	(void)kh;
	return key_serdata(type);
}

// A sample written through this sertype is a edged_raw (bytes and size,
// encapsulation header included): used by the tests' Go writer.
static struct ddsi_serdata *sd_from_sample(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, const void *sample) {
	if (kind != SDK_DATA)
		return key_serdata(type);
	const edged_raw *raw = sample;
	if (oversize(type, raw->size))
		return NULL;
	edged_serdata *sd = serdata_new(type, kind, raw->size);
	if (sd == NULL)
		return NULL;
	memcpy(sd->data, raw->data, raw->size);
	return &sd->c;
}

static uint32_t sd_get_size(const struct ddsi_serdata *d) {
	return ((const edged_serdata *)d)->size;
}

static bool sd_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b) {
	(void)a;
	(void)b;
	return true; // keyless
}

static void sd_to_ser(const struct ddsi_serdata *d, size_t off, size_t sz, void *buf) {
	const edged_serdata *sd = (const edged_serdata *)d;
	if (off >= sd->size)
		return;
	if (sz > sd->size - off)
		sz = sd->size - off;
	memcpy(buf, sd->data + off, sz);
}

static struct ddsi_serdata *sd_to_ser_ref(const struct ddsi_serdata *d, size_t off, size_t sz, ddsrt_iovec_t *ref) {
	const edged_serdata *sd = (const edged_serdata *)d;
	ref->iov_base = sd->data + off;
	ref->iov_len = (ddsrt_iov_len_t)sz;
	return ddsi_serdata_ref(d);
}

static void sd_to_ser_unref(struct ddsi_serdata *d, const ddsrt_iovec_t *ref) {
	(void)ref;
	ddsi_serdata_unref(d);
}

// edged never reads typed samples: it takes serdata (dds_takecdr).
static bool sd_to_sample(const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim) {
	(void)d;
	(void)sample;
	(void)bufptr;
	(void)buflim;
	return false;
}

static struct ddsi_serdata *sd_to_untyped(const struct ddsi_serdata *d) {
	return key_serdata(d->type);
}

static bool sd_untyped_to_sample(const struct ddsi_sertype *type, const struct ddsi_serdata *d, void *sample,
		void **bufptr, void *buflim) {
	(void)type;
	(void)d;
	(void)sample;
	(void)bufptr;
	(void)buflim;
	return true;
}

static void sd_free(struct ddsi_serdata *d) {
	edged_buf_put(d, ((edged_serdata *)d)->cls);
}

static size_t sd_print(const struct ddsi_sertype *type, const struct ddsi_serdata *d, char *buf, size_t size) {
	(void)type;
	return (size_t)snprintf(buf, size, "(%u serialized bytes)", (unsigned)((const edged_serdata *)d)->size);
}

static void sd_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *buf, bool force_md5) {
	(void)d;
	(void)force_md5;
	memset(buf, 0, sizeof(*buf));
}

static const struct ddsi_serdata_ops edged_serdata_ops = {
	.eqkey = sd_eqkey,
	.get_size = sd_get_size,
	.from_ser = sd_from_ser,
	.from_ser_iov = sd_from_ser_iov,
	.from_keyhash = sd_from_keyhash,
	.from_sample = sd_from_sample,
	.to_ser = sd_to_ser,
	.to_ser_ref = sd_to_ser_ref,
	.to_ser_unref = sd_to_ser_unref,
	.to_sample = sd_to_sample,
	.to_untyped = sd_to_untyped,
	.untyped_to_sample = sd_untyped_to_sample,
	.free = sd_free,
	.print = sd_print,
	.get_keyhash = sd_get_keyhash,
};

static void st_free(struct ddsi_sertype *tp) {
	ddsi_sertype_fini(tp);
	free(tp);
}

static void st_zero_samples(const struct ddsi_sertype *d, void *samples, size_t count) {
	(void)d;
	(void)samples;
	(void)count;
}

static void st_realloc_samples(void **ptrs, const struct ddsi_sertype *d, void *old, size_t oldcount, size_t count) {
	(void)d;
	(void)oldcount;
	for (size_t i = 0; i < count; i++)
		ptrs[i] = old;
}

static void st_free_samples(const struct ddsi_sertype *d, void **ptrs, size_t count, dds_free_op_t op) {
	(void)d;
	(void)ptrs;
	(void)count;
	(void)op;
}

// Two sertypes of the same name are the same only with the same cap.
static bool st_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b) {
	return ((const edged_sertype *)a)->max_bytes == ((const edged_sertype *)b)->max_bytes;
}

static uint32_t st_hash(const struct ddsi_sertype *tp) {
	return ((const edged_sertype *)tp)->max_bytes;
}

static const struct ddsi_sertype_ops edged_sertype_ops = {
	.version = ddsi_sertype_v0,
	.free = st_free,
	.zero_samples = st_zero_samples,
	.realloc_samples = st_realloc_samples,
	.free_samples = st_free_samples,
	.equal = st_equal,
	.hash = st_hash,
};

edged_sertype *edged_sertype_new(const char *type_name, uint32_t max_bytes) {
	edged_sertype *st = calloc(1, sizeof(*st));
	if (st == NULL)
		return NULL;
	ddsi_sertype_init_flags(&st->c, type_name, &edged_sertype_ops, &edged_serdata_ops, DDSI_SERTYPE_FLAG_TOPICKIND_NO_KEY);
	st->max_bytes = max_bytes;
	ddsrt_atomic_st32(&st->refused, 0);
	return st;
}

// edged_topic creates topic with a fresh edged_sertype (max_bytes caps a
// received sample) for a reader or a writer: the topic entity, or a
// negative code. *stp is the sertype Cyclone kept (the fresh one, or an
// equal one the participant had already).
dds_entity_t edged_topic(dds_entity_t pp, const char *topic, const char *type, uint32_t max_bytes, edged_sertype **stp) {
	edged_sertype *st = edged_sertype_new(type, max_bytes);
	if (st == NULL)
		return DDS_RETCODE_OUT_OF_RESOURCES;
	struct ddsi_sertype *base = &st->c;
	dds_entity_t tp = dds_create_topic_sertype(pp, topic, &base, NULL, NULL, NULL);
	if (tp < 0) {
		ddsi_sertype_unref(&st->c);
		return tp;
	}
	*stp = (edged_sertype *)base;
	return tp;
}

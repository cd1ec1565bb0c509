//go:build cgo && !purego

// Batch helpers, so that Go crosses into C once per batch of samples.

#include <string.h>
#include "edged_dds.h"

#define EDGED_BATCH 64

int edged_take(dds_entity_t rd, edged_sample *out, int n) {
	struct ddsi_serdata *sds[EDGED_BATCH];
	dds_sample_info_t infos[EDGED_BATCH];
	if (n > EDGED_BATCH)
		n = EDGED_BATCH;
	dds_return_t got = dds_takecdr(rd, sds, (uint32_t)n, infos, DDS_ANY_STATE);
	if (got < 0)
		return got;
	int k = 0;
	for (int i = 0; i < got; i++) {
		edged_serdata *sd = (edged_serdata *)sds[i];
		if (!infos[i].valid_data || sd->c.kind != SDK_DATA) {
			ddsi_serdata_unref(sds[i]);
			continue;
		}
		out[k].sd = sd;
		out[k].data = sd->data;
		out[k].size = sd->size;
		out[k].source_ns = infos[i].source_timestamp;
		out[k].writer = infos[i].publication_handle;
		k++;
	}
	return k;
}

void edged_unref(edged_serdata *sd) {
	ddsi_serdata_unref(&sd->c);
}

static void copy_name(char *dst, const char *src, int *truncated) {
	if (src == NULL) {
		dst[0] = 0;
		return;
	}
	size_t n = strlen(src);
	if (n >= 256) {
		*truncated = 1;
		n = 255;
	}
	memcpy(dst, src, n);
	dst[n] = 0;
}

int edged_graph_take(dds_entity_t rd, edged_pub *out, int n) {
	void *samples[EDGED_BATCH];
	dds_sample_info_t infos[EDGED_BATCH];
	if (n > EDGED_BATCH)
		n = EDGED_BATCH;
	memset(samples, 0, sizeof(samples));
	dds_return_t got = dds_take(rd, samples, infos, (size_t)n, (uint32_t)n);
	if (got < 0)
		return got;
	for (int i = 0; i < got; i++) {
		edged_pub *p = &out[i];
		memset(p, 0, sizeof(*p));
		p->handle = infos[i].instance_handle;
		p->alive = infos[i].valid_data && infos[i].instance_state == DDS_IST_ALIVE;
		if (!infos[i].valid_data)
			continue;
		const dds_builtintopic_endpoint_t *ep = samples[i];
		memcpy(p->guid, ep->key.v, 16);
		copy_name(p->topic, ep->topic_name, &p->truncated);
		copy_name(p->type_name, ep->type_name, &p->truncated);
		dds_reliability_kind_t rel = DDS_RELIABILITY_BEST_EFFORT;
		dds_duration_t blk;
		if (ep->qos != NULL && dds_qget_reliability(ep->qos, &rel, &blk))
			p->reliable = rel == DDS_RELIABILITY_RELIABLE;
		dds_durability_kind_t dur = DDS_DURABILITY_VOLATILE;
		if (ep->qos != NULL && dds_qget_durability(ep->qos, &dur))
			p->transient_local = dur >= DDS_DURABILITY_TRANSIENT_LOCAL;
		dds_history_kind_t hk;
		int32_t depth = 0;
		if (ep->qos != NULL && dds_qget_history(ep->qos, &hk, &depth))
			p->depth = hk == DDS_HISTORY_KEEP_ALL ? -1 : depth;
	}
	dds_return_loan(rd, samples, got);
	return got;
}

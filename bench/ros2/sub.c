// The reference subscriber of the ROS 2 ingest benchmark
// (scripts/bench-ros2.sh): a plain Cyclone DDS C subscriber of
// bench/ros2/pub.c's topics with idlc-generated types, taking
// (deserializing) every sample as a C/C++ ROS 2 node would, counting it
// and discarding it. Reader QoS as edged's: reliable, volatile, keep all.
//
// Warms up until every topic delivered, then receives for SECONDS, from
// $BENCH_START (Unix seconds) when set: the wall-clock window edged's
// side (bench/ros2/ingest) measures too, so that bench/ingestcmp can
// hold both to the same work. It prints one line:
//   c messages=N bytes=B cpu_s=C drops=D seq_gaps=G ctxsw=S wakeups=W
// bytes are the samples' serialized sizes (encapsulation header
// included, as edged counts them); cpu_s is this process's utime+stime
// from /proc/self/stat over the window; drops are the samples Cyclone
// reports lost or rejected, seq_gaps the sequence numbers never seen,
// ctxsw the process's context switches and wakeups the voluntary ones
// (getrusage), as edged's side counts them.
//
// Usage: [BENCH_START=UNIX_SECONDS] sub SECONDS DOMAIN [cameras=3]

#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros2.h"

#define MAX_TOPICS 17
#define BATCH 16

static void switches(long *voluntary, long *involuntary) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*voluntary = ru.ru_nvcsw;
	*involuntary = ru.ru_nivcsw;
}

static double cpu_seconds(void) {
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (f == NULL)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (p == NULL)
		return 0;
	unsigned long long utime = 0, stime = 0;
	// fields after the command: state(3) ... utime(14) stime(15)
	sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double mono_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t align(uint32_t off, uint32_t a) { return (off + a - 1) & ~(a - 1); }

static uint32_t header_size(const std_msgs_msg_dds__Header_ *h) {
	return 8 + 4 + (uint32_t)strlen(h->frame_id) + 1;
}

// XCDR1 serialized sizes, rounded up to 4 as Cyclone writes them.
static uint32_t image_size(const sensor_msgs_msg_dds__Image_ *m) {
	uint32_t off = header_size(&m->header);
	off = align(off, 4) + 8;
	off += 4 + (uint32_t)strlen(m->encoding) + 1;
	off += 1;
	off = align(off, 4) + 4;
	off += 4 + m->data._length;
	return 4 + align(off, 4);
}

static uint32_t doubles_size(uint32_t off, uint32_t n) {
	off = align(off, 4) + 4;
	if (n > 0)
		off = align(off, 8) + 8 * n;
	return off;
}

static uint32_t joints_size(const sensor_msgs_msg_dds__JointState_ *m) {
	uint32_t off = header_size(&m->header);
	off = align(off, 4) + 4;
	for (uint32_t i = 0; i < m->name._length; i++)
		off = align(off, 4) + 4 + (uint32_t)strlen(m->name._buffer[i]) + 1;
	off = doubles_size(off, m->position._length);
	off = doubles_size(off, m->velocity._length);
	off = doubles_size(off, m->effort._length);
	return 4 + align(off, 4);
}

typedef struct topic {
	dds_entity_t rd;
	int image;
	int seen;
	int64_t last_seq;
} topic;

static uint32_t lost(dds_entity_t rd) {
	dds_sample_lost_status_t l;
	dds_sample_rejected_status_t r;
	uint32_t n = 0;
	if (dds_get_sample_lost_status(rd, &l) == 0)
		n += l.total_count;
	if (dds_get_sample_rejected_status(rd, &r) == 0)
		n += r.total_count;
	return n;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: sub SECONDS DOMAIN [cameras]\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	int domain = atoi(argv[2]), cams = argc > 3 ? atoi(argv[3]) : 3;
	if (cams < 0 || cams + 1 > MAX_TOPICS) {
		fprintf(stderr, "sub: cameras 0..%d\n", MAX_TOPICS - 1);
		return 2;
	}
	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "participant: %s\n", dds_strretcode(pp));
		return 1;
	}
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t ws = dds_create_waitset(pp);
	topic topics[MAX_TOPICS];
	int nt = cams + 1;
	for (int i = 0; i < nt; i++) {
		char name[64];
		const dds_topic_descriptor_t *desc = &sensor_msgs_msg_dds__Image__desc;
		if (i == cams) {
			snprintf(name, sizeof(name), "rt/bench/joint_states");
			desc = &sensor_msgs_msg_dds__JointState__desc;
		} else {
			snprintf(name, sizeof(name), "rt/bench/cam%d/image_raw", i);
		}
		dds_entity_t tp = dds_create_topic(pp, desc, name, NULL, NULL);
		topics[i] = (topic){.rd = dds_create_reader(pp, tp, q, NULL), .image = i < cams, .last_seq = -1};
		if (topics[i].rd < 0) {
			fprintf(stderr, "reader %s: %s\n", name, dds_strretcode(topics[i].rd));
			return 1;
		}
		dds_waitset_attach(ws, dds_create_readcondition(topics[i].rd, DDS_ANY_STATE), i);
	}
	dds_delete_qos(q);

	unsigned long long messages = 0, bytes = 0, gaps = 0;
	int measuring = 0, seen = 0;
	double cpu0 = 0, end = mono_s() + 30; // warm-up deadline
	const char *start_env = getenv("BENCH_START");
	double start_at = start_env != NULL ? atof(start_env) : 0; // the window's start, wall clock
	int warm = 0;
	long vol0 = 0, inv0 = 0, vol1, inv1;
	uint32_t lost0 = 0;
	void *samples[BATCH];
	dds_sample_info_t infos[BATCH];
	for (;;) {
		double now = mono_s();
		if (now >= end) {
			if (measuring)
				break;
			fprintf(stderr, "sub: only %d of %d topics delivered within 30 s\n", seen, nt);
			return 1;
		}
		if (!warm && seen == nt) {
			warm = 1;
			end = now + 1e9; // no deadline while waiting for the window
			if (start_at > 0 && wall_s() > start_at) {
				fprintf(stderr, "sub: warm %.3fs after the window's start (BENCH_START): give the subscribers more time to warm up (WARMUP)\n",
				        wall_s() - start_at);
				return 1;
			}
		}
		if (!measuring && warm && wall_s() >= start_at) { // warm and the window opened: measure from here
			measuring = 1;
			messages = bytes = gaps = 0;
			lost0 = 0;
			for (int i = 0; i < nt; i++)
				lost0 += lost(topics[i].rd);
			cpu0 = cpu_seconds();
			switches(&vol0, &inv0);
			end = now + seconds;
		}
		dds_waitset_wait(ws, NULL, 0, DDS_MSECS(100));
		for (int i = 0; i < nt; i++) {
			topic *t = &topics[i];
			for (;;) {
				memset(samples, 0, sizeof(samples));
				int got = dds_take(t->rd, samples, infos, BATCH, BATCH);
				if (got <= 0)
					break;
				for (int k = 0; k < got; k++) {
					if (!infos[k].valid_data)
						continue;
					int64_t seq;
					if (t->image) {
						const sensor_msgs_msg_dds__Image_ *m = samples[k];
						uint32_t s = 0;
						if (m->data._length >= 4)
							memcpy(&s, m->data._buffer, 4);
						seq = s;
						bytes += image_size(m);
					} else {
						const sensor_msgs_msg_dds__JointState_ *m = samples[k];
						seq = m->position._length > 0 ? (int64_t)m->position._buffer[0] : 0;
						bytes += joints_size(m);
					}
					if (t->last_seq >= 0 && seq > t->last_seq + 1)
						gaps += (unsigned long long)(seq - t->last_seq - 1);
					t->last_seq = seq;
					if (!t->seen) {
						t->seen = 1;
						seen++;
					}
					messages++;
				}
				dds_return_loan(t->rd, samples, got);
			}
		}
	}
	double cpu = cpu_seconds() - cpu0;
	switches(&vol1, &inv1);
	uint32_t lost1 = 0;
	for (int i = 0; i < nt; i++)
		lost1 += lost(topics[i].rd);
	printf("c messages=%llu bytes=%llu cpu_s=%.3f drops=%u seq_gaps=%llu ctxsw=%ld wakeups=%ld\n", messages, bytes, cpu,
	       lost1 - lost0, gaps, (vol1 - vol0) + (inv1 - inv0), vol1 - vol0);
	fflush(stdout);
	dds_delete(pp);
	return 0;
}

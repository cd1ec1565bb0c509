// The reference subscriber of the ROS 2 ingest benchmark: a plain Cyclone
// DDS C subscriber of sensor_msgs/CompressedImage with idlc-generated
// types, taking (deserializing) every sample, as a C++ ROS 2 node would.
//
// sub -d domain -t /topic -n count [-b best effort]
//
// Prints "ready" when its reader exists, then after count samples (or
// stdin EOF) "done <samples> <bytes> <cpu_ns>" with the process's CPU
// time (user + system) since the first sample.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros2.h"

static long long cpu_ns(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(int argc, char **argv) {
	int domain = 0, reliable = 1, count = 100, c;
	const char *topic = "/camera";
	while ((c = getopt(argc, argv, "d:t:n:b")) != -1) {
		switch (c) {
		case 'd': domain = atoi(optarg); break;
		case 't': topic = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 'b': reliable = 0; break;
		default: return 2;
		}
	}
	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	char ddsname[512];
	snprintf(ddsname, sizeof(ddsname), "rt%s", topic);
	dds_entity_t tp = dds_create_topic(pp, &sensor_msgs_msg_dds__CompressedImage__desc, ddsname, NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 16);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (rd < 0) { fprintf(stderr, "reader: %s\n", dds_strretcode(rd)); return 1; }
	dds_entity_t ws = dds_create_waitset(pp);
	dds_entity_t rc = dds_create_readcondition(rd, DDS_ANY_STATE);
	dds_waitset_attach(ws, rc, 0);
	printf("ready\n");
	fflush(stdout);
	long long n = 0, bytes = 0, start = 0;
	void *samples[16] = {0};
	dds_sample_info_t infos[16];
	while (n < count) {
		dds_waitset_wait(ws, NULL, 0, DDS_SECS(5));
		int got = dds_take(rd, samples, infos, 16, 16);
		if (got < 0) break;
		for (int i = 0; i < got; i++) {
			if (!infos[i].valid_data) continue;
			if (n == 0) start = cpu_ns();
			const sensor_msgs_msg_dds__CompressedImage_ *m = samples[i];
			bytes += m->data._length;
			n++;
		}
		if (got > 0) dds_return_loan(rd, samples, got);
		if (got == 0 && n == 0) continue;
		if (got == 0) break; // the stream ended
	}
	printf("done %lld %lld %lld\n", n, bytes, cpu_ns() - start);
	fflush(stdout);
	dds_delete(pp);
	return 0;
}

// A ROS 2 publisher built on Cyclone DDS and idlc-generated types, for
// edged's tests and benchmarks: it speaks exactly what a ROS 2 node on
// rmw_cyclonedds_cpp puts on the wire.
//
// pub -d domain -t /topic -k string|image|joints|clock|goals|task|blob
//     [-J joint names per JointState, default 2] [-T writers on TOPIC_0..TOPIC_{T-1}]
//     [-b best effort] [-l transient local] [-D depth, 0 keep all]
//     [-n count] [-p period_ms] [-s image bytes] [-f image file]
//     [-v a,b,c values, one per sample, repeated] [-c clock start_ms]
//     [-w wait for a reader] [-x exit when done, else at stdin EOF]
//     [-N /ns/node: announce the writer as this node's on ros_discovery_info]
//
// Values: string's data; task's status.phase (edged_test_msgs/TaskStatus,
// with status.code and progress the sample's number); goals' whole
// action_msgs/GoalStatusArray as GOAL:STATUS entries joined by '+' ("-":
// an empty list), GOAL a number that fills the goal's UUID, STATUS
// action_msgs' (1 accepted, 2 executing, 4 succeeded, 6 aborted).
// A clock sample is the wall time, or with -c start_ms + number * period
// (a simulator's time, which starts near zero).
//
// A generated image (no -f) carries the sample's number (0, 1, ...) as a
// little-endian uint32 in its first 4 data bytes.
//
// blob is hostile::Blob, a DDS type that is not a ROS 2 type. With -T
// every sample is written on each of the T topics (a topic flood); with
// -n 0 the writers exist and never send.
//
// It prints "ready" once its writer exists and "done N" after N samples.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros2.h"

static void now_stamp(builtin_interfaces_msg_dds__Time_ *t) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	t->sec = (int32_t)ts.tv_sec;
	t->nanosec = (uint32_t)ts.tv_nsec;
}

static unsigned char *load(const char *path, uint32_t *size) {
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)n);
	if (fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*size = (uint32_t)n;
	return b;
}

// announce publishes what a ROS 2 node's participant says on
// ros_discovery_info: one node, named by full name, owning writer wr
// (gids in Humble's 24-byte layout: the GUID, then zeros).
static void announce(dds_entity_t pp, dds_entity_t wr, const char *full) {
	dds_entity_t tp = dds_create_topic(pp, &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc, "ros_discovery_info", NULL, NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_data_representation(q, 1, (dds_data_representation_id_t[]){DDS_DATA_REPRESENTATION_XCDR1});
	dds_entity_t dw = dds_create_writer(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (dw < 0) { fprintf(stderr, "discovery writer: %s\n", dds_strretcode(dw)); exit(1); }
	dds_guid_t pg, wg;
	dds_get_guid(pp, &pg);
	dds_get_guid(wr, &wg);
	char ns[256], name[256];
	const char *slash = strrchr(full, '/');
	if (slash == NULL || slash == full) {
		snprintf(ns, sizeof(ns), "/");
	} else {
		snprintf(ns, sizeof(ns), "%.*s", (int)(slash - full), full);
	}
	snprintf(name, sizeof(name), "%s", slash == NULL ? full : slash + 1);
	rmw_dds_common_msg_dds__Gid_ writer_gid = {0};
	memcpy(writer_gid.data, wg.v, 16);
	rmw_dds_common_msg_dds__NodeEntitiesInfo_ node = {0};
	node.node_namespace = ns;
	node.node_name = name;
	node.writer_gid_seq._length = node.writer_gid_seq._maximum = 1;
	node.writer_gid_seq._buffer = &writer_gid;
	rmw_dds_common_msg_dds__ParticipantEntitiesInfo_ m = {0};
	memcpy(m.gid.data, pg.v, 16);
	m.node_entities_info_seq._length = m.node_entities_info_seq._maximum = 1;
	m.node_entities_info_seq._buffer = &node;
	dds_return_t rc = dds_write(dw, &m);
	if (rc < 0) { fprintf(stderr, "discovery write: %s\n", dds_strretcode(rc)); exit(1); }
}

// goal_statuses fills a GoalStatusArray from "1:2+2:4" ("-": empty);
// buf holds up to max entries.
static void goal_statuses(char *v, action_msgs_msg_dds__GoalStatusArray_ *m, action_msgs_msg_dds__GoalStatus_ *buf, uint32_t max) {
	m->status_list._length = 0;
	m->status_list._maximum = max;
	m->status_list._buffer = buf;
	m->status_list._release = false;
	if (strcmp(v, "-") == 0)
		return;
	char *e;
	while ((e = strsep(&v, "+")) != NULL && m->status_list._length < max) {
		action_msgs_msg_dds__GoalStatus_ *g = &buf[m->status_list._length++];
		memset(g, 0, sizeof(*g));
		int goal = atoi(e);
		char *colon = strchr(e, ':');
		memset(g->goal_info.goal_id.uuid, goal, 16);
		g->goal_info.stamp.sec = 1000 + goal;
		g->status = (int8_t)(colon != NULL ? atoi(colon + 1) : 0);
	}
}

// write_all writes sample m on each of the n writers (a topic flood),
// returning the first error.
static dds_return_t write_all(const dds_entity_t *wrs, int n, const void *m) {
	dds_return_t first = 0;
	for (int k = 0; k < n; k++) {
		dds_return_t rc = dds_write(wrs[k], m);
		if (rc < 0 && first == 0)
			first = rc;
	}
	return first;
}

static void sleep_ms(int ms) {
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
	int domain = 0, reliable = 1, latched = 0, depth = 10, count = 1, period = 0, wait = 0, exit_done = 0;
	int njoints = 2, ntopics = 0;
	long long clock_start = -1;
	uint32_t size = 1000;
	const char *topic = "/chatter", *kind = "string", *file = NULL, *values = "hello", *node = NULL;
	int c;
	while ((c = getopt(argc, argv, "d:t:k:blD:n:p:s:f:v:wxN:c:J:T:")) != -1) {
		switch (c) {
		case 'd': domain = atoi(optarg); break;
		case 't': topic = optarg; break;
		case 'k': kind = optarg; break;
		case 'b': reliable = 0; break;
		case 'l': latched = 1; break;
		case 'D': depth = atoi(optarg); break;
		case 'n': count = atoi(optarg); break;
		case 'p': period = atoi(optarg); break;
		case 's': size = (uint32_t)atoi(optarg); break;
		case 'f': file = optarg; break;
		case 'v': values = optarg; break;
		case 'w': wait = 1; break;
		case 'x': exit_done = 1; break;
		case 'N': node = optarg; break;
		case 'c': clock_start = atoll(optarg); break;
		case 'J': njoints = atoi(optarg); break;
		case 'T': ntopics = atoi(optarg); break;
		default: fprintf(stderr, "bad option\n"); return 2;
		}
	}
	const dds_topic_descriptor_t *desc;
	if (strcmp(kind, "string") == 0) desc = &std_msgs_msg_dds__String__desc;
	else if (strcmp(kind, "image") == 0) desc = &sensor_msgs_msg_dds__CompressedImage__desc;
	else if (strcmp(kind, "joints") == 0) desc = &sensor_msgs_msg_dds__JointState__desc;
	else if (strcmp(kind, "clock") == 0) desc = &rosgraph_msgs_msg_dds__Clock__desc;
	else if (strcmp(kind, "goals") == 0) desc = &action_msgs_msg_dds__GoalStatusArray__desc;
	else if (strcmp(kind, "task") == 0) desc = &edged_test_msgs_msg_dds__TaskStatus__desc;
	else if (strcmp(kind, "blob") == 0) desc = &hostile_Blob_desc;
	else { fprintf(stderr, "unknown kind %s\n", kind); return 2; }

	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0) { fprintf(stderr, "participant: %s\n", dds_strretcode(pp)); return 1; }
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
	dds_qset_durability(q, latched ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	if (depth > 0)
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	else // -D 0: keep all (a reliable writer then waits for its readers)
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	// a transient-local writer keeps durability_service.history for late
	// joiners (depth 1 by default); ROS 2 keeps its history depth
	if (latched)
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, depth, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
	dds_qset_data_representation(q, 1, (dds_data_representation_id_t[]){DDS_DATA_REPRESENTATION_XCDR1});
	int nwriters = ntopics > 0 ? ntopics : 1;
	dds_entity_t *wrs = calloc((size_t)nwriters, sizeof(dds_entity_t));
	for (int k = 0; k < nwriters; k++) {
		char ddsname[512];
		if (ntopics > 0)
			snprintf(ddsname, sizeof(ddsname), "rt%s_%d", topic, k);
		else
			snprintf(ddsname, sizeof(ddsname), "rt%s", topic);
		dds_entity_t tp = dds_create_topic(pp, desc, ddsname, NULL, NULL);
		if (tp < 0) { fprintf(stderr, "topic: %s\n", dds_strretcode(tp)); return 1; }
		wrs[k] = dds_create_writer(pp, tp, q, NULL);
		if (wrs[k] < 0) { fprintf(stderr, "writer: %s\n", dds_strretcode(wrs[k])); return 1; }
	}
	dds_delete_qos(q);
	dds_entity_t wr = wrs[0];
	if (node != NULL)
		announce(pp, wr, node);
	printf("ready\n");
	fflush(stdout);
	if (wait) {
		dds_publication_matched_status_t st = {0};
		while (dds_get_publication_matched_status(wr, &st) == 0 && st.current_count == 0)
			sleep_ms(5);
	}

	unsigned char *img = NULL;
	if (file != NULL) img = load(file, &size);
	else if (strcmp(kind, "image") == 0) { img = calloc(1, size); }
	char **jnames = NULL;
	if (strcmp(kind, "joints") == 0 && njoints > 2) { // a name flood: short names, no values
		jnames = calloc((size_t)njoints, sizeof(char *));
		for (int k = 0; k < njoints; k++) {
			jnames[k] = malloc(8);
			snprintf(jnames[k], 8, "%x", k & 0xfffffff);
		}
	}
	char *vals = strdup(values);
	char *vp = vals, *v = NULL;
	for (int i = 0; i < count; i++) {
		dds_return_t rc = 0;
		if (strcmp(kind, "string") == 0 || strcmp(kind, "goals") == 0 || strcmp(kind, "task") == 0)
			if ((v = strsep(&vp, ",")) == NULL) { free(vals); vals = vp = strdup(values); v = strsep(&vp, ","); }
		if (strcmp(kind, "string") == 0) {
			std_msgs_msg_dds__String_ m = {.data = v};
			rc = write_all(wrs, nwriters, &m);
		} else if (strcmp(kind, "goals") == 0) {
			action_msgs_msg_dds__GoalStatus_ buf[16];
			action_msgs_msg_dds__GoalStatusArray_ m;
			goal_statuses(v, &m, buf, 16);
			rc = dds_write(wr, &m);
		} else if (strcmp(kind, "task") == 0) {
			edged_test_msgs_msg_dds__TaskStatus_ m = {0};
			now_stamp(&m.header.stamp);
			m.header.frame_id = "";
			m.status.phase = v;
			m.status.code = (uint8_t)i;
			m.progress = (double)i;
			rc = dds_write(wr, &m);
		} else if (strcmp(kind, "image") == 0) {
			sensor_msgs_msg_dds__CompressedImage_ m = {0};
			now_stamp(&m.header.stamp);
			m.header.frame_id = "camera";
			m.format = "jpeg";
			m.data._length = m.data._maximum = size;
			m.data._buffer = img;
			if (size >= 4 && file == NULL) // the sample's sequence number, for tests that count
				memcpy(img, &i, 4);
			rc = write_all(wrs, nwriters, &m);
		} else if (strcmp(kind, "joints") == 0) {
			char *names[2] = {"shoulder", "elbow"};
			double pos[2] = {0.5, (double)i}, vel[2] = {0, 0}, eff[2] = {0, 0};
			sensor_msgs_msg_dds__JointState_ m = {0};
			now_stamp(&m.header.stamp);
			m.header.frame_id = "";
			if (jnames != NULL) {
				m.name = (dds_sequence_string){(uint32_t)njoints, (uint32_t)njoints, jnames, false};
			} else {
				m.name = (dds_sequence_string){2, 2, names, false};
				m.position = (dds_sequence_double){2, 2, pos, false};
				m.velocity = (dds_sequence_double){2, 2, vel, false};
				m.effort = (dds_sequence_double){2, 2, eff, false};
			}
			rc = write_all(wrs, nwriters, &m);
		} else if (strcmp(kind, "blob") == 0) {
			hostile_Blob m = {0};
			unsigned char b[16] = {0};
			m.data = (dds_sequence_octet){sizeof(b), sizeof(b), b, false};
			rc = write_all(wrs, nwriters, &m);
		} else {
			rosgraph_msgs_msg_dds__Clock_ m;
			now_stamp(&m.clock);
			if (clock_start >= 0) {
				long long ms = clock_start + (long long)i * (period > 0 ? period : 100);
				m.clock.sec = (int32_t)(ms / 1000);
				m.clock.nanosec = (uint32_t)(ms % 1000) * 1000000u;
			}
			rc = dds_write(wr, &m);
		}
		if (rc < 0) fprintf(stderr, "write: %s\n", dds_strretcode(rc));
		if (period > 0) sleep_ms(period);
	}
	printf("done %d\n", count);
	fflush(stdout);
	if (!exit_done) {
		char buf[64];
		while (fread(buf, 1, sizeof(buf), stdin) > 0) {}
	}
	dds_delete(pp);
	return 0;
}

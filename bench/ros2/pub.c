// Benchmark publisher of the ROS 2 ingest benchmark (scripts/bench-ros2.sh):
// CAMERAS topics /bench/camN/image_raw of WxH rgb8 sensor_msgs/Image at
// IMG_HZ plus /bench/joint_states (26 joints) at JOINT_HZ, written with
// Cyclone DDS and idlc-generated types (ros2/ddstest/testdata/ros2.idl)
// as a ROS 2 camera driver on rmw_cyclonedds_cpp would: reliable,
// volatile, keep last 4 frames (joints: 100), XCDR1.
//
// Each image carries its topic's sequence number as a little-endian
// uint32 in its first 4 data bytes, each JointState in position[0], so
// subscribers count gaps.
//
// Usage: pub DOMAIN [cameras=3] [width=1280] [height=720] [img_hz=30] [joint_hz=1000]
// Runs until SIGTERM or SIGINT, then leaves the domain.

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros2.h"

#define MAX_CAMERAS 16

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static int64_t mono_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void stamp(builtin_interfaces_msg_dds__Time_ *t) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	t->sec = (int32_t)ts.tv_sec;
	t->nanosec = (uint32_t)ts.tv_nsec;
}

static dds_entity_t writer(dds_entity_t pp, const dds_topic_descriptor_t *desc, const char *name, int depth) {
	dds_entity_t tp = dds_create_topic(pp, desc, name, NULL, NULL);
	if (tp < 0) {
		fprintf(stderr, "topic %s: %s\n", name, dds_strretcode(tp));
		exit(1);
	}
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	dds_qset_data_representation(q, 1, (dds_data_representation_id_t[]){DDS_DATA_REPRESENTATION_XCDR1});
	dds_entity_t wr = dds_create_writer(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (wr < 0) {
		fprintf(stderr, "writer %s: %s\n", name, dds_strretcode(wr));
		exit(1);
	}
	return wr;
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: pub DOMAIN [cameras] [width] [height] [img_hz] [joint_hz]\n");
		return 2;
	}
	int domain = atoi(argv[1]);
	int cams = argc > 2 ? atoi(argv[2]) : 3;
	uint32_t w = argc > 3 ? (uint32_t)atoi(argv[3]) : 1280, h = argc > 4 ? (uint32_t)atoi(argv[4]) : 720;
	double img_hz = argc > 5 ? atof(argv[5]) : 30, joint_hz = argc > 6 ? atof(argv[6]) : 1000;
	if (cams < 0 || cams > MAX_CAMERAS || img_hz <= 0 || joint_hz <= 0) {
		fprintf(stderr, "pub: cameras 0..%d, rates > 0\n", MAX_CAMERAS);
		return 2;
	}
	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "participant: %s\n", dds_strretcode(pp));
		return 1;
	}
	dds_entity_t cam_wr[MAX_CAMERAS];
	sensor_msgs_msg_dds__Image_ img[MAX_CAMERAS];
	size_t size = (size_t)w * h * 3;
	for (int c = 0; c < cams; c++) {
		char name[64];
		snprintf(name, sizeof(name), "rt/bench/cam%d/image_raw", c);
		cam_wr[c] = writer(pp, &sensor_msgs_msg_dds__Image__desc, name, 4);
		memset(&img[c], 0, sizeof(img[c]));
		img[c].header.frame_id = "cam";
		img[c].height = h;
		img[c].width = w;
		img[c].encoding = "rgb8";
		img[c].step = w * 3;
		img[c].data._length = img[c].data._maximum = (uint32_t)size;
		img[c].data._buffer = malloc(size);
		memset(img[c].data._buffer, c * 40, size);
	}
	dds_entity_t joint_wr = writer(pp, &sensor_msgs_msg_dds__JointState__desc, "rt/bench/joint_states", 100);
	char *names[26];
	double pos[26] = {0}, vel[26] = {0}, eff[26] = {0};
	for (int i = 0; i < 26; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "joint_%d", i);
	}
	sensor_msgs_msg_dds__JointState_ js = {0};
	js.header.frame_id = "";
	js.name = (dds_sequence_string){26, 26, names, false};
	js.position = (dds_sequence_double){26, 26, pos, false};
	js.velocity = (dds_sequence_double){26, 26, vel, false};
	js.effort = (dds_sequence_double){26, 26, eff, false};

	printf("ready\n");
	fflush(stdout);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	int64_t joint_period = (int64_t)(1e9 / joint_hz), img_period = (int64_t)(1e9 / img_hz);
	int64_t next = mono_ns(), next_img = next;
	uint32_t seq = 0, img_seq = 0;
	while (!stop) {
		pos[0] = (double)seq++;
		stamp(&js.header.stamp);
		dds_write(joint_wr, &js);
		if (mono_ns() >= next_img) {
			for (int c = 0; c < cams; c++) {
				stamp(&img[c].header.stamp);
				memcpy(img[c].data._buffer, &img_seq, 4);
				dds_write(cam_wr[c], &img[c]);
			}
			img_seq++;
			next_img += img_period;
		}
		next += joint_period;
		int64_t now = mono_ns();
		if (next > now) {
			struct timespec ts = {(next - now) / 1000000000, (next - now) % 1000000000};
			nanosleep(&ts, NULL);
		}
	}
	dds_delete(pp);
	return 0;
}

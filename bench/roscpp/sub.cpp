// Minimal roscpp subscriber for the ingest benchmark: subscribes to the
// given topics with md5sum "*", copies each message (as ShapeShifter
// does), counts messages and bytes, and after SECONDS prints one line:
//   roscpp messages=N bytes=B cpu_s=C seq_gaps=G max_idle_ms=I ctxsw=S wakeups=W
// max_idle_ms is the longest wait between two messages of one topic (as
// their callbacks ran), as edged's side measures it.
// cpu_s is this process's user+system CPU time while receiving, ctxsw
// its threads' context switches and wakeups the voluntary ones (a
// thread that slept and was woken), as edged's side counts them.
// Usage: [BENCH_START=UNIX_SECONDS] sub SECONDS TOPIC...
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include <ros/callback_queue.h>

#include "raw.h"

static uint64_t messages, bytes, gaps;
static std::map<std::string, int64_t> lastSeq;
static std::map<std::string, ros::WallTime> lastAt;
static double maxIdle;  // seconds: the longest wait between two messages of one topic

static void switches(long* voluntary, long* involuntary) {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *voluntary = ru.ru_nvcsw;
  *involuntary = ru.ru_nivcsw;
}

static double cpuSeconds() {
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
  ros::init(argc, argv, "bench_roscpp_sub");
  if (argc < 3) {
    fprintf(stderr, "usage: sub SECONDS TOPIC...\n");
    return 2;
  }
  double seconds = atof(argv[1]);
  ros::NodeHandle nh;
  std::vector<ros::Subscriber> subs;
  for (int i = 2; i < argc; i++) {
    std::string topic = argv[i];
    subs.push_back(nh.subscribe<RawAny>(topic, 1000, [topic](const boost::shared_ptr<const RawAny>& m) {
      ros::WallTime now = ros::WallTime::now();
      auto at = lastAt.find(topic);
      if (at != lastAt.end() && (now - at->second).toSec() > maxIdle) maxIdle = (now - at->second).toSec();
      lastAt[topic] = now;
      messages++;
      bytes += m->bytes.size();
      if (m->bytes.size() >= 4) {  // header.seq leads both message types
        uint32_t seq;
        std::memcpy(&seq, m->bytes.data(), 4);
        auto it = lastSeq.find(topic);
        if (it != lastSeq.end() && int64_t(seq) > it->second + 1) gaps += seq - it->second - 1;
        lastSeq[topic] = seq;
      }
    }, ros::VoidConstPtr(), ros::TransportHints().tcpNoDelay()));
  }
  // Warm up until every topic delivered, then measure, from $BENCH_START
  // (Unix seconds) when set: the window edged's side measures too.
  ros::WallTime warm = ros::WallTime::now() + ros::WallDuration(30);
  while (ros::ok() && lastSeq.size() < subs.size() && ros::WallTime::now() < warm) ros::spinOnce(), ros::WallDuration(0.001).sleep();
  if (const char* start = getenv("BENCH_START")) {
    ros::WallTime at(atof(start));
    if (ros::WallTime::now() > at) {
      fprintf(stderr, "sub: warm %.3fs after the window's start (BENCH_START)\n", (ros::WallTime::now() - at).toSec());
      return 1;
    }
    while (ros::ok() && ros::WallTime::now() < at) ros::getGlobalCallbackQueue()->callAvailable(ros::WallDuration(0.001));
  }
  messages = bytes = gaps = 0;
  maxIdle = 0;
  double cpu0 = cpuSeconds();
  long vol0, inv0, vol1, inv1;
  switches(&vol0, &inv0);
  ros::WallTime end = ros::WallTime::now() + ros::WallDuration(seconds);
  while (ros::ok() && ros::WallTime::now() < end) {
    ros::getGlobalCallbackQueue()->callAvailable(ros::WallDuration(0.01));
  }
  double cpu = cpuSeconds() - cpu0;
  switches(&vol1, &inv1);
  printf("roscpp messages=%llu bytes=%llu cpu_s=%.3f seq_gaps=%llu max_idle_ms=%.1f ctxsw=%ld wakeups=%ld\n",
         (unsigned long long)messages, (unsigned long long)bytes, cpu, (unsigned long long)gaps, maxIdle * 1e3,
         (vol1 - vol0) + (inv1 - inv0), vol1 - vol0);
  return 0;
}

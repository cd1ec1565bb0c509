// Soak publisher (roscpp): one process per camera, plus one for the robot
// (joints and the task FSM), so that the soak can restart one camera alone.
//
//   pub camera TOPIC HZ FRAME_DIR [OFFSET]
//       sensor_msgs/CompressedImage ("jpeg") at HZ, cycling through the
//       *.jpg files of FRAME_DIR (sorted), starting at frame OFFSET.
//   pub robot JOINT_TOPIC JOINT_HZ FSM_TOPIC
//       sensor_msgs/JointState (26 joints, moving) at JOINT_HZ, and the task
//       FSM as std_msgs/String at 10 Hz cycling
//       IDLE 2s -> reach 4s -> grasp 3s -> lift 3s -> place 4s -> IDLE.
//
// Header stamps are ros::Time::now() (wall time) when a message is sent.
// Messages are serialized once and patched in place (bench/roscpp/raw.h).
//
// roscpp does not register again with a master that restarted; the soak
// restarts the master, so a watcher thread polls the master's pid and, when
// it changes (or the master comes back), calls registerPublisher for every
// topic with this node's own slave URI. Existing connections are untouched.
#include <dirent.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

#include <ros/master.h>
#include <ros/xmlrpc_manager.h>

#include "../bench/roscpp/raw.h"

struct RawCompressed { std::vector<uint8_t> bytes; };
struct RawString { std::vector<uint8_t> bytes; };

EDGED_RAW_TRAITS(RawCompressed, "sensor_msgs/CompressedImage", "8f7a12909da2c9d3332d540a0977563f",
                 "std_msgs/Header header\nstring format\nuint8[] data\n" HEADER_DEF)
EDGED_RAW_TRAITS(RawString, "std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1", "string data\n")

static void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; i++) b.push_back((v >> (8 * i)) & 0xff);
}
static void putStr(std::vector<uint8_t>& b, const std::string& s) {
  put32(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}
static void putHeader(std::vector<uint8_t>& b, const std::string& frame) {
  put32(b, 0); put32(b, 0); put32(b, 0);  // seq, stamp: patched per message
  putStr(b, frame);
}
static void stamp(std::vector<uint8_t>& b, uint32_t seq) {
  ros::Time now = ros::Time::now();
  uint32_t v[3] = {seq, now.sec, now.nsec};
  std::memcpy(b.data(), v, sizeof v);  // little-endian host
}

// Topics this node advertised, for registering again with a new master.
static std::mutex g_mu;
static std::vector<std::pair<std::string, std::string>> g_topics;  // topic, type

static void advertised(const std::string& topic, const std::string& type) {
  std::lock_guard<std::mutex> l(g_mu);
  g_topics.emplace_back(ros::names::resolve(topic), type);
}

static bool masterPid(int& pid) {
  XmlRpc::XmlRpcValue req, res, payload;
  req[0] = ros::this_node::getName();
  if (!ros::master::execute("getPid", req, res, payload, false)) return false;
  pid = int(payload);
  return true;
}

static void reregister() {
  std::lock_guard<std::mutex> l(g_mu);
  for (auto& t : g_topics) {
    XmlRpc::XmlRpcValue req, res, payload;
    req[0] = ros::this_node::getName();
    req[1] = t.first;
    req[2] = t.second;
    req[3] = ros::XMLRPCManager::instance()->getServerURI();
    bool ok = ros::master::execute("registerPublisher", req, res, payload, false);
    ROS_INFO("registered %s again with the master: %s", t.first.c_str(), ok ? "ok" : "failed");
  }
}

// watchMaster registers every topic again after the master restarted.
static void watchMaster() {
  int last = 0;
  masterPid(last);
  bool lost = false;
  while (ros::ok()) {
    ros::WallDuration(0.5).sleep();
    int pid;
    if (!masterPid(pid)) {
      lost = true;
      continue;
    }
    if (lost || pid != last) {
      fprintf(stderr, "pub: master is back (pid %d, was %d); registering again\n", pid, last);
      reregister();
      last = pid;
      lost = false;
    }
  }
}

static std::vector<std::vector<uint8_t>> readFrames(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".jpg") names.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::vector<uint8_t>> out;
  for (auto& n : names) {
    std::ifstream f(n, std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  return out;
}

static int camera(const std::string& topic, double hz, const std::string& dir, size_t offset) {
  auto jpegs = readFrames(dir);
  if (jpegs.empty()) {
    fprintf(stderr, "pub: no .jpg frames in %s\n", dir.c_str());
    return 2;
  }
  // One serialized message per frame: header, format, data.
  std::vector<RawCompressed> msgs(jpegs.size());
  for (size_t i = 0; i < jpegs.size(); i++) {
    auto& b = msgs[i].bytes;
    putHeader(b, "soak_camera");
    putStr(b, "jpeg");
    put32(b, jpegs[i].size());
    b.insert(b.end(), jpegs[i].begin(), jpegs[i].end());
  }
  jpegs.clear();
  ros::NodeHandle nh;
  ros::Publisher pub = nh.advertise<RawCompressed>(topic, 4);
  advertised(topic, "sensor_msgs/CompressedImage");
  std::thread watcher(watchMaster);
  ros::WallDuration period(1.0 / hz);
  ros::WallTime next = ros::WallTime::now();
  uint32_t seq = 0;
  size_t i = offset % msgs.size();
  while (ros::ok()) {
    stamp(msgs[i].bytes, seq++);
    pub.publish(msgs[i]);
    i = (i + 1) % msgs.size();
    next += period;
    ros::WallTime now = ros::WallTime::now();
    if (next > now) (next - now).sleep();
    else if (now - next > ros::WallDuration(1.0)) next = now;  // fell far behind: do not burst
  }
  watcher.join();
  return 0;
}

struct Phase { const char* label; double seconds; };
static const Phase kTask[] = {{"IDLE", 2}, {"reach", 4}, {"grasp", 3}, {"lift", 3}, {"place", 4}};

static int robot(const std::string& jointTopic, double jointHz, const std::string& fsmTopic) {
  ros::NodeHandle nh;
  ros::Publisher jointPub = nh.advertise<RawJointState>(jointTopic, 100);
  advertised(jointTopic, "sensor_msgs/JointState");
  ros::Publisher fsmPub = nh.advertise<RawString>(fsmTopic, 10);
  advertised(fsmTopic, "std_msgs/String");
  std::thread watcher(watchMaster);

  const int n = 26;
  RawJointState js;
  size_t posAt;
  {
    auto& b = js.bytes;
    putHeader(b, "");
    put32(b, n);
    for (int i = 0; i < n; i++) putStr(b, "joint_" + std::to_string(i));
    put32(b, n);
    posAt = b.size();
    b.resize(b.size() + n * 8, 0);
    for (int k = 0; k < 2; k++) {  // velocity, effort
      put32(b, n);
      b.resize(b.size() + n * 8, 0);
    }
  }
  double cycle = 0;
  for (auto& p : kTask) cycle += p.seconds;
  ros::WallTime t0 = ros::WallTime::now(), next = t0, nextFsm = t0;
  ros::WallDuration period(1.0 / jointHz), fsmPeriod(0.1);
  uint32_t seq = 0, fsmSeq = 0;
  while (ros::ok()) {
    double t = (ros::WallTime::now() - t0).toSec();
    for (int i = 0; i < n; i++) {
      double v = std::sin(t * (0.5 + 0.05 * i));
      std::memcpy(js.bytes.data() + posAt + 8 * i, &v, 8);
    }
    stamp(js.bytes, seq++);
    jointPub.publish(js);
    if (ros::WallTime::now() >= nextFsm) {
      double c = std::fmod(t, cycle);
      const char* label = kTask[0].label;
      for (auto& p : kTask) {
        if (c < p.seconds) { label = p.label; break; }
        c -= p.seconds;
      }
      RawString s;
      putStr(s.bytes, label);
      fsmPub.publish(s);
      fsmSeq++;
      nextFsm += fsmPeriod;
    }
    next += period;
    ros::WallTime now = ros::WallTime::now();
    if (next > now) (next - now).sleep();
    else if (now - next > ros::WallDuration(1.0)) next = now;
  }
  watcher.join();
  return 0;
}

int main(int argc, char** argv) {
  ros::init(argc, argv, "soak_pub", ros::init_options::AnonymousName);
  // SIGTERM (the soak's stop) shuts down like roscpp's SIGINT: unregister.
  signal(SIGTERM, [](int) { ros::requestShutdown(); });
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "camera" && argc >= 5) {
    return camera(argv[2], atof(argv[3]), argv[4], argc > 5 ? atoi(argv[5]) : 0);
  }
  if (mode == "robot" && argc >= 5) {
    return robot(argv[2], atof(argv[3]), argv[4]);
  }
  fprintf(stderr,
          "usage: pub camera TOPIC HZ FRAME_DIR [OFFSET]\n"
          "       pub robot JOINT_TOPIC JOINT_HZ FSM_TOPIC\n");
  return 2;
}

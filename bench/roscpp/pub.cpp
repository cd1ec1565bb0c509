// Benchmark publisher: N topics of WxH rgb8 sensor_msgs/Image at IMG_HZ
// plus one sensor_msgs/JointState (26 joints) at JOINT_HZ, from roscpp.
// Usage: pub [cameras=3] [width=1280] [height=720] [img_hz=30] [joint_hz=1000]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "raw.h"

static void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; i++) b.push_back((v >> (8 * i)) & 0xff);
}
static void putStr(std::vector<uint8_t>& b, const std::string& s) {
  put32(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}
static void putHeader(std::vector<uint8_t>& b, const char* frame) {
  put32(b, 0); put32(b, 0); put32(b, 0);  // seq, stamp: patched per message
  putStr(b, frame);
}
static void stamp(std::vector<uint8_t>& b, uint32_t seq) {
  ros::Time now = ros::Time::now();
  uint32_t v[3] = {seq, now.sec, now.nsec};
  std::memcpy(b.data(), v, sizeof v);  // little-endian host
}

int main(int argc, char** argv) {
  ros::init(argc, argv, "bench_pub");
  int cams = argc > 1 ? atoi(argv[1]) : 3;
  uint32_t w = argc > 2 ? atoi(argv[2]) : 1280, h = argc > 3 ? atoi(argv[3]) : 720;
  double imgHz = argc > 4 ? atof(argv[4]) : 30, jointHz = argc > 5 ? atof(argv[5]) : 1000;
  ros::NodeHandle nh;
  std::vector<ros::Publisher> camPubs;
  std::vector<RawImage> imgs(cams);
  for (int c = 0; c < cams; c++) {
    camPubs.push_back(nh.advertise<RawImage>("/bench/cam" + std::to_string(c) + "/image_raw", 4));
    auto& b = imgs[c].bytes;
    putHeader(b, "cam");
    put32(b, h); put32(b, w); putStr(b, "rgb8"); b.push_back(0); put32(b, w * 3);
    put32(b, w * h * 3);
    b.resize(b.size() + size_t(w) * h * 3, uint8_t(c * 40));
  }
  ros::Publisher jointPub = nh.advertise<RawJointState>("/bench/joint_states", 100);
  RawJointState js;
  {
    auto& b = js.bytes;
    putHeader(b, "");
    put32(b, 26);
    for (int i = 0; i < 26; i++) putStr(b, "joint_" + std::to_string(i));
    for (int k = 0; k < 3; k++) {
      put32(b, 26);
      b.resize(b.size() + 26 * 8, 0);
    }
  }
  ros::WallDuration jointPeriod(1.0 / jointHz), imgPeriod(1.0 / imgHz);
  ros::WallTime next = ros::WallTime::now(), nextImg = next;
  uint32_t seq = 0, imgSeq = 0;
  while (ros::ok()) {
    stamp(js.bytes, seq++);
    jointPub.publish(js);
    if (ros::WallTime::now() >= nextImg) {
      for (int c = 0; c < cams; c++) {
        stamp(imgs[c].bytes, imgSeq);
        camPubs[c].publish(imgs[c]);
      }
      imgSeq++;
      nextImg += imgPeriod;
    }
    next += jointPeriod;
    ros::WallTime now = ros::WallTime::now();
    if (next > now) (next - now).sleep();
  }
  return 0;
}

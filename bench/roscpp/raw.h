// Pre-serialized ROS messages for roscpp: publish bytes we built ourselves
// (sensor_msgs C++ headers are not packaged with libroscpp-dev) and
// receive any type (md5sum "*") as bytes, the way topic_tools'
// ShapeShifter does.
#pragma once
#include <cstring>
#include <vector>

#include <ros/ros.h>

struct RawImage { std::vector<uint8_t> bytes; };
struct RawJointState { std::vector<uint8_t> bytes; };
struct RawAny { std::vector<uint8_t> bytes; };

#define EDGED_RAW_TRAITS(T, TYPE, MD5, DEF)                                          \
  namespace ros { namespace message_traits {                                         \
  template <> struct MD5Sum<T> {                                                     \
    static const char* value() { return MD5; }                                       \
    static const char* value(const T&) { return value(); }                           \
  };                                                                                 \
  template <> struct DataType<T> {                                                   \
    static const char* value() { return TYPE; }                                      \
    static const char* value(const T&) { return value(); }                           \
  };                                                                                 \
  template <> struct Definition<T> {                                                 \
    static const char* value() { return DEF; }                                       \
    static const char* value(const T&) { return value(); }                           \
  };                                                                                 \
  }                                                                                  \
  namespace serialization {                                                          \
  template <> struct Serializer<T> {                                                 \
    template <typename Stream> inline static void write(Stream& s, const T& m) {     \
      std::memcpy(s.advance(m.bytes.size()), m.bytes.data(), m.bytes.size());        \
    }                                                                                \
    template <typename Stream> inline static void read(Stream& s, T& m) {            \
      m.bytes.resize(s.getLength());                                                 \
      std::memcpy(m.bytes.data(), s.advance(s.getLength()), m.bytes.size());         \
    }                                                                                \
    inline static uint32_t serializedLength(const T& m) { return m.bytes.size(); }   \
  };                                                                                 \
  }                                                                                  \
  }

#define HEADER_DEF "\n================================================================================\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"

EDGED_RAW_TRAITS(RawImage, "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743",
                 "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n" HEADER_DEF)
EDGED_RAW_TRAITS(RawJointState, "sensor_msgs/JointState", "3066dcd76a6cfaef579bd0f34173e9fd",
                 "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n" HEADER_DEF)
EDGED_RAW_TRAITS(RawAny, "*", "*", "")

#!/usr/bin/python3
"""A rospy publisher for edged's tests: one topic of a chosen kind."""
import argparse
import sys

import rospy
from sensor_msgs.msg import CompressedImage, Image, JointState
from std_msgs.msg import String


def make(kind, n, w, h):
    if kind in ("rgb8", "bgr8", "mono8"):
        ch = 1 if kind == "mono8" else 3
        m = Image(height=h, width=w, encoding=kind, is_bigendian=0, step=w * ch)
        m.data = bytes([n % 256]) * (w * h * ch)
        return m
    if kind == "compressed":
        m = CompressedImage(format="jpeg")
        m.data = b"\xff\xd8" + bytes([n % 256]) * 1000 + b"\xff\xd9"
        return m
    if kind == "joints":
        m = JointState(name=["j%d" % i for i in range(7)])
        m.position = [0.1 * n + i for i in range(7)]
        m.velocity = [0.0] * 7
        m.effort = [0.0] * 7
        return m
    if kind == "string":
        return String(data="hello %d" % n)
    raise SystemExit("unknown kind " + kind)


TYPES = {"rgb8": Image, "bgr8": Image, "mono8": Image, "compressed": CompressedImage,
         "joints": JointState, "string": String}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="pub")
    ap.add_argument("--topic", required=True)
    ap.add_argument("--kind", required=True, choices=sorted(TYPES))
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--count", type=int, default=0, help="0: forever")
    ap.add_argument("--latch", action="store_true")
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--height", type=int, default=48)
    a = ap.parse_args(rospy.myargv()[1:])
    rospy.init_node(a.name, anonymous=False, disable_signals=True)
    pub = rospy.Publisher(a.topic, TYPES[a.kind], queue_size=10, latch=a.latch)
    rate = rospy.Rate(a.rate)
    n = 0
    while not rospy.is_shutdown() and (a.count == 0 or n < a.count):
        m = make(a.kind, n, a.width, a.height)
        if hasattr(m, "header"):
            m.header.stamp = rospy.Time.now()
            m.header.seq = n
        pub.publish(m)
        n += 1
        if n <= 3 or a.count:
            print("published", n, flush=True)
        rate.sleep()
    rospy.spin()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Writes DIR/replay.bag: one message of each kind edged replay turns into
events (a CompressedImage, a 2x2 rgb8 Image, a JointState, an FSM
String), small enough to seed FuzzReplayBag. Run with Debian's
/usr/bin/python3 (python3-rosbag, python3-sensor-msgs).

  replaybag.py DIR
"""
import os
import sys

import rosbag
import rospy
from sensor_msgs.msg import CompressedImage, Image, JointState
from std_msgs.msg import String

T0 = 1700000000


def main(out):
    with rosbag.Bag(os.path.join(out, "replay.bag"), "w", chunk_threshold=256) as b:
        t = rospy.Time(T0, 0)
        b.write("/task", String(data="idle"), t)
        c = CompressedImage(format="jpeg", data=b"\xff\xd8\xff\xe0\x00\x10")
        c.header.stamp = t
        b.write("/cam/compressed", c, rospy.Time(T0, 1000))
        i = Image(height=2, width=2, encoding="rgb8", step=6, data=bytes(range(12)))
        i.header.stamp = rospy.Time(T0, 2000)
        b.write("/cam/raw", i, rospy.Time(T0, 3000))
        j = JointState(name=["a"], position=[0.5], velocity=[], effort=[])
        j.header.stamp = rospy.Time(T0, 4000)
        b.write("/joints", j, rospy.Time(T0, 5000))
        b.write("/task", String(data="reach"), rospy.Time(T0, 6000))


if __name__ == "__main__":
    main(sys.argv[1])

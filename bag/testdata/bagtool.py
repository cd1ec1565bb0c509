#!/usr/bin/python3
"""Test helper for the bag package, run with Debian's /usr/bin/python3
(python3-rosbag, python3-roslz4, python3-sensor-msgs).

  bagtool.py make DIR     write none.bag, bz2.bag and lz4.bag (same content)
  bagtool.py tiny DIR     the same with three short messages (fuzz seeds)
  bagtool.py dump BAG     print every message as rosbag reads it, one JSON
                          object per line: topic, time, type, length, sha1 of
                          the serialized bytes, and a few decoded values
"""
import hashlib
import json
import os
import sys

import rosbag
import rospy
from sensor_msgs.msg import CompressedImage, JointState
from std_msgs.msg import String

T0 = 1700000000


def stamp(sec, nsec):
    return rospy.Time(sec, nsec)


def make(out, tiny=False):
    for comp in ("none", "bz2", "lz4"):
        # a small chunk threshold: many chunks, and out-of-order writes
        # make their time ranges overlap
        with rosbag.Bag(os.path.join(out, comp + ".bag"), "w", compression=comp,
                        chunk_threshold=2048 if not tiny else 64) as b:
            if tiny:
                write_tiny(b)
            else:
                write_episode(b)


def write_tiny(b):
    b.write("/s", String(data="a"), stamp(T0, 5))
    b.write("/t", String(data="bc"), stamp(T0, 1),
            connection_header={"topic": "/t", "type": String._type, "md5sum": String._md5sum,
                               "message_definition": "string data\n", "callerid": "/n", "latching": "1"})
    b.write("/s", String(data="d"), stamp(T0, 3))


def write_episode(b):
    states = ["idle", "reach", "grasp", "lift", "done"]
    for i in range(60):
        t = stamp(T0 + i // 10, (i % 10) * 100000000)
        img = CompressedImage()
        img.header.seq = i
        img.header.stamp = t
        img.header.frame_id = "cam"
        img.format = "jpeg"
        n = 5000 if i == 30 else 100 + 7 * i  # one message larger than a chunk
        img.data = bytes([0xFF, 0xD8, 0xFF]) + bytes((i + k) % 256 for k in range(n))
        b.write("/cam/compressed", img, t)
        js = JointState()
        js.header.stamp = t
        js.name = ["elbow", "wrist"]
        js.position = [i * 0.5, -i * 0.25]
        js.velocity = []
        js.effort = [1.0, 2.0]
        # joints recorded 3 ticks late: out of order across chunks
        late = stamp(T0 + (i + 3) // 10, ((i + 3) % 10) * 100000000)
        b.write("/joint_states", js, late)
        if i % 12 == 0:
            # the same record time as the frame: rosbag breaks the tie by
            # connection order
            b.write("/task_state", String(data=states[i // 12]), t,
                    connection_header={"topic": "/task_state", "type": String._type,
                                       "md5sum": String._md5sum, "message_definition": String._full_text,
                                       "callerid": "/task_fsm", "latching": "1"})


def values(msg):
    out = {}
    h = getattr(msg, "header", None)
    if h is not None and hasattr(h, "stamp"):
        out["stamp"] = [h.stamp.secs, h.stamp.nsecs]
    for field in ("format", "data"):
        v = getattr(msg, field, None)
        if isinstance(v, str):
            out[field] = v
    if hasattr(msg, "active_states"):
        out["active_states"] = list(msg.active_states)
    if hasattr(msg, "name") and hasattr(msg, "position") and msg.name:
        out["name0"] = msg.name[0]
        out["position0"] = msg.position[0] if msg.position else None
    if hasattr(msg, "width") and hasattr(msg, "encoding"):
        out["width"] = msg.width
        out["encoding"] = msg.encoding
    return out


def dump(path, decode):
    with rosbag.Bag(path) as b:
        for topic, raw, t in b.read_messages(raw=True):
            datatype, data, md5, _pos, pytype = raw
            rec = {"topic": topic, "sec": t.secs, "nsec": t.nsecs, "type": datatype,
                   "len": len(data), "sha1": hashlib.sha1(data).hexdigest()}
            if decode:
                m = pytype()
                m.deserialize(data)
                rec["values"] = values(m)
            print(json.dumps(rec))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "tiny":
        make(sys.argv[2], tiny=True)
    elif sys.argv[1] == "dump":
        dump(sys.argv[2], "--values" in sys.argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

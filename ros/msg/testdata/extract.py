#!/usr/bin/python3
"""Extract a few small raw messages and their definitions from the sample bags.

Run with the Debian python (it has rosbag):
    /usr/bin/python3 ros/msg/testdata/extract.py ../shared/data ros/msg/testdata/real

Writes one JSON file per (bag, topic): type, md5sum, the full message
definition as stored in the bag (the same text a publisher sends in its
TCPROS header), and up to two raw serialized messages (base64) no larger
than MAX_BYTES, with the values genpy decodes at a few field paths, so the
Go decoders can be checked against ROS's own. Images are too large: only
their definitions are kept.
"""
import base64
import codecs
import json
import os
import re
import sys

import rosbag
import genpy.message  # noqa: F401 (registers its 'rosmsg' error handler first)

# genpy replaces undecodable bytes in strings; keep them instead, so the
# expected values are the exact bytes on the wire.
class _KeepBytes:
    msg_type = None  # genpy sets this before decoding

    def __call__(self, err):
        return codecs.lookup_error('surrogateescape')(err)


codecs.register_error('rosmsg', _KeepBytes())

MAX_BYTES = 4096
PER_TOPIC = 2

# field paths checked per type; path syntax is the Go accessor's (a.b[0].c)
PATHS = {
    'std_msgs/String': ['data'],
    'sensor_msgs/JointState': ['header.seq', 'header.stamp', 'header.frame_id', 'name[0]', 'name[-1]',
                               'position[0]', 'position[-1]', 'velocity[0]', 'effort[-1]'],
    'smach_msgs/SmachContainerStatus': ['header.stamp', 'path', 'initial_states[0]',
                                        'active_states[0]', 'local_data', 'info'],
    'sensor_msgs/CameraInfo': ['header.frame_id', 'height', 'width', 'distortion_model', 'D[0]', 'K[0]',
                               'K[8]', 'binning_x', 'roi.do_rectify'],
    'geometry_msgs/PointStamped': ['header.frame_id', 'point.x', 'point.z'],
    'nav_msgs/Odometry': ['header.stamp', 'child_frame_id', 'pose.pose.position.x',
                          'pose.pose.orientation.w', 'pose.covariance[35]', 'twist.twist.angular.z'],
    'pr2_msgs/PressureState': ['header.stamp', 'l_finger_tip[0]', 'r_finger_tip[21]'],
    'tf/tfMessage': ['transforms[0].header.frame_id', 'transforms[0].child_frame_id',
                     'transforms[0].transform.rotation.w', 'transforms[-1].header.stamp'],
}


def get(obj, path):
    for part in re.findall(r'[^.\[\]]+|\[-?\d+\]', path):
        if part.startswith('['):
            obj = obj[int(part[1:-1])]
        else:
            obj = getattr(obj, part)
    return obj


def jsonable(v):
    if hasattr(v, 'secs') and hasattr(v, 'nsecs'):
        return {'sec': v.secs, 'nsec': v.nsecs}
    if isinstance(v, bytes):
        return {'hex': v.hex()}
    if isinstance(v, str):
        # genpy decodes ROS strings as utf-8 where it can; keep the bytes exact
        return {'hex': v.encode('utf-8', 'surrogateescape').hex()}
    if isinstance(v, float):
        return repr(v)  # exact round trip, including nan/inf
    return v


def main(data_dir, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name in sorted(os.listdir(data_dir)):
        if not name.endswith('.bag'):
            continue
        bag = rosbag.Bag(os.path.join(data_dir, name))
        conns = {}
        for c in bag._connections.values():
            conns.setdefault(c.topic, c)
        for topic, conn in sorted(conns.items()):
            rec = {'bag': name, 'topic': topic, 'type': conn.datatype, 'md5sum': conn.md5sum,
                   'definition': conn.msg_def, 'messages': []}
            if conn.datatype in PATHS:
                msg_class = None
                for _, raw, _ in bag.read_messages(topics=[topic], raw=True):
                    datatype, data, md5, _pos, pytype = raw
                    if len(data) > MAX_BYTES:
                        continue
                    m = pytype()
                    m.deserialize(data)
                    expect = {}
                    for p in PATHS[conn.datatype]:
                        try:
                            expect[p] = jsonable(get(m, p))
                        except IndexError:
                            pass  # e.g. an empty velocity array: nothing to check
                    rec['messages'].append({'data': base64.b64encode(data).decode(), 'expect': expect})
                    if len(rec['messages']) >= PER_TOPIC:
                        break
            fname = re.sub(r'[^A-Za-z0-9]+', '_', name[:-4] + topic).strip('_') + '.json'
            with open(os.path.join(out_dir, fname), 'w') as f:
                json.dump(rec, f, indent=1, sort_keys=True)
                f.write('\n')
            print(fname, conn.datatype, len(rec['messages']))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])

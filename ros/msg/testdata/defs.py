#!/usr/bin/python3
"""Write defs.json: message definitions with the md5sum ROS computes.

Run with the Debian python (it has genpy and the message packages):
    /usr/bin/python3 ros/msg/testdata/defs.py > ros/msg/testdata/defs.json

Installed types use their generated classes (_full_text, _md5sum). The
custom types exercise what stock messages rarely do (string constants
that keep '#', char/byte, fixed arrays, unqualified names resolved in the
referring package, Header); their md5 comes from genpy.dynamic, i.e. from
genmsg itself.
"""
import importlib
import json
import sys

import genpy.dynamic

INSTALLED = [
    'std_msgs/String', 'std_msgs/Header', 'std_msgs/Empty', 'std_msgs/Float64MultiArray',
    'rosgraph_msgs/Clock', 'rosgraph_msgs/Log',
    'sensor_msgs/Image', 'sensor_msgs/CompressedImage', 'sensor_msgs/JointState', 'sensor_msgs/CameraInfo',
    'sensor_msgs/NavSatFix', 'sensor_msgs/PointCloud2', 'sensor_msgs/BatteryState', 'sensor_msgs/JoyFeedbackArray',
    'actionlib_msgs/GoalStatusArray', 'actionlib_msgs/GoalStatus',
    'geometry_msgs/PolygonStamped', 'geometry_msgs/PoseWithCovarianceStamped',
    'move_base_msgs/MoveBaseActionFeedback', 'move_base_msgs/MoveBaseActionGoal',
]

SEP = '=' * 80 + '\n'

CUSTOM = {
    'edged_test/Everything': (
        '# a comment line\n'
        'string GREETING=hello # not a comment = still the value\n'
        'string EMPTY_ISH= spaced \n'
        'int32 ANSWER = 42 # a comment\n'
        'uint8 FLAG=1\n'
        'float64 PI=3.14159\n'
        'bool YES=True\n'
        'Header header\n'
        'bool b\n'
        'int8 i8\n'
        'uint8 u8\n'
        'byte by\n'
        'char ch\n'
        'int16 i16\n'
        'uint16 u16\n'
        'int32 i32\n'
        'uint32 u32\n'
        'int64 i64\n'
        'uint64 u64\n'
        'float32 f32\n'
        'float64 f64   # trailing comment\n'
        'string s\n'
        'time t\n'
        'duration d\n'
        'uint8[] blob\n'
        'char[4] tag\n'
        'byte[] signed_blob\n'
        'float32[3] vec\n'
        'string[] names\n'
        'time[2] times\n'
        'Inner inner\n'
        'Inner[] inners\n'
        'edged_test/Inner[2] pair\n'
        'std_msgs/String label\n'
        '\n' + SEP +
        'MSG: std_msgs/Header\n'
        'uint32 seq\ntime stamp\nstring frame_id\n' + SEP +
        'MSG: edged_test/Inner\n'
        'uint8 KIND_A=0\n'
        'string name\n'
        'int32[] values\n'
        'Leaf leaf\n' + SEP +
        'MSG: edged_test/Leaf\n'
        'float64 x\n'
        'duration[] ds\n' + SEP +
        'MSG: std_msgs/String\n'
        'string data\n'
    ),
}


def main():
    out = []
    for t in INSTALLED:
        pkg, name = t.split('/')
        cls = getattr(importlib.import_module(pkg + '.msg'), name)
        out.append({'type': t, 'md5sum': cls._md5sum, 'definition': cls._full_text})
    for t, text in CUSTOM.items():
        if text is None:
            continue
        classes = genpy.dynamic.generate_dynamic(t, text)
        out.append({'type': t, 'md5sum': classes[t]._md5sum, 'definition': text})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()

"""Calls edged's ~snapshot (std_srvs/Trigger) with rospy and prints the
answer. std_srvs' Python bindings are not a dependency of edged's
tests, so the service's classes are written here (the wire form is
bool success, string message)."""
import struct
import sys

import genpy
import rospy

TRIGGER_MD5 = "937c9679a518e3a18d831e57125ea522"


class TriggerRequest(genpy.Message):
    _md5sum = "d41d8cd98f00b204e9800998ecf8427e"
    _type = "std_srvs/TriggerRequest"
    _has_header = False
    _full_text = ""
    __slots__ = []
    _slot_types = []

    def serialize(self, buff):
        pass

    def deserialize(self, data):
        return self


class TriggerResponse(genpy.Message):
    _md5sum = TRIGGER_MD5
    _type = "std_srvs/TriggerResponse"
    _has_header = False
    _full_text = "bool success\nstring message"
    __slots__ = ["success", "message"]
    _slot_types = ["bool", "string"]

    def serialize(self, buff):
        msg = self.message.encode()
        buff.write(struct.pack("<BI", int(self.success), len(msg)) + msg)

    def deserialize(self, data):
        data = bytes(data)
        self.success = data[0] != 0
        (n,) = struct.unpack("<I", data[1:5])
        self.message = data[5:5 + n].decode()
        return self


class Trigger(object):
    _type = "std_srvs/Trigger"
    _md5sum = TRIGGER_MD5
    _request_class = TriggerRequest
    _response_class = TriggerResponse


def main():
    name = sys.argv[1]
    rospy.wait_for_service(name, timeout=30)
    resp = rospy.ServiceProxy(name, Trigger)()
    print("success=%s message=%s" % (resp.success, resp.message))


if __name__ == "__main__":
    main()

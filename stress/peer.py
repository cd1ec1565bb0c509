#!/usr/bin/python3
"""Hostile and ordinary ROS1 peers for the stress run (scripts/stress.sh;
see stress/README.md). Raw TCPROS and XML-RPC, standard library only, so
that message sizes, timing and stalls are exactly what we say.

    peer.py flood MASTER FSM_TOPIC JOINT_TOPIC SECONDS STATS
        One node publishing std_msgs/String on FSM_TOPIC and
        sensor_msgs/JointState on JOINT_TOPIC, each message 63 MiB
        ($STRESS_FLOOD_MIB), as fast as the subscriber reads; STATS gets
        {topic: messages sent}.
    peer.py stall MASTER TOPIC N SECONDS STATS
        N nodes publishing sensor_msgs/CompressedImage on TOPIC; each
        subscriber connection gets the response header, a frame length of
        64 MiB - 4 KiB and all of the frame but its last byte, then nothing
        (the socket stays open) until SECONDS passed. STATS gets
        {"connections": n} (edged connecting again counts again).
    peer.py amplify MASTER TOPIC SECONDS STATS
        One node publishing stress_msgs/Amp (an array of stress_msgs/Empty,
        a type with no fields) on TOPIC: every second a 60 MiB message whose
        array length is 60 Mi - 4 and whose elements take no bytes (the
        rest is trailing bytes), for SECONDS.

    flood, stall and amplify run for SECONDS from their first subscriber
    connection (60 s more at most when none comes).
    peer.py fsm MASTER FSM_TOPIC JOINT_TOPIC SECONDS
        An ordinary robot: std_msgs/String at 10 Hz cycling IDLE 1 s ->
        reach 1 s -> grasp 1 s -> place 1 s (an episode of 3 segments every
        4 s, by the wall clock), JointState at 50 Hz; after SECONDS (or
        at SIGTERM) it publishes IDLE for 2 s more and exits.
    peer.py pubupdate MASTER NODE TOPIC N
        Calls publisherUpdate(TOPIC, N distinct fake publisher URIs, all on
        closed ports of 127.0.0.0/8) on NODE's slave API (looked up on the
        master), as the master would, and prints the call's result (15 s
        timeout).
"""
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
import xmlrpc.client
from socketserver import ThreadingMixIn
from xmlrpc.server import SimpleXMLRPCServer

MIB = 1 << 20
EMPTY_MD5 = "d41d8cd98f00b204e9800998ecf8427e"  # md5 of the empty text: a type with no fields

TYPES = {  # type: (md5sum, definition)
    "std_msgs/String": ("992ce8a1687cec8c8bd883ec73ca41d1", "string data\n"),
    "sensor_msgs/JointState": (
        "3066dcd76a6cfaef579bd0f34173e9fd",
        "Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n"
        "================================================================================\n"
        "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"),
    "sensor_msgs/CompressedImage": (
        "8f7a12909da2c9d3332d540a0977563f",
        "Header header\nstring format\nuint8[] data\n"
        "================================================================================\n"
        "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"),
    # md5 text of Amp is "<md5 of Empty> items" (ROS's rule for nested types).
    "stress_msgs/Amp": (None, "stress_msgs/Empty[] items\n"
                        "================================================================================\n"
                        "MSG: stress_msgs/Empty\n"),
}


def md5_of(typ):
    import hashlib
    md5, _ = TYPES[typ]
    return md5 or hashlib.md5(("%s items" % EMPTY_MD5).encode()).hexdigest()


def u32(n):
    return struct.pack("<I", n)


def rstr(b):
    return u32(len(b)) + b


def header(fields):
    body = b"".join(rstr(("%s=%s" % kv).encode()) for kv in fields.items())
    return u32(len(body)) + body


def read_header(conn):
    n = struct.unpack("<I", recv_exact(conn, 4))[0]
    if n > 1 << 20:
        raise ValueError("subscriber header of %d bytes" % n)
    body, out = recv_exact(conn, n), {}
    while body:
        m = struct.unpack("<I", body[:4])[0]
        k, _, v = body[4:4 + m].decode(errors="replace").partition("=")
        out[k], body = v, body[4 + m:]
    return out


def recv_exact(conn, n):
    b = b""
    while len(b) < n:
        c = conn.recv(n - len(b))
        if not c:
            raise EOFError("subscriber closed")
        b += c
    return b


def stamp_header(seq):
    t = time.time()
    return u32(seq) + u32(int(t)) + u32(int((t % 1) * 1e9)) + rstr(b"")


class _Server(ThreadingMixIn, SimpleXMLRPCServer):
    daemon_threads = True
    allow_reuse_address = True


class Node:
    """A ROS node with a slave API and a TCPROS server. topics maps a topic
    to (type, serve), serve(conn) being called per subscriber connection
    (in its own thread) after the handshake."""

    def __init__(self, name, master, topics):
        self.name, self.topics = name, topics
        self.tcp = socket.socket()
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.rpc = _Server(("127.0.0.1", 0), logRequests=False, allow_none=True)
        self.rpc.register_function(self.request_topic, "requestTopic")
        self.rpc.register_function(lambda *a: [1, "", 0], "publisherUpdate")
        self.rpc.register_function(lambda *a: [1, "", 0], "shutdown")
        self.rpc.register_function(lambda *a: [1, "", 1], "getPid")
        self.uri = "http://127.0.0.1:%d/" % self.rpc.server_address[1]
        for target in (self.rpc.serve_forever, self.accept_loop):
            threading.Thread(target=target, daemon=True).start()
        m = xmlrpc.client.ServerProxy(master)
        for topic, (typ, _) in topics.items():
            code, msg, _ = m.registerPublisher(name, topic, typ, self.uri)
            if code != 1:
                raise RuntimeError("registerPublisher %s: %s" % (topic, msg))

    def request_topic(self, caller, topic, protocols):
        if topic not in self.topics:
            return [-1, "not a publisher of " + topic, []]
        return [1, "", ["TCPROS", "127.0.0.1", self.tcp.getsockname()[1]]]

    def accept_loop(self):
        while True:
            conn, _ = self.tcp.accept()
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn):
        try:
            h = read_header(conn)
            typ, serve = self.topics[h.get("topic", "")]
            conn.sendall(header({"callerid": self.name, "topic": h["topic"], "type": typ,
                                 "md5sum": md5_of(typ), "message_definition": TYPES[typ][1],
                                 "latching": "0"}))
            serve(conn)
        except (OSError, EOFError, KeyError, ValueError):
            pass
        finally:
            conn.close()


class Counter:
    def __init__(self):
        self.mu, self.n = threading.Lock(), {}

    def add(self, k, d=1):
        with self.mu:
            self.n[k] = self.n.get(k, 0) + d


class Window:
    """SECONDS from the first subscriber connection (not from start: on a
    loaded machine registering and connecting can take seconds); if no
    subscriber came within 60 s, the window closes anyway."""

    def __init__(self, seconds):
        self.seconds, self.mu, self.end = seconds, threading.Lock(), time.time() + 60 + seconds

    def begin(self):
        with self.mu:
            self.end = min(self.end, time.time() + self.seconds)

    def open(self):
        return time.time() < self.end

    def wait(self):
        while self.open():
            time.sleep(0.1)
        time.sleep(0.5)


def flood(master, fsm_topic, joint_topic, seconds, stats):
    size = int(os.environ.get("STRESS_FLOOD_KIB", "64512")) * 1024
    s = b"A" * size
    fsm_frame = u32(4 + size) + rstr(s)
    joint = stamp_header(0) + u32(1) + rstr(s) + u32(1) + struct.pack("<d", 0.0) + u32(0) + u32(0)
    joint_frame = u32(len(joint)) + joint
    del s, joint
    clock, sent = Window(seconds), Counter()

    def sender(topic, frame):
        def serve(conn):
            clock.begin()
            while clock.open():
                conn.sendall(frame)
                sent.add(topic)
        return serve
    Node("/stress_flood", master, {fsm_topic: ("std_msgs/String", sender(fsm_topic, fsm_frame)),
                                   joint_topic: ("sensor_msgs/JointState", sender(joint_topic, joint_frame))})
    clock.wait()
    write_stats(stats, sent.n)


def stall(master, topic, n, seconds, stats):
    size = 64 * MIB - 4096
    img = stamp_header(0) + rstr(b"jpeg") + u32(size - 28)  # header 16 + format 8 + data length 4
    body = img + b"\0" * (size - len(img))
    part = u32(size) + body[:-1]  # all but the last byte: the subscriber's buffer is filled, then waits
    clock, conns = Window(seconds), Counter()

    def serve(conn):
        clock.begin()
        conns.add("connections")
        conn.sendall(part)
        while clock.open():
            time.sleep(0.2)
    for i in range(n):
        Node("/stress_stall_%d" % i, master, {topic: ("sensor_msgs/CompressedImage", serve)})
    clock.wait()
    write_stats(stats, conns.n)


def amplify(master, topic, seconds, stats):
    size = 60 * MIB
    frame = u32(size) + u32(size - 4) + b"\0" * (size - 4)
    clock, sent = Window(seconds), Counter()

    def serve(conn):
        clock.begin()
        while clock.open():
            conn.sendall(frame)
            sent.add(topic)
            time.sleep(1)
    Node("/stress_amplify", master, {topic: ("stress_msgs/Amp", serve)})
    clock.wait()
    write_stats(stats, sent.n)


CYCLE = [("IDLE", 1.0), ("reach", 1.0), ("grasp", 1.0), ("place", 1.0)]


def fsm_state(t):
    period = sum(d for _, d in CYCLE)
    x = t % period
    for s, d in CYCLE:
        if x < d:
            return s
        x -= d
    return CYCLE[-1][0]


def fsm(master, fsm_topic, joint_topic, seconds):
    # Cycles until end, then publishes IDLE until stop (2 s more). SIGTERM
    # moves the end to now, so the harness can close the last episode.
    t = {"end": time.time() + seconds}
    t["stop"] = t["end"] + 2

    def term(*_):
        t["end"] = min(t["end"], time.time())
        t["stop"] = t["end"] + 2
    signal.signal(signal.SIGTERM, term)

    def state():
        now = time.time()
        return "IDLE" if now >= t["end"] else fsm_state(now)

    def fsm_serve(conn):
        while time.time() < t["stop"]:
            s = state().encode()
            conn.sendall(u32(4 + len(s)) + rstr(s))
            time.sleep(0.1)

    def joint_serve(conn):
        seq = 0
        names = b"".join(rstr(b"j%d" % i) for i in range(6))
        while time.time() < t["stop"]:
            seq += 1
            pos = struct.pack("<6d", *[0.1 * i + 0.001 * seq for i in range(6)])
            m = stamp_header(seq) + u32(6) + names + u32(6) + pos + u32(0) + u32(0)
            conn.sendall(u32(len(m)) + m)
            time.sleep(0.02)
    Node("/stress_robot", master, {fsm_topic: ("std_msgs/String", fsm_serve),
                                   joint_topic: ("sensor_msgs/JointState", joint_serve)})
    while time.time() < t["stop"] + 0.2:
        time.sleep(0.1)


def pubupdate(master, node, topic, n):
    code, msg, uri = xmlrpc.client.ServerProxy(master).lookupNode("/stress", node)
    if code != 1:
        raise RuntimeError("lookupNode %s: %s" % (node, msg))
    uris = ["http://127.%d.%d.%d:9/" % (1 + i // 62500, (i // 250) % 250, 1 + i % 250) for i in range(n)]
    t = time.time()
    socket.setdefaulttimeout(15)  # a master would give up too
    try:
        res = xmlrpc.client.ServerProxy(uri).publisherUpdate("/master", topic, uris)
    except (OSError, xmlrpc.client.Error) as e:
        res = "error: %s" % e
    print(json.dumps({"uris": n, "seconds": round(time.time() - t, 3), "result": str(res)[:200]}))


def write_stats(path, d):
    with open(path, "w") as f:
        json.dump(d, f)


def main():
    a = sys.argv[1:]
    cmds = {"flood": (5, lambda: flood(a[1], a[2], a[3], float(a[4]), a[5])),
            "stall": (5, lambda: stall(a[1], a[2], int(a[3]), float(a[4]), a[5])),
            "amplify": (4, lambda: amplify(a[1], a[2], float(a[3]), a[4])),
            "fsm": (4, lambda: fsm(a[1], a[2], a[3], float(a[4]))),
            "pubupdate": (4, lambda: pubupdate(a[1], a[2], a[3], int(a[4])))}
    if not a or a[0] not in cmds or len(a) - 1 != cmds[a[0]][0]:
        print(__doc__, file=sys.stderr)
        return 2
    cmds[a[0]][1]()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""A deterministic pick-and-place robot, rendered, for edged's demo and tests.

It draws a top-down scene (table, a red cube, a blue bin, a two-link arm
with a gripper) and walks a task state machine through
IDLE -> reach -> grasp -> lift -> carry -> place -> retreat -> IDLE.
Each state is one ground-truth subtask.

  sim_robot.py --bag OUT.bag   write the episode to a ROS1 bag (no master)
  sim_robot.py --live          publish it in real time to $ROS_MASTER_URI

Topics: /camera/color/image_raw/compressed (sensor_msgs/CompressedImage,
JPEG, 640x480, 16 fps), /joint_states (sensor_msgs/JointState, 3 joints),
/task/state (std_msgs/String, at 10 Hz and on change).
Same arguments, same bytes: nothing here reads the clock or a random
generator without a seed.
"""
import argparse
import io
import math
import sys

from PIL import Image, ImageDraw

W, H = 640, 480
BASE = (320, 440)
L1, L2 = 190.0, 160.0
START = 1700000000.0  # episode clock origin for --bag (ROS time, seconds)

# (state, duration s, end effector target, gripper closed?, cube attached?)
PLAN = [
    ("IDLE", 1.5, (320, 180), False, False),
    ("reach", 3.0, (180, 250), False, False),
    ("grasp", 1.5, (180, 250), True, False),
    ("lift", 2.0, (200, 170), True, True),
    ("carry", 3.5, (470, 170), True, True),
    ("place", 2.0, (470, 250), False, True),
    ("retreat", 2.5, (320, 180), False, False),
    ("IDLE", 1.5, (320, 180), False, False),
]
CUBE0, BIN = (180, 250), (470, 250)


def smooth(a):
    return a * a * (3 - 2 * a)


def timeline():
    t0, out = 0.0, []
    prev = PLAN[0][2]
    for name, dur, target, closed, carried in PLAN:
        out.append((t0, t0 + dur, name, prev, target, closed, carried))
        prev, t0 = target, t0 + dur
    return out, t0


SEGMENTS, TOTAL = timeline()


def state_at(t):
    for seg in SEGMENTS:
        if t < seg[1]:
            return seg
    return SEGMENTS[-1]


def ik(x, y):
    dx, dy = x - BASE[0], BASE[1] - y
    d = min(math.hypot(dx, dy), L1 + L2 - 1e-6)
    c2 = (d * d - L1 * L1 - L2 * L2) / (2 * L1 * L2)
    q2 = math.acos(max(-1.0, min(1.0, c2)))
    q1 = math.atan2(dy, dx) - math.atan2(L2 * math.sin(q2), L1 + L2 * math.cos(q2))
    return q1, q2


def pose(t):
    t0, t1, name, src, dst, closed, carried = state_at(t)
    a = smooth(min(1.0, (t - t0) / max(1e-6, t1 - t0)))
    x = src[0] + (dst[0] - src[0]) * a
    y = src[1] + (dst[1] - src[1]) * a
    grip = 0.0 if not closed else 0.8
    if name == "grasp":
        grip = 0.8 * a
    if name == "place":
        grip = 0.8 * (1 - a)
    return name, (x, y), ik(x, y), grip, carried, t >= SEGMENTS[5][1]


def render(t):
    name, (x, y), (q1, q2), grip, carried, placed = pose(t)
    im = Image.new("RGB", (W, H), (214, 196, 160))
    d = ImageDraw.Draw(im)
    for i in range(0, W, 40):  # wood grain, so the JPEG has texture
        d.line([(i, 0), (i + 30, H)], fill=(204, 184, 150), width=3)
    d.rectangle([BIN[0] - 45, BIN[1] - 45, BIN[0] + 45, BIN[1] + 45], outline=(30, 60, 160), width=6)
    cube = (x, y) if carried else (BIN if placed else CUBE0)
    d.rectangle([cube[0] - 18, cube[1] - 18, cube[0] + 18, cube[1] + 18], fill=(200, 30, 30))
    ex = BASE[0] + L1 * math.cos(q1)
    ey = BASE[1] - L1 * math.sin(q1)
    d.line([BASE, (ex, ey)], fill=(70, 70, 70), width=22)
    d.line([(ex, ey), (x, y)], fill=(100, 100, 100), width=16)
    g = 26 - 14 * grip
    d.line([(x - g, y - 20), (x - g, y + 20)], fill=(20, 20, 20), width=6)
    d.line([(x + g, y - 20), (x + g, y + 20)], fill=(20, 20, 20), width=6)
    d.ellipse([BASE[0] - 26, BASE[1] - 26, BASE[0] + 26, BASE[1] + 26], fill=(40, 40, 40))
    d.text((10, 10), name, fill=(0, 0, 0))
    buf = io.BytesIO()
    im.save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def messages(fps, joint_hz, state_hz):
    """Yields (t, topic, msg) in time order, t in episode seconds."""
    from sensor_msgs.msg import CompressedImage, JointState
    from std_msgs.msg import String
    import rospy

    events = []
    n = int(TOTAL * fps)
    for k in range(n):
        events.append((k / fps, 0, "cam", k))
    for k in range(int(TOTAL * joint_hz)):
        events.append((k / joint_hz, 1, "joint", k))
    for k in range(int(TOTAL * state_hz)):
        events.append((k / state_hz, 2, "state", k))
    events.sort()
    seq = {"cam": 0, "joint": 0}
    for t, _, kind, _ in events:
        stamp = rospy.Time.from_sec(START + t)
        if kind == "cam":
            m = CompressedImage()
            m.header.seq, m.header.stamp, m.header.frame_id = seq["cam"], stamp, "camera_color_optical_frame"
            m.format, m.data = "jpeg", render(t)
            seq["cam"] += 1
            yield t, "/camera/color/image_raw/compressed", m
        elif kind == "joint":
            name, _, (q1, q2), grip, _, _ = pose(t)
            m = JointState()
            m.header.seq, m.header.stamp = seq["joint"], stamp
            m.name = ["shoulder", "elbow", "gripper"]
            m.position = [q1, q2, grip]
            m.velocity = [0.0, 0.0, 0.0]
            m.effort = [0.0, 0.0, 0.0]
            seq["joint"] += 1
            yield t, "/joint_states", m
        else:
            yield t, "/task/state", String(data=state_at(t)[2])


def write_bag(path, args):
    import rosbag
    import rospy

    with rosbag.Bag(path, "w") as bag:
        for t, topic, m in messages(args.fps, args.joint_hz, args.state_hz):
            bag.write(topic, m, rospy.Time.from_sec(START + t))
    print(f"wrote {path}: {TOTAL:.1f} s, {len(SEGMENTS)} segments")


def publish_live(args):
    import rospy
    from sensor_msgs.msg import CompressedImage, JointState
    from std_msgs.msg import String

    rospy.init_node("sim_robot", anonymous=False, disable_signals=True)
    types = {"/camera/color/image_raw/compressed": CompressedImage, "/joint_states": JointState, "/task/state": String}
    pubs = {t: rospy.Publisher(t, c, queue_size=50) for t, c in types.items()}
    rospy.sleep(1.0)
    for loop in range(args.loops):
        start = rospy.get_rostime().to_sec()
        for t, topic, m in messages(args.fps, args.joint_hz, args.state_hz):
            when = start + t
            if hasattr(m, "header"):
                m.header.stamp = rospy.Time.from_sec(when)
            delay = when - rospy.get_rostime().to_sec()
            if delay > 0:
                rospy.sleep(delay)
            pubs[topic].publish(m)
        print(f"episode {loop + 1}/{args.loops} published", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--bag", help="write the episode to this bag")
    g.add_argument("--live", action="store_true", help="publish in real time")
    g.add_argument("--frame", type=float, help="write one rendered JPEG at this time to stdout")
    g.add_argument("--segments", action="store_true", help="print the task's ground-truth segments as JSON")
    # 16 fps puts a frame on every 0.5 s sheet tick, so the frame nearest
    # a tick is never a tie that a millisecond of stamp jitter could flip.
    p.add_argument("--fps", type=float, default=16.0)
    p.add_argument("--joint-hz", type=float, default=100.0)
    p.add_argument("--state-hz", type=float, default=10.0)
    p.add_argument("--loops", type=int, default=1)
    args = p.parse_args()
    if args.frame is not None:
        sys.stdout.buffer.write(render(args.frame))
    elif args.segments:
        import json
        # The task's subtasks, in seconds since the episode start: what an
        # FSM recorder with idle_states [IDLE] should produce.
        work = [s for s in SEGMENTS if s[2] != "IDLE"]
        t0 = work[0][0]
        print(json.dumps({"segments": [{"start_sec": s[0] - t0, "end_sec": s[1] - t0, "subtask": s[2]} for s in work]}))
    elif args.bag:
        write_bag(args.bag, args)
    else:
        publish_live(args)


if __name__ == "__main__":
    main()

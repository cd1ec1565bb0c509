#!/usr/bin/python3
"""Drive every FSM source kind through one pick-and-place for fsm's
integration test, against the rosmaster in ROS_MASTER_URI:

/task_state           std_msgs/String: idle reach grasp lift place idle
                      (each state repeated at 10 Hz: heartbeats)
/sm/smach/container_status
                      smach_msgs/SmachContainerStatus, generated here with
                      genpy from its definition (smach is not in Debian):
                      /SM_ROOT [PICK], /SM_ROOT/PICK [APPROACH] then
                      [GRASP], /SM_ROOT [PLACE], /SM_ROOT [] (finished)
/robot/status         robot_msgs/TaskStatus (genpy), field status.phase
/pick/status          a real actionlib SimpleActionServer
                      (actionlib/TestAction): goal 1 succeeds, goal 2 is
                      aborted, goal 3 is preempted by the client

It waits until edged subscribed to all of them, then prints one JSON line
per published state change ({"topic", "state", "stamp"}) and "done".
"""
import json
import sys
import threading
import time

import actionlib
import genpy.dynamic
import rospy
from actionlib.msg import TestAction, TestGoal
from std_msgs.msg import String

SEP = '=' * 80 + '\n'
HEADER = 'MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n'
SMACH = ('Header header\nstring path\nstring[] initial_states\nstring[] active_states\n'
         'string local_data\nstring info\n' + SEP + HEADER)
TASK = ('Header header\nPhase status\n' + SEP + HEADER + SEP + 'MSG: robot_msgs/Phase\nstring phase\nuint8 step\n')
STEP = 0.4  # seconds between changes


def say(topic, state, stamp=None):
    d = {'topic': topic, 'state': state}
    if stamp is not None:
        d['stamp'] = '%d.%09d' % (stamp.secs, stamp.nsecs)
    print(json.dumps(d), flush=True)


class Server:
    """TestAction server: goal 1 succeeds, 2 aborts, 3 runs until preempted."""

    def __init__(self):
        self.s = actionlib.SimpleActionServer('/pick', TestAction, execute_cb=self.execute, auto_start=False)
        self.s.start()

    def execute(self, goal):
        end = time.time() + 5
        while time.time() < end:
            if self.s.is_preempt_requested():
                self.s.set_preempted(text='preempted by the client')
                return
            if goal.goal in (1, 2) and time.time() > end - 5 + STEP:
                break
            time.sleep(0.02)
        if goal.goal == 1:
            self.s.set_succeeded(text='picked')
        else:
            self.s.set_aborted(text='grasp failed')


def wait_connected(pubs):
    deadline = time.time() + 30
    while time.time() < deadline:
        if all(p.get_num_connections() > 0 for p in pubs):
            return
        time.sleep(0.05)
    raise SystemExit('edged did not subscribe within 30 s')


def main():
    rospy.init_node('pickplace', disable_signals=True)
    smach_cls = genpy.dynamic.generate_dynamic('smach_msgs/SmachContainerStatus', SMACH)
    SmachStatus = smach_cls['smach_msgs/SmachContainerStatus']
    task_cls = genpy.dynamic.generate_dynamic('robot_msgs/TaskStatus', TASK)
    TaskStatus, Phase = task_cls['robot_msgs/TaskStatus'], task_cls['robot_msgs/Phase']

    state = rospy.Publisher('/task_state', String, queue_size=100)
    smach = rospy.Publisher('/sm/smach/container_status', SmachStatus, queue_size=100)
    field = rospy.Publisher('/robot/status', TaskStatus, queue_size=100)
    server = Server()
    client = actionlib.SimpleActionClient('/pick', TestAction)
    wait_connected([state, smach, field, server.s.action_server.status_pub])
    client.wait_for_server(rospy.Duration(10))

    current = ['idle']
    stop = threading.Event()

    def heartbeat():
        while not stop.is_set():
            state.publish(String(data=current[0]))
            time.sleep(0.1)
    hb = threading.Thread(target=heartbeat)

    def set_state(s):
        current[0] = s
        state.publish(String(data=s))
        say('/task_state', s)

    def container(path, active):
        m = SmachStatus(path=path, initial_states=[], active_states=active, local_data='\x80\x02}q\x00.', info='')
        m.header.stamp = rospy.Time.now()
        smach.publish(m)
        say('/sm/smach/container_status', path + ':' + ','.join(active), m.header.stamp)

    def phase(p):
        m = TaskStatus(status=Phase(phase=p, step=0))
        m.header.stamp = rospy.Time.now()
        field.publish(m)
        say('/robot/status', p, m.header.stamp)

    set_state('idle')
    hb.start()
    time.sleep(STEP)
    set_state('reach')
    container('/SM_ROOT', ['PICK'])
    container('/SM_ROOT/PICK', ['APPROACH'])
    phase('approach')
    time.sleep(STEP)
    client.send_goal(TestGoal(goal=1))
    set_state('grasp')
    container('/SM_ROOT/PICK', ['GRASP'])
    phase('grasp')
    client.wait_for_result(rospy.Duration(10))
    say('/pick/status', 'goal1:%d' % client.get_state())
    set_state('lift')
    phase('lift')
    client.send_goal(TestGoal(goal=2))
    client.wait_for_result(rospy.Duration(10))
    say('/pick/status', 'goal2:%d' % client.get_state())
    set_state('place')
    container('/SM_ROOT', ['PLACE'])
    client.send_goal(TestGoal(goal=3))
    time.sleep(STEP)
    client.cancel_goal()
    client.wait_for_result(rospy.Duration(10))
    say('/pick/status', 'goal3:%d' % client.get_state())
    container('/SM_ROOT', [])
    phase('done')
    time.sleep(STEP)
    set_state('idle')
    time.sleep(STEP)
    stop.set()
    hb.join()
    print('done', flush=True)
    # Stay up until killed so the connections stay open.
    while True:
        time.sleep(1)


if __name__ == '__main__':
    sys.exit(main())

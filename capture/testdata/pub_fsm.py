#!/usr/bin/python3
"""Publish FSM-like topics for capture's integration test.

/move_base/status: actionlib_msgs/GoalStatusArray (one ACTIVE goal)
/task/status: robot_msgs/TaskStatus, a custom nested type generated at
run time with genpy from its definition (no package needed).
Prints "published N" after each round.
"""
import sys

import genpy.dynamic
import rospy
from actionlib_msgs.msg import GoalStatus, GoalStatusArray

SEP = '=' * 80 + '\n'
TASK_STATUS = ('Header header\nPhase status\nfloat64[] progress\n' + SEP +
               'MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n' + SEP +
               'MSG: robot_msgs/Phase\nuint8 IDLE=0\nstring phase\nuint8 step\n')


def main():
    rospy.init_node('fsm_pub', disable_signals=True)
    classes = genpy.dynamic.generate_dynamic('robot_msgs/TaskStatus', TASK_STATUS)
    TaskStatus = classes['robot_msgs/TaskStatus']
    Phase = classes['robot_msgs/Phase']
    goals = rospy.Publisher('/move_base/status', GoalStatusArray, queue_size=10)
    task = rospy.Publisher('/task/status', TaskStatus, queue_size=10)
    rate = rospy.Rate(20)
    n = 0
    phases = ['reach', 'grasp', 'lift']
    while not rospy.is_shutdown():
        now = rospy.Time.now()
        g = GoalStatusArray()
        g.header.stamp = now
        s = GoalStatus(status=GoalStatus.ACTIVE, text='going to the shelf')
        s.goal_id.id = 'goal-%d' % (n // 10)
        s.goal_id.stamp = now
        g.status_list = [s]
        goals.publish(g)
        m = TaskStatus()
        m.header.stamp = now
        m.status = Phase(phase=phases[(n // 5) % 3], step=n % 256)
        m.progress = [0.5, 1.0]
        task.publish(m)
        n += 1
        print('published', n, flush=True)
        rate.sleep()


if __name__ == '__main__':
    sys.exit(main())

package rostest

// The definitions an action server and client send with their topics
// (comments left out), for tests that serve actionlib types with
// FakePublisher (rospy here lacks actionlib_msgs): the status array and
// a pick action's goal, whose fields become a trace element's arguments.
const (
	GoalStatusArrayDef = `Header header
GoalStatus[] status_list
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
================================================================================
MSG: actionlib_msgs/GoalStatus
GoalID goal_id
uint8 status
uint8 PENDING=0
uint8 ACTIVE=1
uint8 PREEMPTED=2
uint8 SUCCEEDED=3
uint8 ABORTED=4
uint8 REJECTED=5
uint8 PREEMPTING=6
uint8 RECALLING=7
uint8 RECALLED=8
uint8 LOST=9
string text
================================================================================
MSG: actionlib_msgs/GoalID
time stamp
string id
`

	// PickActionGoalDef is edged_test/PickActionGoal.
	PickActionGoalDef = `Header header
actionlib_msgs/GoalID goal_id
PickGoal goal
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
================================================================================
MSG: actionlib_msgs/GoalID
time stamp
string id
================================================================================
MSG: edged_test/PickGoal
string object
string place
float64 speed
int32[] ids
`
)

// Package rostest starts real ROS1 components for tests: a rosmaster on a
// free loopback port, rospy scripts run with Debian's /usr/bin/python3,
// and FakePublisher, a Go TCPROS publisher that can also misbehave on
// purpose. It is a normal (non-test) package so every package's tests can
// use it; production code must not import it.
//
// Every process is started in its own process group with ROS_MASTER_URI,
// ROS_HOME and ROS_LOG_DIR (in t.TempDir()) and ROS_IP=127.0.0.1, and is
// killed with its group in t.Cleanup. Helpers skip the test, naming the
// missing binary and `make deps`, only when a component is not installed.
//
// Synchronization is by polling with a deadline (WaitFor), never sleeps.
package rostest

// Package ddstest starts real ROS 2 publishers for tests: C programs built
// on Cyclone DDS with idlc-generated ROS 2 types (testdata/ros2.idl,
// testdata/pub.c), compiled once per source version into the user cache
// directory with gcc. Every process runs on a domain id the test picks
// (Domain: random 1..200) with CYCLONEDDS_URI set to dds.LoopbackConfig,
// so tests stay on 127.0.0.1 and apart. It is a normal (non-test) package
// so every package's tests can use it; production code must not import
// it.
//
// Build skips the test, naming what is missing and `make deps`, only when
// gcc, idlc or the Cyclone DDS headers are not installed. Processes are
// killed in t.Cleanup. Synchronization is by lines the publisher prints
// ("ready", "done N") and by polling with a deadline, never sleeps.
package ddstest

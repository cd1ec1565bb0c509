// Package master calls the ROS1 master API and other nodes' slave APIs
// over XML-RPC (package xmlrpc).
//
// Every ROS API call answers a triple [code, statusMessage, value]. Call
// unwraps it: code 1 gives the value; code 0 (a failure) and code -1 (an
// error; rosmaster also uses it for a parameter that is not set) give a
// *StatusError that names the method, the code and the master's message.
// Use IsNotFound to tell "not set" or "unknown node" from a broken call.
//
// Client talks to one master as one caller id; Slave talks to one node.
// Both are safe for concurrent use and hold no goroutines.
package master

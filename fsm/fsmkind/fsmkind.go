// Package fsmkind names the kinds of FSM source: the config file's
// fsm[].type, and the kind each segment and transition records
// (source_kind). It is the one list of them: fsm reads sources by kind,
// config defaults fsm[].type from it, and the episode store's recovery
// rebuilds segments by Sequential. It imports no edged package, so that
// all of them may use it.
package fsmkind

import "strings"

// The kinds.
const (
	String    = "string"    // std_msgs/String: the state's name
	Smach     = "smach"     // smach_msgs/SmachContainerStatus: nested states
	Actionlib = "actionlib" // actionlib_msgs/GoalStatusArray: goals
	Field     = "field"     // a field of any message (fsm[].field)
	// Default is the kind of a source that names none.
	Default = String
)

// All lists the kinds, the default first.
var All = []string{String, Smach, Actionlib, Field}

// Names lists the kinds for a message: "string, smach, actionlib or
// field".
func Names() string {
	return strings.Join(All[:len(All)-1], ", ") + " or " + All[len(All)-1]
}

// Valid reports whether k is a kind ("" is not: it takes Default
// before it is checked).
func Valid(k string) bool {
	for _, a := range All {
		if k == a {
			return true
		}
	}
	return false
}

// Sequential reports whether a source of kind k has one state at a
// time, so that each transition ends the segment the previous one
// opened (string and field; "" is a record of an older edged, which
// only had those). SMACH states and actionlib goals may overlap.
func Sequential(k string) bool {
	return k == String || k == Field || k == ""
}

package episode

import "time"

// Outcomes of segments and episodes.
const (
	Completed   = "completed"
	Aborted     = "aborted"
	Preempted   = "preempted"
	Interrupted = "interrupted" // edged stopped, restarted or crashed
)

// End reasons of an episode.
const (
	EndIdle        = "idle"         // the FSM returned to an idle state
	EndRecording   = "recording"    // the recording topic said stop
	EndMaxDuration = "max_duration" // the episode ran for max_duration
	EndShutdown    = "shutdown"     // edged stopped
	EndRecovered   = "recovered"    // found open after a crash
	EndClockReset  = "clock_reset"  // time jumped backwards (a looped bag, a restarted simulator)
)

// OutcomeOf is the outcome of an episode or session that ended for
// reason without its task saying how it went: Interrupted when edged
// cut it (it stopped, the clock reset, max_duration, a crash), else
// Completed. The FSM and the sessions take it from here.
func OutcomeOf(reason string) string {
	switch reason {
	case EndShutdown, EndClockReset, EndMaxDuration, EndRecovered:
		return Interrupted
	}
	return Completed
}

// ManifestFormat is the version of manifest.json and the records.
const ManifestFormat = 1

// Manifest is an episode's metadata (manifest.json).
type Manifest struct {
	Format      int       `json:"format"`
	ID          string    `json:"id"`
	Robot       string    `json:"robot"`
	Name        string    `json:"name,omitempty"` // e.g. from a String recording topic
	Instruction string    `json:"instruction,omitempty"`
	Start       time.Time `json:"start"` // ROS time
	End         time.Time `json:"end,omitzero"`
	Closed      bool      `json:"closed"`
	Outcome     string    `json:"outcome,omitempty"`
	EndReason   string    `json:"end_reason,omitempty"`
	Segments    int       `json:"segments"`
	Transitions int       `json:"transitions"`
	Uploaded    bool      `json:"uploaded"`
	Created     time.Time `json:"created"` // wall clock
	Recovery    *Recovery `json:"recovery,omitempty"`
	// RecoveryShipped: an episode closed by recovery was handed to the
	// uplink (edged ships such episodes at start until this is set).
	RecoveryShipped bool `json:"recovery_shipped,omitempty"`
	// Problem is set by readers, never stored: the manifest was corrupt
	// or missing and this one is rebuilt from the records.
	Problem string `json:"problem,omitempty"`
	// Produced is what the robot made of the episode, per camera
	// directory (CameraDir): set in the manifest it ships at the end
	// (episode_end), so a receiver can tell when it holds everything.
	Produced map[string]CameraCounts `json:"produced,omitempty"`
	// Held is what a receiver (edged sink) holds of the episode; only
	// its manifests have it.
	Held *Held `json:"held,omitempty"`
	// Complete: a receiver holds the closed episode (its end arrived) and
	// everything it announced: Segments segments and, per camera, the
	// Produced sheets, labeling sheets and snippets.
	Complete bool `json:"complete,omitempty"`
	// Cost is a receiver's cost line of what it holds (ReadCost),
	// written once the episode is complete; only its manifests have it.
	Cost *Cost `json:"cost,omitempty"`
	// EndArrived is when a receiver took the end manifest (its wall
	// clock); only its manifests have it.
	EndArrived time.Time `json:"end_arrived,omitzero"`
	// Lacking is, on the robot, what the receiver said it lacks of the
	// episode in its last repair request (Store.MarkLacking), until it
	// acknowledges the episode complete.
	Lacking *Lacking `json:"lacking,omitempty"`
	// Verdicts of the trace checks (package tracecheck) evaluated when
	// the episode closed, in the rules' order; absent from manifests of
	// an edged without checks, and from older ones.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Clips are the incident clips the robot announced (a receiver's
	// manifest only: the robot's store lists its clips/ directory), in
	// name order, each with where it is (ClipEntry.Where).
	Clips []ClipEntry `json:"clips,omitempty"`
}

// Verdict is one trace check's outcome over the episode: Sat (SAT) or
// not (UNSAT), and the witness that decided it as a sentence.
type Verdict struct {
	Check   string `json:"check"`
	Sat     bool   `json:"sat"`
	Witness string `json:"witness,omitempty"`
}

// CameraCounts counts one camera's files of an episode.
type CameraCounts struct {
	Sheets      int `json:"sheets"`       // contact sheets
	LabelSheets int `json:"label_sheets"` // labeling sheets
	Snippets    int `json:"snippets"`     // state snippets
	// The VLM tokens of those contact sheets and labeling sheets (the sum
	// of their vlm_tokens), in Manifest.Produced only: the robot says
	// what it made, so a receiver holding exactly that knows its cost
	// without reading every sheet's metadata (cost.go). 0: not said (an
	// older robot).
	SheetTokens int `json:"sheet_tokens,omitempty"`
	LabelTokens int `json:"label_tokens,omitempty"`
	// LastSheet is the highest contact sheet index made (Manifest.Produced
	// only; indexes skip when the clock jumps ahead): what a receiver may
	// ask for. 0: not said (then 1..Sheets).
	LastSheet int `json:"last_sheet,omitempty"`
}

// Lacking is what a receiver asked a robot for (wire.Piece names).
type Lacking struct {
	First  time.Time `json:"first"` // the receiver's first request (robot wall clock)
	Last   time.Time `json:"last"`
	Pieces []string  `json:"pieces"`
	More   bool      `json:"more,omitempty"` // it lacks more than it listed
}

// Held is what a receiver holds of an episode.
type Held struct {
	Segments int                     `json:"segments"`
	Cameras  map[string]CameraCounts `json:"cameras,omitempty"`
}

// Duration of a closed episode (0 while open).
func (m *Manifest) Duration() time.Duration {
	if m.End.IsZero() {
		return 0
	}
	return m.End.Sub(m.Start)
}

// Segment is one closed subtask.
type Segment struct {
	Index    int       `json:"index"`
	Start    time.Time `json:"start"` // ROS time
	End      time.Time `json:"end"`
	StartSec float64   `json:"start_sec"` // seconds since the episode start
	EndSec   float64   `json:"end_sec"`
	Label    string    `json:"label"`
	Path     string    `json:"path,omitempty"` // full state path, e.g. /SM_ROOT/PICK/GRASP
	Source   string    `json:"source"`         // topic
	Kind     string    `json:"kind"`           // string | smach | actionlib | field
	Outcome  string    `json:"outcome"`
	GoalID   string    `json:"goal_id,omitempty"`
	// Args are an actionlib goal's fields, in definition order (fsm's
	// goal.go): the arguments of the goal's trace element.
	Args []string `json:"args,omitempty"`
}

// Transition kinds.
const (
	TransitionState     = "state"     // a state change
	TransitionHeartbeat = "heartbeat" // still in the same state(s)
	// TransitionGoal gives the arguments (Args) of an actionlib goal
	// whose segment is open, when they arrived after the transition
	// that opened it (the goal and status topics are not ordered): it
	// names the goal by Source, GoalID and Path, as its opening did.
	TransitionGoal = "goal"
)

// Transition is one raw FSM event. A transition that opens a segment
// names it in Opens (with Path, Source and Kind), so recovery can close a
// segment that was open at a crash.
type Transition struct {
	Seq    int       `json:"seq"`
	Stamp  time.Time `json:"stamp"`
	Sec    float64   `json:"sec"`
	Kind   string    `json:"kind"`
	Source string    `json:"source"`
	SrcTyp string    `json:"source_kind,omitempty"`
	From   string    `json:"from,omitempty"`
	To     string    `json:"to,omitempty"`
	Detail string    `json:"detail,omitempty"`
	Opens  string    `json:"opens,omitempty"` // label of the segment this opens
	// Start of the opened segment when it is not Stamp (a SMACH child
	// inheriting its container's start).
	Start  time.Time `json:"start,omitzero"`
	Path   string    `json:"path,omitempty"`
	GoalID string    `json:"goal_id,omitempty"`
	// Args are the arguments of the actionlib goal the transition opens
	// (or of a TransitionGoal), as the segment's Args.
	Args []string `json:"args,omitempty"`
}

// Recovery reports what Open did to one episode found after a crash.
type Recovery struct {
	Episode     string `json:"episode"`
	ClosedOpen  bool   `json:"closed_open"` // it was open and is now closed as interrupted
	Interrupted int    `json:"interrupted_segments"`
	// Rebuilt counts closed segments missing from segments.rec (a short
	// file) rebuilt from the transitions that opened and ended them.
	Rebuilt      int      `json:"rebuilt_segments,omitempty"`
	TornBytes    int      `json:"torn_bytes"`
	Quarantined  int      `json:"quarantined_regions"`
	Descriptions []string `json:"descriptions,omitempty"`
}

package bag

import (
	"container/heap"
	"slices"
	"time"
)

// Stream is messages in log-time order: a ROS1 bag's Iterator, a
// rosbag2 bag's, one storage file of a split bag, or a Merged.
type Stream interface {
	Next() bool
	Message() Message
	Err() error
	Close()
}

// Input is one stream a Merge reads. It is opened once the merge
// reaches Start (at once when Start is zero), so a recording split into
// many files that follow each other keeps few of them open.
type Input struct {
	Start time.Time // no message of the stream comes before it
	Open  func() (Stream, error)
}

// MergeOptions says what a Merge does when an input fails and lets the
// caller see each stream before it is closed.
type MergeOptions struct {
	// Failed is told of an input that fails to open or ends with an
	// error (i is its index in the inputs). True drops that input and
	// the merge goes on with the others; false (or a nil Failed) ends
	// the merge, and Err returns err.
	Failed func(i int, err error) bool
	// Closing, when not nil, sees each opened stream just before the
	// merge closes it: at its end, on its failure, or at Close.
	Closing func(i int, s Stream)
}

// Merged walks several streams' messages in one log-time order (ties:
// the input given first, then the stream's own order). It is the one
// merge of recordings: of the bags a replay reads and of the storage
// files of a split rosbag2 bag. Each stream is closed as soon as it
// ends. A Merged is for one goroutine; a Message's Data is borrowed
// from its stream until the next call to Next.
type Merged struct {
	inputs  []Input
	opts    MergeOptions
	due     []int    // inputs not opened yet, by Start then index
	streams []Stream // by input; nil when not open
	open    []int    // the open inputs, in the order they were opened
	h       mergeHeap
	cur     Message
	curIn   int // input of cur, advanced by the next call to Next; -1: none
	err     error
	done    bool
}

// Merge returns the merge of the inputs; Close closes it.
func Merge(inputs []Input, opts MergeOptions) *Merged {
	m := &Merged{inputs: inputs, opts: opts, streams: make([]Stream, len(inputs)), curIn: -1}
	m.due = make([]int, len(inputs))
	for i := range m.due {
		m.due[i] = i
	}
	slices.SortStableFunc(m.due, func(a, b int) int { return inputs[a].Start.Compare(inputs[b].Start) })
	return m
}

// Next advances to the next message; false at the end of every input
// or once the merge has ended on an error (Err).
func (m *Merged) Next() bool {
	if m.done {
		return false
	}
	if i := m.curIn; i >= 0 {
		m.curIn = -1
		if !m.advance(i) {
			return false
		}
	}
	if !m.openDue() {
		return false
	}
	if m.h.Len() == 0 {
		m.done = true
		return false
	}
	top := heap.Pop(&m.h).(mergeItem)
	m.curIn, m.cur = top.in, m.streams[top.in].Message()
	return true
}

// openDue opens every input whose Start is not after the earliest
// queued message (every input, when nothing is queued).
func (m *Merged) openDue() bool {
	for len(m.due) > 0 {
		i := m.due[0]
		if m.h.Len() > 0 && m.inputs[i].Start.After(m.h[0].t) {
			return true
		}
		m.due = m.due[1:]
		s, err := m.inputs[i].Open()
		if err != nil {
			if !m.failed(i, err) {
				return false
			}
			continue
		}
		m.streams[i], m.open = s, append(m.open, i)
		if !m.advance(i) {
			return false
		}
	}
	return true
}

// advance moves input i to its next message and queues it, closing the
// stream at its end; false when the merge ended on its error.
func (m *Merged) advance(i int) bool {
	s := m.streams[i]
	if s.Next() {
		heap.Push(&m.h, mergeItem{i, s.Message().Time})
		return true
	}
	err := s.Err()
	m.closeInput(i)
	if err != nil {
		return m.failed(i, err)
	}
	return true
}

func (m *Merged) failed(i int, err error) bool {
	if m.opts.Failed != nil && m.opts.Failed(i, err) {
		return true
	}
	m.err, m.done = err, true
	return false
}

func (m *Merged) closeInput(i int) {
	if m.opts.Closing != nil {
		m.opts.Closing(i, m.streams[i])
	}
	m.streams[i].Close()
	m.streams[i] = nil
	m.open = slices.DeleteFunc(m.open, func(o int) bool { return o == i })
}

// Message returns the current message.
func (m *Merged) Message() Message { return m.cur }

// Input returns the index of the input the current message comes from.
func (m *Merged) Input() int { return m.curIn }

// Err returns the error that ended the merge (see MergeOptions.Failed),
// or nil.
func (m *Merged) Err() error { return m.err }

// Close closes every stream still open, in the order they were opened.
// Safe to call twice.
func (m *Merged) Close() {
	for len(m.open) > 0 {
		m.closeInput(m.open[0])
	}
	m.h, m.due, m.curIn, m.done = nil, nil, -1, true
}

type mergeItem struct {
	in int
	t  time.Time
}

type mergeHeap []mergeItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if !h[i].t.Equal(h[j].t) {
		return h[i].t.Before(h[j].t)
	}
	return h[i].in < h[j].in
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package dds

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
)

// graph is the domain's publications as the DCPSPublication built-in
// topic reports them, keyed by instance handle, and the node names
// ros_discovery_info gives their writers. The participant's graph
// goroutine writes it; anyone reads snapshots or waits for a change.
type graph struct {
	mu      sync.Mutex
	pubs    map[uint64]Publication
	names   nodeNames
	changed chan struct{} // closed and replaced on every change
	// gen counts changes: a subscription caches each writer's node name
	// until it moves (one atomic load per sample)
	gen atomic.Uint64
}

func newGraph() *graph {
	return &graph{pubs: map[uint64]Publication{}, changed: make(chan struct{})}
}

// update records a publication appearing (alive) or going away.
func (g *graph) update(handle uint64, alive bool, p Publication) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if alive {
		g.pubs[handle] = p
	} else if _, ok := g.pubs[handle]; ok {
		delete(g.pubs, handle)
	} else {
		return
	}
	g.bump()
}

// bump announces a change; g.mu is held.
func (g *graph) bump() {
	g.gen.Add(1)
	close(g.changed)
	g.changed = make(chan struct{})
}

// noteNodes records a participant's ros_discovery_info.
func (g *graph) noteNodes(info ParticipantInfo) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.names.note(info) {
		g.bump()
	}
}

// nodeOf returns the node name of the writer with instance handle h
// (a sample's publication handle), or "" when unknown.
func (g *graph) nodeOf(h uint64) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.pubs[h]
	if !ok {
		return ""
	}
	return g.names.node(p.GUID)
}

// snapshot returns the publications sorted by topic, then GUID, and a
// channel closed at the next change.
func (g *graph) snapshot() ([]Publication, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Publication, 0, len(g.pubs))
	for _, p := range g.pubs {
		p.Node = g.names.node(p.GUID)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DDSTopic != out[j].DDSTopic {
			return out[i].DDSTopic < out[j].DDSTopic
		}
		return out[i].GUID < out[j].GUID
	})
	return out, g.changed
}

// wait blocks until ok accepts the publications, or ctx ends.
func (g *graph) wait(ctx context.Context, ok func([]Publication) bool) ([]Publication, error) {
	for {
		pubs, changed := g.snapshot()
		if ok(pubs) {
			return pubs, nil
		}
		select {
		case <-ctx.Done():
			return pubs, ctx.Err()
		case <-changed:
		}
	}
}

// onTopic returns the publications of the ROS 2 topic name.
func onTopic(pubs []Publication, topic string) []Publication {
	var out []Publication
	for _, p := range pubs {
		if p.Topic == topic {
			out = append(out, p)
		}
	}
	return out
}

// Topic is one ROS 2 topic of the graph.
type Topic struct {
	Name       string   // /chatter
	Types      []string // ROS 2 types its publishers declare (normally one)
	Publishers int
	Nodes      []string // the publishers' node names (ros_discovery_info), sorted; unnamed ones left out
}

// Topics groups ROS 2 publications by topic, sorted by name; DDS topics
// that are not ROS 2 topics are left out.
func Topics(pubs []Publication) []Topic {
	index := map[string]int{}
	var out []Topic
	for _, p := range pubs {
		if p.Topic == "" {
			continue
		}
		i, ok := index[p.Topic]
		if !ok {
			i = len(out)
			index[p.Topic] = i
			out = append(out, Topic{Name: p.Topic})
		}
		t := &out[i]
		t.Publishers++
		typ := p.Type
		if typ == "" {
			typ = p.DDSType
		}
		if !contains(t.Types, typ) {
			t.Types = append(t.Types, typ)
		}
		if p.Node != "" && !contains(t.Nodes, p.Node) {
			t.Nodes = append(t.Nodes, p.Node)
		}
	}
	for _, t := range out {
		sort.Strings(t.Nodes)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

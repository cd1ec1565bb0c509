package ros

import (
	"context"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/loglimit"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// NewNode starts the slave API and a master watcher. The master need
// not be up: the watcher polls getPid every MasterPollInterval and
// registers every subscription (and parameter watch) when the master
// appears and again when it restarts (a changed pid or a failure then
// success). Every ResolveInterval subscriptions are registered again,
// which re-resolves their publishers even if a publisherUpdate was
// lost.

// Node is a ROS1 node that subscribes to topics. See the package doc.
type Node struct {
	cfg    Config
	name   string
	uri    string
	log    *slog.Logger
	master *master.Client
	pool   *tcpros.Pool

	names  names
	ln     net.Listener // slave API
	tln    net.Listener // TCPROS server for publications
	http   *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	connID atomic.Int64

	handshakes  chan struct{} // a slot per subscriber handshake under way
	refusedSubs loglimit.Limiter

	shutdownOnce   sync.Once
	shutdownCh     chan struct{} // closed when the graph asked the node to end
	shutdownReason atomic.Pointer[string]

	masterUp   atomic.Bool
	mu         sync.Mutex // guards everything below
	subs       map[string]*Subscription
	pubs       map[string]*Publication
	services   map[string]*Service
	params     map[string]*paramWatch
	masterPid  int
	lastErr    string
	registered time.Time // last successful registerAll
	closed     bool      // Close has begun: no new subscriptions
	pending    bool      // registerAll needed (master new or restarted, or last try failed)
}

// Status is the node's health, for /healthz and status pages.
type Status struct {
	Name          string
	URI           string
	MasterURI     string
	MasterUp      bool
	MasterPid     int    // 0 until the master answered
	LastError     string // the last master error, "" when none
	Subscriptions int
}

// NewNode starts the node's slave API and its master watcher. It does not
// need the master to be up: subscriptions register when it appears, and
// again whenever it restarts.
func NewNode(ctx context.Context, cfg Config) (*Node, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	nm, err := newNames(cfg.Namespace, cfg.NodeName, cfg.Remaps)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("ros: slave API cannot listen on %s (set ros ListenAddr): %w", cfg.ListenAddr, err)
	}
	tln, err := net.Listen("tcp", tcprosAddr(ln))
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("ros: TCPROS server cannot listen beside the slave API: %w", err)
	}
	name := nm.node
	port := ln.Addr().(*net.TCPAddr).Port
	nctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n := &Node{
		cfg:        cfg,
		name:       name,
		names:      nm,
		uri:        "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(port)) + "/",
		log:        cfg.Logger.With("node", name),
		master:     master.New(cfg.MasterURI, name, cfg.CallTimeout),
		pool:       tcpros.NewPool(),
		ln:         ln,
		tln:        tln,
		ctx:        nctx,
		cancel:     cancel,
		handshakes: make(chan struct{}, maxHandshakes),
		shutdownCh: make(chan struct{}),
		subs:       map[string]*Subscription{},
		pubs:       map[string]*Publication{},
		services:   map[string]*Service{},
		params:     map[string]*paramWatch{},
	}
	n.http = &http.Server{Handler: n.slaveAPI(), ReadHeaderTimeout: cfg.CallTimeout}
	n.wg.Add(3)
	go func() {
		defer n.wg.Done()
		if err := n.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("ros: slave API stopped", "err", err)
		}
	}()
	go n.serveTCPROS()
	go n.watchMaster()
	return n, nil
}

// tcprosAddr is the TCPROS server's listen address: the slave API's
// interface, any free port.
func tcprosAddr(slave net.Listener) string {
	return net.JoinHostPort(slave.Addr().(*net.TCPAddr).IP.String(), "0")
}

// Shutdown is closed when the ROS graph asks the node to end: a
// shutdown call on the slave API (rosnode kill, or the master because
// a newer node registered the same name), or the master listing
// another node under this name. The node then stops registering; its
// owner should Close it and exit, as roscpp and rospy nodes do.
func (n *Node) Shutdown() <-chan struct{} { return n.shutdownCh }

// ShutdownReason says who asked the node to end and why ("" before).
func (n *Node) ShutdownReason() string {
	if r := n.shutdownReason.Load(); r != nil {
		return *r
	}
	return ""
}

// requestShutdown records the first reason and closes Shutdown().
func (n *Node) requestShutdown(reason string) {
	n.shutdownOnce.Do(func() {
		n.shutdownReason.Store(&reason)
		n.log.Warn("ros: the ROS graph asked this node to shut down", "reason", reason)
		close(n.shutdownCh)
	})
}

func (n *Node) shuttingDown() bool {
	select {
	case <-n.shutdownCh:
		return true
	default:
		return false
	}
}

// Name is the node's global name, e.g. /edged.
func (n *Node) Name() string { return n.name }

// URI is the node's slave API URI.
func (n *Node) URI() string { return n.uri }

// Master is the master API client, speaking as this node.
func (n *Node) Master() *master.Client { return n.master }

// MasterUp reports whether the master answered the last poll.
func (n *Node) MasterUp() bool { return n.masterUp.Load() }

// Status returns the node's health.
func (n *Node) Status() Status {
	n.mu.Lock()
	defer n.mu.Unlock()
	return Status{Name: n.name, URI: n.uri, MasterURI: n.cfg.MasterURI, MasterUp: n.masterUp.Load(),
		MasterPid: n.masterPid, LastError: n.lastErr, Subscriptions: len(n.subs)}
}

// GetParam reads a parameter from the master; a relative key is put in
// the node's namespace. master.IsNotFound(err) when it is not set.
func (n *Node) GetParam(ctx context.Context, key string) (any, error) {
	return n.master.GetParam(ctx, n.names.resolve(key))
}

// ResolveTopic makes a topic name global as roscpp does: relative names
// go into the namespace, private names (~x) under the node's name; then
// the remappings apply.
func (n *Node) ResolveTopic(topic string) string { return n.names.resolve(topic) }

// Close unsubscribes everything (telling the master when it is up), stops
// the slave API and waits for every goroutine.
func (n *Node) Close() error {
	n.once.Do(func() {
		n.mu.Lock()
		n.closed = true
		n.mu.Unlock()
		subs, pubs := n.subscriptions(), n.publications()
		for _, s := range subs {
			_ = s.Close()
		}
		for _, p := range pubs {
			_ = p.Close()
		}
		n.unregisterServices()
		n.unsubscribeParams()
		n.cancel()
		_ = n.http.Close()
		_ = n.tln.Close()
		n.wg.Wait()
	})
	return nil
}

// watchMaster polls the master; when it comes up or its pid changes (a
// restart), every subscription and parameter watch is registered again.
// Every ResolveInterval subscriptions are re-registered anyway, which
// re-resolves their publishers.
func (n *Node) watchMaster() {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.MasterPollInterval)
	defer t.Stop()
	for {
		n.pollMaster()
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (n *Node) pollMaster() {
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.CallTimeout)
	defer cancel()
	pid, err := n.master.GetPid(ctx)
	if err != nil {
		if n.ctx.Err() != nil {
			return
		}
		n.mu.Lock()
		n.lastErr = err.Error()
		n.mu.Unlock()
		if n.masterUp.Swap(false) {
			n.log.Warn("ros: master went away; will register again when it is back", "master", n.cfg.MasterURI, "err", err)
		}
		return
	}
	n.mu.Lock()
	restarted := !n.masterUp.Load() || pid != n.masterPid
	if restarted {
		n.pending = true
	}
	due := n.pending || time.Since(n.registered) >= n.cfg.ResolveInterval
	n.masterPid = pid
	n.mu.Unlock()
	n.masterUp.Store(true)
	if restarted {
		n.log.Info("ros: master is up; registering", "master", n.cfg.MasterURI, "pid", pid)
	}
	if !due || n.shuttingDown() {
		return
	}
	if !restarted && n.nameTaken(ctx) {
		return
	}
	err = n.registerAll()
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.lastErr = err.Error() // pending stays set: the next poll tries again
		n.log.Warn("ros: registering with the master failed; will retry", "err", err)
		return
	}
	n.pending = false
	n.registered = time.Now()
	n.lastErr = ""
}

// nameTaken reports (and acts on) the master listing another node under
// this node's name: a newer node of the same name wins, as in ROS, so
// this one must not take the name back by registering again. A master
// that does not know the name (nothing registered yet) is no conflict.
func (n *Node) nameTaken(ctx context.Context) bool {
	uri, err := n.master.LookupNode(ctx, n.name)
	if err != nil || uri == "" || sameURI(uri, n.uri) {
		return false
	}
	n.requestShutdown(fmt.Sprintf("the master lists another node as %s (%s): a newer node took the name", n.name, uri))
	return true
}

// sameURI compares slave URIs, ignoring a trailing slash.
func sameURI(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// registerAll registers every publication, subscription, parameter watch
// and private parameter with the master (all idempotent on its side).
func (n *Node) registerAll() error {
	subs, pubs := n.subscriptions(), n.publications()
	var errs []error
	errs = append(errs, n.setPrivateParams())
	for _, p := range pubs {
		errs = append(errs, p.register(n.ctx))
	}
	for _, s := range n.serviceList() {
		errs = append(errs, n.registerService(n.ctx, s))
	}
	for _, s := range subs {
		errs = append(errs, s.register(n.ctx))
	}
	errs = append(errs, n.resubscribeParams())
	return errors.Join(errs...)
}

// setPrivateParams sets the _key:=value parameters under the node's name.
func (n *Node) setPrivateParams() error {
	var errs []error
	for k, v := range n.cfg.PrivateParams {
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.CallTimeout)
		errs = append(errs, n.master.SetParam(ctx, n.names.resolve("~"+k), paramValue(v)))
		cancel()
	}
	return errors.Join(errs...)
}

// paramValue reads a command-line parameter as rospy reads its YAML
// scalars: a bool, an integer, a float, else the string.
func paramValue(s string) any {
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	if i, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int(i)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// Subscribe subscribes to a topic. The subscription registers with the
// master now if it is up, else as soon as it is; it is returned either way.
// Only one subscription per topic is allowed.
func (n *Node) Subscribe(ctx context.Context, opts SubscribeOptions) (*Subscription, error) {
	if opts.Topic == "" {
		return nil, errors.New("ros: Subscribe needs a topic")
	}
	opts.Topic = n.ResolveTopic(opts.Topic)
	if err := checkName(opts.Topic); err != nil {
		return nil, fmt.Errorf("ros: topic: %w", err)
	}
	if opts.QueueSize < 0 || opts.MaxMessageBytes < 0 || opts.QueueBytes < 0 || opts.MaxPublishers < 0 {
		return nil, fmt.Errorf("ros: subscribe %s: QueueSize, QueueBytes, MaxMessageBytes and MaxPublishers must be >= 0", opts.Topic)
	}
	if opts.QueueBytes > 0 && opts.QueueBytes < max(opts.MaxMessageBytes, 1) {
		return nil, fmt.Errorf("ros: subscribe %s: QueueBytes (%d) must be >= MaxMessageBytes (%d): one message must fit", opts.Topic, opts.QueueBytes, opts.MaxMessageBytes)
	}
	if n.ctx.Err() != nil {
		return nil, errors.New("ros: node is closed")
	}
	s := newSubscription(n, opts)
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		s.shutdown()
		return nil, errors.New("ros: node is closed")
	}
	if _, dup := n.subs[s.topic]; dup {
		n.mu.Unlock()
		s.shutdown()
		return nil, fmt.Errorf("ros: already subscribed to %s", s.topic)
	}
	n.subs[s.topic] = s
	n.mu.Unlock()
	if n.MasterUp() {
		if err := s.register(ctx); err != nil {
			n.log.Warn("ros: registering subscriber failed; will retry", "topic", s.topic, "err", err)
		}
	}
	return s, nil
}

func (n *Node) removePub(p *Publication) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.pubs[p.topic] == p {
		delete(n.pubs, p.topic)
	}
}

func (n *Node) publication(topic string) *Publication {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pubs[topic]
}

func (n *Node) publications() []*Publication {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Collect(maps.Values(n.pubs))
}

func (n *Node) service(name string) *Service {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.services[name]
}

func (n *Node) serviceList() []*Service {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Collect(maps.Values(n.services))
}

func (n *Node) removeSub(s *Subscription) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.subs[s.topic] == s {
		delete(n.subs, s.topic)
	}
}

func (n *Node) subscription(topic string) *Subscription {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.subs[topic]
}

func (n *Node) subscriptions() []*Subscription {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Collect(maps.Values(n.subs))
}

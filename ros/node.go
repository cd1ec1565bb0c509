package ros

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// Node is a ROS1 node that subscribes to topics. See the package doc.
type Node struct {
	cfg    Config
	name   string
	uri    string
	log    *slog.Logger
	master *master.Client
	pool   *tcpros.Pool

	ln     net.Listener
	http   *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	connID atomic.Int64

	masterUp   atomic.Bool
	mu         sync.Mutex // guards everything below
	subs       map[string]*Subscription
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
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return nil, fmt.Errorf("ros: slave API cannot listen on %s (set ros ListenAddr): %w", cfg.ListenAddr, err)
	}
	name := resolveName(cfg.Namespace, cfg.NodeName)
	port := ln.Addr().(*net.TCPAddr).Port
	nctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n := &Node{
		cfg:    cfg,
		name:   name,
		uri:    "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(port)) + "/",
		log:    cfg.Logger.With("node", name),
		master: master.New(cfg.MasterURI, name, cfg.CallTimeout),
		pool:   tcpros.NewPool(),
		ln:     ln,
		ctx:    nctx,
		cancel: cancel,
		subs:   map[string]*Subscription{},
		params: map[string]*paramWatch{},
	}
	n.http = &http.Server{Handler: n.slaveAPI(), ReadHeaderTimeout: cfg.CallTimeout}
	n.wg.Add(2)
	go func() {
		defer n.wg.Done()
		if err := n.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("ros: slave API stopped", "err", err)
		}
	}()
	go n.watchMaster()
	return n, nil
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
	return n.master.GetParam(ctx, resolveName(n.cfg.Namespace, key))
}

// ResolveTopic makes a topic name global: relative names go into the
// namespace, private names (~x) under the node's name.
func (n *Node) ResolveTopic(topic string) string {
	if rest, ok := strings.CutPrefix(topic, "~"); ok {
		return n.name + "/" + strings.TrimPrefix(rest, "/")
	}
	return resolveName(n.cfg.Namespace, topic)
}

// Close unsubscribes everything (telling the master when it is up), stops
// the slave API and waits for every goroutine.
func (n *Node) Close() error {
	n.once.Do(func() {
		n.mu.Lock()
		n.closed = true
		subs := make([]*Subscription, 0, len(n.subs))
		for _, s := range n.subs {
			subs = append(subs, s)
		}
		n.mu.Unlock()
		for _, s := range subs {
			_ = s.Close()
		}
		n.unsubscribeParams()
		n.cancel()
		_ = n.http.Close()
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
	if !due {
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

// registerAll registers every subscription and parameter watch with the
// master (both are idempotent on the master's side).
func (n *Node) registerAll() error {
	n.mu.Lock()
	subs := make([]*Subscription, 0, len(n.subs))
	for _, s := range n.subs {
		subs = append(subs, s)
	}
	n.mu.Unlock()
	var errs []error
	for _, s := range subs {
		if err := s.register(n.ctx); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, n.resubscribeParams())
	return errors.Join(errs...)
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
	out := make([]*Subscription, 0, len(n.subs))
	for _, s := range n.subs {
		out = append(out, s)
	}
	return out
}

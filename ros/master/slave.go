package master

import (
	"context"
	"fmt"
	"time"

	"github.com/edged-robotics/edged/ros/xmlrpc"
)

// Slave calls another node's slave API.
type Slave struct {
	rpc      *xmlrpc.Client
	callerID string
}

// NewSlave returns a client of the node whose slave API is at uri.
func NewSlave(uri, callerID string, timeout time.Duration) *Slave {
	return &Slave{rpc: &xmlrpc.Client{URL: uri, Timeout: timeout, MaxResponseBytes: 1 << 20}, callerID: callerID}
}

// RequestTopicTCPROS asks the publisher for a TCPROS endpoint of topic and
// returns the host and port to dial.
func (s *Slave) RequestTopicTCPROS(ctx context.Context, topic string) (host string, port int, err error) {
	v, err := Call(ctx, s.rpc, "requestTopic", s.callerID, topic, []any{[]any{"TCPROS"}})
	if err != nil {
		return "", 0, err
	}
	params, ok := v.([]any)
	if !ok || len(params) != 3 {
		return "", 0, fmt.Errorf("ros requestTopic at %s: protocol params %v are not [TCPROS, host, port]", s.rpc.URL, v)
	}
	proto, _ := params[0].(string)
	host, _ = params[1].(string)
	port, _ = params[2].(int)
	if proto != "TCPROS" || host == "" || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("ros requestTopic at %s: unusable protocol params %v", s.rpc.URL, v)
	}
	return host, port, nil
}

// GetPid returns the node's pid.
func (s *Slave) GetPid(ctx context.Context) (int, error) {
	v, err := Call(ctx, s.rpc, "getPid", s.callerID)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int)
	return n, nil
}

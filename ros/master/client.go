package master

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edged-robotics/edged/ros/xmlrpc"
)

// StatusError is a ROS API call answered with a code other than 1.
type StatusError struct {
	Method  string
	Code    int // 0: failure, -1: error
	Message string
}

func (e *StatusError) Error() string {
	kind := "failed"
	if e.Code == -1 {
		kind = "error"
	}
	return fmt.Sprintf("ros %s %s (code %d): %s", e.Method, kind, e.Code, e.Message)
}

// IsNotFound reports whether err says a parameter or node does not
// exist: rosmaster answers code -1 with "Parameter [k] is not set" or
// "unknown node [n]"; other masters answer code 0.
func IsNotFound(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == 0 || strings.Contains(se.Message, "is not set") || strings.HasPrefix(se.Message, "unknown node")
}

// Call invokes a ROS API method on c and unwraps the [code, status, value]
// triple.
func Call(ctx context.Context, c *xmlrpc.Client, method string, params ...any) (any, error) {
	v, err := c.Call(ctx, method, params...)
	if err != nil {
		return nil, err
	}
	triple, ok := v.([]any)
	if !ok || len(triple) != 3 {
		return nil, fmt.Errorf("ros %s at %s: answer is %T, want [code, statusMessage, value]", method, c.URL, v)
	}
	code, ok := triple[0].(int)
	if !ok {
		return nil, fmt.Errorf("ros %s at %s: status code is %T, want int", method, c.URL, triple[0])
	}
	msg, _ := triple[1].(string)
	if code != 1 {
		return nil, &StatusError{Method: method, Code: code, Message: msg}
	}
	return triple[2], nil
}

// Client calls the master API as one caller id.
type Client struct {
	rpc      *xmlrpc.Client
	callerID string
}

// New returns a Client of the master at uri for the node callerID.
// timeout bounds each call (0: xmlrpc.DefaultTimeout).
func New(uri, callerID string, timeout time.Duration) *Client {
	return &Client{rpc: &xmlrpc.Client{URL: uri, Timeout: timeout}, callerID: callerID}
}

// URI is the master's URI.
func (c *Client) URI() string { return c.rpc.URL }

// CallerID is the node name this client speaks for.
func (c *Client) CallerID() string { return c.callerID }

// TopicType is a topic name with its message type.
type TopicType struct{ Name, Type string }

// SystemState lists, per topic or service, the nodes involved.
type SystemState struct {
	Publishers  map[string][]string // topic -> publishing nodes
	Subscribers map[string][]string // topic -> subscribing nodes
	Services    map[string][]string // service -> providing nodes
}

// RegisterSubscriber registers callerAPI as a subscriber of topic and
// returns the slave URIs of its current publishers.
func (c *Client) RegisterSubscriber(ctx context.Context, topic, topicType, callerAPI string) ([]string, error) {
	v, err := Call(ctx, c.rpc, "registerSubscriber", c.callerID, topic, topicType, callerAPI)
	if err != nil {
		return nil, err
	}
	return Strings(v)
}

// RegisterPublisher registers callerAPI as a publisher of topic; the
// master answers with the current subscribers' URIs (unused by a TCPROS
// publisher: subscribers ask for the topic through requestTopic).
func (c *Client) RegisterPublisher(ctx context.Context, topic, topicType, callerAPI string) error {
	_, err := Call(ctx, c.rpc, "registerPublisher", c.callerID, topic, topicType, callerAPI)
	return err
}

// UnregisterPublisher removes a publisher registration.
func (c *Client) UnregisterPublisher(ctx context.Context, topic, callerAPI string) error {
	_, err := Call(ctx, c.rpc, "unregisterPublisher", c.callerID, topic, callerAPI)
	return err
}

// RegisterService registers a service at serviceAPI (rosrpc://host:port)
// provided by callerAPI.
func (c *Client) RegisterService(ctx context.Context, service, serviceAPI, callerAPI string) error {
	_, err := Call(ctx, c.rpc, "registerService", c.callerID, service, serviceAPI, callerAPI)
	return err
}

// UnregisterService removes a service registration.
func (c *Client) UnregisterService(ctx context.Context, service, serviceAPI string) error {
	_, err := Call(ctx, c.rpc, "unregisterService", c.callerID, service, serviceAPI)
	return err
}

// UnregisterSubscriber removes the registration; the master reports how
// many were removed (0 if callerAPI was not registered).
func (c *Client) UnregisterSubscriber(ctx context.Context, topic, callerAPI string) (int, error) {
	v, err := Call(ctx, c.rpc, "unregisterSubscriber", c.callerID, topic, callerAPI)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int)
	return n, nil
}

// GetPublishedTopics lists published topics under subgraph ("" for all).
func (c *Client) GetPublishedTopics(ctx context.Context, subgraph string) ([]TopicType, error) {
	v, err := Call(ctx, c.rpc, "getPublishedTopics", c.callerID, subgraph)
	if err != nil {
		return nil, err
	}
	return topicTypes(v)
}

// GetTopicTypes lists every topic known to the master with its type.
func (c *Client) GetTopicTypes(ctx context.Context) ([]TopicType, error) {
	v, err := Call(ctx, c.rpc, "getTopicTypes", c.callerID)
	if err != nil {
		return nil, err
	}
	return topicTypes(v)
}

// GetSystemState returns who publishes, subscribes and serves what.
func (c *Client) GetSystemState(ctx context.Context) (SystemState, error) {
	v, err := Call(ctx, c.rpc, "getSystemState", c.callerID)
	if err != nil {
		return SystemState{}, err
	}
	parts, ok := v.([]any)
	if !ok || len(parts) != 3 {
		return SystemState{}, fmt.Errorf("ros getSystemState: answer is not [publishers, subscribers, services]")
	}
	var st SystemState
	for i, dst := range []*map[string][]string{&st.Publishers, &st.Subscribers, &st.Services} {
		m, err := nameToNodes(parts[i])
		if err != nil {
			return SystemState{}, fmt.Errorf("ros getSystemState: part %d: %w", i, err)
		}
		*dst = m
	}
	return st, nil
}

// LookupNode returns the slave URI of node name.
func (c *Client) LookupNode(ctx context.Context, name string) (string, error) {
	v, err := Call(ctx, c.rpc, "lookupNode", c.callerID, name)
	if err != nil {
		return "", err
	}
	return str(v, "lookupNode")
}

// GetURI returns the master's own URI as it sees itself.
func (c *Client) GetURI(ctx context.Context) (string, error) {
	v, err := Call(ctx, c.rpc, "getUri", c.callerID)
	if err != nil {
		return "", err
	}
	return str(v, "getUri")
}

// GetPid returns the master process's pid; a change means it restarted.
func (c *Client) GetPid(ctx context.Context) (int, error) {
	v, err := Call(ctx, c.rpc, "getPid", c.callerID)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int)
	if !ok {
		return 0, fmt.Errorf("ros getPid: pid is %T, want int", v)
	}
	return n, nil
}

// GetParam returns the value of key; IsNotFound(err) when it is not set.
func (c *Client) GetParam(ctx context.Context, key string) (any, error) {
	return Call(ctx, c.rpc, "getParam", c.callerID, key)
}

// HasParam reports whether key is set.
func (c *Client) HasParam(ctx context.Context, key string) (bool, error) {
	v, err := Call(ctx, c.rpc, "hasParam", c.callerID, key)
	if err != nil {
		return false, err
	}
	b, _ := v.(bool)
	return b, nil
}

// SetParam sets key to value.
func (c *Client) SetParam(ctx context.Context, key string, value any) error {
	_, err := Call(ctx, c.rpc, "setParam", c.callerID, key, value)
	return err
}

// DeleteParam removes key.
func (c *Client) DeleteParam(ctx context.Context, key string) error {
	_, err := Call(ctx, c.rpc, "deleteParam", c.callerID, key)
	return err
}

// SubscribeParam asks the master to send paramUpdate calls for key to
// callerAPI and returns the current value (an empty map when unset, as
// rosmaster answers).
func (c *Client) SubscribeParam(ctx context.Context, callerAPI, key string) (any, error) {
	return Call(ctx, c.rpc, "subscribeParam", c.callerID, callerAPI, key)
}

// UnsubscribeParam cancels SubscribeParam.
func (c *Client) UnsubscribeParam(ctx context.Context, callerAPI, key string) error {
	_, err := Call(ctx, c.rpc, "unsubscribeParam", c.callerID, callerAPI, key)
	return err
}

// Strings converts an XML-RPC array of strings.
func Strings(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("ros: got %T, want an array of strings", v)
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("ros: array holds %T, want strings", e)
		}
		out = append(out, s)
	}
	return out, nil
}

func str(v any, method string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("ros %s: value is %T, want string", method, v)
	}
	return s, nil
}

func topicTypes(v any) ([]TopicType, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("ros: topic list is %T, want an array", v)
	}
	out := make([]TopicType, 0, len(arr))
	for _, e := range arr {
		pair, err := Strings(e)
		if err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("ros: topic entry %v is not [name, type]", e)
		}
		out = append(out, TopicType{Name: pair[0], Type: pair[1]})
	}
	return out, nil
}

func nameToNodes(v any) (map[string][]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("got %T, want an array", v)
	}
	out := make(map[string][]string, len(arr))
	for _, e := range arr {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("entry %v is not [name, [nodes]]", e)
		}
		name, ok := pair[0].(string)
		if !ok {
			return nil, fmt.Errorf("entry name is %T", pair[0])
		}
		nodes, err := Strings(pair[1])
		if err != nil {
			return nil, err
		}
		out[name] = nodes
	}
	return out, nil
}

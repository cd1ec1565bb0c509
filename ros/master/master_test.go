package master_test

import (
	"context"
	"testing"

	"github.com/edged-robotics/edged/ros/master"
	"github.com/edged-robotics/edged/ros/rostest"
)

func TestMasterAPI(t *testing.T) {
	m := rostest.StartMaster(t)
	ctx := context.Background()
	c := m.Client("/tester")

	pid, err := c.GetPid(ctx)
	if err != nil || pid != m.Pid() {
		t.Fatalf("getPid = %d, %v; want %d", pid, err, m.Pid())
	}
	uri, err := c.GetURI(ctx)
	if err != nil || uri == "" {
		t.Fatalf("getUri = %q, %v", uri, err)
	}
	if _, err := c.GetParam(ctx, "/nope"); !master.IsNotFound(err) {
		t.Fatalf("getParam of unset key: %v", err)
	}
	if err := c.SetParam(ctx, "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	if v, err := c.GetParam(ctx, "/use_sim_time"); err != nil || v != true {
		t.Fatalf("getParam = %v, %v", v, err)
	}
	if ok, err := c.HasParam(ctx, "/use_sim_time"); err != nil || !ok {
		t.Fatalf("hasParam = %v, %v", ok, err)
	}
	if v, err := c.SubscribeParam(ctx, "http://127.0.0.1:1/", "/use_sim_time"); err != nil || v != true {
		t.Fatalf("subscribeParam = %v, %v", v, err)
	}
	if err := c.UnsubscribeParam(ctx, "http://127.0.0.1:1/", "/use_sim_time"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteParam(ctx, "/use_sim_time"); err != nil {
		t.Fatal(err)
	}

	pub := rostest.StartFakePublisher(t, m, rostest.FakePublisherConfig{NodeName: "/fake", Topic: "/chatter", Type: "std_msgs/String"})
	pubs, err := c.RegisterSubscriber(ctx, "/chatter", "std_msgs/String", "http://127.0.0.1:2/")
	if err != nil || len(pubs) != 1 || pubs[0] != pub.URI {
		t.Fatalf("registerSubscriber = %v, %v", pubs, err)
	}
	topics, err := c.GetPublishedTopics(ctx, "")
	if err != nil || len(topics) != 1 || topics[0] != (master.TopicType{Name: "/chatter", Type: "std_msgs/String"}) {
		t.Fatalf("getPublishedTopics = %v, %v", topics, err)
	}
	if types, err := c.GetTopicTypes(ctx); err != nil || len(types) == 0 {
		t.Fatalf("getTopicTypes = %v, %v", types, err)
	}
	st, err := c.GetSystemState(ctx)
	if err != nil || len(st.Publishers["/chatter"]) != 1 || st.Subscribers["/chatter"][0] != "/tester" {
		t.Fatalf("getSystemState = %+v, %v", st, err)
	}
	if u, err := c.LookupNode(ctx, "/fake"); err != nil || u != pub.URI {
		t.Fatalf("lookupNode = %q, %v", u, err)
	}
	if _, err := c.LookupNode(ctx, "/ghost"); err == nil {
		t.Fatal("lookupNode of unknown node succeeded")
	}
	host, port, err := master.NewSlave(pub.URI, "/tester", 0).RequestTopicTCPROS(ctx, "/chatter")
	if err != nil || host != "127.0.0.1" || port == 0 {
		t.Fatalf("requestTopic = %s:%d, %v", host, port, err)
	}
	if n, err := c.UnregisterSubscriber(ctx, "/chatter", "http://127.0.0.1:2/"); err != nil || n != 1 {
		t.Fatalf("unregisterSubscriber = %d, %v", n, err)
	}
}

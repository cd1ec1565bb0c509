package cdr

import (
	"strings"

	"github.com/edged-robotics/edged/rosmsg"
)

// serviceEvent rewrites the text of a service event type
// (pkg/srv/Name_Event) that rosbag2 stores as the service's .srv text,
// request and response split by "---": the event is
// service_msgs/ServiceEventInfo info, then at most one request and at
// most one response, as rosidl generates it. ok is false for any other
// type or text.
func serviceEvent(typeName, main string, blocks map[string]string) (string, bool) {
	base, isEvent := strings.CutSuffix(typeName, "_Event")
	if !isEvent || !strings.Contains(base, "/srv/") {
		return "", false
	}
	var req, resp strings.Builder
	cur, split := &req, false
	for _, line := range strings.Split(main, "\n") {
		if strings.TrimSpace(rosmsg.StripComment(line)) == "---" && !split {
			cur, split = &resp, true
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if !split {
		return "", false
	}
	if _, ok := blocks[base+"_Request"]; !ok {
		blocks[base+"_Request"] = req.String()
	}
	if _, ok := blocks[base+"_Response"]; !ok {
		blocks[base+"_Response"] = resp.String()
	}
	return "service_msgs/msg/ServiceEventInfo info\n" + base + "_Request[<=1] request\n" + base + "_Response[<=1] response\n", true
}

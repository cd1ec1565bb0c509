package dds

import "strings"

// ROS 2 maps a topic /a/b to the DDS topic rt/a/b and a type
// pkg/msg/Type to pkg::msg::dds_::Type_ (rmw's naming conventions); a
// service /a/s to a request topic rq/a/sRequest and a reply topic
// rr/a/sReply (ServiceTopics), as rmw_cyclonedds_cpp names them.
const (
	topicPrefix   = "rt"
	requestPrefix = "rq"
	replyPrefix   = "rr"
)

// maxNameBytes caps a topic or type name (the C side copies at most 255
// bytes of each; longer names are ignored, not truncated silently).
const maxNameBytes = 255

// DDSTopic returns the DDS topic name of ROS 2 topic name (leading slash
// optional): /chatter -> rt/chatter.
func DDSTopic(name string) string {
	return topicPrefix + "/" + strings.TrimPrefix(name, "/")
}

// ServiceTopics returns the DDS topics of ROS 2 service name (leading
// slash optional): /edged/snapshot -> rq/edged/snapshotRequest,
// rr/edged/snapshotReply. Their types are pkg/srv/Name_Request and
// _Response (DDSType), each sample prefixed by rmw_cyclonedds's request
// header (RequestHeader).
func ServiceTopics(name string) (request, reply string) {
	n := strings.TrimPrefix(name, "/")
	return requestPrefix + "/" + n + "Request", replyPrefix + "/" + n + "Reply"
}

// ROSTopic returns the ROS 2 name of DDS topic name (rt/chatter ->
// /chatter); ok is false for a DDS topic that is not a ROS 2 topic.
func ROSTopic(ddsName string) (name string, ok bool) {
	rest, found := strings.CutPrefix(ddsName, topicPrefix+"/")
	if !found || rest == "" {
		return "", false
	}
	return "/" + rest, true
}

// DDSType returns the DDS type name of a ROS 2 type: std_msgs/msg/String
// (or the ROS1 spelling std_msgs/String) -> std_msgs::msg::dds_::String_.
// ok is false when typ is not pkg/Type or pkg/subfolder/Type.
func DDSType(typ string) (string, bool) {
	parts := strings.Split(typ, "/")
	switch len(parts) {
	case 2:
		parts = []string{parts[0], "msg", parts[1]}
	case 3:
	default:
		return "", false
	}
	for _, p := range parts {
		if p == "" || strings.Contains(p, ":") {
			return "", false
		}
	}
	return parts[0] + "::" + parts[1] + "::dds_::" + parts[2] + "_", true
}

// ROSType returns the ROS 2 type of a DDS type name:
// std_msgs::msg::dds_::String_ -> std_msgs/msg/String. ok is false for a
// DDS type that does not follow the ROS 2 convention.
func ROSType(ddsType string) (string, bool) {
	parts := strings.Split(ddsType, "::")
	if len(parts) != 4 || parts[2] != "dds_" || !strings.HasSuffix(parts[3], "_") {
		return "", false
	}
	name := strings.TrimSuffix(parts[3], "_")
	if parts[0] == "" || parts[1] == "" || name == "" {
		return "", false
	}
	return parts[0] + "/" + parts[1] + "/" + name, true
}

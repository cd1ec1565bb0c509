package dds

import "strings"

// ROS 2 maps a topic /a/b to the DDS topic rt/a/b and a type
// pkg/msg/Type to pkg::msg::dds_::Type_ (rmw's naming conventions; the
// rq/ and rr/ prefixes of services are not topics edged reads).
const topicPrefix = "rt"

// maxNameBytes caps a topic or type name (the C side copies at most 255
// bytes of each; longer names are ignored, not truncated silently).
const maxNameBytes = 255

// DDSTopic returns the DDS topic name of ROS 2 topic name (leading slash
// optional): /chatter -> rt/chatter.
func DDSTopic(name string) string {
	return topicPrefix + "/" + strings.TrimPrefix(name, "/")
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

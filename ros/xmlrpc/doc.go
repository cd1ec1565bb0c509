// Package xmlrpc is edged's own XML-RPC codec, client and server, written
// for the dialects that ROS1 really speaks: rosmaster and rospy (Python's
// xmlrpc.client) and roscpp (XmlRpc++).
//
// Values map to Go as follows when decoding:
//
//	<int>, <i4>, <i8>       int
//	<boolean>               bool
//	<string>, untyped text  string
//	<double>                float64
//	<base64>                []byte
//	<dateTime.iso8601>      time.Time (UTC when no zone is given)
//	<array>                 []any
//	<struct>                map[string]any
//	<nil/>, <ex:nil/>       nil
//
// Encoding accepts those types plus the other Go integer and float kinds,
// []string, []int, []any, any slice or map[string]T through reflection,
// and nil (written as <nil/>, which Python accepts only with allow_none;
// the ROS APIs never need it).
//
// Every length is capped: the client reads at most MaxResponseBytes, the
// server at most MaxRequestBytes, and the decoder refuses nesting deeper
// than MaxDepth and more than MaxElements values in one document. Bad
// input is a returned error, never a panic.
//
// Concurrency: Client and Server are safe for concurrent use once
// configured. A Server's handlers run on net/http's goroutines.
package xmlrpc

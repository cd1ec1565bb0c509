package xmlrpc

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Real-world documents: rosmaster (Python) and roscpp (XmlRpc++) styles.
const (
	pyRegisterSubscriber = `<?xml version='1.0'?>
<methodResponse>
<params>
<param>
<value><array><data>
<value><int>1</int></value>
<value><string>Subscribed to [/chatter]</string></value>
<value><array><data>
<value><string>http://host:40123/</string></value>
</data></array></value>
</data></array></value>
</param>
</params>
</methodResponse>
`
	cppGetPid = `<?xml version="1.0"?>
<methodResponse><params><param>
	<value><array><data><value><i4>1</i4></value><value></value><value><i4>4242</i4></value></data></array></value>
</param></params></methodResponse>
`
	untypedString = `<?xml version="1.0"?><methodResponse><params><param><value>  hello &amp; bye </value></param></params></methodResponse>`
	pyFault       = `<?xml version='1.0'?>
<methodResponse>
<fault>
<value><struct>
<member>
<name>faultCode</name>
<value><int>1</int></value>
</member>
<member>
<name>faultString</name>
<value><string>&lt;class 'Exception'&gt;:method "nope" is not supported</string></value>
</member>
</struct></value>
</fault>
</methodResponse>
`
)

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want any
	}{
		{"rospy triple", pyRegisterSubscriber, []any{1, "Subscribed to [/chatter]", []any{"http://host:40123/"}}},
		{"roscpp i4 and empty untyped", cppGetPid, []any{1, "", 4242}},
		{"untyped string keeps spaces", untypedString, "  hello & bye "},
		{"boolean", `<methodResponse><params><param><value><boolean>1</boolean></value></param></params></methodResponse>`, true},
		{"double", `<methodResponse><params><param><value><double>-1.5e3</double></value></param></params></methodResponse>`, -1500.0},
		{"i8", `<methodResponse><params><param><value><i8>9000000000</i8></value></param></params></methodResponse>`, 9000000000},
		{"base64", `<methodResponse><params><param><value><base64>aGk=</base64></value></param></params></methodResponse>`, []byte("hi")},
		{"nil", `<methodResponse><params><param><value><nil/></value></param></params></methodResponse>`, nil},
		{"ex:nil", `<methodResponse xmlns:ex="http://ws.apache.org/xmlrpc/namespaces/extensions"><params><param><value><ex:nil/></value></param></params></methodResponse>`, nil},
		{"date", `<methodResponse><params><param><value><dateTime.iso8601>20240102T03:04:05</dateTime.iso8601></value></param></params></methodResponse>`, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"struct nested", `<methodResponse><params><param><value><struct><member><name>a</name><value><array><data><value><i4>1</i4></value><value><array><data/></array></value></data></array></value></member></struct></value></param></params></methodResponse>`,
			map[string]any{"a": []any{1, []any{}}}},
		{"array without data", `<methodResponse><params><param><value><array><value>x</value></array></value></param></params></methodResponse>`, []any{"x"}},
		{"latin-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><methodResponse><params><param><value>caf\xe9</value></param></params></methodResponse>", "café"},
		{"comment", `<methodResponse><!-- hi --><params><param><value><int> 7 </int></value></param></params></methodResponse>`, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeResponse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeFault(t *testing.T) {
	_, err := DecodeResponse([]byte(pyFault))
	var f *Fault
	if !errors.As(err, &f) || f.Code != 1 || !strings.Contains(f.Message, `"nope"`) {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeBad(t *testing.T) {
	bad := []string{
		"",
		"<methodResponse>",
		"<methodResponse><params><param><value><int>x</int></value></param></params></methodResponse>",
		"<methodResponse><params><param><value><bogus>1</bogus></value></param></params></methodResponse>",
		"<methodResponse><params><param><value><boolean>2</boolean></value></param></params></methodResponse>",
		"<methodResponse><params><param><value><struct><member><name>a</name></member></struct></value></param></params></methodResponse>",
		"<methodResponse><params><param><value><int><b/></int></value></param></params></methodResponse>",
		"<methodResponse><params><param><value><array><data><data></data></data></array></value></param></params></methodResponse>",
		"<?xml version=\"1.0\" encoding=\"EBCDIC\"?><methodResponse/>",
		"<other/>",
		"<methodResponse><params><param><value>" + strings.Repeat("<array><data><value>", MaxDepth+2),
	}
	for _, doc := range bad {
		if _, err := DecodeResponse([]byte(doc)); err == nil {
			t.Errorf("no error for %q", truncate(doc))
		}
	}
}

func TestDepthCap(t *testing.T) {
	doc := "<methodResponse><params><param><value>" +
		strings.Repeat("<array><data><value>", MaxDepth+5) + "x" +
		strings.Repeat("</value></data></array>", MaxDepth+5) + "</value></param></params></methodResponse>"
	_, err := DecodeResponse([]byte(doc))
	if err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Fatalf("got %v", err)
	}
}

func TestRoundTripCall(t *testing.T) {
	params := []any{
		"/edged", 42, int64(1) << 40, true, 2.5, []byte{0, 1, 2}, "a<b&c>",
		[]any{"x", []any{1, 2}}, map[string]any{"k": "v", "n": 3},
		time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC), []string{"p", "q"}, uint8(5), float32(0.5),
		map[string]int{"z": 1},
	}
	want := []any{
		"/edged", 42, 1 << 40, true, 2.5, []byte{0, 1, 2}, "a<b&c>",
		[]any{"x", []any{1, 2}}, map[string]any{"k": "v", "n": 3},
		time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC), []any{"p", "q"}, 5, 0.5,
		map[string]any{"z": 1},
	}
	doc, err := EncodeCall("someMethod", params...)
	if err != nil {
		t.Fatal(err)
	}
	name, got, err := DecodeCall(doc)
	if err != nil {
		t.Fatal(err)
	}
	if name != "someMethod" || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s %#v", name, got)
	}
}

func TestDecodeCallNoParams(t *testing.T) {
	name, params, err := DecodeCall([]byte(`<?xml version="1.0"?><methodCall><methodName>getPid</methodName></methodCall>`))
	if err != nil || name != "getPid" || len(params) != 0 {
		t.Fatalf("got %q %v %v", name, params, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := EncodeCall("m", make(chan int)); err == nil {
		t.Fatal("channel encoded")
	}
	if _, err := EncodeCall("m", map[int]int{1: 1}); err == nil {
		t.Fatal("int-keyed map encoded")
	}
	if _, err := EncodeCall("m", uint64(1)<<63); err == nil {
		t.Fatal("huge unsigned encoded")
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{pyRegisterSubscriber, cppGetPid, untypedString, pyFault} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeResponse(data)
		if err != nil {
			return
		}
		// Whatever decodes must encode again and decode to the same value.
		doc, err := EncodeResponse(v)
		if err != nil {
			t.Fatalf("decoded %#v but cannot encode it: %v", v, err)
		}
		if _, err := DecodeResponse(doc); err != nil {
			t.Fatalf("re-decoding %q: %v", doc, err)
		}
	})
}

func FuzzDecodeCall(f *testing.F) {
	doc, _ := EncodeCall("publisherUpdate", "/master", "/chatter", []any{"http://a:1/", "http://b:2/"})
	f.Add(doc)
	f.Add([]byte(`<?xml version="1.0"?><methodCall><methodName>getPid</methodName><params><param><value>/rosnode</value></param></params></methodCall>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		name, params, err := DecodeCall(data)
		if err != nil {
			return
		}
		if _, err := EncodeCall(name, params...); err != nil {
			t.Fatalf("decoded %q %#v but cannot encode: %v", name, params, err)
		}
	})
}

package msg

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
)

// computeMD5 follows genmsg's compute_md5_text: constants first as
// "type name=value", then fields; a builtin field is "type name" with the
// type as written (array suffix included), a message field is "md5 name"
// (the nested type's md5, array suffix dropped). Comments and blank lines
// do not count. Nested definitions must already have their md5.
func computeMD5(d *Definition) string {
	var b strings.Builder
	for _, c := range d.Constants {
		b.WriteString(c.Type + " " + c.Name + "=" + c.Value + "\n")
	}
	for _, f := range d.Fields {
		if f.Kind == KindMessage {
			b.WriteString(f.Msg.md5 + " " + f.Name + "\n")
		} else {
			b.WriteString(f.raw + " " + f.Name + "\n")
		}
	}
	sum := md5.Sum([]byte(strings.TrimSpace(b.String())))
	return hex.EncodeToString(sum[:])
}

//go:build !cgo || purego

package turbojpeg

// Without cgo, or with the tag purego, the pure-Go backend (pure.go) is
// the package's Decoder and Encoder.

// Decoder decodes JPEGs with image/jpeg (pure-Go fallback). Not safe for
// concurrent use: one per goroutine, like the cgo version.
type Decoder struct{ *pureDecoder }

// NewDecoder returns a decoder enforcing limits (zero fields: defaults).
func NewDecoder(limits Limits) (*Decoder, error) { return &Decoder{newPureDecoder(limits)}, nil }

// Encoder encodes packed RGB with image/jpeg (always 4:2:0 colour, or gray
// when sub is SubsampGray).
type Encoder struct{ pureEncoder }

// NewEncoder returns an encoder.
func NewEncoder() (*Encoder, error) { return &Encoder{}, nil }

// Backend names the implementation compiled in.
const Backend = "purego"

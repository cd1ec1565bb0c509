package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Caps for connection headers.
const (
	// DefaultMaxHeaderBytes caps a whole connection header. Message
	// definitions with many nested types reach tens of KiB.
	DefaultMaxHeaderBytes = 1 << 20
	// MaxFieldBytes caps one header field.
	MaxFieldBytes = 512 << 10
)

var (
	// ErrTooLarge: a length on the wire is over its cap.
	ErrTooLarge = errors.New("tcpros: length over cap")
	// ErrMalformed: the bytes do not follow the TCPROS format.
	ErrMalformed = errors.New("tcpros: malformed")
)

// Header is a decoded connection header.
type Header map[string]string

// EncodeHeader returns h in wire format, with its 4-byte length prefix.
// Fields are written in key order so the bytes are deterministic.
func EncodeHeader(h Header) []byte {
	keys := make([]string, 0, len(h))
	size := 4
	for k, v := range h {
		keys = append(keys, k)
		size += 4 + len(k) + 1 + len(v)
	}
	sort.Strings(keys)
	b := make([]byte, 4, size)
	binary.LittleEndian.PutUint32(b, uint32(size-4))
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)+1+len(h[k])))
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, h[k]...)
	}
	return b
}

// ReadHeader reads one length-prefixed header from r, refusing more than
// maxBytes (0: DefaultMaxHeaderBytes).
func ReadHeader(r io.Reader, maxBytes int) (Header, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxHeaderBytes
	}
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("tcpros: reading header length: %w", err)
	}
	n := binary.LittleEndian.Uint32(lenBuf[:])
	if uint64(n) > uint64(maxBytes) {
		return nil, fmt.Errorf("%w: header of %d bytes, cap %d", ErrTooLarge, n, maxBytes)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("tcpros: reading header of %d bytes: %w", n, err)
	}
	return DecodeHeader(body)
}

// DecodeHeader decodes a header body (without the total length prefix).
func DecodeHeader(b []byte) (Header, error) {
	h := Header{}
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w header: %d stray bytes after the last field", ErrMalformed, len(b))
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if n > MaxFieldBytes {
			return nil, fmt.Errorf("%w: header field of %d bytes, cap %d", ErrTooLarge, n, MaxFieldBytes)
		}
		if uint64(n) > uint64(len(b)) {
			return nil, fmt.Errorf("%w header: field of %d bytes with %d left", ErrMalformed, n, len(b))
		}
		field := b[:n]
		b = b[n:]
		eq := bytes.IndexByte(field, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w header: field %q has no key=value", ErrMalformed, clip(field))
		}
		h[string(field[:eq])] = string(field[eq+1:])
	}
	return h, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

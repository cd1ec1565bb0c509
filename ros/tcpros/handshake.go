package tcpros

import (
	"fmt"
	"io"
)

// SubscriberHeader is what a subscriber sends when it connects.
type SubscriberHeader struct {
	CallerID   string
	Topic      string
	Type       string // "*" accepts any type
	MD5Sum     string // "*" accepts any type
	TCPNoDelay bool
}

// PublisherHeader is what the publisher answers.
type PublisherHeader struct {
	CallerID          string
	Topic             string
	Type              string
	MD5Sum            string
	MessageDefinition string
	Latching          bool
	Fields            Header // every field as received
}

// Encode returns the subscriber header in wire format. Empty Type and
// MD5Sum become "*".
func (s SubscriberHeader) Encode() []byte {
	h := Header{
		"callerid":    s.CallerID,
		"topic":       s.Topic,
		"type":        orStar(s.Type),
		"md5sum":      orStar(s.MD5Sum),
		"tcp_nodelay": "0",
	}
	if s.TCPNoDelay {
		h["tcp_nodelay"] = "1"
	}
	return EncodeHeader(h)
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// Handshake sends sub's header on rw and reads the publisher's answer
// (capped at maxHeader bytes, 0: DefaultMaxHeaderBytes). A publisher that
// answers with an "error" field is returned as an error.
func Handshake(rw io.ReadWriter, sub SubscriberHeader, maxHeader int) (PublisherHeader, error) {
	if _, err := rw.Write(sub.Encode()); err != nil {
		return PublisherHeader{}, fmt.Errorf("tcpros: sending subscriber header: %w", err)
	}
	h, err := ReadHeader(rw, maxHeader)
	if err != nil {
		return PublisherHeader{}, err
	}
	if e, ok := h["error"]; ok {
		return PublisherHeader{}, fmt.Errorf("tcpros: publisher refused %s: %s", sub.Topic, e)
	}
	ph := ParsePublisherHeader(h)
	if ph.Type == "" || ph.MD5Sum == "" {
		return PublisherHeader{}, fmt.Errorf("%w: publisher header for %s lacks type or md5sum", ErrMalformed, sub.Topic)
	}
	return ph, nil
}

// ParsePublisherHeader picks the known fields out of h.
func ParsePublisherHeader(h Header) PublisherHeader {
	return PublisherHeader{
		CallerID:          h["callerid"],
		Topic:             h["topic"],
		Type:              h["type"],
		MD5Sum:            h["md5sum"],
		MessageDefinition: h["message_definition"],
		Latching:          h["latching"] == "1",
		Fields:            h,
	}
}

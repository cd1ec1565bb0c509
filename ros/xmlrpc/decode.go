package xmlrpc

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeResponse parses a methodResponse. A fault is returned as a *Fault
// error; any other error means the document was malformed.
func DecodeResponse(data []byte) (any, error) {
	p := newParser(data)
	if err := p.expectStart("methodResponse"); err != nil {
		return nil, err
	}
	se, err := p.nextStart()
	if err != nil {
		return nil, err
	}
	switch se.Name.Local {
	case "params":
		if err := p.expectStart("param"); err != nil {
			return nil, err
		}
		if err := p.expectStart("value"); err != nil {
			return nil, err
		}
		v, err := p.value(0)
		if err != nil {
			return nil, err
		}
		return v, nil
	case "fault":
		if err := p.expectStart("value"); err != nil {
			return nil, err
		}
		v, err := p.value(0)
		if err != nil {
			return nil, err
		}
		return nil, faultFrom(v)
	default:
		return nil, fmt.Errorf("xmlrpc: methodResponse holds <%s>, want <params> or <fault>", se.Name.Local)
	}
}

// DecodeCall parses a methodCall into the method name and its parameters.
func DecodeCall(data []byte) (method string, params []any, err error) {
	p := newParser(data)
	if err := p.expectStart("methodCall"); err != nil {
		return "", nil, err
	}
	if err := p.expectStart("methodName"); err != nil {
		return "", nil, err
	}
	method, err = p.text()
	if err != nil {
		return "", nil, err
	}
	method = strings.TrimSpace(method)
	if method == "" {
		return "", nil, errors.New("xmlrpc: empty methodName")
	}
	tok, err := p.next()
	if err != nil {
		return "", nil, err
	}
	switch t := tok.(type) {
	case xml.EndElement: // </methodCall>: no params
		return method, nil, nil
	case xml.StartElement:
		if t.Name.Local != "params" {
			return "", nil, fmt.Errorf("xmlrpc: methodCall holds <%s>, want <params>", t.Name.Local)
		}
	}
	params = []any{}
	for {
		tok, err := p.next()
		if err != nil {
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement: // </params>
			return method, params, nil
		case xml.StartElement:
			if t.Name.Local != "param" {
				return "", nil, fmt.Errorf("xmlrpc: <params> holds <%s>, want <param>", t.Name.Local)
			}
			if err := p.expectStart("value"); err != nil {
				return "", nil, err
			}
			v, err := p.value(0)
			if err != nil {
				return "", nil, err
			}
			if err := p.expectEnd(); err != nil {
				return "", nil, err
			}
			params = append(params, v)
		}
	}
}

func faultFrom(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return &Fault{Code: -1, Message: fmt.Sprintf("malformed fault: %v", v)}
	}
	f := &Fault{}
	switch c := m["faultCode"].(type) {
	case int:
		f.Code = c
	case string:
		f.Code, _ = strconv.Atoi(strings.TrimSpace(c))
	}
	if s, ok := m["faultString"].(string); ok {
		f.Message = s
	}
	return f
}

type parser struct {
	d        *xml.Decoder
	elements int
}

func newParser(data []byte) *parser {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charsetReader
	return &parser{d: d}
}

// charsetReader accepts the encodings XML-RPC peers declare in practice.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return in, nil
	case "iso-8859-1", "latin-1", "latin1":
		b, err := io.ReadAll(in) // the whole document is already in memory and capped
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(b)*2)
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, fmt.Errorf("xmlrpc: unsupported encoding %q", label)
}

// token reads the next raw token; the document ending inside a value is
// io.ErrUnexpectedEOF.
func (p *parser) token() (xml.Token, error) {
	tok, err := p.d.Token()
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, fmt.Errorf("xmlrpc: %w", err)
	}
	return tok, nil
}

// next returns the next start element, end element or character data,
// skipping comments, processing instructions and directives.
func (p *parser) next() (xml.Token, error) {
	for {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return t, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			return t.Copy(), nil
		}
	}
}

func (p *parser) nextStart() (xml.StartElement, error) {
	tok, err := p.next()
	if err != nil {
		return xml.StartElement{}, err
	}
	se, ok := tok.(xml.StartElement)
	if !ok {
		return xml.StartElement{}, fmt.Errorf("xmlrpc: unexpected %s, want an element", describe(tok))
	}
	return se, nil
}

func (p *parser) expectStart(name string) error {
	se, err := p.nextStart()
	if err != nil {
		return err
	}
	if se.Name.Local != name {
		return fmt.Errorf("xmlrpc: got <%s>, want <%s>", se.Name.Local, name)
	}
	return nil
}

func (p *parser) expectEnd() error {
	tok, err := p.next()
	if err != nil {
		return err
	}
	if _, ok := tok.(xml.EndElement); !ok {
		return fmt.Errorf("xmlrpc: unexpected %s, want an end tag", describe(tok))
	}
	return nil
}

func describe(tok xml.Token) string {
	switch t := tok.(type) {
	case xml.StartElement:
		return "<" + t.Name.Local + ">"
	case xml.EndElement:
		return "</" + t.Name.Local + ">"
	case xml.CharData:
		return fmt.Sprintf("text %q", truncate(string(t)))
	}
	return fmt.Sprintf("%T", tok)
}

// text reads character data up to the end of the current element.
func (p *parser) text() (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("xmlrpc: unexpected <%s> inside a scalar", t.Name.Local)
		}
	}
}

// value parses what follows a <value> start tag, through its end tag.
func (p *parser) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("xmlrpc: nesting deeper than %d", MaxDepth)
	}
	p.elements++
	if p.elements > MaxElements {
		return nil, fmt.Errorf("xmlrpc: more than %d values", MaxElements)
	}
	var untyped strings.Builder
	for {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			untyped.Write(t)
		case xml.EndElement: // </value> with no type tag: a string
			return untyped.String(), nil
		case xml.StartElement:
			v, err := p.typed(t.Name.Local, depth)
			if err != nil {
				return nil, err
			}
			return v, p.expectEnd()
		}
	}
}

func (p *parser) typed(tag string, depth int) (any, error) {
	switch tag {
	case "array":
		return p.array(depth)
	case "struct":
		return p.structure(depth)
	case "nil":
		return nil, p.expectEnd()
	}
	s, err := p.text()
	if err != nil {
		return nil, err
	}
	return scalar(tag, s)
}

func scalar(tag, s string) (any, error) {
	switch tag {
	case "string":
		return s, nil
	case "int", "i4", "i8":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("xmlrpc: bad <%s> %q", tag, truncate(s))
		}
		return int(n), nil
	case "boolean":
		switch strings.TrimSpace(s) {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		}
		return nil, fmt.Errorf("xmlrpc: bad <boolean> %q", truncate(s))
	case "double":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("xmlrpc: bad <double> %q", truncate(s))
		}
		return f, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, fmt.Errorf("xmlrpc: bad <base64>: %w", err)
		}
		return b, nil
	case "dateTime.iso8601":
		return parseISO8601(strings.TrimSpace(s))
	}
	return nil, fmt.Errorf("xmlrpc: unknown value type <%s>", tag)
}

func (p *parser) array(depth int) (any, error) {
	out := []any{}
	inData := false
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			return nil, fmt.Errorf("xmlrpc: unexpected %s in <array>", describe(t))
		case xml.EndElement:
			if inData { // </data>, then </array>
				inData = false
				continue
			}
			return out, nil
		case xml.StartElement:
			switch t.Name.Local {
			case "data":
				if inData {
					return nil, errors.New("xmlrpc: nested <data>")
				}
				inData = true
			case "value":
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			default:
				return nil, fmt.Errorf("xmlrpc: unexpected <%s> in <array>", t.Name.Local)
			}
		}
	}
}

func (p *parser) structure(depth int) (any, error) {
	out := map[string]any{}
	for {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			return nil, fmt.Errorf("xmlrpc: unexpected %s in <struct>", describe(t))
		case xml.EndElement:
			return out, nil
		case xml.StartElement:
			if t.Name.Local != "member" {
				return nil, fmt.Errorf("xmlrpc: unexpected <%s> in <struct>", t.Name.Local)
			}
			name, v, err := p.member(depth)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
	}
}

func (p *parser) member(depth int) (string, any, error) {
	var name string
	var v any
	var haveName, haveValue bool
	for {
		tok, err := p.next()
		if err != nil {
			return "", nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			return "", nil, fmt.Errorf("xmlrpc: unexpected %s in <member>", describe(t))
		case xml.EndElement:
			if !haveName || !haveValue {
				return "", nil, errors.New("xmlrpc: <member> needs a <name> and a <value>")
			}
			return name, v, nil
		case xml.StartElement:
			switch t.Name.Local {
			case "name":
				if name, err = p.text(); err != nil {
					return "", nil, err
				}
				haveName = true
			case "value":
				if v, err = p.value(depth + 1); err != nil {
					return "", nil, err
				}
				haveValue = true
			default:
				return "", nil, fmt.Errorf("xmlrpc: unexpected <%s> in <member>", t.Name.Local)
			}
		}
	}
}

package msg

import "strconv"

func itoa(i int) string { return strconv.Itoa(i) }

// quoteGo quotes s as a Go string literal that the fuzz corpus format
// reads back byte for byte.
func quoteGo(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		default:
			b = append(b, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
	}
	return string(append(b, '"'))
}

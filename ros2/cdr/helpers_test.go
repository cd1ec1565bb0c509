package cdr

// enc writes test messages through the package's one encoder (Writer),
// b being the message so far (tests append malformed tails to it).
type enc struct {
	w *Writer
	b []byte
}

func newEnc() *enc { w := NewWriter(nil); return &enc{w: w, b: w.b} }

func (e *enc) do(f func(*Writer)) *enc {
	e.w.b = e.b // a test may have appended to b
	f(e.w)
	e.b = e.w.b
	return e
}

func (e *enc) u8(v uint8) *enc    { return e.do(func(w *Writer) { w.U8(v) }) }
func (e *enc) u32(v uint32) *enc  { return e.do(func(w *Writer) { w.U32(v) }) }
func (e *enc) f64(v float64) *enc { return e.do(func(w *Writer) { w.F64(v) }) }
func (e *enc) str(s string) *enc  { return e.do(func(w *Writer) { w.Str(s) }) }

// header is a std_msgs/msg/Header with the raw stamp fields given.
func (e *enc) header(sec int32, nsec uint32, frame string) *enc {
	return e.u32(uint32(sec)).u32(nsec).str(frame)
}

func compressedMsg(data []byte) []byte {
	e := newEnc().header(5, 6, "cam").str("jpeg").u32(uint32(len(data)))
	e.b = append(e.b, data...)
	return e.b
}

func jointMsg() []byte {
	return newEnc().header(1, 2, "base").u32(2).str("a").str("b").u32(2).f64(1.5).f64(-2).u32(0).u32(1).f64(3).b
}

package tcpros

import (
	"math/bits"
	"sync"
)

// Size classes: 512 bytes, then four steps per power of two (e.g. 2 MiB,
// 2.5, 3, 3.5, 4 MiB), so a buffer wastes at most a quarter of its size.
const (
	minClassBits = 9 // 512 bytes
	maxClassBits = 31
	stepsPerPow  = 4
	numClasses   = (maxClassBits-minClassBits)*stepsPerPow + 1
)

// Buffer is a pooled byte slice. B has the length asked for; its capacity
// is the size class.
type Buffer struct {
	B     []byte
	class int
}

// Pool hands out Buffers by size class. The zero value is not usable: use
// NewPool. Safe for concurrent use.
type Pool struct {
	classes [numClasses]sync.Pool
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{} }

// classOf returns the class index and capacity for n bytes.
func classOf(n int) (int, int) {
	if n <= 1<<minClassBits {
		return 0, 1 << minClassBits
	}
	k := bits.Len(uint(n - 1)) // 2^(k-1) < n <= 2^k
	base := 1 << (k - 1)
	step := base / stepsPerPow
	j := (n - base + step - 1) / step // 1..stepsPerPow
	return (k-1-minClassBits)*stepsPerPow + j, base + j*step
}

// Get returns a buffer of length n (n must be below 2 GiB).
func (p *Pool) Get(n int) *Buffer {
	c, size := classOf(n)
	if v := p.classes[c].Get(); v != nil {
		b := v.(*Buffer)
		b.B = b.B[:n]
		return b
	}
	return &Buffer{B: make([]byte, n, size), class: c}
}

// Put returns b to the pool; b must not be used afterwards.
func (p *Pool) Put(b *Buffer) {
	if b == nil {
		return
	}
	p.classes[b.class].Put(b)
}

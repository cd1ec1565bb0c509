package blobtest

import (
	"path"
	"sync"

	"github.com/edged-robotics/edged/blob"
)

// Counting is a store that counts its requests by kind and base name,
// and runs BeforeList once before the next List (a deterministic
// interleaving of two writers). Read the counts under Mu when writers
// still run.
type Counting struct {
	blob.Blobs
	Mu         sync.Mutex
	Puts, Gets map[string]int // by base name
	Lists      int
	BeforeList func()
}

// NewCounting counts the requests to b.
func NewCounting(b blob.Blobs) *Counting {
	return &Counting{Blobs: b, Puts: map[string]int{}, Gets: map[string]int{}}
}

func (c *Counting) Put(name string, b []byte, cond blob.Cond) (string, error) {
	c.Mu.Lock()
	c.Puts[path.Base(name)]++
	c.Mu.Unlock()
	return c.Blobs.Put(name, b, cond)
}

func (c *Counting) Get(name string, max int64) ([]byte, string, error) {
	c.Mu.Lock()
	c.Gets[path.Base(name)]++
	c.Mu.Unlock()
	return c.Blobs.Get(name, max)
}

func (c *Counting) List(prefix string) ([]blob.Info, error) {
	c.Mu.Lock()
	c.Lists++
	hook := c.BeforeList
	c.BeforeList = nil
	c.Mu.Unlock()
	if hook != nil {
		hook()
	}
	return c.Blobs.List(prefix)
}

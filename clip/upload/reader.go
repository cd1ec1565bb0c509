package upload

import (
	"context"
	"io"
)

// Waiter paces the bytes read for upload: golang.org/x/time/rate's
// Limiter (clips.upload_rate), or a test's. WaitN is never asked for
// more than Options.Chunk bytes at once.
type Waiter interface {
	WaitN(ctx context.Context, n int) error
}

// pacedReader reads the left bytes of r in chunks of at most chunk
// bytes, each waited for by lim first, so a part is sent no faster than
// the cap and exactly its bytes are waited for.
type pacedReader struct {
	ctx   context.Context
	r     io.Reader
	left  int64
	lim   Waiter
	chunk int
	hash  io.Writer // sees every byte read (the part's MD5)
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	if len(b) > p.chunk {
		b = b[:p.chunk]
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	if err := p.lim.WaitN(p.ctx, len(b)); err != nil {
		return 0, err
	}
	n, err := p.r.Read(b)
	p.left -= int64(n)
	p.hash.Write(b[:n])
	if err == io.EOF && p.left > 0 {
		err = io.ErrUnexpectedEOF // the clip shrank: not a clip edged wrote
	}
	return n, err
}

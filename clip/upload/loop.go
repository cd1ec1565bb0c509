package upload

import (
	"context"
	"errors"
	"time"
)

// loop uploads the queued clips one at a time, oldest first, retrying
// a failed upload after a capped backoff, until ctx ends.
func (u *Uploader) loop(ctx context.Context) {
	defer close(u.done)
	backoff := u.opts.MinBackoff
	for ctx.Err() == nil {
		c, ok := u.next()
		if !ok {
			select {
			case <-ctx.Done():
			case <-u.wake:
			}
			continue
		}
		err := u.upload(ctx, c)
		switch {
		case ctx.Err() != nil:
			return // resumed from the sidecar at the next start
		case err == nil || errors.Is(err, errGone):
			u.finished(c, err)
			backoff = u.opts.MinBackoff
			continue
		}
		u.retry(c, err, backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, u.opts.MaxBackoff)
	}
}

// finished takes c off the queue, counts and logs what became of it,
// and announces an upload (OnUploaded).
func (u *Uploader) finished(c queued, err error) {
	result := ResultUploaded
	if err != nil {
		result = ResultDeleted
	}
	u.mu.Lock()
	delete(u.queue, c.path)
	u.stats.Uploads[result]++
	u.mu.Unlock()
	if err != nil {
		u.log.Info("upload: clip deleted before its upload was confirmed; upload aborted", "clip", c.path)
		return
	}
	url := u.t.ObjectURL(c.key())
	u.log.Info("upload: clip uploaded", "clip", c.path, "url", url, "kept", u.cfg.KeepUploaded)
	if u.opts.OnUploaded != nil {
		u.opts.OnUploaded(c.id, c.name, url)
	}
}

// retry counts a failed attempt and logs it, rate-limited (a store down
// fails every attempt).
func (u *Uploader) retry(c queued, err error, backoff time.Duration) {
	u.count(func(s *Stats) { s.Retries++ })
	if ok, suppressed := u.fail.Allow(); ok {
		u.log.Warn("upload: clip upload failed; retried (check clips.upload, AWS_ENDPOINT_URL and the credentials)",
			"clip", c.path, "err", err, "retry_in", backoff, "suppressed", suppressed)
	}
}

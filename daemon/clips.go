package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/clip/upload"
	"github.com/edged-robotics/edged/internal/httpserve"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/prometheus/client_golang/prometheus"
)

// POST /clip asks for an incident clip now (clip.KindRequest), with an
// optional reason (a form or query value, at most clip.MaxReasonBytes)
// and wait (seconds to wait for the clip, default DefaultClipWait, at
// most maxClipWait): 200
// and the written clip, 202 and its name when it is not written within
// wait, or an error status with what refused it (ClipAnswer.Error).

// DefaultClipWait is how long POST /clip waits for the clip by default:
// past clips.post and the settle second of the default config.
const DefaultClipWait = 20 * time.Second

// maxClipWait caps the wait a request asks for: the answer must be
// written before the server's write timeout cuts the connection.
var maxClipWait = httpserve.DefaultTimeouts.Write - 5*time.Second

// ClipAnswer is POST /clip's JSON answer.
type ClipAnswer struct {
	Name    string `json:"name,omitempty"`
	Episode string `json:"episode,omitempty"`
	Path    string `json:"path,omitempty"`
	Written bool   `json:"written"`
	Frames  int    `json:"frames,omitempty"`
	Lost    int    `json:"lost_frames,omitempty"`
	Bytes   int64  `json:"bytes,omitempty"`
	Skipped string `json:"skipped,omitempty"` // a clip.Skip* reason
	Error   string `json:"error,omitempty"`
}

func (d *Daemon) handleClip(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4*clip.MaxReasonBytes)
	reason, wait := r.FormValue("reason"), DefaultClipWait
	if len(reason) > clip.MaxReasonBytes {
		writeClipAnswer(w, http.StatusBadRequest, ClipAnswer{Error: fmt.Sprintf("reason: at most %d bytes", clip.MaxReasonBytes)})
		return
	}
	if s := r.FormValue("wait"); s != "" {
		secs, err := strconv.ParseFloat(s, 64)
		if err != nil || secs < 0 || secs > maxClipWait.Seconds() {
			writeClipAnswer(w, http.StatusBadRequest, ClipAnswer{Error: fmt.Sprintf("wait: seconds in 0..%g, got %q", maxClipWait.Seconds(), s)})
			return
		}
		wait = time.Duration(secs * float64(time.Second))
	}
	status, a := d.requestClip(r.Context(), reason, wait)
	writeClipAnswer(w, status, a)
}

// requestClip triggers an operator's clip and waits for it at most
// wait: POST /clip's and the ~snapshot service's one code path. The
// status is POST /clip's: 200 written, 202 not written within wait (a
// has its name), else what refused it (a.Error).
func (d *Daemon) requestClip(ctx context.Context, reason string, wait time.Duration) (int, ClipAnswer) {
	p, err := d.pipe.Clip(reason)
	if err != nil {
		return clipStatus(err, p), answerOf(p, err)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if res, err := p.Wait(ctx); err == nil || errors.Is(err, clip.ErrSkipped) || res.Err != nil {
		return clipStatus(err, p), answerOf(p, err)
	}
	return http.StatusAccepted, ClipAnswer{Name: p.Name(), Episode: p.Result().Episode}
}

func answerOf(p *clip.Pending, err error) ClipAnswer {
	if p == nil {
		return ClipAnswer{Error: err.Error()}
	}
	res := p.Result()
	a := ClipAnswer{Name: res.Name, Episode: res.Episode, Path: res.Path, Written: err == nil && res.Err == nil,
		Frames: res.Frames, Lost: res.Lost, Bytes: res.Bytes, Skipped: res.Skipped}
	if res.Err != nil {
		a.Error = res.Err.Error()
	}
	return a
}

// clipStatus is the HTTP status of a trigger's outcome.
func clipStatus(err error, p *clip.Pending) int {
	reason := ""
	if p != nil {
		reason = p.Result().Skipped
	}
	switch {
	case errors.Is(err, pipeline.ErrClipsDisabled):
		return http.StatusConflict
	case err == nil && reason == "":
		return http.StatusOK
	case reason == clip.SkipRateLimit:
		return http.StatusTooManyRequests
	case reason == clip.SkipBudget:
		return http.StatusInsufficientStorage
	case reason == clip.SkipNoEpisode:
		return http.StatusConflict
	case reason == clip.SkipBusy, reason == clip.SkipShutdown:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeClipAnswer(w http.ResponseWriter, status int, a ClipAnswer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}

// RequestClip asks the daemon at addr (http.listen: host:port or a URL)
// for a clip, as `edged clip` does; it waits as POST /clip does. An
// answer that is not 200 or 202 is an error saying why.
func RequestClip(ctx context.Context, addr, reason string, wait time.Duration) (ClipAnswer, error) {
	base := addr
	if u, err := url.Parse(addr); err != nil || u.Scheme == "" {
		base = "http://" + addr
	}
	ctx, cancel := context.WithTimeout(ctx, wait+10*time.Second) // the daemon answers within wait
	defer cancel()
	form := url.Values{"reason": {reason}, "wait": {strconv.FormatFloat(wait.Seconds(), 'f', -1, 64)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/clip", bytes.NewBufferString(form.Encode()))
	if err != nil {
		return ClipAnswer{}, fmt.Errorf("clip: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ClipAnswer{}, fmt.Errorf("clip: %w (is edged run listening on %s? see http.listen)", err, addr)
	}
	defer resp.Body.Close()
	var a ClipAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&a); err != nil {
		return a, fmt.Errorf("clip: %s answered %s without a clip answer: %w", addr, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return a, fmt.Errorf("clip: %s: %s", resp.Status, a.Error)
	}
	return a, nil
}

var (
	clipsWritten = desc("clips_written_total", "Incident clips written.")
	clipsBytes   = desc("clips_bytes_total", "Bytes of the incident clips written.")
	clipsSkipped = desc("clips_skipped_total", "Clip triggers without a clip, by reason (rate_limit, budget, no_episode, busy, shutdown, failed).", "reason")
	clipsLost    = desc("clips_lost_frames_total", "Frames of clip windows the rings overwrote before the clip copied them.")
	clipsDeleted = desc("clips_deleted_total", "Old clips deleted for clips.max_bytes.")
	clipsUpBytes = desc("clips_upload_bytes_total", "Bytes of clip parts the object store confirmed (clips.upload).")
	clipsUploads = desc("clips_uploads_total", "Clip uploads finished, by result (uploaded: confirmed in the store; deleted: the clip was deleted first, its upload aborted).", "result")
	clipsUpQueue = desc("clips_upload_queue", "Clips waiting for their upload, the one in flight included.")
	clipsUpRetry = desc("clips_upload_retries_total", "Clip upload attempts that failed and were retried (the store down, the network, the credentials).")
	clipDescs    = []*prometheus.Desc{clipsWritten, clipsBytes, clipsSkipped, clipsLost, clipsDeleted,
		clipsUpBytes, clipsUploads, clipsUpQueue, clipsUpRetry}
)

// clips: the incident clips (when clips.enabled).
func (m metricSink) clips(d *Daemon) {
	st, ok := d.pipe.ClipStats()
	if !ok {
		return
	}
	m.counter(clipsWritten, st.Written)
	m.counter(clipsBytes, st.Bytes)
	m.counter(clipsLost, st.LostFrames)
	m.counter(clipsDeleted, st.Deleted)
	for _, r := range clip.SkipReasons {
		m.counter(clipsSkipped, st.Skipped[r], r)
	}
	m.clipUploads(d)
}

// clipUploads: the clip uploader (when clips.upload is set).
func (m metricSink) clipUploads(d *Daemon) {
	st, ok := d.pipe.UploadStats()
	if !ok {
		return
	}
	m.counter(clipsUpBytes, st.Bytes)
	m.counter(clipsUpRetry, st.Retries)
	m.gauge(clipsUpQueue, float64(st.Queued))
	for _, r := range upload.Results {
		m.counter(clipsUploads, st.Uploads[r], r)
	}
}

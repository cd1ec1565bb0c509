package sink

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/edged-robotics/edged/uplink/wire"
)

// idLog remembers the ids of delivered messages, on disk, so that
// duplicates are dropped across restarts. It keeps the newest max ids:
// when the log grows past them it is rewritten with the newest half.
type idLog struct {
	mu    sync.Mutex // the sink's lanes share it
	path  string
	max   int
	f     *os.File
	seen  map[string]struct{}
	order []string
}

func openIDLog(path string, max int) (*idLog, error) {
	l := &idLog{path: path, max: max, seen: map[string]struct{}{}}
	if b, err := os.ReadFile(path); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			id := sc.Text()
			if len(id) > 0 && len(id) <= wire.MaxIDLen && wire.SafeName(id) { // a torn last line is skipped
				l.remember(id)
			}
		}
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("sink: id log: %w", err)
	}
	if err := l.reopen(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *idLog) reopen() error {
	if l.f != nil {
		l.f.Close()
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("sink: id log: %w", err)
	}
	l.f = f
	return nil
}

func (l *idLog) has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.seen[id]
	return ok
}

func (l *idLog) remember(id string) {
	if _, ok := l.seen[id]; ok {
		return
	}
	l.seen[id] = struct{}{}
	l.order = append(l.order, id)
}

// add records id durably.
func (l *idLog) add(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.remember(id)
	if _, err := l.f.WriteString(id + "\n"); err != nil {
		return fmt.Errorf("sink: id log: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sink: id log: %w", err)
	}
	if len(l.order) > l.max {
		return l.compact()
	}
	return nil
}

func (l *idLog) compact() error {
	keep := l.order[len(l.order)-l.max/2:]
	var buf bytes.Buffer
	for _, id := range keep {
		buf.WriteString(id + "\n")
	}
	if err := fsutil.WriteFileAtomic(l.path, buf.Bytes()); err != nil {
		return err
	}
	l.order = append([]string(nil), keep...)
	l.seen = make(map[string]struct{}, len(keep))
	for _, id := range keep {
		l.seen[id] = struct{}{}
	}
	return l.reopen()
}

func (l *idLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// lockState takes the flock of the state directory: two sinks with one
// state (one client id on one host and store) would take over each
// other's MQTT session, so the second fails fast.
func lockState(dir, clientID string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sink: state lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("sink: another sink uses the state in %s (client id %s): give each sink its own --id", dir, clientID)
	}
	return f, nil
}

package pipeline

import (
	"context"
	"fmt"
	"time"
)

// loopAlive records that the sheet loop went round (unix nanoseconds).
func (p *Pipeline) loopAlive() { p.loopBeat.Store(time.Now().UnixNano()) }

// Progressing checks that the stages that own state still turn: the
// sheet loop ticked within maxAge, and the fsm loop drains its queue in
// time (systemd's watchdog is fed only while they do).
func (p *Pipeline) Progressing(ctx context.Context, maxAge time.Duration) error {
	if age := time.Since(time.Unix(0, p.loopBeat.Load())); age > maxAge {
		return fmt.Errorf("sheet loop last ticked %s ago", age.Round(time.Millisecond))
	}
	if p.machine != nil {
		fctx, cancel := context.WithTimeout(ctx, maxAge)
		defer cancel()
		if err := p.machine.Flush(fctx); err != nil {
			return fmt.Errorf("fsm loop does not drain: %w", err)
		}
	}
	return nil
}

// StoreProblems are the episode store's health problems for /healthz:
// it cannot write (nothing is being recorded; closed segments wait in
// memory), or it lost segments.
func (p *Pipeline) StoreProblems() []string {
	if p.store == nil {
		return nil
	}
	var out []string
	if err := p.store.Health(); err != nil {
		out = append(out, err.Error())
	}
	return out
}

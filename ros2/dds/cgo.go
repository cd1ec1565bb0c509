//go:build cgo && !purego

package dds

/*
#cgo LDFLAGS: -lddsc
#include <stdlib.h>
#include "edged_dds.h"

#include <stdio.h>
#include <string.h>

// Cyclone says that every participant index is taken only in its log
// (the call fails with a generic error): while edged creates a domain or
// a participant, a log sink watches for that line and passes every
// line on to stderr as Cyclone's default sink does.
static int edged_index_exhausted;

static void edged_log_sink(void *arg, const dds_log_data_t *d) {
	(void)arg;
	if (strstr(d->message, "free participant index") != NULL)
		edged_index_exhausted = 1;
	fwrite(d->message - d->hdrsize, 1, d->hdrsize + d->size, stderr);
	if (d->size == 0 || d->message[d->size - 1] != '\n')
		fputc('\n', stderr);
	fflush(stderr);
}

static void edged_watch_log(void) {
	edged_index_exhausted = 0;
	dds_set_log_sink(edged_log_sink, NULL);
}

static int edged_unwatch_log(void) {
	dds_set_log_sink(NULL, NULL);
	return edged_index_exhausted;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"
)

// Built reports whether this build has Cyclone DDS (cgo, without the
// purego tag).
const Built = true

// ddsError turns a negative Cyclone return code into an error.
func ddsError(what string, rc C.dds_return_t) error {
	return fmt.Errorf("dds: %s: %s (%d)", what, C.GoString(C.dds_strretcode(rc)), int(rc))
}

// logWatch serializes the Cyclone calls watched for a participant index
// (the log sink is process-wide).
var logWatch sync.Mutex

// watchIndex runs create, a Cyclone call that may start a domain, and
// turns its failure into ErrNoParticipantIndex when Cyclone logged that
// it found no free participant index, else into ddsError(what).
func watchIndex(domain int, what string, create func() C.dds_entity_t) (C.dds_entity_t, error) {
	logWatch.Lock()
	defer logWatch.Unlock()
	C.edged_watch_log()
	e := create()
	exhausted := C.edged_unwatch_log() != 0
	switch {
	case e >= 0:
		return e, nil
	case exhausted:
		return e, fmt.Errorf("%w (domain %d)", ErrNoParticipantIndex, domain)
	}
	return e, ddsError(what, C.dds_return_t(e))
}

// domains counts this process's participants per domain created with an
// explicit configuration, so the domain entity lives until the last one
// closes (Cyclone refuses to create a domain twice).
var domains = struct {
	sync.Mutex
	m map[int]*domainRef
}{m: map[int]*domainRef{}}

type domainRef struct {
	entity C.dds_entity_t
	refs   int
}

// acquireDomain creates the domain with cfg's configuration, or takes a
// reference to the one this process already has.
func acquireDomain(cfg Config) (release func(), err error) {
	if cfg.CycloneConfig == "" {
		return func() {}, nil
	}
	domains.Lock()
	defer domains.Unlock()
	d := domains.m[cfg.DomainID]
	if d == nil {
		xml := C.CString(cfg.CycloneConfig)
		defer C.free(unsafe.Pointer(xml))
		e, err := watchIndex(cfg.DomainID, fmt.Sprintf("create domain %d", cfg.DomainID), func() C.dds_entity_t {
			return C.dds_create_domain(C.dds_domainid_t(cfg.DomainID), xml)
		})
		if errors.Is(err, ErrNoParticipantIndex) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: check Config.CycloneConfig", err)
		}
		d = &domainRef{entity: e}
		domains.m[cfg.DomainID] = d
	}
	d.refs++
	return func() {
		domains.Lock()
		defer domains.Unlock()
		if d.refs--; d.refs == 0 {
			C.dds_delete(d.entity)
			delete(domains.m, cfg.DomainID)
		}
	}, nil
}

// waitset wraps a Cyclone waitset that the participant's pump blocks on
// and Close wakes (its trigger, attached as idTrigger). Readers are
// attached by read conditions, each with its attach argument: the
// conditions stay triggered while their reader holds samples.
type waitset struct{ ws C.dds_entity_t }

func newWaitset(pp C.dds_entity_t) (waitset, error) {
	ws := C.dds_create_waitset(pp)
	if ws < 0 {
		return waitset{}, ddsError("create waitset", C.dds_return_t(ws))
	}
	if r := C.dds_waitset_attach(ws, ws, idTrigger); r < 0 {
		C.dds_delete(ws)
		return waitset{}, ddsError("attach trigger", r)
	}
	return waitset{ws}, nil
}

// attach attaches a read condition on rd (any sample state) as id and
// returns the condition.
func (w waitset) attach(rd C.dds_entity_t, id C.dds_attach_t) (C.dds_entity_t, error) {
	rc := C.dds_create_readcondition(rd, C.DDS_ANY_STATE)
	if rc < 0 {
		return 0, ddsError("create read condition", C.dds_return_t(rc))
	}
	if r := C.dds_waitset_attach(w.ws, rc, id); r < 0 {
		C.dds_delete(rc)
		return 0, ddsError("attach read condition", r)
	}
	return rc, nil
}

// detach detaches and deletes a condition attach returned.
func (w waitset) detach(rc C.dds_entity_t) {
	C.dds_waitset_detach(w.ws, rc)
	C.dds_delete(rc)
}

// wait blocks until a condition triggers or a second passes (a safety
// net, not a synchronization) and fills xs with the attach arguments of
// the triggered ones; it returns how many triggered (possibly more than
// len(xs)) or a negative code.
func (w waitset) wait(xs []C.dds_attach_t) int {
	return int(C.dds_waitset_wait(w.ws, &xs[0], C.size_t(len(xs)), C.dds_duration_t(time.Second)))
}

func (w waitset) wake() { C.dds_waitset_set_trigger(w.ws, true) }

var errClosed = errors.New("dds: participant closed")

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

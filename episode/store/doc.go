// Package store is the robot's episode store: the one writer of a
// data_dir's episodes (edged run, edged replay), in episode's format.
// It lives under episode/ because it is that format's local-disk writer
// and its repairer, and nothing but the robot's side (fsm, pipeline,
// daemon; config for its defaults) imports it; the readers
// (episode.List, Load) never need it, and the sink writes the same
// format through sink/receive.
//
// One process writes: Open takes an exclusive flock on the store's
// episode.LockFile and fails fast (episode.ErrLocked) when another holds
// it. Begin creates an episode (id episode.NewID, -2, -3... when taken)
// and its manifest; its Writer appends transitions and closed segments
// through episode.AppendRecord, one write call per record, so a killed
// process leaves a whole record or none; a segment is durable (fsync of
// both record files) before Writer.Segment returns, a transition only
// with the next segment or the close. Manifests are replaced atomically
// (write, fsync, rename, fsync the directory); MarkUploaded, MarkLacking,
// MarkRecoveryShipped and SetVerdicts rewrite one.
//
// Recovery (recover.go), at Open: an episode whose manifest is still
// open is closed as interrupted; a torn tail is cut off and a corrupt
// record followed by good ones moved to quarantine/; segments missing
// from segments.rec are rebuilt from the transitions (a source that
// fsmkind.Sequential names ends a segment at its next transition; the
// others end, interrupted, at the last time seen, an actionlib goal
// keeping its Args); a corrupt or missing manifest is rebuilt from the
// records; empty episode directories are removed. Store.Recovered says
// what was done. Retention (retain.go, after every close, before every
// begin, KeepFloor every second): over MaxBytes or under MinFreeBytes
// it deletes finished clips first (episode.IsClipName; oldest trigger
// first, across episodes), then closed episodes, uploaded ones first,
// oldest first; MaxEpisodes deletes episodes. Logged and in Stats. The
// clip stage writes temporary files retention never touches and deletes
// clips for its own clips.max_bytes; a clip deleted by both is fine.
//
// Disk faults (health.go): a failed write is logged on the first failure
// of each operation and when it works again, counted (Stats), and makes
// Health fail until a write or Probe succeeds. A Begin that fails
// removes what it created; a segment that cannot be written waits in
// memory (at most MaxPendingSegments; the error wraps ErrPending) and is
// written in order by Writer.Retry or Close; a failed append or fsync is
// cut back, so no torn record sits between good ones; Writer.Abandon
// gives an episode up. Options.Fault injects faults in tests.
//
// Concurrency: a Store is safe for concurrent use; a Writer belongs to
// one goroutine (the fsm run loop), and at most one is open at a time.
// The store starts no goroutine.
package store

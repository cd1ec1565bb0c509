// Package episode is the on-disk episode store: one directory per episode
// under the store directory (edged uses DATA_DIR/episodes), holding
//
//	manifest.json    the episode's metadata, replaced atomically (write a
//	                 temporary file, fsync, rename, fsync the directory)
//	segments.rec     closed segments, append-only records
//	transitions.rec  raw FSM transitions and heartbeats, append-only (and
//	                 the arguments of an actionlib goal that arrived after
//	                 its opening: TransitionGoal)
//	quarantine/      bytes cut out by recovery, kept for a human to read
//	sheets/CAMERA/   contact sheets sheet-NNNN.jpg and .json
//	labels/CAMERA/   labeling sheets NAME.jpg and .json
//	snippets/CAMERA/ state snippets sheet-NNNN.msgpack.zst (at a receiver)
//
// cost.go reads the cost line of an episode directory (ReadCost, also
// Episode.Cost): bytes of contact sheets, labeling sheets, snippets and
// the rest, VLM tokens to show every sheet once, per camera-hour of
// episode time. One reader for both ends: at a sink it is what was
// shipped, and a complete episode's manifest carries it (Manifest.Cost).
// Sizes come from the listing; tokens from what the end manifest
// announced per camera, or a complete episode's Manifest.Cost, and only
// otherwise from the sheets' metadata, so an episode read is a handful
// of GETs on an object store. A robot's store holds no snippets (they
// are only shipped), so its line counts none.
//
// layout.go names every one of these paths and the camera directory rule
// (CameraDir); the robot's daemon and the sink take their paths from it.
// Episode ids are ROBOT-YYYYMMDDThhmmss.mmmZ[-NAME] (NewID); CheckID is
// the rule a shipped id must follow: it belongs to the robot sending it.
//
// One format, two writers of it: Store and Writer on the robot, and
// Receiver (receiver.go) at the sink, through blob.Blobs (a directory,
// blob.Dir, or an object store, blob/s3; several sinks may share one,
// their writes of shared files conditional on the version read), which
// writes what robots ship into
// OUT/episodes in exactly this format, keeps the robot's segment index
// (one record per index, never another one), writes every other file
// once, and keeps its manifest (the robot's fields plus Held and
// Complete: closed, and everything the end manifest announced in
// Produced is held) with an atomic replace: written when the episode
// is first seen, when the robot's start and end arrive, and by the
// message that makes it complete, never per message, so sinks sharing a
// store do not contend for it (Load counts an incomplete episode's Held
// from its files; List shows the manifest as written). So every reader
// below reads a sink's
// output as a robot's data_dir.
//
// A record file starts with a header, the magic "EDEPREC" and a version
// byte (1); a file of a higher version is reported (ErrNewerFormat) and
// left alone. Files written before the header existed (robots in the
// field have them) start with their first record and are read, appended
// to and repaired like the others; recovery writes a repaired file with
// the header. A record is a little-endian uint32 payload length, the
// CRC32C (Castagnoli) of the payload, then the payload (JSON, at most
// MaxRecordBytes). Segment records are made durable (fsync of both record
// files) before Writer.Segment returns, so a closed segment survives a
// crash or a power cut; transitions in between are written at once but
// fsynced only with the next segment or close.
//
// One process writes: Open takes an exclusive flock on the store's .lock
// file and fails fast if another process holds it. Open also recovers: an
// episode whose manifest is still open (edged was killed or lost power)
// is closed as interrupted, with its open segments (from the transitions
// that opened them) closed as interrupted at the last recorded time; a
// torn tail (an incomplete or garbled last record) is cut off; a corrupt
// record followed by good ones is moved to quarantine/. Everything done
// is reported in Store.Recovered. Recovery rebuilds segments from the
// transitions: a string or field source's state ends at that source's
// next transition, so a short segments.rec is rebuilt with true ends; a
// segment still open at the crash ends, interrupted, at the last time
// seen (an actionlib goal keeps its arguments, Segment.Args, from its
// opening transition or a later TransitionGoal). A corrupt or missing manifest.json beside records is rebuilt from
// them (readers report it in Manifest.Problem and Episode.Problems; Open
// moves the bad one to quarantine/manifest.json.corrupt and recovers the
// episode), and empty episode directories are removed. Retention
// (Options) deletes closed episodes oldest first, uploaded ones before
// others, after every close and before every begin, also to keep
// MinFreeBytes free on the file system.
//
// Disk faults: a failed write is logged on the first failure of each
// operation (and when it works again), counted (Store.Stats), and makes
// Store.Health fail until a write or Store.Probe succeeds. A Begin that
// fails removes what it created. A segment that cannot be written is
// kept in memory (at most MaxPendingSegments; Writer.Segment returns an
// error wrapping ErrPending) and written in order by Writer.Retry or
// Writer.Close; a failed append or fsync is cut back, so no torn record
// is left between good ones; a failed Close leaves the episode open and
// may be called again; Writer.Abandon gives it up (edged stopping on a
// full disk).
//
// Readers (List, Load, ReadCost) take no lock and never write:
// inspect, export and score may run beside a live edged. They report
// corrupt records in Episode.Problems instead of failing.
// ListBlobs and LoadBlobs (blobread.go) are List and Load of a store
// kept in blob.Blobs (an object store), the same code over the same
// files (files.go): one listing, then an episode's manifest and records
// (and the metadata of sheets whose tokens are not announced), no copy
// of the store on disk.
//
// Concurrency: a Store is safe for concurrent use; a Writer belongs to
// one goroutine (the fsm run loop). At most one Writer is open at a time.
// A Receiver is safe for concurrent use; its calls for one episode are
// serialized.
package episode

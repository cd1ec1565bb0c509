// Package episode is the on-disk episode store: one directory per episode
// under the store directory (edged uses DATA_DIR/episodes), holding
//
//	manifest.json    the episode's metadata, replaced atomically (write a
//	                 temporary file, fsync, rename, fsync the directory)
//	segments.rec     closed segments, append-only records
//	transitions.rec  raw FSM transitions and heartbeats, append-only
//	quarantine/      bytes cut out by recovery, kept for a human to read
//	sheets/CAMERA/   contact sheets sheet-NNNN.jpg and .json
//	labels/CAMERA/   labeling sheets NAME.jpg and .json
//	snippets/CAMERA/ state snippets sheet-NNNN.msgpack.zst (at a receiver)
//
// layout.go names every one of these paths and the camera directory rule
// (CameraDir); the robot's daemon and the sink take their paths from it.
// Episode ids are ROBOT-YYYYMMDDThhmmss.mmmZ[-NAME] (NewID); CheckID is
// the rule a shipped id must follow: it belongs to the robot sending it.
//
// One format, two writers of it: Store and Writer on the robot, and
// Receiver (receiver.go) at the sink, which writes what robots ship into
// OUT/episodes in exactly this format, keeps the robot's segment index
// (one record per index, never another one), writes every other file
// once, and keeps its manifest (the robot's fields plus Held and
// Complete: closed, and everything the end manifest announced in
// Produced is held) current with an atomic replace. So every reader
// below reads a sink's output as a robot's data_dir.
//
// A record is a little-endian uint32 payload length, the CRC32C
// (Castagnoli) of the payload, then the payload (JSON, at most
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
// is reported in Store.Recovered. Retention (Options) deletes closed
// episodes oldest first, uploaded ones before others, after every close.
//
// Readers (List, Load, LoadSegmentation) take no lock and never write:
// inspect, export and score may run beside a live edged. They report
// corrupt records in Episode.Problems instead of failing.
//
// Concurrency: a Store is safe for concurrent use; a Writer belongs to
// one goroutine (the fsm run loop). At most one Writer is open at a time.
package episode

// Package episode is the on-disk episode store: one directory per episode
// under the store directory (edged uses DATA_DIR/episodes), holding
//
//	manifest.json    the episode's metadata, replaced atomically (write a
//	                 temporary file, fsync, rename, fsync the directory)
//	segments.rec     closed segments, append-only records
//	transitions.rec  raw FSM transitions and heartbeats, append-only
//	quarantine/      bytes cut out by recovery, kept for a human to read
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

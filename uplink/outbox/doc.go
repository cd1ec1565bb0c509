// Package outbox is the uplink's durable queue on disk. A message is
// written (and fsynced) before Put returns, handed to the publisher by
// Next only once durable (a Put that returns an error was never handed
// out), and removed only when the publisher calls Ack after the broker
// acknowledged it; Release puts an unacknowledged message back, Drop
// gives up on one that cannot be sent (counted apart from Acked).
//
// Layout: DIR/obx-NNNNNNNNNNNNNNNN.log files, appended to in order
// (DIR/seg-*.log files of an edged before groups are read and drained,
// never written: record.go says why). A record is
//
//	magic "EDOB" | uint32 LE body length | uint32 LE CRC-32C of body | body
//	body = type (1 byte) | priority (1) | uint64 LE sequence | data
//	type = 'P' put, 'G' put of a group's message, 'H' a compaction's
//	       copy of a held one (data of both: uint8 length | group |
//	       uint8 length | name | message); tombstones (no data): 'A'
//	       acknowledged (a group's message is then held), 'E' evicted
//	       or dropped, 'D' its group is done
//
// Groups (groups.go): a message put with a Group (edged: its episode)
// is kept after the broker's acknowledgement, held, until Done(group)
// (the receiver holds the whole episode), so that Resend can queue it
// again, unchanged, when the receiver lacks it. Held messages are not
// Pending; they count against MaxBytes and are the first evicted.
//
// Puts are fsynced by group commit: concurrent Puts (and the records of
// one Put call, with the tombstones of what they evict) share one write
// and one fsync. Acks and evictions are tombstones that
// ride along with the next fsync; losing one in a crash only means the
// message is sent again, and the receiver drops duplicates by id.
//
// Open replays the files: a torn tail (a crash mid-append) is cut off, a
// corrupt record in the middle is copied to DIR/quarantine/ and skipped
// (the scan resynchronizes on the next valid record), both reported in
// Stats and Recovered; neither is fatal. A record found unreadable later
// (by Next or by compaction) is quarantined and counted once.
//
// Bounds: MaxBytes caps the disk use. When a Put would exceed it, held
// messages are evicted first (sheets, snippets, then control messages,
// oldest first; logged, counted in EvictedHeld), then the oldest
// evictable (PrioritySheet) messages that are not in flight, all
// counted in Evicted; messages of other priorities are never evicted (a
// Put of them may exceed the bound, counted in OverBound). A sealed file
// whose live data fell under half of it is compacted: its live records
// are copied to the active file, made durable, and the file is deleted.
//
// Locking and I/O: one mutex guards the index; the only file I/O under
// it is appending one batch of records to the active file. Reads (Next,
// compaction), fsyncs (group commit), rotation, compaction, quarantine
// copies and file deletion run outside it. Rotation, compaction and
// deletion belong to one maintenance goroutine started by Open and
// stopped (cancelled and waited for) by Close; it is the only caller of
// compaction, which therefore never re-enters itself. Files in use
// outside the lock are pinned and deleted only once unpinned.
//
// Order: Next returns the lowest priority number first, and within a
// priority the lowest sequence (the order of Put).
//
// Clock: Options.Now (default time.Now) dates the messages for
// Stats.OldestAge, so a replay may inject its own.
//
// Concurrency: every method is safe for concurrent use. Data returned by
// Next is the caller's.
package outbox

// Package outbox is the uplink's durable queue on disk. A message is
// written (and fsynced) before Put returns, handed to the publisher by
// Next, and removed only when the publisher calls Ack after the broker
// acknowledged it; Release puts an unacknowledged message back.
//
// Layout: DIR/seg-NNNNNNNNNNNNNNNN.log files, appended to in order. A
// record is
//
//	magic "EDOB" | uint32 LE body length | uint32 LE CRC-32C of body | body
//	body = type (1 byte: 'P' put, 'A' ack, 'E' evicted) | priority (1) |
//	       uint64 LE sequence | data (put only)
//
// Puts are fsynced by group commit: concurrent Puts (and the records of
// one Put call) share one fsync. Acks and evictions are tombstones that
// ride along with the next fsync; losing one in a crash only means the
// message is sent again, and the receiver drops duplicates by id.
//
// Open replays the files: a torn tail (a crash mid-append) is cut off, a
// corrupt record in the middle is copied to DIR/quarantine/ and skipped
// (the scan resynchronizes on the next valid record), both reported in
// Stats and Recovered; neither is fatal.
//
// Bounds: MaxBytes caps the disk use. When a Put would exceed it, the
// oldest evictable (PrioritySheet) messages that are not in flight are
// evicted and counted; messages of other priorities are never evicted (a
// Put of them may exceed the bound, counted in OverBound). A sealed file
// whose live data fell under half of it is compacted: its live records
// are copied to the active file and the file is deleted.
//
// Order: Next returns the lowest priority number first, and within a
// priority the lowest sequence (the order of Put).
//
// Concurrency: every method is safe for concurrent use. Data returned by
// Next is the caller's.
package outbox

// Package bag reads ROS1 bag files, format 2.0, for `edged replay`.
//
// What it reads. The "#ROSBAG V2.0" magic, the bag header, chunks
// (compression none, bz2 or lz4 frames as roslz4 writes them),
// connection records (topic, type, md5sum, message_definition, callerid,
// latching), message data, index data and chunk info records. Older
// versions (1.2) are refused with ErrUnsupported.
//
// Order. Open reads the bag's index (the connection and chunk info
// records at the end, and the index data after every chunk) and sorts
// every message the way rosbag does: by record time, then by connection
// in the bag's order, then by position. Chunks whose time ranges overlap
// are merged: an Iterator keeps each chunk decompressed while it still
// has messages to come (bounded by Options.MaxCacheBytes). A bag without
// a usable index (still being recorded, cut short, or with a damaged
// index) is scanned record by record instead, as `rosbag reindex` would:
// Info.Indexed is false and Info.Problems says why and what was lost
// (messages past the damage in a chunk, a record cut by the end of the
// file).
//
// Who calls what. Open (or NewReader on any io.ReaderAt) reads the
// index; Connections and Info describe the bag; Messages returns an
// Iterator, optionally for some topics only; Close closes the file. A
// Reader is immutable after Open and safe for concurrent use; an
// Iterator is not, but several may run at once.
//
// Buffer ownership. A Message's Data is borrowed from its Iterator: it
// is valid until the next call to Next (or Close) and must not be
// modified. The Iterator reuses chunk buffers, so reading an
// uncompressed bag allocates nothing per message in steady state
// (compressed chunks allocate per chunk, inside compress/bzip2). The
// Connection and its Publisher (a *ros.PublisherInfo built once per
// connection, a stable key for per-publisher caches) live as long as the
// Reader and are read-only.
//
// Merge. Merge walks several Streams (this package's Iterator, a
// rosbag2 Iterator, one storage file of a split bag) in one log-time
// order, ties to the input given first; it opens each input once the
// merge reaches its Input.Start and closes it at its end, and
// MergeOptions say whether a failed input ends the merge (rosbag2) or is
// dropped while the others go on (a replay). It is the one merge across
// files: bag/rosbag2 merges a split bag's files with it, and
// bag/recording (Open: any format by its path) the bags of a replay.
// Merging within one file (chunks whose times overlap) is each reader's.
//
// Bad input. Every length read from the file is checked against the
// file's size and a cap in Options before anything is allocated. A
// corrupt file gives a *CorruptError (errors.Is ErrCorrupt) naming the
// byte offset of the record at fault, never a panic.
package bag

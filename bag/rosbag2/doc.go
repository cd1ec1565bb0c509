// Package rosbag2 reads ROS 2 bags as `ros2 bag record` writes them, for
// `edged replay`: a bag directory (metadata.yaml, versions 1 to 9, and
// the storage files it lists: a split bag is several) or one storage
// file given directly.
//
// Storage. MCAP files (the default since Iron) through bag/mcap; sqlite3
// files (.db3, Humble's default) through database/sql with
// modernc.org/sqlite, chosen because it is pure Go (edged's pure-Go
// build, without cgo, reads .db3 too), maintained, and needs nothing
// installed; the file is opened read-only and immutable. Definitions come
// from the MCAP schemas (ros2msg) or the .db3 message_definitions table
// (Iron and later; a service event's under its service type); a bag
// without them leaves MessageDefinition empty and the decoder uses the
// .msg files it knows (ros2/cdr's registry).
//
// Compression as rosbag2 does it: compression_mode FILE (each storage
// file is one zstd stream, name.mcap.zstd; it is decompressed to a
// temporary file removed by Close, capped at Options.MaxFileBytes) and
// MESSAGE (each message's data is one zstd frame, decompressed per
// message, capped at Options.MaxMessageBytes). MCAP chunk compression
// (zstd, lz4) is the mcap package's.
//
// What it gives. The bag/ types, so that replay treats ROS1 and ROS 2
// bags alike: one bag.Connection per topic whose Publisher has Type
// pkg/msg/Name, the definition, and Encoding ros.EncodingCDR (an MCAP
// channel of ros1 messages with its ros1msg schema, as edged's clips
// write, keeps both and has ros.EncodingROS1); bag.Info;
// and an Iterator of bag.Message (topic's connection, log time, data)
// in log-time order: the files of a split bag are merged by bag.Merge
// (rosbag2 splits by time, so they normally follow each other, but their
// ranges may overlap), each opened only when the merge reaches its first message
// and closed at its last, at most Options.MaxOpenFiles at once (more
// files overlapping in time end the Iterator with an error saying so);
// ties go to the file metadata.yaml lists first.
//
// Who calls what. Open reads metadata and opens each storage file in
// turn to learn its topics and span, closing it again; Connections and
// Info describe the bag; Messages returns an Iterator (optionally for
// some topics); Close removes temporary copies. OpenContext and
// MessagesContext take a context that ends their sqlite3 queries (the
// driver interrupts sqlite), so a stopped replay returns at once even
// from a query that would never end (a recursive view). A Reader is
// immutable after Open and safe for concurrent use; an Iterator is for
// one goroutine. A Message's Data is borrowed until the next Next.
//
// Bad input. metadata.yaml is read capped and checked (version, storage,
// compression, file names that stay in the directory, each file listed
// once: by name or as the same file under another); metadata.yaml and
// the storage files must be regular files (a FIFO would block the open);
// a .db3's topics are capped (10,000); every length is capped by the
// mcap reader or, for sqlite3, by a query that loads a blob only when it
// is within MaxMessageBytes (a larger message is passed over, named in
// Iterator.Skipped, and the Iterator reads on). Damage found at Open is
// in Info.Problems; damage found while iterating ends the Iterator with
// an error (Err) naming the file and offset, after the messages before.
package rosbag2

// Package episode is the episode format: the layout of a store (one
// directory, or blob prefix, per episode), its files, its records and
// the readers of it. Two packages write it: episode/store on the robot
// (Store, Writer, recovery, retention) and sink/receive at the sink
// (Receiver, through blob.Blobs); every reader reads both alike.
//
//	manifest.json    metadata (EncodeManifest, DecodeManifest), replaced atomically
//	segments.rec     closed segments, append-only records
//	transitions.rec  raw FSM transitions and heartbeats, append-only
//	quarantine/      bytes cut out by recovery, for a human to read
//	sheets/CAMERA/   contact sheets sheet-NNNN.jpg and .json
//	labels/CAMERA/   labeling sheets NAME.jpg and .json
//	snippets/CAMERA/ state snippets sheet-NNNN.msgpack.zst (at a receiver)
//	annotations/     NAME.json, a VLM's segmentation (annotation.go)
//
// layout.go names every path, the camera directory rule (CameraDir), the
// store's LockFile (lock.go: LockStore, the writers' flock) and the id
// rule (NewID, CheckID). types.go holds the
// manifest, segment and transition; wire.go their wire forms, both
// ways; held.go and lacks.go what a receiver holds of an episode and
// lacks; clipentry.go the clips a receiver's manifest lists (ClipEntry:
// where each is; CheckClipEntry, MergeClip).
//
// cost.go reads the cost line of an episode directory (ReadCost, also
// Episode.Cost): bytes of contact sheets, labeling sheets, snippets and
// the rest, VLM tokens to show every contact sheet once and those of the
// labeling requests (three images a segment, shipped or composed in the
// cloud), per camera-hour of episode time. One reader for both ends: at a sink it is what was
// shipped, and a complete episode's manifest carries it (Manifest.Cost).
// Sizes come from the listing; tokens from what the end manifest
// announced per camera, or a complete episode's Manifest.Cost, and only
// otherwise from the sheets' metadata, so an episode read is a handful
// of GETs on an object store. A robot's store holds no snippets (they
// are only shipped), so its line counts none.
//
// Records (record.go): a record file starts with the magic "EDEPREC"
// and a version byte (1); a higher version is reported (ErrNewerFormat)
// and left alone; files from before the header are read as version 1. A
// record is a little-endian uint32 payload length, the CRC32C of the
// payload, then the payload (JSON, at most MaxRecordBytes; a file at
// most MaxFileBytes). AppendRecord is the one write path: the header of
// a new file, the framing, both caps and one error (ErrRecordTooLarge),
// for the store appending to a local file and the receiver appending to
// a blob's bytes alike. ScanRecords reads a file back, resynchronizing
// after corrupt bytes and telling a torn tail from corrupt regions.
//
// Readers (List, IDs, Load, Resolve, ReadCost on a directory; ListBlobs,
// IDsBlobs, LoadBlobs on blob.Blobs, through the same code: files.go)
// take no lock and never write: inspect, export and score may run beside
// a live edged or sink. Corrupt records and a corrupt or missing
// manifest (rebuilt from the records) are reported in Episode.Problems
// and Manifest.Problem instead of failing.
//
// Concurrency: everything here is safe for concurrent use; it holds no
// state. Buffers: ScanRecords' payloads alias the bytes given;
// AppendRecord appends to dst and returns it, as append does.
package episode

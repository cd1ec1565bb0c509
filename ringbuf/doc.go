// Package ringbuf keeps the recent frames of one camera in memory.
//
// A Ring holds frames with their stamps (and the rest of their Meta:
// format, geometry, header.frame_id) in a preallocated byte arena,
// bounded three ways: by bytes (Config.MaxBytes), by age relative to the
// newest stamp (Config.MaxAge) and by count (Config.MaxFrames, the size of
// the index). When any bound is hit the oldest inserted frames are
// overwritten first.
//
// Writer: one goroutine calls Put per camera (Put is also safe from several
// goroutines, it just serializes). Put copies Frame.Data into the arena
// under a mutex held only for the copy; it never waits on a slow reader
// because readers hold the same mutex only while they copy one frame out.
// No memory is allocated per frame in steady state: Meta's strings
// (Topic, Encoding, FrameID) are capture's, reused while they do not
// change, and capture caps FrameID (capture.MaxFrameIDBytes). Put does not Release
// the frame: the caller does, right after Put returns.
//
// Readers: AtOrBefore, Nearest (and NearestExcept) and Latest copy the
// frame's bytes into a buffer the caller owns (grown when too small) and
// return it with the frame's Meta; the ring never hands out views of its
// arena, so a reader's copy stays valid for as long as the reader wants,
// and the writer is free to overwrite the slot as soon as the copy is
// done. Range lists
// metadata only; a reader then copies a listed frame by its Seq with Copy,
// which reports false when that frame has been overwritten meanwhile (a
// generation check).
//
// Stamps may arrive out of order; the ring keeps arrival order and lookups
// scan its index (at most MaxFrames entries), so lookups are by stamp no
// matter the order. A frame stamped more than MaxAge before the newest
// means time was reset (a looped bag, a restarted simulator): the ring
// empties and starts over in the new time (Stats.Resets).
package ringbuf

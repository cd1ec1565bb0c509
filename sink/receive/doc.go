// Package receive writes the episodes robots ship into a store (the
// sink's OUT/episodes: a directory, blob.Dir, or an object store,
// blob/s3), in exactly the format of a robot's store (package episode),
// so every reader reads a sink's output as a robot's data_dir. The sink
// (package sink) decodes wire messages and hands each to a Receiver;
// bench/cost drives one directly.
//
// A Receiver keeps the robot's segment index (one record per index,
// never another: ErrConflict), appends segment records through
// episode.AppendRecord to the bytes of segments.rec and puts them back,
// writes every other file once, and keeps its own manifest: the robot's
// fields plus Held and Complete (closed, and everything the end manifest
// announced in Produced is held) and, once complete, the cost line. The
// manifest is written when the episode is first seen, when the robot's
// start and end arrive, and by the message that completes it, never per
// message. A message breaking the layout's rules is ErrRefused. Clip
// lists a clip the robot announced (or its new place) in the manifest,
// through the same update, also after the episode completed.
//
// Several receivers may share one store (sinks of one group, Options
// Shared): every write of a shared file is conditional on the version
// read (blob.Cond), a lost race is re-read and applied again (Races),
// and exactly one receiver turns Complete from false to true and
// reports it. On a directory a Receiver holds the store's flock
// (episode.LockFile): exclusive, or shared among sinks, so an edged run
// cannot write the same directory.
//
// Concurrency: a Receiver is safe for concurrent use; its calls for one
// episode are serialized (cache.go: per-episode locks and a bounded
// cache of episodes, MaxCached). It starts no goroutine. It keeps no
// reference to the bytes it is given beyond the call.
package receive

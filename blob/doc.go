// Package blob is where a store's bytes live: named byte strings under
// one root, read and written whole, behind one interface (Blobs) with
// conditional writes (Cond: if absent, if at the version read), so
// several writers sharing one store (a sink group) never overwrite
// each other's files.
//
// Dir is Blobs on a local or shared POSIX directory (an flock per
// directory makes a conditional write atomic between processes);
// blob/s3 is Blobs on an S3-compatible object store; Sub is the part of
// a Blobs under a prefix. blob/blobtest is the contract every
// implementation keeps, one table test each backend's tests run.
//
// The package knows nothing of what is stored: the episode layout and
// its records are package episode's, written and read through Blobs.
// Every read is capped by its caller (Get's max) before allocating;
// names that could leave the root are refused (ErrBadName).
package blob

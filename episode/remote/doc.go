// Package remote is what a store named on edged's command line means to
// the episode readers: an object store URL (s3://BUCKET/PREFIX: a
// data_dir, an episodes/ directory or one episode) or a directory.
// Open opens a URL for the blob readers (episode.ListBlobs, LoadBlobs);
// OpenEpisode names one episode, wherever it is, for LoadBlobs and for
// the readers of its files (report, dataset), which read them through
// blob.Blobs; Named sorts out a command's [DIR] [EPISODE] arguments
// (edged inspect's) into the reads they name. Every reader reads the store where it is: nothing is
// mirrored to disk, and one episode read is a handful of GETs.
package remote

// Package remote is what an object store URL (s3://BUCKET/PREFIX: a
// data_dir, an episodes/ directory or one episode) means to the episode
// readers. Open opens the store it names for the blob readers
// (episode.ListBlobs, LoadBlobs), which read it where it is: edged
// inspect, check, score and export (but vista, etp) do. Readable and
// ReadableEpisode give the readers that still read directories
// (report, export --format vista/etp) a local one: a
// path is read where it is; a URL through a mirror under the user's
// cache directory (CACHE/edged/s3/BUCKET/PREFIX), brought up to date
// first (episode.MirrorWith), which fetches every episode's records but
// only the sheets of the episode read.
package remote

// Package remote gives the episode readers (inspect, score, export,
// report) a local directory for a store named by a path or an object
// store URL (s3://BUCKET/PREFIX: a data_dir, an episodes/ directory or
// one episode): a path is read where it is; a URL through a mirror
// under the user's cache directory (CACHE/edged/s3/BUCKET/PREFIX),
// brought up to date first (episode.MirrorWith), which fetches every
// episode's records but only the sheets of the episode read.
package remote

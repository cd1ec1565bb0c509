// Package s3 is blob.Blobs on an S3-compatible object store (AWS S3,
// MinIO, Ceph RGW, versitygw...) through the standard client,
// github.com/minio/minio-go/v7, so `edged sink --out s3://BUCKET/PREFIX`
// writes the episode store layout (package episode owns it) into a
// bucket, and the readers read it back where it is (episode.ListBlobs,
// LoadBlobs; episode/remote says what a URL names).
//
// It owns what an s3:// URL means (IsURL, ParseURL, Open; NewTarget:
// the URL's bucket, prefix and client for writers that need more of
// the S3 API, clip/upload's multipart uploads; ObjectOf: an object's URL, whose
// ranged streaming read ReadFrom is `edged clip fetch`'s) and the rule for
// writers that share a store (shared.go): OpenShared opens a store for
// a sink group and refuses one that ignores conditional writes.
//
// Where and who: Open takes s3://BUCKET[/PREFIX]. The endpoint is
// AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (http:// or https://; default
// https://s3.amazonaws.com), the region AWS_REGION or AWS_DEFAULT_REGION,
// the credentials the usual AWS ones: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) from the environment,
// else the shared credentials file (AWS_SHARED_CREDENTIALS_FILE or
// ~/.aws/credentials, profile AWS_PROFILE), else an EC2/ECS role.
//
// Conditional writes: Cond{IfAbsent} is If-None-Match: *, Cond{IfVersion}
// is If-Match: ETAG, as AWS S3 (since 2024), MinIO and versitygw
// implement them; a 412 (or 409 ConditionalRequestConflict) is
// blob.ErrPrecondition. A store that ignores these headers loses the
// guarantee that sinks sharing it never overwrite each other's manifest
// (Open's probe says so in Store.Conditional). A conditional write is
// only as good as the version it names: while writes race, a store may
// return a body with the ETag of another write (versitygw 1.8 does), so
// where ETags are the MD5 of the body (Store.ETagMD5, probed too) Get
// reads again until the two match (5 times, 310 ms), then fails with an
// error worth a retry.
//
// Every call has a timeout (Options.Timeout); reads are capped before
// allocating (the object's size is checked first).
package s3

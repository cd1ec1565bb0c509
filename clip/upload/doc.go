// Package upload ships written incident clips to the fleet's object
// store (clips.upload: s3://BUCKET[/PREFIX], read by blob/s3, which owns
// the URL, the endpoint and the credentials) in the background. Each
// clip goes to its path in the episode store layout under the URL
// (episode.ClipKey: episodes/ID/clips/NAME), so a sink whose --out is
// that URL lists it with its episode.
//
// Who calls what. The pipeline makes one Uploader (New) when
// clips.upload is set and hands it every clip the clip stage writes
// (Add, non-blocking, from any goroutine); Close cancels and waits. At
// start it scans the store (Options.StoreDir) for clips not uploaded
// yet. OnUploaded, when set, is called on the uploader's goroutine with
// each clip's URL once its upload is confirmed.
//
// Upload. One clip at a time, oldest trigger first (names sort by
// trigger time), as a multipart upload (minio-go's Core API) of
// clips.upload_part parts read through a rate limiter
// (clips.upload_rate, bytes/s). The upload id and every confirmed part
// are kept in a sidecar beside the clip (.NAME.upload: written, fsynced,
// renamed, directory fsynced), so after a restart of edged or of the
// store the upload resumes after its last confirmed part (the sidecar
// checked against ListObjectParts; an upload the store forgot starts
// anew). The object is confirmed by StatObject (its size and its
// multipart ETag, the MD5 of the parts' MD5s) before the local clip is
// deleted (kept with clips.keep_uploaded: the sidecar then records it
// done). A clip deleted meanwhile (the budget, the store's retention)
// aborts its multipart upload. Failures (a store down, a network gone)
// are retried with a capped backoff, counted and logged rate-limited.
//
// Concurrency. One goroutine owns the uploads; Add and Stats take a
// mutex. The queue holds clip paths only, bounded by the clips on disk.
package upload

// Package turbojpeg is edged's own thin binding to the TurboJPEG API of
// libjpeg-turbo (libturbojpeg0-dev, 2.1 API: tjInitDecompress,
// tjDecompressHeader3, tjDecompress2, tjCompress2).
//
// It does three things: read a JPEG header, decode to packed RGB at a DCT
// scaling factor of n/8 (decoding a 1280x720 frame at 2/8 for a 224 px tile
// is most of the speed), either into a packed buffer (Decode) or into a
// larger image with a pitch (DecodeInto: a tile's place in a sheet), and
// encode packed RGB with a quality and chroma subsampling. For issue
// 25's prototype (bench/sheet's edged-yuv; the sheet builder does not
// use them) it also decodes straight to planar YCbCr at a scale into the
// caller's planes (DecodeYUVInto: tjDecompressToYUVPlanes, no colour
// conversion, no chroma upsampling; the header is checked again in C so
// a stale one cannot make it write past the planes) and encodes from
// planes (EncodeYUV: tjCompressFromYUVPlanes); the purego fallback
// returns ErrNotSupported for both.
//
// Concurrency: a Decoder or Encoder wraps one TurboJPEG handle that is
// created once and reused for every call; it is NOT safe for concurrent
// use. Use one per goroutine. Close frees the handle.
//
// Buffers: callers pass destination slices; when they are large enough no
// memory is allocated (steady state allocates nothing). Returned slices
// alias the destination.
//
// Bad input: dimensions are checked against Limits after the header is read
// and before any pixel buffer is allocated. Every failure is a Go error that
// wraps one of ErrEmpty, ErrCorrupt, ErrTooLarge or ErrArgument, with the
// library's message (tjGetErrorStr2) where it has one. libjpeg warnings
// (for example a truncated file) are errors too: a half-grey tile is worse
// than a placeholder.
//
// Build tags: with cgo (the default) the package links -lturbojpeg. With
// the tag purego, or without cgo, a pure-Go fallback with the same API
// (image/jpeg plus a box filter emulating the DCT scaling) is used instead;
// it is several times slower and always encodes 4:2:0. The fallback
// (pure.go) is compiled in both builds, so the cgo build's tests
// compare the two on the same inputs (diff_test.go: sizes equal, pixels
// within documented bounds, FuzzBackendsAgree).
// Library reports which one a binary holds and, with cgo, the
// libturbojpeg file it loaded.
package turbojpeg

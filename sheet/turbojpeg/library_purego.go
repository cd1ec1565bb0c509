//go:build !cgo || purego

package turbojpeg

// Library reports the JPEG implementation compiled in: here the pure-Go
// fallback, so libturbojpeg is not linked.
func Library() LibraryInfo { return LibraryInfo{Backend: Backend} }

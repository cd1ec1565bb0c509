package turbojpeg

// LibraryInfo describes the JPEG implementation in this binary, for
// `edged version` and bug reports.
type LibraryInfo struct {
	// Backend is Backend: "libturbojpeg" (cgo) or "purego".
	Backend string `json:"backend"`
	// Linked: libturbojpeg is part of this binary.
	Linked bool `json:"linked"`
	// Path is the libturbojpeg file loaded at run time, symlinks
	// resolved (/usr/lib/x86_64-linux-gnu/libturbojpeg.so.0.2.0); empty
	// when not linked or linked statically.
	Path string `json:"path,omitempty"`
	// HeaderVersion is the libjpeg-turbo release of the headers edged was
	// compiled against (jconfig.h's LIBJPEG_TURBO_VERSION); empty when
	// those headers were absent at build time.
	HeaderVersion string `json:"header_version,omitempty"`
}

//go:build cgo && !purego

package turbojpeg

/*
#define _GNU_SOURCE
#include <link.h>
#include <string.h>

// jconfig.h (libjpeg62-turbo-dev) names the libjpeg-turbo release whose
// headers edged was built with; TurboJPEG 2.1 has no call that reports
// the release at run time.
#if defined(__has_include)
#if __has_include(<jconfig.h>)
#include <jconfig.h>
#endif
#endif
#define EDGED_STR2(x) #x
#define EDGED_STR(x) EDGED_STR2(x)
#ifdef LIBJPEG_TURBO_VERSION
static const char *edged_tj_header_version(void) { return EDGED_STR(LIBJPEG_TURBO_VERSION); }
#else
static const char *edged_tj_header_version(void) { return ""; }
#endif

static int edged_tj_find(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libturbojpeg") != NULL) {
		*(const char **)data = info->dlpi_name;
		return 1;
	}
	return 0;
}

// The file of the libturbojpeg the dynamic loader mapped into this
// process, or "" when none is (a static link). Looked up among the loaded
// objects because the address of tjInitCompress may be the executable's
// own PLT stub.
static const char *edged_tj_loaded(void) {
	const char *name = "";
	dl_iterate_phdr(edged_tj_find, &name);
	return name;
}
*/
import "C"

import "path/filepath"

// Library reports the JPEG implementation compiled in: here libturbojpeg
// through cgo, with the file the dynamic loader mapped and the
// libjpeg-turbo release of the headers edged was built with.
func Library() LibraryInfo {
	info := LibraryInfo{Backend: Backend, Linked: true, HeaderVersion: C.GoString(C.edged_tj_header_version())}
	if p := C.GoString(C.edged_tj_loaded()); p != "" {
		info.Path = p
		if real, err := filepath.EvalSymlinks(p); err == nil {
			info.Path = real
		}
	}
	return info
}

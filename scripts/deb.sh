#!/usr/bin/env bash
# Debian packages of edged for robots (amd64 and arm64), built with
# dpkg-deb from a staged tree (packaging/debian holds the control
# template, conffiles and maintainer scripts).
#
#   scripts/deb.sh                    make deb: install the tools, build
#       both architectures (arm64 with Debian's cross toolchain and arm64
#       libraries), check the arm64 binary and the unit tests of sheet/ and
#       ros/ under qemu-user, package both into dist/ and lint them
#       (lintian; shellcheck for this script and the maintainer scripts)
#   scripts/deb.sh build ARCH OUT
#       build edged for ARCH as the package ships it (cgo, hardened C
#       flags, PIE, stripped) into OUT
#   scripts/deb.sh package ARCH BIN OUTDIR [HELPBIN]
#       package the edged binary BIN for ARCH into OUTDIR (the man page
#       comes from HELPBIN's help, default BIN: it must run here); prints
#       the .deb's path. packaging/'s test uses build and package.
#   scripts/deb.sh install-check DEB
#       install DEB on this machine, check edged, its user and its unit,
#       install it again over an edited config (kept: a conffile; the
#       maintainer scripts are idempotent), then purge it
#
# DEB_VERSION and DEB_MAINTAINER override the version (default from git,
# see deb_version) and the Maintainer field.
# Idempotent: tools are installed only when missing; outputs are rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH=/usr/local/go/bin:$PATH
export LC_ALL=C.UTF-8

DIST=$ROOT/dist
MAINTAINER=${DEB_MAINTAINER:-edged maintainers <edged-maintainers@users.noreply.github.com>}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

log() { echo "deb: $*" >&2; }
die() { echo "deb: $*" >&2; exit 1; }

# deb_version: the tag's version on a tagged commit (v1.2.0: 1.2.0);
# otherwise the last tag's (or 0.0) followed by ~git, the commit time and
# the short hash, which sort in commit order; +dirty for uncommitted changes.
deb_version() {
	local tag base stamp short dirty=""
	tag=$(git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true)
	if [ -n "$tag" ] && [ "$(git rev-list -n1 "$tag")" = "$(git rev-parse HEAD)" ]; then
		base=${tag#v}
	else
		base=${tag#v}
		base=${base:-0.0}
		stamp=$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd)
		short=$(git rev-parse --short=12 HEAD)
		base="$base~git$stamp.$short"
	fi
	git diff --quiet HEAD -- 2>/dev/null || dirty="+dirty"
	echo "$base$dirty"
}

# cross ARCH: the prefix of Debian's toolchain that builds for ARCH here
# (gcc-aarch64-linux-gnu for arm64); none for this machine's architecture.
cross() {
	case "$1" in
	"$(dpkg --print-architecture)") echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "no cross toolchain for $1" ;;
	esac
}

# One version for a whole run: the binaries' and the packages'.
VERSION=${DEB_VERSION:-$(deb_version)}

ensure_tools() {
	local want=(dpkg-dev lintian man-db gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		libturbojpeg0-dev libjpeg62-turbo-dev libturbojpeg0-dev:arm64 libjpeg62-turbo-dev:arm64
		cyclonedds-dev libddsc0debian:arm64
		qemu-user ffmpeg systemd shellcheck) need=() update=0
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" = 0 ] || die "arm64 is not a dpkg architecture here; as root: dpkg --add-architecture arm64"
		log "adding the arm64 architecture to dpkg (multiarch)"
		dpkg --add-architecture arm64
		update=1
	fi
	for p in "${want[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
	done
	if ((${#need[@]})); then
		[ "$(id -u)" = 0 ] || die "missing Debian packages: ${need[*]}; run as root"
		update=1
	fi
	if ((update)); then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
	fi
	if ((${#need[@]})); then
		log "installing ${need[*]}"
		apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	fi
}

# build ARCH OUT: edged for ARCH with cgo (libturbojpeg), hardened as
# Debian builds C (dpkg-buildflags), position independent, stripped.
build() {
	local arch=$1 out=$2 version=$3
	local env=(CGO_ENABLED=1 GOOS=linux GOARCH="$arch" CC="$(cross "$arch")gcc")
	local flags
	flags=(CGO_CFLAGS="$(DEB_HOST_ARCH=$arch DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)"
		CGO_CPPFLAGS="$(DEB_HOST_ARCH=$arch DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)"
		CGO_LDFLAGS="$(DEB_HOST_ARCH=$arch DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)")
	if [ "$arch" != "$(dpkg --print-architecture)" ]; then
		# cyclonedds-dev is not multiarch (it cannot be installed for two
		# architectures): its headers are the host's but for
		# dds/features.h, taken from the target's package, and the
		# target's library (libddsc0debian:ARCH) is linked through a
		# libddsc.so symlink of our own, as the -dev package makes one.
		local dds triplet
		dds=$(mktemp -d)
		chmod 755 "$dds" # apt downloads as _apt
		triplet=$(cross "$arch" | sed 's/-$//')
		(cd "$dds" && apt-get download -qq "cyclonedds-dev:$arch" >/dev/null && dpkg-deb -x cyclonedds-dev_*.deb x) ||
			die "cannot fetch cyclonedds-dev:$arch for its headers"
		ln -s "/usr/lib/$triplet/libddsc.so.0debian" "$dds/libddsc.so"
		flags[0]="${flags[0]} -I$dds/x/usr/include/$triplet"
		flags[2]="${flags[2]} -L$dds"
	fi
	log "building edged $version for $arch"
	env "${env[@]}" "${flags[@]}" nice go build -trimpath -buildmode=pie \
		-ldflags "-s -w -X main.version=$version -X main.commit=$(git rev-parse HEAD)" \
		-o "$out" ./cmd/edged
}

# man_page HELPBIN VERSION: edged(1) from the command's own help, so the
# page says what the binary does.
man_page() {
	local bin=$1 version=$2 date cmds c
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
	subcommands() { sed -n '/^Available Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }' | { grep -vx 'help\|completion' || true; }; }
	cmds=$("$bin" --help | subcommands)
	[ -n "$cmds" ] || die "$bin --help lists no commands"
	roff_escape() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
	cat <<EOF
.TH EDGED 1 "$date" "edged $version" "User Commands"
.SH NAME
edged \\- records self-labeled robot episodes and ships contact sheets over MQTT
.SH SYNOPSIS
.B edged
.I command
.RI [ options ]
.RI [ "ROS arguments" ]
.SH DESCRIPTION
edged subscribes to a robot's ROS1 camera, joint-state and task state
machine topics, builds timestamped contact sheets with libjpeg-turbo,
ships them with robot-state snippets over MQTT, and records the state
machine's states as ground-truth subtask segments.
The daemon is
.BR "edged run" ;
the package runs it as the systemd unit
.BR edged.service ,
which is not enabled on installation.
Every command takes the ROS command-line arguments
(__name:=, __ns:=, __master:=, _param:=value, from:=to).
.SH COMMANDS
EOF
	for c in $cmds; do
		for sub in "" $("$bin" "$c" --help | subcommands); do
			echo ".SS edged $c${sub:+ $sub}"
			echo ".nf"
			"$bin" "$c" ${sub:+"$sub"} --help | roff_escape
			echo ".fi"
		done
	done
	cat <<'EOF'
.SH FILES
.TP
.I /etc/edged/edged.yaml
the configuration (a commented sample; check it with
.BR "edged config check" )
.TP
.I /var/lib/edged
episodes and the outbox (the unit's state directory)
.TP
.I /lib/systemd/system/edged.service
the unit: enable it with
.B systemctl enable \-\-now edged
once the config names this robot
.SH SEE ALSO
.BR systemctl (1),
.BR systemd-analyze (1);
/usr/share/doc/edged/deploy.md.gz (a fleet with per-robot broker credentials)
EOF
}

# copyright_years: the first commit's year to the last one's (2025-2026).
copyright_years() {
	local first last
	first=$(git log --reverse --format=%cd --date=format:%Y | head -n1)
	last=$(git log -1 --format=%cd --date=format:%Y)
	[ "$first" = "$last" ] && echo "$first" || echo "$first-$last"
}


changelog() {
	local version=$1 date
	date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
	cat <<EOF
edged ($version) unstable; urgency=medium

  * Built from commit $(git rev-parse HEAD).

 -- $MAINTAINER  $date
EOF
}

# shlibs_depends ARCH BIN: the shared-library dependencies of BIN as
# dpkg-shlibdeps computes them from the libraries' symbols files.
shlibs_depends() {
	local arch=$1 bin=$2 tmp
	tmp=$(mktemp -d)
	mkdir -p "$tmp/debian"
	printf 'Source: edged\n\nPackage: edged\nArchitecture: any\n' >"$tmp/debian/control"
	(cd "$tmp" && CC="$(cross "$arch")gcc" dpkg-architecture -a"$arch" -f -c dpkg-shlibdeps -O --warnings=0 -e"$bin") |
		sed -n 's/^shlibs:Depends=//p'
	rm -rf "$tmp"
}

# package ARCH BIN OUTDIR [HELPBIN]: the staged tree, then dpkg-deb.
package() {
	local arch=$1 bin=$2 outdir=$3 helpbin=${4:-$2} version=$VERSION stage deps size deb
	bin=$(realpath "$bin")
	helpbin=$(realpath "$helpbin")
	# A package is labelled with the version its binary reports.
	"$helpbin" version | head -n1 | grep -qxF "edged $version" ||
		die "$helpbin reports $("$helpbin" version | head -n1), not edged $version: build it with scripts/deb.sh build"
	mkdir -p "$outdir"
	outdir=$(realpath "$outdir")
	stage="$outdir/stage-$arch"
	rm -rf "$stage"
	install -d -m 0755 "$stage/DEBIAN" "$stage/usr/bin" "$stage/lib/systemd/system" "$stage/etc/edged" \
		"$stage/usr/share/doc/edged" "$stage/usr/share/man/man1"
	install -m 0755 "$bin" "$stage/usr/bin/edged"
	# go build -s -w leaves the toolchain's .comment section (lintian:
	# binary-has-unneeded-section).
	"$(cross "$arch")objcopy" --remove-section=.comment "$stage/usr/bin/edged"
	# The unit as make install ships it, with the binary where the package
	# puts it.
	# shellcheck disable=SC2016 # the backquotes are the unit's text
	sed -e 's#/usr/local/bin/edged#/usr/bin/edged#g' \
		-e 's#^\# Installed by `make install`#\# Installed by the edged package#' \
		systemd/edged.service >"$stage/lib/systemd/system/edged.service"
	install -m 0644 systemd/edged.yaml "$stage/etc/edged/edged.yaml"
	install -d -m 0755 "$stage/usr/share/lintian/overrides"
	install -m 0644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/edged"
	sed "s|@YEARS@|$(copyright_years)|" packaging/debian/copyright >"$stage/usr/share/doc/edged/copyright"
	changelog "$version" | gzip -9n >"$stage/usr/share/doc/edged/changelog.gz"
	gzip -9n <docs/deploy.md >"$stage/usr/share/doc/edged/deploy.md.gz"
	man_page "$helpbin" "$version" | gzip -9n >"$stage/usr/share/man/man1/edged.1.gz"
	chmod 0644 "$stage/lib/systemd/system/edged.service" "$stage"/usr/share/doc/edged/* "$stage/usr/share/man/man1/edged.1.gz"

	deps=$(shlibs_depends "$arch" "$stage/usr/bin/edged")
	[ -n "$deps" ] || die "dpkg-shlibdeps found no dependencies of $bin"
	size=$(du -k -s --apparent-size --exclude=DEBIAN "$stage" | cut -f1)
	sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$MAINTAINER|" \
		-e "s|@INSTALLED_SIZE@|$size|" -e "s|@SHLIBS_DEPENDS@|$deps|" \
		packaging/debian/control.in >"$stage/DEBIAN/control"
	install -m 0644 packaging/debian/conffiles "$stage/DEBIAN/conffiles"
	install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
	(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
	chmod 0644 "$stage/DEBIAN/md5sums"
	find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

	deb="$outdir/edged_${version}_${arch}.deb"
	dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
	rm -rf "$stage"
	echo "$deb"
}

# lint DEB: lintian's warnings and errors fail; its info lines are shown.
lint() {
	log "lintian $(basename "$1")"
	lintian --info --display-info --fail-on error,warning "$1"
}

# frames DIR: 300 sample frames (10 s at 30 fps: one full sheet of 20
# ticks), from the shared sample video when there is one, else ffmpeg's
# test pattern.
frames() {
	local dir=$1 video=$ROOT/../shared/data/pan720p.mp4
	mkdir -p "$dir"
	if [ -f "$video" ]; then
		ffmpeg -loglevel error -y -i "$video" -frames:v 300 -q:v 3 "$dir/f%03d.jpg"
	else
		log "no $video: ffmpeg's test pattern instead"
		ffmpeg -loglevel error -y -f lavfi -i testsrc=size=1280x720:rate=30 -frames:v 300 -q:v 3 "$dir/f%03d.jpg"
	fi
}

# qemu_checks AMD64BIN ARM64BIN: the arm64 binary runs, reports
# linux/arm64 with libturbojpeg, and builds the same sheets (times,
# tiles, layout) as the amd64 one; then the arm64 unit tests.
qemu_checks() {
	local amd=$1 arm=$2 work out
	# The arm64 loader, libc and libturbojpeg are Debian's multiarch
	# packages (libturbojpeg0:arm64 pulls in libc6:arm64), found at their
	# own paths. With QEMU_LD_PREFIX=/usr/aarch64-linux-gnu (the cross
	# toolchain's libc) qemu 7.2 spins forever in edged instead, and ignores
	# SIGTERM: every run below is killed at its deadline.
	unset QEMU_LD_PREFIX
	qemu() { timeout -s KILL "$1" nice qemu-aarch64 "${@:2}"; }
	work=$(mktemp -d)
	log "qemu-aarch64: edged version"
	out=$(qemu 60 "$arm" version)
	printf '%s\n' "$out" | sed 's/^/  /' >&2
	grep -q 'linux/arm64' <<<"$out" || die "arm64 edged does not report linux/arm64"
	grep -q 'libturbojpeg linked' <<<"$out" || die "arm64 edged does not have libturbojpeg linked"

	log "qemu-aarch64: edged sheet on sample frames"
	frames "$work/frames"
	"$amd" sheet --out "$work/amd64" "$work"/frames/*.jpg >/dev/null
	qemu 600 "$arm" sheet --out "$work/arm64" "$work"/frames/*.jpg >&2
	python3 - "$work/amd64/sheets.json" "$work/arm64/sheets.json" <<'EOF'
import json, sys
def layout(path):
    # What must not depend on the CPU: everything but the JPEG sizes
    # (libjpeg-turbo's SIMD code differs between x86 and NEON).
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("bytes", "total_bytes")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(json.load(open(path)))
a, b = layout(sys.argv[1]), layout(sys.argv[2])
if a != b:
    sys.exit("arm64 sheets differ from amd64 sheets beyond their JPEG bytes")
print("deb:   arm64 sheets lay out as amd64's: %d sheets, %d ticks" % (len(a["sheets"]), a["ticks"]), file=sys.stderr)
EOF
	if cmp -s <(cat "$work"/amd64/sheet-*.jpg) <(cat "$work"/arm64/sheet-*.jpg); then
		log "  and their JPEG bytes are identical"
	else
		log "  their JPEG bytes differ (libjpeg-turbo's SIMD on x86 and NEON)"
	fi

	local pkg
	for pkg in ./sheet ./sheet/turbojpeg ./ros ./ros/msg ./ros/tcpros ./ros/xmlrpc ./ros/master ./ros/rosout; do
		log "qemu-aarch64: go test $pkg (arm64, cgo)"
		CGO_ENABLED=1 GOARCH=arm64 CC="$(cross arm64)gcc" nice go test -c -o "$work/$(basename "$pkg").test" "$pkg"
		(cd "$pkg" && qemu 1200 "$work/$(basename "$pkg").test" -test.timeout 15m -test.short -test.v 2>&1) >"$work/test.log" ||
			{ tail -50 "$work/test.log" >&2; die "arm64 tests of $pkg failed under qemu"; }
		printf '  %s: %s passed, %s skipped\n' "$pkg" "$(grep -c '^--- PASS' "$work/test.log")" \
			"$(grep -c '^--- SKIP' "$work/test.log")" >&2
		# Each skipped test with its reason (logged just before its SKIP line).
		awk '/^=== (RUN|NAME|CONT)/ { msg = "" } /^ +[^ ]+_test\.go:[0-9]+: / { msg = $0 }
			/^ *--- SKIP/ { sub(/^ +/, "", msg); print "    " $3 ": " msg }' "$work/test.log" >&2
	done
	rm -rf "$work"
}

install_check() {
	local deb
	deb=$(realpath "$1")
	[ "$(id -u)" = 0 ] || die "install-check installs the package: run as root"
	export DEBIAN_FRONTEND=noninteractive
	log "installing $deb"
	apt-get install -y -qq "$deb" >/dev/null
	/usr/bin/edged version
	dpkg-query -W -f='${Package} ${Version} ${Status}\n' edged
	getent passwd edged
	systemd-analyze verify /lib/systemd/system/edged.service
	log "systemd-analyze verify: ok"
	# The user the unit runs as can read the config.
	runuser -u edged -- /usr/bin/edged config check /etc/edged/edged.yaml >/dev/null
	log "edged config check as the edged user: ok"
	log "reinstalling (postinst once more) over an edited config"
	echo "# edited by install-check" >>/etc/edged/edged.yaml
	apt-get install -y -qq --reinstall "$deb" >/dev/null
	grep -qx "# edited by install-check" /etc/edged/edged.yaml || die "reinstalling replaced the edited config"
	getent passwd edged >/dev/null || die "the edged user is gone after reinstalling"
	log "purging"
	apt-get purge -y -qq edged >/dev/null
	if [ -e /usr/bin/edged ] || [ -e /etc/edged/edged.yaml ]; then
		die "purge left edged's files behind"
	fi
	log "install-check: ok (the edged user is kept, as Debian keeps system users: deluser --system edged)"
}

main() {
	ensure_tools
	log "shellcheck: scripts/deb.sh and the maintainer scripts"
	shellcheck scripts/deb.sh
	shellcheck -s sh packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm
	local version=$VERSION amd arm
	mkdir -p "$DIST"
	rm -f "$DIST"/edged_*.deb # dist/ holds this run's packages only
	amd=$DIST/edged-amd64
	arm=$DIST/edged-arm64
	build amd64 "$amd" "$version"
	build arm64 "$arm" "$version"
	file "$arm" 2>/dev/null | sed 's/^/  /' >&2 || true
	qemu_checks "$amd" "$arm"
	local debs=()
	debs+=("$(package amd64 "$amd" "$DIST")")
	debs+=("$(package arm64 "$arm" "$DIST" "$amd")")
	for d in "${debs[@]}"; do
		dpkg-deb --info "$d" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Installed-Size\):/  \1:/p' >&2
		lint "$d"
	done
	rm -f "$amd" "$arm"
	log "packages: ${debs[*]}"
}

case "${1:-}" in
"") main ;;
build)
	[ $# -eq 3 ] || die "usage: scripts/deb.sh build ARCH OUT"
	build "$2" "$3" "$VERSION"
	;;
package)
	[ $# -ge 4 ] || die "usage: scripts/deb.sh package ARCH BIN OUTDIR [HELPBIN]"
	package "$2" "$3" "$4" "${5:-$3}"
	;;
install-check)
	[ $# -eq 2 ] || die "usage: scripts/deb.sh install-check DEB"
	install_check "$2"
	;;
*) die "unknown mode $1 (none, build, package or install-check)" ;;
esac

#!/usr/bin/env bash
# `make deb ARCH=arm64`: the arm64 Debian package, built on an amd64
# machine, out/deb/chakra_VERSION_arm64.deb (and chakra-dbgsym_...). It
#   1. makes or checks the build root (scripts/arm64/toolchain.sh: Debian 13,
#      Swift 6.0.3, the arm64 libraries, cached),
#   2. in it, runs scripts/build-deb.sh with ARCH=arm64: debian/rules under
#      dpkg-architecture -a arm64, which builds chakrad and chakractl for
#      aarch64 in release with the Makefile's RELEASE_FLAGS (static Swift
#      runtime, no rpath, file-prefix-map, relro/now) and the Swift SDK
#      chakra-arm64, in SCRATCH (default .build-arm64, never the host's
#      .build), then makes the package (the binaries' check, the man pages from
#      their help under qemu-aarch64, dpkg-shlibdeps against Debian 13's
#      arm64 libraries, aarch64-linux-gnu-strip), with the units and the
#      udev rule in /usr/lib (ROOTLIBDIR: Debian 13's places),
#   3. in it, runs Debian 13's lintian on the package: no error, no warning.
# Needs root (scripts/arm64/in-root.sh). Prints how long each step took.
#   scripts/arm64/deb.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export LC_ALL=C
scratch=${SCRATCH:-.build-arm64}
sdk=chakra-arm64
# SwiftPM reads the .pc files of the target's libraries here (its own
# search path has only the build machine's).
pkg_config_path=/usr/lib/aarch64-linux-gnu/pkgconfig
version=$(scripts/version.sh)
deb=out/deb/chakra_${version}_arm64.deb
# The date of the last commit (the package's dates): git runs here, where
# the repository's .git is whole (a worktree's is not inside the root).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

started=$EPOCHREALTIME step_started=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
step() { echo "deb arm64: $1 in $(since "$step_started") s" >&2; step_started=$EPOCHREALTIME; }

scripts/arm64/toolchain.sh
step "build root ready"
# The build is debian/rules' alone: a build before it, in the same root,
# was done again from scratch under dh.
# crossbuildcanrunhostbinaries: debhelper's word that the arm64 binaries
# run here (qemu-aarch64), so the check runs without its warning. (No CC:
# SwiftPM would take it for its C compiler; dpkg-architecture's warning
# that gcc targets amd64 is harmless.)
scripts/arm64/in-root.sh env PKG_CONFIG_PATH="$pkg_config_path" ARCH=arm64 SWIFT_SDK="$sdk" SCRATCH="$scratch" \
    ROOTLIBDIR=/usr/lib DEB_BUILD_OPTIONS="crossbuildcanrunhostbinaries ${DEB_BUILD_OPTIONS:-}" \
    scripts/build-deb.sh
step "binaries and package built (SwiftPM's own time is above)"
# lintian as nobody: it warns about running as root.
scripts/arm64/in-root.sh setpriv --reuid=nobody --regid=nogroup --clear-groups lintian --fail-on error,warning "$deb"
step "lintian (Debian 13's) passed"
echo "deb arm64: $deb in $(since "$started") s" >&2

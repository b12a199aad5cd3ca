#!/usr/bin/env bash
# Builds the Debian package with debhelper (debian/rules): out/deb/
# chakra_VERSION_ARCH.deb and chakra-dbgsym_VERSION_ARCH.deb, for the
# architecture of this machine (dpkg --print-architecture). The version
# comes from scripts/version.sh; debian/changelog is written from it for
# this build and removed again (it is not kept in git: one place for the
# version). SCRATCH names the Swift build directory (default .build).
# ARCH=arm64 with SWIFT_SDK=NAME cross-builds for another Debian
# architecture: `make deb ARCH=arm64` runs it so in its Debian 13 root
# (scripts/arm64/deb.sh, docs/packaging.md).
#   scripts/build-deb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
architecture=${ARCH:-$(dpkg --print-architecture)}
for tool in dh dpkg-deb dpkg-shlibdeps python3; do
    command -v "$tool" >/dev/null || { echo "build-deb.sh: $tool is missing (scripts/install-deps.sh --package)" >&2; exit 1; }
done

# The date of the last commit, so that the same commit gives the same
# changelog, man pages and file times (reproducible builds).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
cleanup() { rm -f debian/changelog; debian/rules clean >/dev/null 2>&1 || true; }
trap cleanup EXIT
cat >debian/changelog <<CHANGELOG
chakra ($version) unstable; urgency=medium

  * Release $version. The changes are in git: git log v$version or the
    repository's history.

 -- Chakra developers <developers@chakra.invalid>  $(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" -R)
CHANGELOG

mkdir -p out/deb
rm -f "out/deb/chakra_${version}_$architecture.deb" "out/deb/chakra-dbgsym_${version}_$architecture.deb"
if [[ $architecture == "$(dpkg --print-architecture)" ]]; then
    debian/rules binary
else
    [[ -n ${SWIFT_SDK:-} ]] || { echo "build-deb.sh: ARCH=$architecture needs SWIFT_SDK, a Swift SDK for it (docs/packaging.md)" >&2; exit 1; }
    dpkg-architecture -a "$architecture" -c debian/rules binary
fi
deb=out/deb/chakra_${version}_$architecture.deb
[[ -s $deb ]] || { echo "build-deb.sh: debian/rules did not write $deb" >&2; exit 1; }
echo "built $deb ($(du -h "$deb" | cut -f1))"

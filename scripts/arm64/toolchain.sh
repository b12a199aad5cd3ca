#!/usr/bin/env bash
# Sets up what `make deb ARCH=arm64` builds with, in a cache directory
# outside git: $CHAKRA_ARM64_CACHE (default ~/.cache/chakra-arm64)/root, a
# Debian 13 (trixie) root file system for this machine's architecture with
#   - Debian's Swift 6.0.3 (swiftlang: swift-build, swiftc, clang, ld.lld),
#   - arm64 as a second dpkg architecture, and the arm64 -dev packages of
#     what chakrad links (libc, libgcc, libstdc++, libdrm, libevdev, libpng,
#     FreeType): the target's headers and libraries are the root's own
#     (multiarch), so dpkg-shlibdeps finds the arm64 packages for Depends,
#   - the aarch64 Swift modules and static runtime, taken from
#     swiftlang:arm64, in /opt/chakra-arm64/swift,
#   - a Swift SDK `chakra-arm64` (swift-sdk.json, toolset.json) naming them,
#   - qemu-aarch64 (user mode, static, from qemu-user) to run the arm64
#     binaries: their --help for the man pages, the checks,
#   - debhelper, dpkg-dev, lintian, binutils-aarch64-linux-gnu (dh_strip).
# Idempotent: nothing is done while the root is there with the stamp of
# this script's contents; otherwise it is built in a temporary directory
# and renamed into place, so an interrupted run never leaves a half-made
# root. Prints what it does and how long each phase took. Needs root
# (debootstrap, chroot, mounts in a private mount namespace), debootstrap
# and Debian's archive ($DEBIAN_MIRROR, default http://deb.debian.org/debian).
# docs/packaging.md says how it is used.
#   scripts/arm64/toolchain.sh [--force]
set -euo pipefail
export LC_ALL=C
self=$(readlink -f "$0")
cache=${CHAKRA_ARM64_CACHE:-$HOME/.cache/chakra-arm64}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=trixie
force=false
[[ ${1:-} == --force ]] && force=true
# What goes into the root. Build machine's architecture: the compiler, the
# packaging tools; arm64: what the binaries are linked against.
native_packages=(swiftlang git pkgconf python3 debhelper dpkg-dev lintian binutils-aarch64-linux-gnu)
arm64_packages=(libc6-dev libgcc-14-dev libstdc++-14-dev libdrm-dev libevdev-dev libpng-dev libfreetype-dev)

log() { echo "toolchain: $*" >&2; }
fail() { log "$*"; exit 1; }
((EUID == 0)) || fail "needs root (debootstrap, chroot); run it with sudo"
if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

stamp=$( { cat "$self"; echo "$mirror $suite $(uname -m)"; } | sha256sum | cut -c1-16)
mkdir -p "$cache"
# One setup at a time; scripts/arm64/in-root.sh holds the lock shared while
# it uses the root, so a root is never replaced under a build.
exec 9>"$cache/lock"
flock 9
if ! $force && [[ -d $cache/root && $(cat "$cache/root/.chakra-arm64-stamp" 2>/dev/null) == "$stamp" ]]; then
    log "$cache/root is up to date ($stamp)"
    exit 0
fi
[[ -d $cache/root ]] && log "$cache/root is out of date: building it again"

# Leftovers of an interrupted run. Their mounts lived in mount namespaces
# that ended with it, so removing them touches nothing outside.
rm -rf "$cache"/root.new.* "$cache"/root.old.*
new=$(mktemp -d "$cache/root.new.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$new" "$new.log"' EXIT
chmod 0755 "$new"

started=$EPOCHREALTIME phase_started=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
phase() { log "$1 done in $(since "$phase_started") s"; phase_started=$EPOCHREALTIME; }
# A command in the new root, in a mount namespace of its own (its /proc,
# /dev, /tmp go away with it).
in_new() {
    unshare --mount --propagation private -- /bin/sh -euc '
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/tmp"
        exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' in_new "$new" "$@"
}

log "building $cache/root (Debian $suite, Swift 6.0.3, arm64 target) in $new"
# No documentation, man pages or translations in a build root, and dpkg
# without fsync (the root is thrown away whole if anything fails): in place
# before debootstrap, whose second stage runs dpkg (on a loaded 2-core
# build machine: 114 s instead of 190 s).
mkdir -p "$new/etc/dpkg/dpkg.cfg.d"
cat >"$new/etc/dpkg/dpkg.cfg.d/90-chakra" <<'CFG'
force-unsafe-io
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
CFG
unshare --mount --propagation private -- \
    debootstrap --variant=minbase --arch="$(dpkg --print-architecture)" "$suite" "$new" "$mirror" >"$new.log" 2>&1 ||
    { tail -n 20 "$new.log" >&2; rm -f "$new.log"; fail "debootstrap failed"; }
rm -f "$new.log"
log "base system: $(du -sm "$new/var/cache/apt/archives" | cut -f1) MB of packages downloaded"
rm -f "$new"/var/cache/apt/archives/*.deb
phase "debootstrap ($suite, minbase)"

# No recommends, no translations, no man-db index.
cat >"$new/etc/apt/apt.conf.d/90-chakra" <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
APT::Sandbox::User "root";
CFG
cp /etc/resolv.conf "$new/etc/resolv.conf"
in_new sh -c 'echo "man-db man-db/auto-update boolean false" | debconf-set-selections'
in_new dpkg --add-architecture arm64
in_new apt-get update -qq
phase "package lists (amd64, arm64)"

# swiftlang:arm64 only for its aarch64 Swift modules and static runtime,
# qemu-user only for qemu-aarch64: downloaded, then unpacked in the
# background (xz: the longest part) while apt installs the rest.
mkdir -p "$new/var/tmp/debs" "$new/opt/chakra-arm64/swift" "$new/opt/chakra-arm64/bin"
in_new sh -c 'cd /var/tmp/debs && apt-get download -q swiftlang:arm64 qemu-user' >/dev/null
log "swiftlang:arm64 and qemu-user: $(du -cm "$new"/var/tmp/debs/*.deb | tail -n1 | cut -f1) MB downloaded"
phase "download of swiftlang:arm64 and qemu-user"
(
    in_new sh -c 'dpkg-deb --fsys-tarfile /var/tmp/debs/swiftlang_*_arm64.deb | tar -x -C /opt/chakra-arm64/swift --strip-components=4 \
            --wildcards --exclude="*/embedded" --exclude="*/embedded/*" --exclude="./usr/libexec/swift/lib/swift/host/*" \
            --exclude="./usr/libexec/swift/lib/clang/*/lib/*" --exclude="*/FrameworkABIBaseline/*" --exclude="*/migrator/*" \
            "./usr/libexec/swift/lib/swift/*" "./usr/libexec/swift/lib/swift_static/*" "./usr/libexec/swift/lib/clang/*"' &&
    in_new sh -c 'dpkg-deb --fsys-tarfile /var/tmp/debs/qemu-user_*.deb | tar -x -O ./usr/bin/qemu-aarch64 > /opt/chakra-arm64/bin/qemu-aarch64' &&
    chmod 0755 "$new/opt/chakra-arm64/bin/qemu-aarch64"
) >"$new/var/tmp/unpack.log" 2>&1 &
unpacking=$!

packages=("${native_packages[@]}" "${arm64_packages[@]/%/:arm64}")
in_new apt-get install -y -q "${packages[@]}" >"$new/var/tmp/apt.log" 2>&1 ||
    { tail -n 30 "$new/var/tmp/apt.log" >&2; fail "apt-get install failed"; }
log "$(grep -E '^(Need to get|After this operation)' "$new/var/tmp/apt.log" | tr '\n' ' ')"
log "$(grep -E 'newly installed' "$new/var/tmp/apt.log")"
phase "apt-get install (${#packages[@]} packages and their dependencies)"
wait "$unpacking" || { cat "$new/var/tmp/unpack.log" >&2; fail "unpacking swiftlang:arm64 or qemu-user failed"; }
phase "rest of the unpacking of swiftlang:arm64 and qemu-user"

# The Swift SDK. Its sysroot is the root itself (multiarch: the arm64
# headers and libraries are in /usr/include and /usr/lib/aarch64-linux-gnu),
# seen through a directory of links: with "/" as the SDK, swiftc would take
# the package's own modules for the SDK's and warn about each.
sdk=$new/opt/chakra-arm64/sdk/chakra-arm64.artifactbundle
mkdir -p "$sdk/aarch64" "$new/opt/chakra-arm64/sysroot"
ln -s ../../../usr "$new/opt/chakra-arm64/sysroot/usr"
ln -s usr/lib "$new/opt/chakra-arm64/sysroot/lib"
cat >"$sdk/info.json" <<'JSON'
{
  "schemaVersion": "1.0",
  "artifacts": {
    "chakra-arm64": { "type": "swiftSDK", "version": "6.0.3", "variants": [{ "path": "aarch64" }] }
  }
}
JSON
cat >"$sdk/aarch64/swift-sdk.json" <<'JSON'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/opt/chakra-arm64/sysroot",
      "swiftResourcesPath": "/opt/chakra-arm64/swift/lib/swift",
      "swiftStaticResourcesPath": "/opt/chakra-arm64/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
# ld.lld, the toolchain's own linker, knows every target; a build ID as
# the build machine's linker gives one (dh_strip files the debug symbols
# under it, in chakra-dbgsym).
cat >"$sdk/aarch64/toolset.json" <<'JSON'
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "linker": { "extraCLIOptions": ["--build-id=sha1"] }
}
JSON
# What swiftc reads of an SDK (it warns at every step without).
cat >"$new/opt/chakra-arm64/sysroot/SDKSettings.json" <<'JSON'
{ "CanonicalName": "debian13-aarch64", "DisplayName": "Debian 13 arm64", "Version": "13.0" }
JSON
in_new swift sdk install /opt/chakra-arm64/sdk/chakra-arm64.artifactbundle >/dev/null
in_new swift sdk list | grep -qx chakra-arm64 || fail "swift sdk list does not name chakra-arm64"
ln -s /opt/chakra-arm64/bin/qemu-aarch64 "$new/usr/local/bin/qemu-aarch64"
in_new qemu-aarch64 --version | head -n1 | sed 's/^/toolchain: /' >&2

in_new apt-get clean
rm -rf "$new"/var/lib/apt/lists/* "$new/var/tmp"/* "$new/etc/resolv.conf"
phase "Swift SDK and clean-up"

echo "$stamp" >"$new/.chakra-arm64-stamp"
if [[ -d $cache/root ]]; then mv "$cache/root" "$cache/root.old.$$"; fi
mv "$new" "$cache/root"
trap - EXIT
rm -rf "$cache/root.old.$$"
log "$cache/root ready: $(du -sm "$cache/root" | cut -f1) MB, $(since "$started") s in all"

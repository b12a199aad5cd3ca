#!/usr/bin/env bash
# make test's head start on what its arm64 steps need and take long to
# make: the build root (scripts/arm64/toolchain.sh: Debian 13 with Swift
# 6.0.3, mostly downloads and dpkg) and the arm64 guest's root file system
# and kernel (tests/vm/debian/arm64-guest-files.sh: debootstrap's second
# stage under qemu-user, one core). Both start in the background and
# return at once; each is cached and locked, so the step that needs one
# waits for it to be done (or makes it itself, and says why, if the
# background build failed). Logs: OUT/arm64-root.log, OUT/arm64-guest.log.
#   scripts/arm64/head-start.sh OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: $0 OUT}
mkdir -p "$out"
# Without root neither can be made (chroot, debootstrap); the steps say so.
((EUID == 0)) || exit 0
setsid scripts/arm64/toolchain.sh >"$out/arm64-root.log" 2>&1 </dev/null &
setsid tests/vm/debian/arm64-guest-files.sh >"$out/arm64-guest.log" 2>&1 </dev/null &

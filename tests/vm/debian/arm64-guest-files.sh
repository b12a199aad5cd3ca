#!/usr/bin/env bash
# The arm64 guest's root file system and kernel (build-rootfs-arm64.sh,
# build-kernel-arm64.sh; each cached), made under one lock, so that
# `make test` can start them early in the background (scripts/arm64/
# head-start.sh) and 70-debian-arm64 waits for that build instead of
# starting a second one beside it. Prints two lines: the root's
# directory, the kernel's.
#   tests/vm/debian/arm64-guest-files.sh
set -euo pipefail
here=$(dirname "$0")
cache=${CHAKRA_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chakra-vm}
mkdir -p "$cache"
exec 9>"$cache/arm64-guest.lock"
flock 9
rootfs=$("$here/build-rootfs-arm64.sh")
kernel=$("$here/build-kernel-arm64.sh" "$rootfs")
printf '%s\n%s\n' "$rootfs" "$kernel"

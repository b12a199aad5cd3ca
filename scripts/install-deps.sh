#!/usr/bin/env bash
# Installs the Debian packages Chakra needs, if missing. Swift itself (6.x)
# must already be on PATH.
#   scripts/install-deps.sh           what building and running need (make run)
#   scripts/install-deps.sh --package  also what `make deb` needs
#   scripts/install-deps.sh --test    also what the whole test suite needs (make test)
set -euo pipefail

want_package=false want_test=false
case ${1:-} in
    '') ;;
    --package) want_package=true ;;
    --test) want_package=true want_test=true ;;
    *) echo "usage: $0 [--package|--test]" >&2; exit 2 ;;
esac

# Building: the C libraries behind the system-library targets, and the
# default font (DejaVu Sans) the spiral's texts are drawn with.
packages=(pkg-config libpng-dev libdrm-dev libevdev-dev libfreetype-dev fonts-dejavu-core)
if $want_package; then
    # make deb: debhelper (and dpkg-dev with it); python3 writes the man
    # pages from the binaries' own help.
    packages+=(debhelper dpkg-dev python3)
fi
if $want_test; then
    # qemu-user, whose qemu-aarch64 is dynamic and so loads TCG plugins:
    # the arm64 frame's instruction count (tools/insn-count).
    packages+=(qemu-user)
fi
if $want_test; then
    # The VM integration tests (tests/vm): QEMU, the Debian kernel the
    # guests boot (its modules come from /lib/modules), the static busybox
    # of the guests' initramfs; debootstrap and e2fsprogs for the Debian
    # root file system the package is installed into; lintian for the
    # package; shellcheck for the harness's own scripts (tests/vm/selftest.sh).
    # python3-prometheus-client: a real Prometheus parser reads
    # the metrics file (Tests/ChakraDaemonTests/MetricsTests.swift).
    # qemu-system-arm and qemu-user-static: the arm64 kiosk (tests/vm/cases/70-debian-arm64.sh),
    # booted by qemu-system-aarch64, its root built under qemu-user;
    # xz-utils unpacks its kernel's modules (.ko.xz) for its initramfs
    # (priority standard: not on every minimal Debian 12).
    packages+=(python3-prometheus-client qemu-system-x86 linux-image-amd64 busybox-static debootstrap e2fsprogs lintian shellcheck
        qemu-system-arm qemu-user-static xz-utils)
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v swift >/dev/null || { echo "swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }

#!/usr/bin/env bash
# Installs the Debian packages Chakra builds and tests with, if missing.
# Swift itself (6.x) must already be on PATH.
set -euo pipefail

packages=(pkg-config libpng-dev libdrm-dev libevdev-dev)
# Text: FreeType and the default font (DejaVu Sans).
packages+=(libfreetype-dev fonts-dejavu-core)
# The VM integration tests (tests/vm, make vm-test): QEMU, the Debian kernel
# the guest boots (its modules come from /lib/modules over 9p), and the
# static busybox of the guest's initramfs.
packages+=(qemu-system-x86 linux-image-amd64 busybox-static)
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

#!/usr/bin/env bash
# Builds, once, the Debian 12 root file system that 60-debian-systemd boots
# with systemd as PID 1, and prints the path of its tarball:
#   tests/vm/debian/build-rootfs.sh KVER
# A minimal Debian (debootstrap --variant=minbase) with systemd, udev, apt
# and the package's run-time dependencies (so that installing the .deb
# needs no network), Plymouth with a kiosk's own splash (chakrad takes the
# screen over from it at boot: docs/seams.md, Boot), plus the host
# kernel's modules that the guest's udev loads (display, input, virtio,
# 9p). Cached outside the repository, as
# $CHAKRA_VM_CACHE/debian-bookworm-HASH.tar (default
# ~/.cache/chakra-vm), HASH covering this script, the package list and
# KVER; rebuilt when missing. Needs root and Debian's archive (the first
# time only). Takes 3-6 minutes to build, under a second when cached.
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

kver=${1:?usage: build-rootfs.sh KVER}
cache=${CHAKRA_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chakra-vm}
mirror=${CHAKRA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm

# systemd as PID 1 with udev and journald; apt and dpkg to install and
# remove the package; procps for ps; what chakra.deb depends on; Plymouth
# (its own package only: its script plugin draws the splash below,
# without plymouth-themes' fonts, cairo and pango).
packages=(systemd systemd-sysv udev dbus kmod procps apt ca-certificates
    libdrm2 libevdev2 libpng16-16 libfreetype6 libstdc++6 libgcc-s1 fonts-dejavu-core
    plymouth)
# The modules the guest needs beyond what the kernel has built in: the
# display (bochs-drm), input, the 9p results share, and what the first
# boot's udev may ask for.
modules=(bochs virtio_gpu evdev uinput 9p 9pnet_virtio virtio_pci virtio_blk virtio_console ext4 efivarfs)

hash=$( {
    cat "$0"
    echo "$kver $mirror $suite ${packages[*]} ${modules[*]}"
} | sha256sum | cut -c1-16)
tarball=$cache/debian-$suite-$hash.tar
if [[ -s $tarball ]]; then
    echo "$tarball"
    exit 0
fi
((EUID == 0)) || vm_die "building the Debian root file system needs root (debootstrap)"
command -v debootstrap >/dev/null || vm_die "debootstrap is missing (scripts/install-deps.sh --test)"
mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
# shellcheck disable=SC2064 # (expand now: the path is fixed)
trap "rm -rf '$work'" EXIT
root=$work/root
started=$SECONDS
vm_log "debootstrap $suite (minbase) from $mirror into $root (cached afterwards as $tarball)"
include=$(IFS=,; echo "${packages[*]}")
debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; vm_die "debootstrap failed (log above)"; }

# A kiosk's basics: a name, the root file system, no password prompt on
# the serial console for debugging, apt without a network.
echo kiosk >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 kiosk\n' >"$root/etc/hosts"
cat >"$root/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
FSTAB
printf 'deb %s %s main\n' "$mirror" "$suite" >"$root/etc/apt/sources.list"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*_Packages 2>/dev/null || true

# A kiosk image's own boot splash (Plymouth's script plugin): a gradient
# over the whole panel, teal at the top to violet at the bottom, and a
# warm disc in the middle, so that the host tells the splash from the
# heart and from black (60-debian-systemd checks its colours). The disc is
# a sprite because Plymouth 22.02's script plugin crashes (SIGSEGV in its
# draw callback, plymouthd gone before `plymouth deactivate`) when a
# script sets only the background. Shown from the moment the display's
# driver is up (ShowDelay=0); DeviceTimeout= long enough for an emulated
# guest's udev to load bochs-drm (Plymouth falls back to text on tty1 when
# no display appears in time).
theme=$root/usr/share/plymouth/themes/kiosk-splash
mkdir -p "$theme" "$root/etc/plymouth"
cat >"$theme/kiosk-splash.plymouth" <<'THEME'
[Plymouth Theme]
Name=Kiosk splash
Description=The VM tests' kiosk splash: a gradient over the whole panel and a disc
ModuleName=script

[script]
ImageDir=/usr/share/plymouth/themes/kiosk-splash
ScriptFile=/usr/share/plymouth/themes/kiosk-splash/kiosk-splash.script
THEME
cat >"$theme/kiosk-splash.script" <<'SCRIPT'
Window.SetBackgroundTopColor(0.10, 0.45, 0.55);
Window.SetBackgroundBottomColor(0.40, 0.20, 0.55);
disc.image = Image("disc.png");
disc.sprite = Sprite(disc.image);
disc.sprite.SetX(Window.GetWidth() / 2 - disc.image.GetWidth() / 2);
disc.sprite.SetY(Window.GetHeight() / 2 - disc.image.GetHeight() / 2);
SCRIPT
python3 - "$VM_DIR/lib" "$theme/disc.png" <<'PYTHON'
import sys
sys.path.insert(0, sys.argv[1])
import images
size, radius = 160, 60
rgb = bytearray()
for y in range(size):
    for x in range(size):
        inside = (x - 79.5) ** 2 + (y - 79.5) ** 2 < radius ** 2
        rgb += bytes((250, 200, 120) if inside else (40, 110, 140))
images.write_image(sys.argv[2], size, size, bytes(rgb))
PYTHON
cat >"$root/etc/plymouth/plymouthd.conf" <<'CONF'
[Daemon]
Theme=kiosk-splash
ShowDelay=0
DeviceTimeout=60
CONF

# The kernel modules the guest's udev loads, with what they depend on.
mkdir -p "$root/lib/modules/$kver"
vm_modprobe -S "$kver" --show-depends -a "${modules[@]}" 2>/dev/null |
    sed -n 's/^insmod \([^ ]*\).*/\1/p' | sort -u >"$work/modules"
[[ -s $work/modules ]] || vm_die "modprobe found none of the guest's modules for $kver"
while read -r module; do
    mkdir -p "$root$(dirname "$module")"
    cp "$module" "$root$module"
done <"$work/modules"
cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$root" "$kver"

tar -C "$root" --numeric-owner -cf "$work/rootfs.tar" .
mv "$work/rootfs.tar" "$tarball"
vm_log "Debian root file system ready in $((SECONDS - started)) s: $tarball ($(du -h "$tarball" | cut -f1))"
echo "$tarball"

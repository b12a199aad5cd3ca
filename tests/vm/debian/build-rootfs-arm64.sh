#!/usr/bin/env bash
# Builds, once, the root file system of the Debian 13 "trixie" arm64 kiosk
# that 70-debian-arm64 boots, and prints the directory that holds it:
#   tests/vm/debian/build-rootfs-arm64.sh
# The directory ($CHAKRA_VM_CACHE/debian-trixie-arm64-HASH, default
# ~/.cache/chakra-vm) has rootfs.tar, Packages (the archive's stanzas of
# linux-image-arm64, the kernel it depends on and busybox-static, for
# build-kernel-arm64.sh) and build.txt (what the build measured). HASH
# covers this script, the mirror and the package list; the directory is
# renamed into place when complete, so a half-built one is never used,
# and the older ones go.
#
# How: debootstrap --foreign --variant=minbase on this (amd64) machine,
# then its second stage in the arm64 root under qemu-user (binfmt_misc,
# registered here when missing, from qemu-user-static's binfmt.d entry).
# The root gets exactly what the kiosk needs: systemd as PID 1 with udev,
# dbus, apt and dpkg, and what chakra's package depends on (so `apt
# install ./chakra_VERSION_arm64.deb` needs no network). No kernel: the
# kernel, its modules and the initramfs come from build-kernel-arm64.sh
# (dpkg unpacking the kernel's 4,000 modules, depmod and an initramfs
# build, all under qemu-user, took longer than the rest of the build).
# Needs root, Debian's archive and qemu-user-static (the first time only).
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

cache=${CHAKRA_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chakra-vm}
mirror=${CHAKRA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=trixie arch=arm64

# systemd as PID 1 with udev and journald (dbus: logind and a kiosk's
# usual bus); apt and dpkg to install and remove the package; what
# chakra's arm64 package depends on.
packages=(systemd systemd-sysv udev dbus kmod apt
    libdrm2 libevdev2 libpng16-16t64 libfreetype6 libstdc++6 libgcc-s1 fonts-dejavu-core)

hash=$( {
    cat "$0"
    echo "$mirror $suite $arch ${packages[*]}"
} | sha256sum | cut -c1-16)
name=debian-$suite-$arch
out=$cache/$name-$hash
if [[ -s $out/rootfs.tar && -s $out/Packages ]]; then
    echo "$out"
    exit 0
fi
((EUID == 0)) || vm_die "building the Debian arm64 root file system needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || vm_die "debootstrap is missing (scripts/install-deps.sh --test)"

# arm64 programs in the root run under qemu-user through binfmt_misc: the
# F flag of qemu-user-static's entry makes the kernel open the interpreter
# now, so the chroot needs no copy of it.
binfmt=/proc/sys/fs/binfmt_misc
if [[ ! -e $binfmt/qemu-aarch64 ]]; then
    [[ -e /usr/lib/binfmt.d/qemu-aarch64.conf ]] || vm_die "qemu-user-static is missing (scripts/install-deps.sh --test)"
    [[ -e $binfmt/register ]] || mount -t binfmt_misc binfmt_misc "$binfmt" || vm_die "cannot mount binfmt_misc"
    [[ -e $binfmt/qemu-aarch64 ]] || cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$binfmt/register" ||
        vm_die "cannot register qemu-aarch64 with binfmt_misc"
fi
grep -qx enabled "$binfmt/qemu-aarch64" || vm_die "binfmt_misc's qemu-aarch64 entry is disabled"

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
root=$work/root
# shellcheck disable=SC2317 # (reached through the trap)
cleanup() {
    # Whatever debootstrap may have left mounted in the root, deepest first.
    local m
    awk -v r="$root/" 'index($2 "/", r) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# stamped: each line of standard input with the seconds since the start.
stamped() { while IFS= read -r line; do echo "$((SECONDS - started)) $line"; done; }

started=$SECONDS
vm_log "debootstrap $suite $arch (minbase) from $mirror into $root (cached as $out)"
include=$(IFS=,; echo "${packages[*]}")
debootstrap --arch="$arch" --foreign --variant=minbase --include="$include" "$suite" "$root" "$mirror" 2>&1 |
    stamped >"$work/debootstrap.log" ||
    { tail -n 20 "$work/debootstrap.log" >&2; vm_die "debootstrap (first stage) failed (log above)"; }
first=$((SECONDS - started))
mkdir "$work/out"

# The stanzas build-kernel-arm64.sh fetches the kernel and busybox by,
# from the Packages file the first stage checked against the signed
# Release file.
lists=("$root"/var/lib/apt/lists/*_Packages)
((${#lists[@]} == 1)) || vm_die "expected one Packages file from debootstrap, found: ${lists[*]}"
kernel=$(awk -v RS= '/(^|\n)Package: linux-image-arm64\n/' "${lists[0]}" | sed -n 's/^Depends: \([^ ,]*\).*/\1/p')
[[ $kernel == linux-image-*-arm64 ]] || vm_die "linux-image-arm64 depends on '$kernel', not a kernel"
WANTED="linux-image-arm64 $kernel busybox-static" perl -00 -ne 'BEGIN { %wanted = map { $_ => 1 } split " ", $ENV{WANTED} }
    print if /^Package: (\S+)$/m && $wanted{$1}' "${lists[0]}" >"$work/out/Packages"
[[ $(grep -c '^Package: ' "$work/out/Packages") == 3 ]] || vm_die "no stanza for $kernel or busybox-static in $suite"

# The second stage's first step picks the stanzas of the packages it
# installs out of the archive's whole Packages file (56 MB for trixie
# arm64) with perl, to make dpkg's available file; under qemu-user that
# alone took over 10 minutes. The same stanzas picked here, natively,
# leave it a file of those only.
wanted=$(cat "$root/debootstrap/required" "$root/debootstrap/base")
WANTED=$wanted perl -00 -ne 'BEGIN { %wanted = map { $_ => 1 } split " ", $ENV{WANTED} }
    print if /^Package: (\S+)$/m && $wanted{$1}' "${lists[0]}" >"${lists[0]}.wanted"
mv "${lists[0]}.wanted" "${lists[0]}"
# dpkg under qemu-user: no fsync after every file (the root is a tarball
# in a moment; a crash means a rebuild), and no manuals, translations or
# documents unpacked. No udev hardware database either: compiling it
# (udev's postinst, systemd-hwdb) took a fifth of the second stage, and
# nothing in this virtual machine needs it (udev's input_id, not the
# hwdb, tells a touchscreen). The settings only for the build: removed
# after it, so that the package installed in the guest lands whole and
# safely.
mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
cat >"$root/etc/dpkg/dpkg.cfg.d/chakra-vm-build" <<'CFG'
force-unsafe-io
path-exclude=/usr/share/man/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/info/*
path-exclude=/usr/lib/udev/hwdb.d/*
CFG

second_started=$SECONDS
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    /debootstrap/debootstrap --second-stage 2>&1 | stamped >"$work/second-stage.log" ||
    { tail -n 30 "$work/second-stage.log" >&2; vm_die "debootstrap (second stage, under qemu-user) failed (log above)"; }
second=$((SECONDS - second_started))
rm "$root/etc/dpkg/dpkg.cfg.d/chakra-vm-build"

# A kiosk's basics: a name, the root file system, apt without a network.
echo kiosk >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 kiosk\n' >"$root/etc/hosts"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
printf 'deb %s %s main\n' "$mirror" "$suite" >"$root/etc/apt/sources.list"
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*_Packages "$root/debootstrap"

tar -C "$root" --numeric-owner -cf "$work/out/rootfs.tar" .
size=$(du -sm "$root" | cut -f1)
cp "$work/debootstrap.log" "$work/second-stage.log" "$work/out/"
{
    echo "debootstrap_first_stage_seconds=$first"
    echo "debootstrap_second_stage_seconds=$second"
    echo "packages=$(wc -w <<<"$wanted")"
    echo "rootfs_mb=$size"
    echo "build_seconds=$((SECONDS - started))"
} >"$work/out/build.txt"
rm -rf "$out"
mv "$work/out" "$out"
# Older builds are stale now.
find "$cache" -maxdepth 1 -name "$name-*" ! -path "$out" -exec rm -rf {} +
vm_log "Debian $suite $arch root ready in $((SECONDS - started)) s (first stage $first s, second stage $second s under qemu-user; $size MB): $out"
echo "$out"

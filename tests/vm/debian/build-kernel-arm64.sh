#!/usr/bin/env bash
# Builds, once, what boots the arm64 kiosk of 70-debian-arm64 besides its
# root file system, and prints the directory that holds it:
#   tests/vm/debian/build-kernel-arm64.sh ROOT-DIR
# ROOT-DIR: what build-rootfs-arm64.sh printed; its Packages file names
# the kernel (linux-image-arm64's) and busybox-static, with their
# checksums. The directory, ROOT-DIR/kernel-HASH, has vmlinuz (Debian's
# kernel), initrd.img, modules.tar (/usr/lib/modules/KVER with the modules
# the guest loads, what they need and their modules.dep, for the root
# file system), kver and build.txt. HASH covers this script, the init and
# the module lists; the directory is renamed into place when complete.
#
# The packages are downloaded and unpacked here, natively (dpkg-deb -x),
# checked against the Packages file debootstrap verified; depmod and
# modprobe of this machine read the arm64 modules. The initramfs holds a
# static busybox, tests/vm/debian/arm64-init and the modules that mount
# the root, as tests/vm/lib/build-initramfs.sh makes the harness's.
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"

root_dir=${1:?usage: build-kernel-arm64.sh ROOT-DIR}
[[ -s $root_dir/Packages ]] || vm_die "no Packages file in $root_dir (build-rootfs-arm64.sh makes it)"
mirror=${CHAKRA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
init=$VM_DIR/debian/arm64-init
busybox=/bin/busybox  # this machine's, for cpio

# The modules the initramfs loads to mount the root (the virt machine's
# PCI host bridge, virtio_pci and its serial port are built in).
initramfs_modules=(virtio_blk ext4)
# The modules the booted guest's udev and the test load: the display
# (virtio-gpu), input (evdev, uinput), the results share (9p), the disk.
modules=(virtio_gpu evdev uinput 9p 9pnet_virtio virtio_blk ext4)

hash=$( {
    cat "$0" "$init" "$root_dir/Packages"
    echo "$mirror ${initramfs_modules[*]} ${modules[*]}"
} | sha256sum | cut -c1-16)
out=$root_dir/kernel-$hash
if [[ -s $out/vmlinuz && -s $out/initrd.img && -s $out/modules.tar ]]; then
    echo "$out"
    exit 0
fi
command -v wget >/dev/null || vm_die "wget is missing (debootstrap's own downloader)"
[[ -x $busybox ]] || vm_die "$busybox is missing (package busybox-static)"

work=$(mktemp -d "$root_dir/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
started=$SECONDS

# stanza_field PACKAGE FIELD
stanza_field() {
    awk -v RS= -v package="Package: $1" -v field="$2: " '
        { n = split($0, line, "\n"); found = 0
          for (i = 1; i <= n; i++) if (line[i] == package) found = 1
          if (found) { for (i = 1; i <= n; i++) if (index(line[i], field) == 1) { print substr(line[i], length(field) + 1); exit } } }' \
        "$root_dir/Packages"
}
# unpack PACKAGE DIR: the package downloaded, checked (SHA256) and
# unpacked into DIR.
unpack() {
    local filename sha256
    filename=$(stanza_field "$1" Filename) sha256=$(stanza_field "$1" SHA256)
    [[ -n $filename && -n $sha256 ]] || vm_die "no $1 in $root_dir/Packages"
    wget -q -O "$work/$1.deb" "$mirror/$filename" || vm_die "cannot download $mirror/$filename"
    echo "$sha256  $work/$1.deb" | sha256sum -c --quiet - >&2 || vm_die "$filename: SHA256 does not match the Packages file"
    mkdir -p "$2"
    dpkg-deb -x "$work/$1.deb" "$2"
    rm "$work/$1.deb"
}
package=$(stanza_field linux-image-arm64 Depends | awk '{ print $1 }')
kver=${package#linux-image-}
vm_log "$package and busybox-static from $mirror (cached in $out)"
unpack "$package" "$work/kernel"
unpack busybox-static "$work/busybox"
tree=$work/kernel/usr/lib/modules/$kver
[[ -d $tree && -s $work/kernel/boot/vmlinuz-$kver ]] || vm_die "$package has no /usr/lib/modules/$kver or /boot/vmlinuz-$kver"
arm64_busybox=$(find "$work/busybox" -type f -path '*/bin/busybox' | head -n 1)
[[ -n $arm64_busybox ]] || vm_die "busybox-static has no bin/busybox"
# The package leaves modules.dep to its postinst: depmod here.
depmod -b "$work/kernel/usr" "$kver"
# module_paths MODULE...: the files, in load order, each once.
module_paths() {
    local listed
    listed=$(vm_modprobe -d "$work/kernel/usr" -S "$kver" --show-depends -a "$@") ||
        vm_die "modprobe -S $kver --show-depends $* failed"
    awk '$1 == "insmod" && !seen[$2]++ { print $2 }' <<<"$listed"
}

# The guest's modules, where the package would have put them, with their
# modules.dep, for the root file system.
modules_root=$work/modules-root
mkdir -p "$modules_root/usr/lib/modules/$kver"
mapfile -t paths < <(module_paths "${modules[@]}")
((${#paths[@]})) || vm_die "modprobe found none of the guest's modules for $kver"
for path in "${paths[@]}"; do
    relative=${path#"$tree"/}
    mkdir -p "$modules_root/usr/lib/modules/$kver/$(dirname "$relative")"
    cp "$path" "$modules_root/usr/lib/modules/$kver/$relative"
done
cp "$tree"/modules.{order,builtin,builtin.modinfo} "$modules_root/usr/lib/modules/$kver/"
depmod -b "$modules_root/usr" "$kver"
mkdir "$work/out"
tar -C "$modules_root" --numeric-owner --owner=0 --group=0 -cf "$work/out/modules.tar" usr

# The initramfs: busybox, the init, the modules that mount the root,
# decompressed (busybox insmod reads plain .ko only), in load order.
stage=$work/initramfs
mkdir -p "$stage"/{bin,dev,proc,sys,root,lib/modules}
cp "$arm64_busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$init" "$stage/init"
chmod 755 "$stage/init" "$stage/bin/busybox"
mapfile -t paths < <(module_paths "${initramfs_modules[@]}")
vm_stage_modules "$stage" "${paths[@]}"
vm_newc_archive "$stage" "$busybox" >"$work/out/initrd.img"
cp "$work/kernel/boot/vmlinuz-$kver" "$work/out/vmlinuz"
echo "$kver" >"$work/out/kver"
{
    echo "kver=$kver"
    echo "guest_modules=$(find "$modules_root" -name '*.ko*' | wc -l)"
    echo "initramfs_modules=$(wc -l <"$stage/modules.order")"
    echo "initrd_kb=$(($(stat -c %s "$work/out/initrd.img") / 1024))"
    echo "vmlinuz_kb=$(($(stat -c %s "$work/out/vmlinuz") / 1024))"
    echo "kernel_seconds=$((SECONDS - started))"
} >"$work/out/build.txt"
rm -rf "$out"
mv "$work/out" "$out"
find "$root_dir" -maxdepth 1 -name 'kernel-*' ! -path "$out" -exec rm -rf {} +
vm_log "kernel $kver, its modules and the initramfs ready in $((SECONDS - started)) s: $out"
echo "$out"

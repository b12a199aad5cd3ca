#!/usr/bin/env bash
# Builds the guest's initramfs for kernel KVER and prints its path:
#   lib/build-initramfs.sh KVER
# It holds only what is needed to mount the host root over 9p: a static
# busybox, the stage-1 init, and the modules modprobe lists for virtio_pci,
# 9pnet_virtio and 9p (in load order). Everything else comes from the host
# root after the chroot. The archive is cached under .build-vm/initramfs/
# and rebuilt when any input changes (a hash of them names the file).
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/common.sh"

kver=${1:?usage: build-initramfs.sh KVER}
busybox=/bin/busybox
init=$VM_DIR/initramfs/init
modules=(virtio_pci 9pnet_virtio 9p)

# "insmod PATH" lines in dependency order, each module once; "builtin"
# lines (modules compiled into this kernel) need nothing.
module_paths() {
    vm_modprobe -S "$kver" --show-depends -a "${modules[@]}" |
        awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}
mapfile -t paths < <(module_paths)
((${#paths[@]})) || vm_die "modprobe -S $kver lists no modules for ${modules[*]}"

# The cache key: this script, the init, busybox and every module file.
key=$(
    {
        sha256sum "$0" "$init" "$busybox" "${paths[@]}"
        echo "$kver"
    } | sha256sum | cut -c1-16
)
out_dir=$VM_BUILD/initramfs
out=$out_dir/initramfs-$kver-$key.cpio
if [[ -s $out ]]; then
    echo "$out"
    exit 0
fi

mkdir -p "$out_dir"
stage=$(mktemp -d "$out_dir/stage.XXXXXX")
trap 'rm -rf "$stage" "$stage.cpio"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$init" "$stage/init"
chmod 755 "$stage/init"

# busybox insmod reads plain .ko only; Debian ships plain modules today but
# other kernels compress them, so decompress here where xz/zstd exist.
vm_stage_modules "$stage" "${paths[@]}"

# Written next to the target, then renamed, so a concurrent run never
# sees half an archive.
vm_newc_archive "$stage" "$busybox" >"$stage.cpio"
mv "$stage.cpio" "$out"
# Older archives for this kernel are stale now.
find "$out_dir" -maxdepth 1 -name "initramfs-$kver-*.cpio" ! -path "$out" -delete
echo "$out"

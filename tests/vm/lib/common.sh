# shellcheck shell=bash disable=SC2034 # (its variables are for the scripts that source it)
# Shared by the host-side scripts of the VM harness (sourced, not run).
# Finds the repository, the guest kernel and the tools the harness needs,
# so run-guest.sh, run-all.sh and the cases agree on what "available" means.

# The repository root: this file lives in tests/vm/lib/.
VM_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd -P)
VM_DIR=$VM_REPO/tests/vm
# Everything the harness builds or leaves behind goes here (git-ignored by
# the `.build-*/` rule); never the default .build, which SwiftPM owns.
VM_BUILD=${CHAKRA_VM_BUILD:-$VM_REPO/.build-vm}

vm_log() { echo "chakra-vm: $*" >&2; }
vm_die() { echo "chakra-vm: error: $*" >&2; exit "${VM_DIE_STATUS:-125}"; }

# modprobe and depmod live in /sbin, which is not on a normal user's PATH.
vm_modprobe() {
    local modprobe
    modprobe=$(PATH=$PATH:/usr/sbin:/sbin command -v modprobe) || return 127
    "$modprobe" "$@"
}

# The kernel the guest boots: Debian's linux-image-amd64, which is not the
# kernel this machine runs (uname -r would name the host's, whose modules
# are not installed). CHAKRA_VM_KVER picks one; otherwise the newest version
# that has both /boot/vmlinuz-KVER and /lib/modules/KVER/modules.dep.
vm_kernel_version() {
    if [[ -n ${CHAKRA_VM_KVER:-} ]]; then
        echo "$CHAKRA_VM_KVER"
        return
    fi
    local dir kver found=()
    for dir in /lib/modules/*/; do
        kver=$(basename "$dir")
        [[ -r /boot/vmlinuz-$kver && -e $dir/modules.dep ]] && found+=("$kver")
    done
    ((${#found[@]})) || return 1
    printf '%s\n' "${found[@]}" | sort -V | tail -n 1
}

# Prints what is missing for a guest boot, one item a line; nothing if ready.
vm_missing_prerequisites() {
    command -v qemu-system-x86_64 >/dev/null || echo "qemu-system-x86_64 (package qemu-system-x86)"
    # The initramfs has no libc, so busybox must be the static build.
    # (ldd fails on a static binary, hence no pipe: pipefail would see it.)
    [[ -x /bin/busybox && $(LC_ALL=C ldd /bin/busybox 2>&1) == *"not a dynamic executable"* ]] ||
        echo "a static /bin/busybox (package busybox-static)"
    command -v python3 >/dev/null || echo "python3"
    vm_modprobe --version >/dev/null 2>&1 || echo "modprobe (package kmod)"
    local kver
    if kver=$(vm_kernel_version); then
        [[ -r /boot/vmlinuz-$kver ]] || echo "a readable /boot/vmlinuz-$kver (package linux-image-amd64)"
    else
        echo "a kernel with modules under /lib/modules (package linux-image-amd64)"
    fi
}

# The Debian package 60-debian-systemd installs when CHAKRA_DEB names none:
# this version's out/deb/chakra_VERSION_ARCH.deb (make deb builds it).
vm_debian_package_path() { vm_debian_package_path_for "$(dpkg --print-architecture)"; }
# vm_debian_package_path_for ARCH: the same for ARCH (70-debian-arm64's,
# when CHAKRA_DEB_ARM64 names none: make deb ARCH=arm64 builds it).
vm_debian_package_path_for() {
    echo "$VM_REPO/out/deb/chakra_$("$VM_REPO/scripts/version.sh")_$1.deb"
}

# Copies kernel modules (PATH...) into STAGE/lib/modules, decompressed
# (.ko.xz, .ko.zst, .ko.gz: the initramfs' busybox insmod reads plain
# .ko), and appends their names, in the order given, to
# STAGE/modules.order, which the init loads them by. STAGE/lib/modules
# must exist.
vm_stage_modules() {
    local stage=$1 path name
    shift
    for path in "$@"; do
        name=$(basename "$path")
        case $path in
            *.ko.xz) xz -dc "$path" >"$stage/lib/modules/${name%.xz}"; name=${name%.xz} ;;
            *.ko.zst) zstd -qdc "$path" >"$stage/lib/modules/${name%.zst}"; name=${name%.zst} ;;
            *.ko.gz) gzip -dc "$path" >"$stage/lib/modules/${name%.gz}"; name=${name%.gz} ;;
            *) cp "$path" "$stage/lib/modules/$name" ;;
        esac
        echo "$name" >>"$stage/modules.order"
    done
}

# STAGE as a newc cpio archive on standard output: the format the kernel
# unpacks as an initramfs; BUSYBOX's cpio writes it, so no extra package
# is needed. Sorted and owned by root, so the same files make the same
# archive.
vm_newc_archive() {
    local stage=$1 busybox=$2
    (cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | "$busybox" cpio -o -H newc -R 0:0 2>/dev/null)
}

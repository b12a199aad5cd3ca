#!/usr/bin/env bash
# Host-only checks of the VM harness (no QEMU needed): the image comparison,
# the QMP request protocol against a fake QMP server, the initramfs builder
# when a guest kernel is installed, and shellcheck when it is installed.
# run-all.sh runs this before the cases.
# The checks are functions called through step, which shellcheck cannot see.
# shellcheck disable=SC2317
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$VM_REPO"

status=0
# Runs one check quietly; its output is shown when it fails.
step() {
    local name=$1 output
    shift
    if output=$("$@" 2>&1); then
        echo "ok: $name"
    else
        printf '%s\n' "$output"
        echo "FAIL: $name"
        status=1
    fi
}


initramfs_has_9p() {
    local kver archive listing
    kver=$(vm_kernel_version) || return 0  # no guest kernel here
    archive=$("$VM_DIR/lib/build-initramfs.sh" "$kver")
    listing=$(/bin/busybox cpio -t <"$archive" 2>/dev/null)
    local needed
    for needed in init bin/busybox modules.order lib/modules/virtio_pci.ko lib/modules/9pnet_virtio.ko lib/modules/9p.ko; do
        grep -qx "$needed" <<<"$listing" || { echo "$archive lacks $needed"; return 1; }
    done
    # A second build with unchanged inputs reuses the archive.
    [[ $("$VM_DIR/lib/build-initramfs.sh" "$kver") == "$archive" ]]
}

shellcheck_clean() {
    command -v shellcheck >/dev/null || return 0  # not installed here
    # Shell scripts by their first line: a #! line or, for the sourced
    # libraries, the "shell=bash" directive for the linter.
    local file first scripts=()
    while IFS= read -r file; do
        IFS= read -r first <"$file" || true
        [[ $first =~ ^(#!(/usr/bin/env bash|/bin/bash|/bin/busybox sh)|#\ shellcheck\ shell=) ]] && scripts+=("$file")
    done < <(find tests/vm -type f ! -path '*/__pycache__/*' | sort)
    shellcheck -x -P SCRIPTDIR "${scripts[@]}"
}

step "compare-images.py and lib/images.py" python3 tests/vm/selftest/test_compare_images.py -q
step "qmp-watcher.py with guest/qmp and guest/screendump" python3 tests/vm/selftest/test_qmp_watcher.py -q
step "host/sampler.py: a window's summary" python3 tests/vm/selftest/test_sampler.py -q
step "lib/frames.py on real frames (scene, black, text)" python3 tests/vm/selftest/test_frames.py -q
step "initramfs build and cache" initramfs_has_9p
step "shellcheck" shellcheck_clean
exit $status

#!/usr/bin/env bash
# Proves the VM harness itself (tests/vm/README.md):
#   - for bochs-drm and virtio-gpu, the guest has /dev/dri/card0, /dev/fb0
#     (named after the right driver), a bound framebuffer console on tty1,
#     working uinput and evdev (00-smoke.guest, probe-devices.py);
#   - four quadrants written into /dev/fb0 come back exactly in QMP
#     screendumps, as PPM and as PNG;
#   - COMMAND's exit status, a guest timeout and a guest kernel panic reach
#     the host as 42, 124 and 125.
set -euo pipefail
# shellcheck source=tests/vm/lib/case.sh
source "$(dirname "$0")/../lib/case.sh"
vm_require

# Runs a guest with run-guest.sh options "$@"; its output goes to the log
# file $1 and to our stdout, its exit status to $status.
run_guest() {
    local log=$1
    shift
    status=0
    "$RUN_GUEST" "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
}

# expect CONDITION... -- MESSAGE-IF-TRUE MESSAGE-IF-FALSE
expect() {
    local condition=()
    while [[ $1 != -- ]]; do condition+=("$1"); shift; done
    if "${condition[@]}"; then vm_pass "$2"; else vm_fail "$3"; fi
}

check_display() {
    local display=$1 dir image
    dir=$(vm_results_dir "$display")
    run_guest "$dir/run.log" --display "$display" --results "$dir" --timeout 240 \
        -- tests/vm/cases/00-smoke.guest "$VM_REPO"
    expect test "$status" = 0 -- "$display: all guest checks" "$display: guest checks (status $status)"
    expect test -e "$dir/written-by-guest" -- "$display: guest file visible on the host" \
        "$display: $dir/written-by-guest missing"
    local width height
    if ! read -r width height <"$dir/fb-geometry"; then
        vm_fail "$display: no fb-geometry from the guest"
        return
    fi
    python3 "$VM_DIR/lib/quadrants.py" --expected "$width" "$height" "$dir/expected.ppm"
    for image in pattern.ppm pattern.png; do
        if [[ -e $dir/$image ]] &&
            python3 "$COMPARE_IMAGES" "$dir/$image" "$dir/expected.ppm" --diff "$dir/diff-${image%.*}.png"; then
            vm_pass "$display: $image matches the quadrants exactly"
        else
            vm_fail "$display: $image differs from the quadrants (see $dir)"
        fi
    done
}

check_statuses() {
    local dir
    dir=$(vm_results_dir statuses)
    run_guest "$dir/exit.log" --display none --results "$dir/exit" -- bash -c 'exit 42'
    expect test "$status" = 42 -- "COMMAND's exit status 42 comes back" "exit 42 came back as $status"

    run_guest "$dir/timeout.log" --display none --results "$dir/timeout" --timeout 15 -- sleep 600
    expect grep -q "timed out after 15s" "$dir/timeout.log" -- "a guest past --timeout is reported" \
        "no time-out message"
    expect test "$status" = 124 -- "... with status 124" "timeout gave status $status"

    # No init in the initramfs under that name: the kernel panics.
    run_guest "$dir/panic.log" --display none --results "$dir/panic" --append rdinit=/missing -- true
    expect grep -q "guest kernel panicked" "$dir/panic.log" -- "a guest kernel panic is reported" \
        "no panic message"
    expect test "$status" = 125 -- "... with status 125" "panic gave status $status"
}

SECONDS=0
check_display bochs
check_display virtio
check_statuses
echo "00-smoke: ${SECONDS}s"
vm_finish

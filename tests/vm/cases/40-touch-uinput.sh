#!/usr/bin/env bash
# Touch input on a real kernel: evdev and uinput in one boot with
# --display none (40-touch-uinput.guest does the guest half, with uinput
# devices made by touch_tools.py through raw ioctls). Checks:
#   - evdev and uinput are loaded;
#   - `chakrad input --watch --size 640x480`, started before any
#     touchscreen exists, says why it skips the AT keyboard and a uinput
#     touchpad (multitouch without INPUT_PROP_DIRECT), takes a protocol B
#     touchscreen when it appears (inotify), and prints its strokes (two
#     fingers, one lifting first) at the pixels worked out by hand;
#   - the device destroyed with a finger down: the contact is cancelled,
#     the watcher says the device was removed and goes on; a second
#     touchscreen (X from -2000) is taken and tracked; then a single-touch
#     screen (ABS_X/ABS_Y + BTN_TOUCH);
#   - SYN_DROPPED: the watcher is stopped (SIGSTOP) while 3000 frames
#     overflow its buffer and the finger lifts and another comes down; on
#     SIGCONT it says it overflowed and resynced, and reports exactly the
#     lift and the new touch at its final position;
#   - a second watcher with --rotation 90 prints the same strokes turned;
#   - `chakrad input` lists what each device is and why;
#   - `chakrad input --rumble beat|tick` uploads FF_RUMBLE effects to a
#     uinput force-feedback device and plays them;
#   - SIGINT stops the watchers with exit 0;
#   - nothing is allocated per touch event: a watcher that only counts,
#     with count_mallocs.c preloaded, makes as many heap allocations for a
#     stroke of 1100 frames as for one of 100 (skipped without a C compiler).
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad

dir=$(vm_results_dir)
# The allocation counter the guest preloads (it sees the results directory).
if command -v cc >/dev/null; then
    cc -shared -fPIC -O2 -o "$dir/count-mallocs.so" "$VM_DIR/cases/count_mallocs.c" || vm_fail "count_mallocs.c does not build"
fi
run_case_guest "$dir" --display none --timeout 300 -- tests/vm/cases/40-touch-uinput.guest
vm_finish

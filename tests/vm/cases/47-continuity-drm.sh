#!/usr/bin/env bash
# chakrad's DRM hand-over across restarts (docs/seams.md), on bochs-drm,
# without systemd: continuity_drm.py (the guest half, through
# 47-continuity-drm.guest) plays systemd's file descriptor store. Checks:
#   - each restart (after SIGTERM, after SIGKILL) takes the DRM device
#     over without a modeset (chakrad's log, and the kernel's: no atomic
#     commit sets a mode), flips onto the last frame and removes the
#     last process's framebuffer; status says `restarted`;
#   - the screen between the processes, and in each of them, is the
#     pinned heart (never the console, never black);
#   - the store flushed (a stop for good): the heart is gone, and the
#     screen is black (the console's mode back, tty1 still in graphics).
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 300 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/47-continuity-drm.guest

# The panel's size, from the first screendump.
size=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import images; w, h, _ = images.read_image(sys.argv[2]); print("%dx%d" % (w, h))' "$VM_DIR/lib" "$dir/first.png")
echo "panel: $size"
reference "$dir/heart.png" "$size" 2.5 0
same_image "the first process" "$dir/first.png" "$dir/heart.png"
same_image "between SIGTERM and the next process: the picture stays" "$dir/between.png" "$dir/heart.png"
same_image "the second process (no modeset)" "$dir/second.png" "$dir/heart.png"
same_image "after SIGKILL: the picture stays" "$dir/killed.png" "$dir/heart.png"
same_image "the third process" "$dir/third.png" "$dir/heart.png"
# A stop for good: systemd's copy closed, the kernel gives the screen back
# to the console's mode; tty1 still in graphics (getty's TTYReset= would
# put it in text), so no console text: black.
different_image "the store flushed: the heart is gone" "$dir/flushed.png" "$dir/heart.png"
lit=$("${TOOLS[@]}" lit "$dir/flushed.png")
if ((lit < 100)); then vm_pass "the store flushed: black, no console text ($lit lit pixels)"; else vm_fail "the store flushed: $lit lit pixels"; fi
vm_finish

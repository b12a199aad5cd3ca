#!/usr/bin/env bash
# chakrad's framebuffer hand-over across restarts (docs/seams.md), on
# bochs-drm's fbdev emulation (as 30-fbdev) and the kernel's vfb, without
# systemd: continuity_fbdev.py (the guest half, through
# 49-continuity-fbdev.guest) plays systemd's file descriptor store. Checks:
#   - each restart (after SIGTERM, after SIGKILL) takes the framebuffer
#     over and keeps the picture without setting the screen info (its log;
#     on vfb, where a fresh start does set it, no FBIOPUT_VSCREENINFO in
#     the second process's ioctls); status says `restarted`; another
#     format asked is set, and the status says why;
#   - the screen between the processes, and in each of them, is the pinned
#     heart (never the console, never black); on vfb, the page on screen
#     after SIGTERM too;
#   - a stop for good: the store closed, the heart stays (tty1 still in
#     graphics: nothing in the kernel gives the console back on fbdev);
#     tty1 reset to KD_TEXT as getty@tty1's TTYReset= does: the console
#     as before.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 420 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/49-continuity-fbdev.guest

size=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import images; w, h, _ = images.read_image(sys.argv[2]); print("%dx%d" % (w, h))' "$VM_DIR/lib" "$dir/first.png")
echo "screen: $size"
reference "$dir/heart.png" "$size" 2.5 0
same_image "the first process" "$dir/first.png" "$dir/heart.png"
same_image "between SIGTERM and the next process: the picture stays" "$dir/between.png" "$dir/heart.png"
same_image "the second process (the screen info not set)" "$dir/second.png" "$dir/heart.png"
same_image "after SIGKILL: the picture stays" "$dir/killed.png" "$dir/heart.png"
same_image "the third process" "$dir/third.png" "$dir/heart.png"
same_image "the store closed: the picture stays until tty1 is reset" "$dir/closed.png" "$dir/heart.png"
same_image "tty1 reset to KD_TEXT (getty's TTYReset=): the console as before" "$dir/console-after.png" "$dir/console-before.png" --tolerance 0 --max-bad-fraction 0.001
if [[ -e $dir/vfb-between.png ]]; then
    reference "$dir/heart-vfb.png" 640x480 2.5 0
    same_image "vfb: the page on screen after SIGTERM" "$dir/vfb-between.png" "$dir/heart-vfb.png"
fi
vm_finish

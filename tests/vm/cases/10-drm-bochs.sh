#!/usr/bin/env bash
# chakrad on bochs-drm, in one guest boot (10-drm-bochs.guest does the
# guest half). Checks:
#   - the heart with --pin-time 2.5 at the panel's preferred mode is, on the
#     real screen (QMP screendump), `chakrad render` of the same time and
#     size (atomic modesetting, XRGB8888);
#   - tty1 is in KD_GRAPHICS while running; sd_notify READY=1, STATUS=,
#     WATCHDOG=1 (still loop) and STOPPING=1 arrive;
#   - a VT switch away shows tty2's console, and back redraws the heart;
#   - the connector forced off (sysfs) blanks the screen, probed again
#     brings the heart back;
#   - SIGTERM: exit 0, KD_TEXT, the console's picture exactly as before;
#   - legacy modesetting with rotation 90 shows the frame turned clockwise;
#   - flips at the display's refresh (not faster, though bochs completes
#     flips at once) measured undrawn, 20/s with --fps 20 (each the best
#     of up to 8 windows of 2 s, none of them faster: a busy host takes
#     whole stretches from the guest), the heart animating, and a
#     reduce-motion scene presenting one frame and then nothing.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 400 -- tests/vm/cases/10-drm-bochs.guest

size=$(sed -n 's/^size=//p' "$dir/pinned.stats")
echo "panel: $size ($(sed -n 's/^output=//p' "$dir/pinned.stats"))"
reference "$dir/heart.png" "$size" 2.5 0
same_image "atomic, pinned" "$dir/drm-pinned.png" "$dir/heart.png"
different_image "VT switched away: the heart is gone" "$dir/vt-away.png" "$dir/heart.png"
same_image "VT back" "$dir/vt-back.png" "$dir/heart.png"
different_image "unplugged: the heart is gone" "$dir/unplugged.png" "$dir/heart.png"
same_image "replugged" "$dir/replugged.png" "$dir/heart.png"
same_image "after SIGTERM: the console as before" "$dir/console-after.png" "$dir/console-before.png" --tolerance 0 --max-bad-fraction 0.001
reference "$dir/heart-rot90.png" "$size" 2.5 90
same_image "legacy, rotation 90" "$dir/drm-legacy-rot90.png" "$dir/heart-rot90.png"

display_check_rates "$dir"
vm_finish

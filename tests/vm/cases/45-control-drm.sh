#!/usr/bin/env bash
# The control socket on a real screen: chakrad on bochs-drm driven by
# chakractl in one guest boot (45-control-drm.guest does the guest half).
# Checks:
#   - `chakractl snapshot` (the PNG sent over the socket) is what is on the
#     screen (QMP screendump), and that is `chakrad render` of the pinned time;
#   - `set reduce-motion on` changes the screen on the next frame, with no
#     restart: the screen is then the reduce-motion frame;
#   - status names the DRM device and mode; refusals exit 1; SIGTERM exit 0.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 400 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/45-control-drm.guest

size=$(sed -n 's/^size=//p' "$dir/control.stats")
reference "$dir/heart.png" "$size" 2.5 0
reference "$dir/heart-reduce-motion.png" "$size" 2.5 0 --reduce-motion
same_image "the snapshot over the socket is the screen" "$dir/snapshot.png" "$dir/screen.png" --tolerance 0 --max-bad-fraction 0
same_image "the screen is the pinned heart" "$dir/screen.png" "$dir/heart.png"
same_image "reduce motion at run time: the screen" "$dir/screen-reduce-motion.png" "$dir/heart-reduce-motion.png"
same_image "reduce motion at run time: the snapshot" "$dir/snapshot-reduce-motion.png" "$dir/heart-reduce-motion.png"
# The still frame is close to the animated one at 2.5 s (mean under one
# level), so "different" is: not the same pixels.
if python3 "$COMPARE_IMAGES" "$dir/screen-reduce-motion.png" "$dir/heart.png" --tolerance 0 --max-bad-fraction 0.01 >/dev/null; then
    vm_fail "reduce motion did not change the picture"
else
    vm_pass "reduce motion changed the picture"
fi
vm_finish

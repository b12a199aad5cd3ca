#!/usr/bin/env bash
# Opening hours on a real screen: chakrad on bochs-drm with a [schedule]
# window that ends at the next minute, in the guest's Europe/Berlin time
# (67-schedule-drm.guest does the guest half). Checks:
#   - the window ends and the display goes off by itself: the CRTC inactive
#     (read with libdrm from a second process), the screen black, no frames
#     and no CPU for 10 s, the same process throughout;
#   - the wall clock set back into the window (date -s): the picture back at
#     once, not at a deadline counted in monotonic seconds; set forward past
#     it: off again;
#   - `chakractl display on` beats the schedule, `auto` gives it back.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 600 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/67-schedule-drm.guest
vm_finish

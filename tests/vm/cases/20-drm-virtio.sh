#!/usr/bin/env bash
# chakrad on virtio-gpu, in one guest boot (20-drm-virtio.guest). Checks:
#   - the heart with --pin-time 2.5 at the preferred mode, on the real
#     screen, is `chakrad render` of the same time and size (atomic);
#   - the connector forced off blanks the screen, probed again brings the
#     heart back;
#   - SIGTERM: exit 0, KD_TEXT, the console's picture as before;
#   - a crash (SIGSEGV): KD_TEXT all the same (the crash handler), and the
#     console's picture back;
#   - the low-power form turned 180° is `chakrad render --low-power`, turned;
#   - flips at the display's refresh (undrawn; the best of up to 8 windows
#     of 2 s, none faster), and the heart animates;
#   - with page flips off, frames drawn into the buffer on screen show up
#     (drmModeDirtyFB): the screen keeps changing.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad

dir=$(vm_results_dir)
run_case_guest "$dir" --display virtio --timeout 300 -- tests/vm/cases/20-drm-virtio.guest

size=$(sed -n 's/^size=//p' "$dir/pinned.stats")
echo "panel: $size ($(sed -n 's/^output=//p' "$dir/pinned.stats"))"
reference "$dir/heart.png" "$size" 2.5 0
same_image "atomic, pinned" "$dir/drm-pinned.png" "$dir/heart.png"
different_image "unplugged: the heart is gone" "$dir/unplugged.png" "$dir/heart.png"
same_image "replugged" "$dir/replugged.png" "$dir/heart.png"
same_image "after SIGTERM: the console as before" "$dir/console-after.png" "$dir/console-before.png" --tolerance 0 --max-bad-fraction 0.001
same_image "after a crash: the console as before" "$dir/console-after-crash.png" "$dir/console-before.png" --tolerance 0 --max-bad-fraction 0.001
reference "$dir/heart-low-power-rot180.png" "$size" 7.25 180 --low-power
same_image "low power, rotation 180" "$dir/drm-low-power-rot180.png" "$dir/heart-low-power-rot180.png"
display_check_rates "$dir"
changed_image "no page flips: the screen follows the frames (damage reports)" "$dir/noflip-b.png" "$dir/noflip-a.png"
vm_finish

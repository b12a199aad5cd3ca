#!/usr/bin/env bash
# chakrad taking the screen over from a boot splash (docs/seams.md, Boot),
# on bochs-drm, without systemd: splash_takeover.py (the guest half, through
# 48-splash-takeover.guest) shows a known picture from a DRM client that
# then drops master and keeps its descriptor open, as Plymouth does after
# `plymouth deactivate`, starts chakrad fresh over it and dumps the screen
# as fast as the harness answers. Checks:
#   - the splash is up as drawn (the case's own check);
#   - fade (as chakrad starts): every frame is the splash, the heart or a
#     mix of the two (never black, never the console), the heart's share
#     only rises, the first frame with heart in it is mostly splash, steps
#     half way are seen, the last frame is the pinned heart exactly; its
#     log says it faded from the framebuffer on screen;
#   - cut (--fade-in off): the same analysis sees no step between the
#     splash and the heart: the checks above can fail.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad

dir=$(vm_results_dir)
run_case_guest "$dir" --display bochs --timeout 600 -- tests/vm/cases/48-splash-takeover.guest

size=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import images; w, h, _ = images.read_image(sys.argv[2]); print("%dx%d" % (w, h))' "$VM_DIR/lib" "$dir/fade-splash.ppm")
echo "panel: $size"
reference "$dir/heart.png" "$size" 2.5 0
python3 "$VM_DIR/cases/splash_frames.py" --expected-splash "$dir/expected-splash.ppm" "$size"
same_image "fade: the splash is up as drawn" "$dir/fade-splash.ppm" "$dir/expected-splash.ppm" --tolerance 0 --max-bad-fraction 0

# field NAME SUMMARY: one field of splash_frames.py's line.
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
# at_most / at_least VALUE LIMIT: decimal comparisons.
at_most() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"; }

fade=$(python3 "$VM_DIR/cases/splash_frames.py" "$dir" fade "$dir/heart.png")
echo "fade: $fade"
cut=$(python3 "$VM_DIR/cases/splash_frames.py" "$dir" cut "$dir/heart.png")
echo "cut:  $cut"

verdict() { if "$@"; then vm_pass "$what"; else vm_fail "$what"; fi; }
what="fade: every frame the splash, the heart or a mix of them (max $(field max_off "$fade")% off a mix; never black or the console)"
verdict at_most "$(field max_off "$fade")" 2
what="fade: the heart's share only rises"
verdict test "$(field rising "$fade")" = yes
what="fade: the first frame with heart in it is mostly splash (share $(field first_share "$fade"))"
verdict at_most "$(field first_share "$fade")" 0.5
what="fade: $(field blended "$fade") frames half way (0.05 < share < 0.95), at least 2"
verdict test "$(field blended "$fade")" -ge 2
same_image "fade: the last frame is the pinned heart" "$dir/fade-last.png" "$dir/heart.png"
what="cut: every frame the splash or the heart (max $(field max_off "$cut")% off a mix)"
verdict at_most "$(field max_off "$cut")" 2
what="cut (--fade-in off): no frame half way ($(field blended "$cut")): the fade checks can fail"
verdict test "$(field blended "$cut")" -eq 0
same_image "cut: the last frame is the pinned heart" "$dir/cut-last.png" "$dir/heart.png"
# The sequences are 3 MB a frame: the timelines and the PNGs stay.
rm -f "$dir"/fade-[0-9]*.ppm "$dir"/cut-[0-9]*.ppm
vm_finish

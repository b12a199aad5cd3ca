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

# splash_frames.py's verdicts, as this case's.
for run in fade cut; do
    while IFS= read -r line; do
        case $line in
            ok:*) vm_pass "${line#ok: }" ;;
            FAIL:*) vm_fail "${line#FAIL: }" ;;
            *) echo "$line" ;;
        esac
    done < <(python3 "$VM_DIR/cases/splash_frames.py" "$dir" "$run" "$dir/heart.png" "$run" || echo "FAIL: $run: the analysis failed")
    same_image "$run: the last frame is the pinned heart" "$dir/$run-last.png" "$dir/heart.png"
done
# The sequences are 3 MB a frame: the timelines and the PNGs stay.
rm -f "$dir"/fade-[0-9]*.ppm "$dir"/cut-[0-9]*.ppm
vm_finish

#!/usr/bin/env bash
# chakrad on the legacy framebuffer, and 16-bit output, in two boots
# (30-fbdev.guest). Checks:
#   bochs (fbdev emulation, 32 bpp, one page):
#   - the heart with --pin-time 2.5 on /dev/fb0 is `chakrad render` of the
#     same time at the framebuffer's size; turned 90° with --rotation 90;
#   - --output auto while another process is DRM master skips DRM (and
#     says why) and takes fbdev;
#   - SIGTERM: exit 0, KD_TEXT, the console's picture as before;
#   - --format RGB565 where the driver cannot change depth: exit 1 with a
#     clear message, console untouched;
#   cirrus-vga (a 16 bpp framebuffer, RGB565 preferred by its DRM driver):
#   - with no display driver, --output auto ends headless, naming why DRM
#     and fbdev were skipped;
#   - the heart on the 16 bpp /dev/fb0, and through DRM in RGB565, is the
#     render within one RGB565 step (8 levels of 255: the output's own
#     dithering) and a mean difference under 3 levels.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad

dir=$(vm_results_dir bochs)
run_case_guest "$dir" --display bochs --timeout 300 -- tests/vm/cases/30-fbdev.guest bochs
size=$(sed -n 's/^size=//p' "$dir/fbdev-pinned.stats")
echo "framebuffer: $size ($(sed -n 's/^output=//p' "$dir/fbdev-pinned.stats"))"
reference "$dir/heart.png" "$size" 2.5 0
same_image "fbdev 32 bpp, pinned" "$dir/fbdev-pinned.png" "$dir/heart.png"
reference "$dir/heart-rot90.png" "$size" 2.5 90
same_image "fbdev, rotation 90" "$dir/fbdev-rot90.png" "$dir/heart-rot90.png"
same_image "after SIGTERM: the console as before" "$dir/console-after.png" "$dir/console-before.png" --tolerance 0 --max-bad-fraction 0.001

dir=$(vm_results_dir cirrus)
run_case_guest "$dir" --display none --qemu-arg -device --qemu-arg cirrus-vga --timeout 300 -- tests/vm/cases/30-fbdev.guest cirrus
size=$(sed -n 's/^size=//p' "$dir/fbdev16.stats")
reference "$dir/heart.png" "$size" 2.5 0
for shot in fbdev16 drm565; do
    same_image "$shot (RGB565)" "$dir/$shot.png" "$dir/heart.png" --tolerance 8 --max-bad-fraction 0
    mean=$(python3 "$COMPARE_IMAGES" "$dir/$shot.png" "$dir/heart.png" --tolerance 255 | sed -n 's/.*mean |delta| \([0-9.]*\).*/\1/p')
    if display_within "${mean:-99}" 0 3; then vm_pass "$shot: mean difference $mean levels"; else vm_fail "$shot: mean difference ${mean:-?} levels"; fi
done
vm_finish

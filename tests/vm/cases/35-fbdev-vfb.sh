#!/usr/bin/env bash
# chakrad's fbdev page flipping on a framebuffer that really pans: the
# kernel's vfb (memory only, no display device), in one boot with
# --display none (35-fbdev-vfb.guest does the guest half). DRM drivers'
# fbdev emulation has a single page, so 30-fbdev never pans. Pages are read
# back from the device at var.yoffset (display_tools.py fbgrab). Checks:
#   - 32 bpp, --pin-time 2.5: the daemon enlarges the virtual height to two
#     pages and pans (its log; yres_virtual >= 2 x yres); the page on
#     screen is the one presented last (frames mod 2) and equals
#     `chakrad render` of the same time and size;
#   - animated: yoffset, sampled every 20 ms for 2 s, alternates between 0
#     and yres, and frames keep being presented;
#   - SIGTERM, after each run: exit 0 and the whole var-screeninfo (depth,
#     bitfields, virtual size, offsets) as before the daemon started; the
#     page on screen then is black (the frames are cleared);
#   - --format RGB565: vfb switches to 16 bpp but with red in the low bits
#     (BGR565), so the daemon exits 1 saying it did not get RGB565, and
#     leaves vfb as it found it (32 bpp, one page);
#   - vfb at 16 bpp beforehand (like fbset -depth 16): BGR565 from the
#     bitfields, two pages by panning; the page on screen decodes to the
#     render within one 5/6-bit step (8 levels), mean difference under 3.
# Skipped (77) where the guest kernel has no vfb module.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
kver=$(vm_kernel_version)
if ! vm_modprobe -S "$kver" --show-depends vfb >/dev/null 2>&1; then
    echo "skipped: kernel $kver has no vfb module (CONFIG_FB_VIRTUAL)"
    exit 77
fi
display_build_chakrad

size=640x480
dir=$(vm_results_dir)
run_case_guest "$dir" --display none --timeout 300 -- tests/vm/cases/35-fbdev-vfb.guest "$size"
grep -E '^(vfb|pinned32|fbdepth|pinned16): xres=|^samples=' "$dir/guest.log" || true

reference "$dir/heart.png" "$size" 2.5 0
same_image "32 bpp, the page on screen (panned)" "$dir/pinned32.png" "$dir/heart.png"
if [[ -e $dir/after32.png ]] && lit=$("${TOOLS[@]}" lit "$dir/after32.png") && ((lit == 0)); then
    vm_pass "after SIGTERM the page on screen is black"
else
    vm_fail "after SIGTERM ${lit:-?} pixels on screen are not black (see $dir/after32.png)"
fi
same_image "16 bpp (BGR565), the page on screen (panned)" "$dir/pinned16.png" "$dir/heart.png" --tolerance 8 --max-bad-fraction 0
if [[ -e $dir/pinned16.png ]]; then
    mean=$(python3 "$COMPARE_IMAGES" "$dir/pinned16.png" "$dir/heart.png" --tolerance 255 | sed -n 's/.*mean |delta| \([0-9.]*\).*/\1/p')
    if display_within "${mean:-99}" 0 3; then vm_pass "16 bpp: mean difference $mean levels"; else vm_fail "16 bpp: mean difference ${mean:-?} levels"; fi
fi
vm_finish

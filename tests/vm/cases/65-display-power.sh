#!/usr/bin/env bash
# The display really off: `chakractl display off|on` on real kernel
# drivers, one boot each for bochs-drm and virtio-gpu (65-display-power.guest
# does the guest half; a second process reads the kernel's state with
# libdrm). Checks:
#   - off: the CRTC inactive (ACTIVE=0, DPMS Off) as another client reads
#     it, the status confirming it from chakrad's own read-back, no picture
#     on screen (bochs: black; virtio-gpu: QEMU's "Display output is not
#     active."), no frames, no flips and at most one CPU tick in 10 s;
#   - a VT switch while off: the console lights the CRTC, back in front it
#     is dark again;
#   - on: the picture back in the first screendump, the CRTC active, frames
#     again, the same process; paused, the screen is the snapshot exactly;
#   - DRM master held by another process while off: powering up fails with
#     the reason, the daemon runs on and recovers once master is free;
#   - stopped while off: the console's CRTC lit, KD_TEXT;
#   bochs only:
#   - the legacy API: DPMS Off and On read back from the connector;
#   - DRM's fbdev emulation: FBIOBLANK read back through the DRM device
#     (ACTIVE=0, then 1); under another DRM master the emulation answers 0
#     and changes nothing: the read-back says failed;
#   - vfb (no blank operation): EINVAL, reported as not supported.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

for display in bochs virtio; do
    dir=$(vm_results_dir "$display")
    run_case_guest "$dir" --display "$display" --timeout 500 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/65-display-power.guest "$display"
    same_image "$display: powered up and paused, the screen is the snapshot" "$dir/on-paused.png" "$dir/on-paused-snapshot.png" \
        --tolerance 0 --max-bad-fraction 0
done
vm_finish

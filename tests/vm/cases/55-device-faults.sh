#!/usr/bin/env bash
# Device faults on a real kernel, in one guest boot on bochs-drm at 640x480
# (55-device-faults.guest does the guest half). Checks:
#   - a rumble device (uinput FF_RUMBLE) plugged in after start is found
#     through the input directory's watch, takes the effects, and plays
#     while a finger traces the spiral;
#   - the spiral started with a 60 s crossfade, traced by a finger whose
#     touchscreen is destroyed mid-stroke while the fade runs: chakrad runs
#     on, the session waits for a resume, frames go on;
#   - a VT switch during the Hold with the finger down: the grab is let go
#     while away (another reader can EVIOCGRAB the node), the finger counts
#     as lifted and the countdown waits, touches while away do not reach
#     the spiral; back in front the grab returns, a finger still down from
#     before is ignored until it lifts, a new touch resumes the countdown;
#   - the connector forced off (sysfs) for 30 s while one client asks for
#     a snapshot every 0.2 s: no frames and next to no CPU while unplugged,
#     every snapshot refused with no_frame naming the disconnection, the
#     connection kept; replugged: display_changed, frames again, snapshots
#     again, and the screen (paused) is exactly the snapshot;
#   - SIGKILL, then a restart on the same socket path: the stale socket is
#     replaced, the first frame comes as soon as after a clean start (the
#     1 s bound is tests/faults/restart.py's, natively), and it is
#     `chakrad render` of the same time (the picture is back).
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
# The Hold's cycle as in 50-spiral-touch (4 s); a hold long enough for the
# VT switch in the middle (the countdown runs only while touched), and an
# exercise never given up while the finger is away on purpose.
cat >"$dir/faults.toml" <<EOF
# 55-device-faults
[scene]
transition = "crossfade"
transition_duration = 60

[spiral]
hold_duration = 32
pattern = "short"
abandon_after = 0

[spiral.patterns.short]
phases = [{ kind = "in", seconds = 1.5 }, { kind = "hold-in", seconds = 1 }, { kind = "out", seconds = 1.5 }]

[control]
# in the guest's /run: a Unix socket cannot be bound on the 9p results share
socket = "/run/chakra-test/control.sock"
EOF

run_case_guest "$dir" --display bochs --timeout 720 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/55-device-faults.guest
grep -E '^(touchscreen A unplugged|after the unplug|away|back, touched|unplugged [0-9.]+ s|snapshots|restart|guest run):? ' "$dir/guest.log" || true

same_image "replugged: the screen is the snapshot chakrad took of it" \
    "$(vm_screendump_path "$dir" replugged-screen)" "$dir/replugged-snapshot.png" --tolerance 0
reference "$dir/heart.png" 640x480 2.5 0
same_image "restarted after SIGKILL: the heart at the pinned time" "$(vm_screendump_path "$dir" restarted)" "$dir/heart.png"
vm_finish

#!/usr/bin/env bash
# Where a person meets the opening hours (issue 26): chakrad on bochs-drm
# at 640x480 with the spiral as the scene, a uinput touchscreen (protocol
# B, spiral_tools.py finger), in Europe/Berlin time with one window
# 08:00-20:00 and `outside = "off"`, `[display] wake_on_touch = 8`,
# `[spiral] abandon_after = 4`; the guest's wall clock moved with `date -s`
# (68-touch-schedule.guest does the guest half). The kernel's power state
# is read back by a second process beside the daemon's status, about once a
# second all along (display_tools.py power-watch: active CRTCs as drm-power
# counts them); times are measured between a finger and the daemon's
# events, or between two events on one `chakractl --json events` stream.
# Checks:
#   1. closed (20:05): off by schedule, no CRTC active; a tap on the orb
#      wakes it (CRTC active, display_reason "touch") and does not start
#      the exercise; a second later a finger comes down away from the orb
#      and keeps moving for 14 s: the screen stays on throughout (not on
#      the orb: no exercise, so nothing but the touch keeps it on); after
#      the lift it goes off about wake_on_touch after the lift (not before
#      7 s, by 14 s: the display_power event's arrival against the lift's
#      time), CRTC inactive, reason schedule;
#   2. open (12:00): a finger on the orb starts the exercise (Inhale) and
#      traces; `display off` with the finger down: off at once (CRTC
#      inactive); the same finger goes back onto the orb and traces on in
#      the dark: at most the one Inhale → Idle that ends the interrupted
#      exercise, no new exercise (no Idle → Inhale, spiral idle in every
#      status, sessions started unchanged, at most that one record);
#      `display auto` while it moves: on (CRTC active), and the finger, still
#      down, on the orb again reaches nothing; after the lift a new touch on
#      the orb starts the exercise;
#   3. 19:59:48: a finger starts the exercise and traces while 20:00 passes:
#      the CRTC stays active, display_reason "exercise", display_summary
#      "on until the exercise ends"; lifted, the exercise is given up after
#      abandon_after (spiral_state → idle) and the display_power off event
#      follows within 1.5 s on the same stream; CRTC inactive, reason
#      schedule;
#   SIGTERM: exit 0.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl

dir=$(vm_results_dir)
cat >"$dir/touch-schedule.toml" <<'EOF'
# 68-touch-schedule: opening hours 08:00-20:00 (the guest's TZ is
# Europe/Berlin), the spiral in them, off outside; a touch wakes a closed
# kiosk for 8 s after the last touch.
[display]
wake_on_touch = 8

[spiral]
# a lifted finger gives the exercise up after 4 s (0...86400 allowed)
abandon_after = 4

[schedule]
outside = "off"

[[schedule.window]]
days = "daily"
start = "08:00"
end = "20:00"
show = "spiral"

[sessions]
# each exercise a record (chakractl stats); in the guest's /run
file = "/run/chakra-test/state/sessions.log"

[control]
# in the guest's /run: a Unix socket cannot be bound on the 9p results share
socket = "/run/chakra-test/control.sock"
EOF

started=$SECONDS
run_case_guest "$dir" --display bochs --timeout 720 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/68-touch-schedule.guest
grep -E '^(scene [123]|guest run):? ' "$dir/guest.log" || true
echo "case run: $((SECONDS - started)) s (boot included)"
vm_finish

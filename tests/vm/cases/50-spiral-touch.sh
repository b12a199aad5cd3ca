#!/usr/bin/env bash
# The spiral exercise on a real kernel, traced by a finger: chakrad on
# bochs-drm at 640x480 with the heart and a test configuration (a 4 s
# hold of one 4 s breathing cycle, a 1 s completion delay), driven by
# chakractl, with uinput multitouch screens (protocol B, INPUT_PROP_DIRECT;
# spiral_tools.py finger, on touch_tools.py's raw ioctls) in one guest boot
# (50-spiral-touch.guest does the guest half). Checks:
#   - the daemon starts with no touchscreen; one created afterwards is
#     taken through inotify (log, status input_devices);
#   - `spiral start` shows Idle (scene_changed); `spiral path` gives 721
#     points in screen pixels; a finger put down on the first (screen
#     pixels turned into device units by inverting TouchMapping) and moved
#     along the path goes Idle → Inhale → Hold → Exhale → Completed, exactly
#     these spiral_state events in this order, and 1 s after Completed the
#     heart is back (scene_changed);
#   - unplugged during Inhale (the device destroyed with the finger down):
#     the log says removed, status answers, the report says Inhale, not
#     touching, needs resume; a second touchscreen with other ranges is
#     taken, a finger down where the report puts the head resumes the
#     session (progress grows) and traces on to Hold;
#   - Hold lifted: the countdown does not move in a second, needs_resume
#     is true; the finger back on the head: the countdown runs again;
#   - the screendump in Hold, touching (the scene clock paused for it):
#     the orb's core colour around the head the report gives, and the
#     guidance and hint texts, the orb and everything above the bar equal
#     to `chakrad render` of the same hold phase and pulse (host side);
#   - touch_latency_ms reported; no SYN_DROPPED; SIGTERM exit 0.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl
SPIRAL_TOOLS=(python3 "$VM_DIR/cases/spiral_tools.py")

dir=$(vm_results_dir)
# The default hold is 72 s in cycles of 6 + 4 + 8 s (the 6-4-8 pattern);
# here 4 s, one cycle of the shortest a pattern may have (in, hold-in and
# out all show up).
hold=4 up=1.5 pause=1 down=1.5
cat >"$dir/spiral.toml" <<EOF
# 50-spiral-touch: a short exercise.
[spiral]
hold_duration = $hold
pattern = "short"
completion_delay = 1

[spiral.patterns.short]
phases = [
    { kind = "in", seconds = $up },
    { kind = "hold-in", seconds = $pause },
    { kind = "out", seconds = $down },
]

[input]
# the defaults: every touchscreen, grabbed, the display's rotation

[control]
# in the guest's /run: a Unix socket cannot be bound on the 9p results share
socket = "/run/chakra-test/control.sock"
EOF

run_case_guest "$dir" --display bochs --timeout 300 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/50-spiral-touch.guest
grep -E '^(path|after|B down|hold, paused|lifted|back on|spiral states|completed →|spiral_progress|touch latency|guest run):? ' "$dir/guest.log" || true

# The hold's screendump against `chakrad render` of the same hold phase and
# fraction (its default 18 s cycle mapped onto the test's 4 s one).
if [[ -e $dir/hold.json ]] && shot=$(vm_screendump_path "$dir" hold-touching); then
    remaining=$("${SPIRAL_TOOLS[@]}" report "$dir/hold.json" hold_remaining)
    elapsed=$("${SPIRAL_TOOLS[@]}" reference-hold-elapsed "$remaining" "$hold" "$up" "$pause" "$down")
    "$CHAKRAD" render --scene spiral --spiral-state hold --hold-elapsed "$elapsed" --size 640x480 \
        --lang-dir "$VM_REPO/etc/chakra/lang" -o "$dir/hold-reference.png"
    status=0
    "${SPIRAL_TOOLS[@]}" check-hold "$shot" "$dir/hold-reference.png" "$dir/hold.json" "$hold" "$up" "$pause" "$down" \
        >"$dir/check-hold.txt" 2>&1 || status=$?
    while IFS= read -r line; do
        case $line in
            "ok: "*) vm_pass "screendump in Hold: ${line#ok: }" ;;
            "FAIL: "*) vm_fail "screendump in Hold: ${line#FAIL: }" ;;
            *) echo "$line" ;;
        esac
    done <"$dir/check-hold.txt"
    if ((status != 0)) && ! grep -q '^FAIL: ' "$dir/check-hold.txt"; then
        vm_fail "screendump in Hold: spiral_tools.py check-hold exited with status $status"
    fi
else
    vm_fail "no screendump or report of the hold in $dir"
fi
vm_finish

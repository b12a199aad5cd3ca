#!/usr/bin/env bash
# The spiral exercise on a real kernel, traced by a finger: chakrad on
# bochs-drm at 640x480 with the heart and a test configuration (a 20 s
# hold of five 4 s breathing cycles, a 1 s completion delay), driven by
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
#   - touch_latency_ms reported; no SYN_DROPPED;
#   - a tap on the screen turned off leaves the spiral in Idle; lit, it
#     begins an exercise, which `spiral cancel` ends (session_finished,
#     abandoned);
#   - `spiral start --pattern box`: a box-breathing exercise (one 16 s
#     cycle of hold) traced to Completed; `chakractl stats` counts the
#     three exercises (2 completed, box among the patterns), the log holds
#     three records; `chakractl health` exits 0; the metrics file
#     (chakra.prom), read on the host by prometheus_client's parser, says
#     what `status` says (sessions, errors, scene, display power, fps);
#   - SIGTERM exit 0.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
display_build_chakrad
display_build_chakractl
SPIRAL_TOOLS=(python3 "$VM_DIR/cases/spiral_tools.py")

dir=$(vm_results_dir)
# The default hold is 72 s in cycles of 6 + 4 + 8 s (the 6-4-8 pattern);
# here 20 s, five cycles of the shortest a pattern may have (in, hold-in
# and out all show up), and one of the box pattern's 16 s (the nearest
# whole number of cycles): the countdown runs while the finger is down
# from the moment Hold begins, and the guest must still find it in Hold
# after the event, `chakractl pause` and a report (a 4 s hold ran out
# first beside another guest at load 7).
hold=20 up=1.5 pause=1 down=1.5
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

[sessions]
# each exercise a record (chakractl stats); in the guest's /run
file = "/run/chakra-test/state/sessions.log"

[metrics]
# node_exporter's textfile collector would read it; the host parses it
textfile_directory = "/run/chakra-test/metrics"
interval = 1

[control]
# in the guest's /run: a Unix socket cannot be bound on the 9p results share
socket = "/run/chakra-test/control.sock"
EOF

run_case_guest "$dir" --display bochs --timeout 600 -- env CHAKRACTL="$CHAKRACTL" tests/vm/cases/50-spiral-touch.guest
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
# The metrics file the guest copied at the end, read by a real Prometheus
# text-format parser (prometheus_client), its values against the status
# read right after it.
if [[ -e $dir/chakra.prom && -e $dir/status-metrics.json ]]; then
    status=0
    # Debian's python3: python3-prometheus-client is in its dist-packages,
    # which another python3 first on the PATH (pyenv) does not see.
    "$( [[ -x /usr/bin/python3 ]] && echo /usr/bin/python3 || echo python3)" - "$dir/chakra.prom" "$dir/status-metrics.json" >"$dir/check-metrics.txt" 2>&1 <<'PY' || status=$?
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
status = json.load(open(sys.argv[2]))["result"]
def value(family, **labels):
    for sample in families[family].samples:
        if all(sample.labels.get(k) == v for k, v in labels.items()):
            return sample.value
    return None
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
sessions = status["sessions"]
check(value("chakra_sessions_started") == sessions["started"],
      f"chakra_sessions_started_total {value('chakra_sessions_started')} = status {sessions['started']}")
check(value("chakra_sessions_finished", outcome="completed") == sessions["completed"] == 2,
      f"chakra_sessions_finished_total{{outcome=completed}} {value('chakra_sessions_finished', outcome='completed')} = status {sessions['completed']} = 2 (the short and the box exercise)")
check(value("chakra_sessions_finished", outcome="abandoned") == sessions["abandoned"],
      f"chakra_sessions_finished_total{{outcome=abandoned}} {value('chakra_sessions_finished', outcome='abandoned')} = status {sessions['abandoned']}")
check(abs(value("chakra_sessions_breathed_seconds") - sessions["breathed_seconds"]) < 0.01,
      f"chakra_sessions_breathed_seconds_total {value('chakra_sessions_breathed_seconds')} = status {sessions['breathed_seconds']}")
check(value("chakra_scene_info", scene=status["scene"]) == 1, f"chakra_scene_info names the scene ({status['scene']})")
check(value("chakra_display_power", state="on") == 1, "chakra_display_power{state=on} 1")
# The status is published every 2 s, the file written every second: the
# frame counts agree within 3 s of frames.
check(status["frames"] > 0 and abs(value("chakra_frames_presented") - status["frames"]) <= 3 * status["fps"]["target"],
      f"frames presented {value('chakra_frames_presented')} ~ status {status['frames']} (within 3 s of frames)")
check(all(value("chakra_errors", kind=k) == v for k, v in status["errors"].items()), f"chakra_errors_total by kind = status {status['errors']}")
check(value("chakra_fps_target") == status["fps"]["target"], f"chakra_fps_target {value('chakra_fps_target')} = status {status['fps']['target']}")
PY
    while IFS= read -r line; do
        case $line in
            "ok: "*) vm_pass "chakra.prom (prometheus_client): ${line#ok: }" ;;
            "FAIL: "*) vm_fail "chakra.prom (prometheus_client): ${line#FAIL: }" ;;
            *) echo "$line" ;;
        esac
    done <"$dir/check-metrics.txt"
    ((status == 0)) || grep -q '^FAIL: ' "$dir/check-metrics.txt" || vm_fail "the metrics check exited with status $status"
else
    vm_fail "no chakra.prom or status copied from the guest in $dir"
fi
vm_finish

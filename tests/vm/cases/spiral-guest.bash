# shellcheck shell=bash disable=SC2034,SC2154 # (socket, results, events: set by the sourcing script; finger_node: for it)
# Sourced by the guest halves of the spiral cases (50-spiral-touch,
# 55-device-faults, 68-touch-schedule), after display-guest.bash:
# chakractl, waiting for log lines and events, the spiral's reports, and
# scripted fingers on uinput touchscreens (spiral_tools.py finger).
#   CHAKRACTL: the host-built client; socket: the daemon's control socket;
#   events: the file `chakractl --json events` is logged into.
spiral_tools=(python3 "$CHAKRA_REPO/tests/vm/cases/spiral_tools.py")
ctl() { "$CHAKRACTL" --socket "$socket" --timeout 30 "$@"; }
declare -A finger_fd finger_node

# wait_line FILE TEXT [SECONDS]: FILE has a line containing TEXT (fixed
# string). By the clock, not by counting tries: under TCG starting grep
# costs more than the sleep.
wait_line() {
    local deadline=$((SECONDS + ${3:-15}))
    while ((SECONDS < deadline)); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    grep -qF -- "$2" "$1" 2>/dev/null
}

# start_events: `chakractl --json events` from now on into $events, each
# line "EPOCH-SECONDS JSON" with the wall-clock time it arrived;
# stop_events ends it.
start_events() {
    (
        ctl --json events &
        echo $! >"$results/events.pid"
        wait
    ) | while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done >"$events" &
    sleep 1
}
stop_events() { kill "$(cat "$results/events.pid")" 2>/dev/null; }

# An event, as `chakractl --json events` prints it (keys sorted).
wait_event() { wait_line "$events" "$1" "${2:-30}"; }
state_event() { wait_event "{\"event\":\"spiral_state\",\"from\":\"$1\",\"to\":\"$2\"}" "${3:-30}"; }

# fresh NAME: the spiral's report now, into NAME.json. `spiral path` goes
# through the frame loop and answers with the report at that moment;
# `status` answers from the last published status, which is republished
# only every 2 s (the fps period) or on an event, so during the hold (no
# events) its countdown can be up to 2 s old.
fresh() { ctl --json spiral path >"$results/$1.json"; }
# field NAME KEY...: values from NAME.json's result.
field() { "${spiral_tools[@]}" report "$results/$1.json" "${@:2}"; }
py() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }

# start_finger TAG NAME X0 X1 Y0 Y1: a touchscreen with those axes,
# driven through a FIFO; its node in ${finger_node[TAG]}.
start_finger() {
    local tag=$1 fd
    rm -f "/tmp/$tag.fifo"
    mkfifo "/tmp/$tag.fifo"
    "${spiral_tools[@]}" finger "$2" "$3" "$4" "$5" "$6" 640 480 "$results/path.json" \
        <"/tmp/$tag.fifo" >"$results/finger-$tag.out" 2>&1 &
    exec {fd}>"/tmp/$tag.fifo"
    finger_fd[$tag]=$fd
    if wait_line "$results/finger-$tag.out" "created /dev/input/event"; then
        finger_node[$tag]=$(sed -n 's/^created //p' "$results/finger-$tag.out")
    else
        finger_node[$tag]=none
        cat "$results/finger-$tag.out"
    fi
}

# send TAG COMMAND...: one finger command, waited for (its "done" line:
# one more than before, so a repeated command is not taken as done).
send() {
    local tag=$1 out=$results/finger-$1.out before deadline=$((SECONDS + 60))
    shift
    before=$(grep -c '^done ' "$out")
    echo "$*" >&"${finger_fd[$tag]}"
    while (($(grep -c '^done ' "$out") <= before)); do
        ((SECONDS < deadline)) || { echo "FAIL: finger $tag: '$*' was not done"; return 1; }
        sleep 0.05
    done
}

# post TAG COMMAND...: one finger command, not waited for (the finger
# moves while the script looks at the screen; several posted in a row run
# back to back, timed by the finger, not by this script); finger_wait TAG
# waits for every command posted so far.
declare -A finger_posted
post() {
    local tag=$1 finished
    shift
    finished=$(grep -c '^done ' "$results/finger-$tag.out")
    ((${finger_posted[$tag]:-0} > finished)) || finger_posted[$tag]=$finished
    finger_posted[$tag]=$((finger_posted[$tag] + 1))
    echo "$*" >&"${finger_fd[$tag]}"
}
finger_wait() {
    local deadline=$((SECONDS + ${2:-60}))
    while (($(grep -c '^done ' "$results/finger-$1.out") < ${finger_posted[$1]:-0})); do
        ((SECONDS < deadline)) || { echo "FAIL: finger $1: the posted commands were not done"; return 1; }
        sleep 0.1
    done
}
# finger_busy TAG: a posted command is still running.
finger_busy() { (($(grep -c '^done ' "$results/finger-$1.out") < ${finger_posted[$1]:-0})); }
# finger_at TAG VERB: the wall-clock time (EPOCHREALTIME's) at which the
# finger's last VERB command wrote its events.
finger_at() { sed -n "s/^at \([0-9.]*\): $2\b.*/\1/p" "$results/finger-$1.out" | tail -n 1; }

# status_has TEXT [SECONDS]: a status (republished every 2 s) contains TEXT.
status_has() {
    local deadline=$((SECONDS + ${2:-10}))
    while ((SECONDS < deadline)); do
        ctl --json status >"$results/status.json" && grep -qF -- "$1" "$results/status.json" && return 0
        sleep 0.25
    done
    return 1
}

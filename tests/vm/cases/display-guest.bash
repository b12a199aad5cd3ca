# shellcheck shell=bash
# Sourced by the guest halves of the display cases (NN-*.guest): start and
# stop chakrad on the real devices, wait for frames, record checks.
# Every file lands in $CHAKRA_RESULTS, where the host half compares images.
#   CHAKRAD: the host-built binary (the guest sees the host's root).

set -uo pipefail
results=$CHAKRA_RESULTS
tools=(python3 "$CHAKRA_REPO/tests/vm/cases/display_tools.py")
failures=0
daemon_pid=''
daemon_name=''

check() {
    local message=$1
    shift
    if "$@"; then echo "ok: $message"; else echo "FAIL: $message"; failures=$((failures + 1)); fi
}

# start_daemon NAME ARGS...: chakrad run in the background, its log in
# NAME.log and its statistics in NAME.stats; waits for the first frame.
# --fade-in off: the cases compare the screen with the pinned heart from
# the first frame on, as chakrad started before it faded in from the
# console's picture (48-splash-takeover's subject).
start_daemon() {
    daemon_name=$1
    shift
    rm -f "$results/$daemon_name.stats"
    "$CHAKRAD" run --stats-file "$results/$daemon_name.stats" --fade-in off "$@" >"$results/$daemon_name.log" 2>&1 &
    daemon_pid=$!
    check "$daemon_name: first frame on screen" wait_frames 1 60
}

# wait_frames N SECONDS: the daemon has presented at least N frames.
wait_frames() {
    "${tools[@]}" wait-stats "$results/$daemon_name.stats" frames "$1" "$2"
}

# stop_daemon: SIGTERM, then the exit status must be 0.
stop_daemon() {
    local status=0
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || status=$?
    check "$daemon_name: SIGTERM → exit 0 (got $status)" test "$status" = 0
    daemon_pid=''
}

# log_has PATTERN: the daemon's log says so (waits up to 10 s).
log_has() {
    local tries
    for ((tries = 0; tries < 200; tries++)); do
        grep -q -- "$1" "$results/$daemon_name.log" && return 0
        sleep 0.05
    done
    return 1
}

stat_value() {
    sed -n "s/^$2=//p" "$results/$1.stats"
}

kd_mode() {
    "${tools[@]}" kdmode /dev/tty1
}

# Snapshots of the statistics file as it is rewritten (every 2 s while
# animating): copy_stats NAME WAIT-SECONDS copies it after the next rewrite.
next_stats() {
    local target=$1 before tries
    before=$(stat_value "$daemon_name" uptime)
    for ((tries = 0; tries < 200; tries++)); do
        [[ $(stat_value "$daemon_name" uptime) != "$before" ]] && break
        sleep 0.05
    done
    cp "$results/$daemon_name.stats" "$results/$target"
}

# rate_windows NAME GOAL [MAX]: the statistics file copied at each rewrite
# (every 2 s) into NAME-0.stats, NAME-1.stats, ..., until the frame rate
# over the last window reaches GOAL frames/s or MAX windows (default 8)
# have passed. A guest that shares a busy host loses whole stretches of
# its vCPU, so one window shows what the host allowed; the pacing's own
# rate is the best window's (the host side also holds every window under
# the ceiling: display_check_rates).
rate_windows() {
    local name=$1 goal=$2 windows=${3:-8} n rate
    next_stats "$name-0.stats"
    for ((n = 1; n <= windows; n++)); do
        next_stats "$name-$n.stats"
        rate=$("${tools[@]}" rate "$results/$name-$((n - 1)).stats" "$results/$name-$n.stats") || continue
        echo "$name: window $n: $rate frames/s"
        python3 -c "import sys; sys.exit(0 if $rate >= $goal else 1)" && break
    done
}

# refresh_rate: the refresh of the mode on the running daemon's statistics
# ("output=... 640x480@60 ..."), 60 if it says none.
refresh_rate() {
    local refresh
    refresh=$(sed -n 's/^output=.* [0-9]*x[0-9]*@\([0-9.]*\) .*/\1/p' "$results/$daemon_name.stats")
    echo "${refresh:-60}"
}

# no_picture NAME: a screendump NAME.png shows no picture: fewer than 2000
# pixels that are not black. What QEMU shows for a CRTC with no signal:
# bochs-drm blanks the VGA (all black), or QEMU shows its initial
# placeholder "Guest has not initialized the display (yet)." (1044 grey
# pixels; 67-schedule-drm); virtio-gpu's disabled scanout is the placeholder "Display output
# is not active." (684). A scene lights every pixel.
no_picture() {
    local count
    screendump "$1.png" >/dev/null
    count=$("${tools[@]}" lit "$results/$1.png")
    echo "$1: $count lit pixels"
    ((count < 2000))
}

# active_crtcs: how many CRTCs the kernel has active on /dev/dri/card0, read by a
# second process with libdrm (display_tools.py drm-power; never master).
active_crtcs() { "${tools[@]}" drm-power /dev/dri/card0 | sed -n 's/^active_crtcs=//p'; }

finish() {
    [[ -z $daemon_pid ]] || kill -KILL "$daemon_pid" 2>/dev/null
    echo "$failures guest check(s) failed"
    ((failures == 0))
}

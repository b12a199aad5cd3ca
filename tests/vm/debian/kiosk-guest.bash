# shellcheck shell=bash disable=SC2034,SC2317 # (boot and R are for the sourcing script; checks are called through check and wait_for)
# Sourced by the guest halves of the Debian kiosk cases (guest-test.sh,
# guest-arm64.sh), which chakra-vmtest.service runs from the results share
# ($CHAKRA_RESULTS) on every boot: the boot count, the log, checks and
# figures, screendumps, waiting for conditions, the service's properties.
# Every check is a line "ok: ..." or "FAIL: ..." in checks.txt; figures go
# to figures.txt (key=value); screendumps (through the host's QMP watcher)
# are compared on the host, which knows the reference frames.
R=$CHAKRA_RESULTS
state=/var/lib/chakra-vmtest
mkdir -p "$state"
boot=$(($(cat "$state/boots" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boots"
exec >>"$R/guest.log" 2>&1
log() { echo "[boot $boot, $(cut -d' ' -f1 /proc/uptime) s] $*"; }
ok() { echo "ok: $*" >>"$R/checks.txt"; log "ok: $*"; }
fail() { echo "FAIL: $*" >>"$R/checks.txt"; log "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
figure() { echo "$1=$2" >>"$R/figures.txt"; log "$1 = $2"; }
shot() { "$R/screendump" "$1" >/dev/null || fail "screendump $1"; }
finish() { log "done: $1"; echo "$1" >"$R/guest-finished"; sync; systemctl poweroff; exit 0; }
property() { systemctl show -p "$2" --value "$1"; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds; status 1 at the deadline.
wait_for() {
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.5; done
}
active() { [[ $(property chakrad.service ActiveState) == active ]]; }
main_pid() { property chakrad.service MainPID; }
getty_active() { [[ $(property getty@tty1.service ActiveState) == active ]]; }
# console_shot NAME: screendumps NAME.ppm until it shows a text console: a
# few hundred pixels lit at least (a line of text lights about a thousand)
# and under a quarter of the screen (a picture such as the heart lights
# most of it). The VT has its text before the screen does (fbdev's damage
# worker, then the driver's flush), so the screen is waited for, not the
# VT alone. PPM: counted here with perl-base (non-black bytes / 3). The
# host checks the last dump again. Status 1 if it never shows within 30 s.
console_shot() {
    local name=$1
    # shellcheck disable=SC2317 # (called through wait_for)
    console_lit() {
        shot "$name.ppm"
        perl -e 'local $/; my $d = <STDIN>; $d =~ s/\AP6\s+(\d+)\s+(\d+)\s+\d+\s// or exit 1;
            my $lit = ($d =~ tr/\0//c) / 3; exit !($lit > 500 && $lit < $1 * $2 / 4)' <"$R/$name.ppm"
    }
    wait_for 30 console_lit
}

# Issue 30's windows: the host's QMP watcher takes screendumps at 10 Hz or
# more between sample_start and sample_stop and classifies each as scene,
# black or text (host/sampler.py); the summary line is written to the
# results' samples.txt, which the host checks (kiosk_seams), and logged
# here. (request.sh: the same request files as screendump.)
# shellcheck source=tests/vm/guest/request.sh
source "$R/request.sh"
# How many of each event (the host's kiosk_seams_counts): issue 30's 5
# restarts, 3 crashes and 2 upgrades unless the case asked for fewer.
seams_restart_count=5 seams_crash_count=3 seams_upgrade_count=2
# shellcheck disable=SC1091
[[ ! -e $R/seams-counts ]] || source "$R/seams-counts"
sample_start() {
    local out
    out=$(vm_request "{\"sample\": \"start\", \"name\": \"$1\"}" 2>&1) || fail "sampling window $1 did not start: $out"
}
sample_stop() {
    local out
    if out=$(vm_request '{"sample": "stop"}' 2>&1); then log "frames: $out"; else fail "sampling window did not end: $out"; fi
}
# Issue 30: the scene continues. Around the windows the scene's clock is
# held by `chakractl pause`, not pinned by --pin-time (the drop-in both
# guests install): a new process takes --pin-time from its command line,
# so a pinned picture looks the same after a restart whether the scene
# continued or began again, where a paused clock comes only from the last
# process's record. continuity_hold pauses it and keeps the status, the
# kernel's DRM state and the screen; after every restart, crash, watchdog
# restart and upgrade, continuity_check asks the new process (started
# "restarted", its clock still paused) and the kernel (the CRTC's mode as
# before; in its log, cleared by continuity_mark before the event, the new
# process's atomic commits and none that sets a mode: drm.debug's ATOMIC
# category). The host compares the screen after each window with the held
# picture exactly, and the held picture with the heart at 0 s, which a
# new clock would show.
pin_dropin=/etc/systemd/system/chakrad.service.d/pin-time.conf
drm_debug=/sys/module/drm/parameters/debug
# status_string NAME KEY, status_bool NAME KEY: the first KEY with a
# string (or null), or a true or false, in $R/NAME.json. By type, since
# nested objects may have the same key with another type ("errors" has a
# count under "scene"; its keys sort before the status's own).
status_string() { grep -o "\"$2\":\(\"[^\"]*\"\|null\)" "$R/$1.json" | head -n 1 | cut -d: -f2- | tr -d '"'; }
status_bool() { grep -o "\"$2\":\(true\|false\)" "$R/$1.json" | head -n 1 | cut -d: -f2; }
continuity_status() { chakractl --json status >"$R/$1.json" 2>&1; }
# crtc_modes: the mode lines of the kernel's atomic state (debugfs), one
# per CRTC, with their timings.
crtc_modes() { grep -h '^[[:space:]]*mode: ' /sys/kernel/debug/dri/*/state 2>/dev/null | tr -s ' \t' ' '; }
restart_unit() {
    local pid
    pid=$(main_pid)
    reset_start_limit
    systemctl restart chakrad.service
    wait_for 60 restarted_from "$pid"
}
continuity_hold() {
    mv "$pin_dropin" "$state/pin-time.conf" || fail "no pin-time drop-in to set aside"
    systemctl daemon-reload
    restart_unit || fail "chakrad did not come back without --pin-time"
    chakractl resume >/dev/null 2>&1
    # A second of the scene moving, so the held time is none a new
    # process's clock could start at.
    sleep 1.5
    chakractl pause >/dev/null 2>&1 || fail "chakractl pause: $(chakractl pause 2>&1)"
    continuity_status held
    check "the scene held: paused, unpinned ($(status_string held scene), paused $(status_bool held paused))" \
        test "$(status_string held scene) $(status_bool held paused)" = "heart true"
    crtc_modes >"$R/held-modes.txt"
    check "the kernel's atomic state names the CRTC's mode ($(head -n 1 "$R/held-modes.txt"))" test -s "$R/held-modes.txt"
    shot held
    if echo 0x10 >"$drm_debug"; then ok "drm.debug 0x10 (ATOMIC) for the windows"; else fail "cannot set drm.debug"; fi
}
continuity_mark() { dmesg -C; }
continuity_check() {
    local what=$1 name=continued-${1// /-} commits modesets
    continuity_status "$name"
    check "$what: started restarted, the picture kept ($(status_string "$name" start), $(status_string "$name" start_reason))" \
        test "$(status_string "$name" start)" = restarted
    check "$what: the scene's clock continued, still paused ($(status_string "$name" scene), paused $(status_bool "$name" paused))" \
        test "$(status_string "$name" scene) $(status_bool "$name" paused)" = "heart true"
    check "$what: the same size and mode ($(status_string "$name" mode); the kernel: $(crtc_modes | head -n 1))" \
        test "$(status_string "$name" mode) $(crtc_modes)" = "$(status_string held mode) $(cat "$R/held-modes.txt")"
    dmesg >"$R/$name-dmesg.txt"
    commits=$(grep -c 'committing' "$R/$name-dmesg.txt")
    modesets=$(grep -c 'Set \[MODE:' "$R/$name-dmesg.txt")
    check "$what: the kernel's log has the new process's commits ($commits) and no modeset ($modesets)" \
        test "$commits" -gt 0 -a "$modesets" = 0
}
continuity_release() {
    echo 0 >"$drm_debug"
    chakractl resume >/dev/null 2>&1
    mv "$state/pin-time.conf" "$pin_dropin"
    systemctl daemon-reload
    restart_unit || fail "chakrad did not come back with --pin-time"
}
# reset_start_limit: systemd refuses a sixth start within 10 s
# (StartLimitBurst=5); the windows below start chakrad many times in a row.
# reset-failed flushes that count (and touches nothing of a running unit).
reset_start_limit() { systemctl reset-failed chakrad.service 2>/dev/null || true; }
# restarted_from PID: chakrad active again as another process than PID.
restarted_from() {
    local active pid
    active=$(property chakrad.service ActiveState) pid=$(main_pid)
    [[ $active == active && $pid != 0 && $pid != "$1" ]]
}
# seams_restarts N: `systemctl restart chakrad` N times in window
# "restart", each until active again (READY: the new process's first frame
# is on screen), with a second of the picture between them.
seams_restarts() {
    local n=$1 i pid began took times=()
    reset_start_limit
    sample_start restart
    for ((i = 1; i <= n; i++)); do
        continuity_mark
        pid=$(main_pid) began=$EPOCHREALTIME
        systemctl restart chakrad.service
        if wait_for 60 restarted_from "$pid"; then
            took=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
            times+=("$took")
            continuity_check "restart $i"
        else
            fail "restart $i: chakrad not active again in 60 s: $(systemctl status chakrad --no-pager 2>&1 | tail -n 10)"
        fi
        sleep 1
        reset_start_limit
    done
    sample_stop
    figure restart_seconds "${times[*]}"
    check "systemctl restart x$n: active again each time (${times[*]} s)" test "${#times[@]}" = "$n"
}
# seams_crashes N: SIGSEGV to the main process N times in window "crash";
# systemd restarts it (Restart=on-failure, RestartSec=2s).
seams_crashes() {
    local n=$1 i pid began took times=() since segv
    reset_start_limit
    since=$EPOCHREALTIME
    sample_start crash
    for ((i = 1; i <= n; i++)); do
        continuity_mark
        pid=$(main_pid) began=$EPOCHREALTIME
        kill -SEGV "$pid"
        if wait_for 60 restarted_from "$pid"; then
            took=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
            times+=("$took")
            continuity_check "crash $i"
        else
            fail "crash $i: chakrad not restarted in 60 s: $(systemctl status chakrad --no-pager 2>&1 | tail -n 10)"
        fi
        sleep 1
        reset_start_limit
    done
    sample_stop
    figure crash_restart_seconds "${times[*]}"
    # (Not NRestarts: reset-failed sets it back to 0.)
    segv=$(journalctl -u chakrad.service --since "@${since%.*}" -o cat --no-pager 2>/dev/null | grep -c 'status=11/SEGV')
    check "kill -SEGV x$n: systemd restarted it each time (${times[*]} s; the journal has $segv exits by SIGSEGV)" \
        test "${#times[@]} $segv" = "$n $n"
}
# seams_upgrades DEB...: `apt-get install` of each package (the same one
# with higher versions, made on the host) in window "upgrade", each until
# chakrad is active as a new process.
seams_upgrades() {
    local deb pid began took times=() versions=()
    reset_start_limit
    sample_start upgrade
    for deb; do
        continuity_mark
        pid=$(main_pid) began=$EPOCHREALTIME
        if apt-get install -y "$deb" >>"$R/apt-upgrade.log" 2>&1 && wait_for 60 restarted_from "$pid"; then
            took=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
            times+=("$took") versions+=("$(dpkg-query -W -f '${Version}' chakra)")
            continuity_check "upgrade to $(dpkg-query -W -f '${Version}' chakra)"
        else
            fail "apt-get install $(basename "$deb"): $(tail -n 10 "$R/apt-upgrade.log"); $(systemctl status chakrad --no-pager 2>&1 | tail -n 5)"
        fi
        sleep 1
        reset_start_limit
    done
    sample_stop
    figure upgrade_seconds "${times[*]}"
    check "apt-get install of higher versions x$#: chakrad restarted each time (${versions[*]}; ${times[*]} s)" test "${#times[@]}" = "$#"
}
# seams_boot_figures: how early this boot's chakrad started and put its
# first frame up (READY), in seconds since the kernel started, and whether
# tty1's login prompt ran before it.
seams_boot_figures() {
    local name
    for name in ExecMainStartTimestampMonotonic ActiveEnterTimestampMonotonic; do
        figure "boot${boot}_chakrad_${name%TimestampMonotonic}_uptime" \
            "$(awk -v us="$(property chakrad.service "$name")" 'BEGIN { printf "%.1f", us / 1e6 }')"
    done
    figure "boot${boot}_getty_tty1_ran" "$(property getty@tty1.service ActiveEnterTimestampMonotonic)"
}
# seams_watchdog BOUND: SIGSTOP to the main process in window "watchdog"
# until systemd's watchdog (WatchdogSec=10s) kills it and starts another
# (RestartSec=2s), within BOUND seconds; the restart counted, the
# watchdog named in the journal, tty1 left to chakrad.
seams_watchdog() {
    local bound=$1 pid began took restarts
    reset_start_limit
    restarts=$(property chakrad.service NRestarts)
    continuity_mark
    pid=$(main_pid) began=$EPOCHREALTIME
    sample_start watchdog
    kill -STOP "$pid"
    if wait_for 90 restarted_from "$pid"; then
        took=$(awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        figure watchdog_restart_seconds "$took"
        ok "the watchdog restarted the stopped daemon in $took s (new PID $(main_pid))"
        # The time includes the new daemon's start up to READY, which an
        # emulated guest on a loaded host stretches (21.5 s seen in
        # 60-debian-systemd, 20 s in 70-debian-arm64): BOUND has the slack.
        check "within WatchdogSec + RestartSec (12 s) and the emulation's slack ($bound s)" \
            awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }'
        continuity_check watchdog
    else
        fail "the watchdog did not restart the stopped daemon in 90 s: $(systemctl status chakrad --no-pager 2>&1 | tail -n 10)"
    fi
    sleep 1
    sample_stop
    check "NRestarts went up" test "$(property chakrad.service NRestarts)" -gt "$restarts"
    journalctl -u chakrad -n 40 --no-pager >"$R/journal-watchdog.txt"
    check "the journal names the watchdog" grep -qi "watchdog" "$R/journal-watchdog.txt"
    # A getty would start within a second or two of the old process's end.
    sleep 3
    check "the watchdog's restart leaves tty1 to chakrad (getty@tty1 inactive)" test "$(property getty@tty1.service ActiveState)" = inactive
}

#!/bin/bash
# The guest half of 60-debian-systemd, run by chakra-vmtest.service in the
# booted Debian (systemd is PID 1) from the results share, once per boot:
#   boot 1: install the package with dpkg and check it as a kiosk sees it
#           (service, user, picture, socket permissions, journald restarted
#           and killed under it, reload, watchdog, stop), then reboot;
#   boot 2: the service came back by itself; systemd-analyze security;
#           apt remove, apt purge; power off.
# The checks, figures and screendumps as kiosk-guest.bash (beside it on the
# results share) writes them; the host compares the screendumps.
# Checks are functions called through check and wait_for (SC2317), and the
# single-quoted `bash -c` scripts are expanded by the inner shell on purpose
# (SC2016).
# shellcheck disable=SC2016,SC2317
set -uo pipefail
# shellcheck source=tests/vm/debian/kiosk-guest.bash
source "$CHAKRA_RESULTS/kiosk-guest.bash"
# increasing N...: each number greater than the one before.
increasing() {
    local previous=$1 n; shift
    [[ $previous =~ ^[0-9]+$ ]] || return 1
    for n; do [[ $n =~ ^[0-9]+$ ]] && ((n > previous)) || return 1; previous=$n; done
}

# The journal's side of chakrad's standard error (docs/robustness.md, "The
# log's reader going away"). Under systemd chakrad's standard error is a
# stream socket to journald; journald restarted or killed under the running
# daemon must not end it, stop its frames or make systemd restart it.
# (chakractl as root here, without runuser's PAM session, and few
# processes: these run under TCG, where every process counts.)
# Frames chakrad has put on screen since it started (`status`).
frames() { chakractl --json status 2>/dev/null | sed -n 's/.*"frames":\([0-9]*\).*/\1/p'; }
# state UNIT...: a line "ActiveState MainPID NRestarts" for each, in one call.
state() {
    systemctl show -p ActiveState -p MainPID -p NRestarts "$@" |
        awk -v RS= -F '\n' '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }; print v["ActiveState"], v["MainPID"], v["NRestarts"] }'
}
# seconds_since TIME: since $EPOCHREALTIME was TIME, to a tenth.
seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# journald_back PID: journald active again, as another process than PID
# (its new PID in $journald_now).
journald_back() {
    local active pid _
    read -r active pid _ < <(state systemd-journald.service)
    journald_now=$pid
    [[ $active == active && $pid != 0 && $pid != "$1" ]]
}
# The lines journal_break makes chakrad log after each break.
chakrad_lines=('language: de' 'language: en')
# journal_count FILE FROM TO: how many of chakrad_lines FILE's entries
# (journalctl -o short-unix) from FROM, before TO, hold.
journal_count() {
    awk -v a="$2" -v b="$3" -v lines="$(IFS='|'; echo "${chakrad_lines[*]}")" '
        BEGIN { n = split(lines, line, "|") }
        $1 + 0 >= a + 0 && $1 + 0 < b + 0 { for (i = 1; i <= n; i++) if (index($0, line[i])) seen[i] = 1 }
        END { count = 0; for (i in seen) count++; print count }' "$1"
}
# journal_start: notes chakrad's main process, restarts and frames, which
# each journal_break compares with, and journald's main process.
journal_start() {
    local _
    { read -r _ daemon_pid daemon_restarts; read -r _ journald_pid _; } < <(state chakrad.service systemd-journald.service)
    daemon_frames=$(frames)
    journal_names=() journal_times=()
}
# journal_break NAME WHAT COMMAND...: breaks the journal's end of chakrad's
# standard error with COMMAND while chakrad runs as the service, waits for
# journald to be back, makes chakrad log (the language to de and back to
# en: a line each), and checks the daemon: more frames than before the
# break and again a second later, active, the same main process, no
# restart, healthy.
journal_break() {
    local name=$1 what=$2 began back out status active pid restarts a b interval
    shift 2
    log "$name: chakrad PID $daemon_pid, NRestarts $daemon_restarts, $daemon_frames frames; journald PID $journald_pid"
    began=$EPOCHREALTIME
    journal_names+=("$name") journal_times+=("$began")
    "$@"
    if wait_for 30 journald_back "$journald_pid"; then
        back=$(seconds_since "$began")
        figure "${name}_journald_back_seconds" "$back"
        ok "$what: journald back in $back s (PID $journald_pid, now $journald_now)"
        journald_pid=$journald_now
    else
        fail "$what: journald not back in 30 s: $(systemctl status systemd-journald --no-pager 2>&1 | tail -n 10)"
    fi
    out=$(chakractl set language de 2>&1 && chakractl set language en 2>&1); status=$?
    check "$what: chakrad answers two language changes, which it logs (exit $status: ${out//$'\n'/; })" test "$status" = 0
    a=$(frames) interval=$EPOCHREALTIME
    sleep 1
    b=$(frames) interval=$(seconds_since "$interval")
    check "$what: frames move (${daemon_frames:-?} before, ${a:-?} after, ${b:-?} $interval s later)" \
        increasing "$daemon_frames" "$a" "$b"
    figure "${name}_frames" "${daemon_frames:-?} before, ${a:-?} after, ${b:-?} $interval s later"
    daemon_frames=$b
    read -r active pid restarts < <(state chakrad.service)
    check "$what: chakrad.service still active ($active)" test "$active" = active
    check "$what: the same main process (PID $daemon_pid, now $pid)" test "$pid" = "$daemon_pid"
    check "$what: NRestarts unchanged ($daemon_restarts, now $restarts)" test "$restarts" = "$daemon_restarts"
    out=$(chakractl health 2>&1); status=$?
    check "$what: chakractl health: healthy, exit 0 (exit $status: $out)" test "$status" = 0
}
# journal_dump SINCE: chakrad.service's journal since the first break in
# journal-chakrad.txt; true when it holds all of chakrad_lines since SINCE.
journal_dump() {
    journalctl --since "@${journal_times[0]}" -u chakrad.service -o short-unix --no-pager >"$R/journal-chakrad.txt" 2>&1
    [[ $(journal_count "$R/journal-chakrad.txt" "$1" "$EPOCHREALTIME") == "${#chakrad_lines[@]}" ]]
}
# journal_end: where chakrad's lines went after each break, a figure:
# systemd keeps journald's streams in its file descriptor store, so they
# may reach the journal; chakrad cannot reconnect its standard error.
journal_end() {
    local i name from to anywhere='' last=$((${#journal_names[@]} - 1)) complete=true
    local -a under=()
    # journald reads a stream when it gets to it: up to 5 s for the last
    # break's lines.
    wait_for 5 journal_dump "${journal_times[last]}"
    for i in "${!journal_names[@]}"; do
        from=${journal_times[i]} to=${journal_times[i + 1]:-$EPOCHREALTIME}
        under[i]=$(journal_count "$R/journal-chakrad.txt" "$from" "$to")
        ((under[i] == ${#chakrad_lines[@]})) || complete=false
    done
    # Elsewhere in the journal, when not all under the unit.
    $complete || journalctl --since "@${journal_times[0]}" -o short-unix --no-pager >"$R/journal-all.txt" 2>&1
    for i in "${!journal_names[@]}"; do
        name=${journal_names[i]} from=${journal_times[i]} to=${journal_times[i + 1]:-$EPOCHREALTIME}
        $complete || anywhere=", $(journal_count "$R/journal-all.txt" "$from" "$to")/${#chakrad_lines[@]} anywhere"
        figure "${name}_lines_in_journal" "${under[i]}/${#chakrad_lines[@]} under chakrad.service$anywhere"
    done
    figure journald_streams_of_chakrad "$(grep -lx 'UNIT=chakrad.service' /run/systemd/journal/streams/* 2>/dev/null | wc -l)"
}

# exec_status UNIT PROPERTY N: the exit status of the Nth command (from 1)
# of an Exec*= property as systemd recorded it on its last run ('' if none).
exec_status() {
    property "$1" "$2" | sed -n "${3}s/.* status=\([0-9]*\).*/\1/p"
}
# plymouth_handover: the image's Plymouth (build-rootfs.sh) showed its
# splash this boot and chakrad took the screen over from it as the unit
# says (docs/seams.md, Boot): `plymouth deactivate` answered, chakrad
# faded in from the picture on screen, `plymouth quit --retain-splash`
# answered, plymouthd is gone, and plymouth-quit.service (which would
# have put tty1 back in text mode) never ran. The host checks the
# frames: the splash seen, then no black and no text up to the heart.
plymouth_handover() {
    local splash_up chakrad_up
    splash_up=$(property plymouth-start.service ExecMainStartTimestampMonotonic)
    # For a failure's diagnosis (plymouth.debug=stream:FILE on the kernel's
    # command line adds Plymouth's own trace).
    { systemctl status --no-pager plymouth-start.service plymouth-quit.service chakrad.service
      journalctl -b -o short-monotonic --no-pager | grep -iE 'plymouth|chakrad'; } >"$R/plymouth-boot$boot.txt" 2>&1
    check "Plymouth started this boot (plymouth-start.service: $(property plymouth-start.service Result))" \
        bash -c "(( ${splash_up:-0} > 0 ))"
    check "plymouth deactivate before chakrad (status $(exec_status chakrad.service ExecStartPre 1))" \
        test "$(exec_status chakrad.service ExecStartPre 1)" = 0
    check "plymouth quit --retain-splash after chakrad's first frame (status $(exec_status chakrad.service ExecStartPost 1))" \
        test "$(exec_status chakrad.service ExecStartPost 1)" = 0
    journalctl -b -u chakrad.service -o cat --no-pager >"$R/journal-boot$boot.txt" 2>&1
    check "chakrad faded in from the picture on screen, Plymouth's splash ($(grep -m 1 -o 'start: .*picture on screen.*' "$R/journal-boot$boot.txt"))" \
        grep -q 'start: fading in from the picture on screen' "$R/journal-boot$boot.txt"
    check "plymouthd is gone" bash -c '! pgrep -x plymouthd >/dev/null'
    check "plymouth-quit.service did not run (it would put tty1 back in text mode)" \
        test "$(property plymouth-quit.service ExecMainStartTimestampMonotonic)" = 0
    chakrad_up=$(property chakrad.service ActiveEnterTimestampMonotonic)
    figure "boot${boot}_plymouth_uptime" "$(awk -v us="${splash_up:-0}" 'BEGIN { printf "%.1f", us / 1e6 }')"
    figure "boot${boot}_plymouth_start_to_chakrad_ready_seconds" "$(awk -v a="${splash_up:-0}" -v b="${chakrad_up:-0}" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')"
}

log "guest test starts; systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), state $(systemctl is-system-running)"

if ((boot == 1)); then
    shot login-before
    log "dpkg -i $(basename "$R"/chakra_*.deb)"
    if dpkg -i "$R"/chakra_*.deb >"$R/dpkg-install.log" 2>&1; then ok "dpkg -i installs the package"; else fail "dpkg -i (dpkg-install.log)"; fi
    installed_at=$SECONDS
    if wait_for 90 active; then
        ok "chakrad.service is active after the install ($((SECONDS - installed_at)) s)"
    else
        fail "chakrad.service did not become active: $(systemctl status chakrad --no-pager 2>&1 | tail -n 20)"
    fi
    check "enabled for boot" test "$(systemctl is-enabled chakrad.service)" = enabled
    check "Type=notify (active means READY=1 arrived)" test "$(property chakrad.service Type)" = notify
    pid=$(main_pid)
    user=$(ps -o user= -p "$pid" | tr -d ' ')
    check "the main process ($pid) runs as chakra, not root (it runs as '$user')" test "$user" = chakra
    check "sysusers made the user chakra in groups video and input" bash -c 'id -nG chakra | grep -qw video && id -nG chakra | grep -qw input'
    check "tty1's login prompt made way (getty@tty1 inactive)" test "$(property getty@tty1.service ActiveState)" = inactive
    sleep 3
    shot stock

    # The control socket: members of the group chakra only.
    useradd --create-home --groups chakra kioskadmin
    useradd --create-home visitor
    out=$(runuser -u kioskadmin -- chakractl status 2>&1); status=$?
    echo "$out" >"$R/status-kioskadmin.txt"
    check "chakractl status works for a user in group chakra" test "$status" = 0
    check "chakractl status names the scene" grep -q heart "$R/status-kioskadmin.txt"
    out=$(runuser -u visitor -- chakractl status 2>&1); status=$?
    echo "$out" >"$R/status-visitor.txt"
    check "chakractl status is refused for a user outside the group (exit 3, got $status)" test "$status" = 3
    check "with a clear message ($out)" grep -q "Permission denied" "$R/status-visitor.txt"

    # The display powered down and up by the unit as shipped (its sandbox:
    # DevicePolicy=closed, user chakra), the CRTC's ACTIVE read back.
    out=$(runuser -u kioskadmin -- chakractl display off 2>&1); status=$?
    echo "$out" >"$R/display-off.txt"
    check "chakractl display off under systemd (exit $status: $out)" test "$status" = 0
    check "the CRTC read back inactive" grep -q "drm: .*confirmed" "$R/display-off.txt"
    out=$(runuser -u kioskadmin -- chakractl display on 2>&1); status=$?
    echo "$out" >"$R/display-on.txt"
    check "chakractl display on (exit $status: $out)" test "$status" = 0
    check "the CRTC read back active" grep -q "drm: .*confirmed" "$R/display-on.txt"
    runuser -u kioskadmin -- chakractl display auto >/dev/null

    # journald restarted, then killed (systemd starts it again), under the
    # stock unit while the scene moves; then the screen (the host compares
    # it with the heart and with the stock dump).
    journal_start
    journal_break journald_restart "journald restarted" systemctl restart systemd-journald
    journal_break journald_kill "journald killed (SIGKILL)" systemctl kill -s SIGKILL systemd-journald
    journal_end
    shot journald

    # From here on the scene's time is pinned (a drop-in adds --pin-time
    # to ExecStart; every other line of the unit stays as shipped), so the
    # host compares the screen with `chakrad render` exactly.
    mkdir -p /etc/systemd/system/chakrad.service.d
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/chakrad run --config /etc/chakra/chakra.toml --pin-time 2.5\n' \
        >/etc/systemd/system/chakrad.service.d/pin-time.conf
    systemctl daemon-reload
    systemctl restart chakrad
    wait_for 60 active || fail "chakrad did not come back with the pinned time"
    sleep 3
    # chakrad passed through inactive: chakra-console.service ran
    # (OnSuccess=) and must have left tty1 alone.
    check "a restart leaves tty1 to chakrad (getty@tty1 inactive, chakra-console ran $(property chakra-console.service ExecMainExitTimestamp | cut -d' ' -f3))" \
        test "$(property getty@tty1.service ActiveState)" = inactive
    check "and chakrad active after the restart" active
    shot pinned

    # Issue 30: restarts, crashes, the watchdog and upgrades, each in a
    # window of 10 Hz screendumps classified on the host (scene, black,
    # text). The scene's clock is held for them (continuity_hold: paused,
    # not pinned), each event is checked for the picture kept, the clock
    # continued, the same mode and no modeset (continuity_check), and the
    # host compares the screen after each window with the held picture.
    continuity_hold
    seams_restarts "$seams_restart_count"
    shot after-restarts
    seams_crashes "$seams_crash_count"
    shot after-crashes
    seams_watchdog 30
    shot after-watchdog
    seams_upgrades "$R"/upgrade-*.deb
    shot after-upgrades
    continuity_release

    # A broken configuration on reload: the picture stays, the error is in
    # the journal; a good one applies.
    pid=$(main_pid)
    cp /etc/chakra/chakra.toml "$state/chakra.toml.good"
    sed -i 's/^fps = 20.0/fps = "fast"/' /etc/chakra/chakra.toml
    grep -q '^fps = "fast"' /etc/chakra/chakra.toml || fail "could not break the configuration"
    since=$(date '+%Y-%m-%d %H:%M:%S')
    sleep 1
    systemctl reload chakrad
    sleep 3
    check "a reload with a broken configuration keeps the daemon (PID $pid)" test "$(main_pid)" = "$pid"
    check "and the service active" active
    journalctl -u chakrad --since "$since" --no-pager >"$R/journal-reload-broken.txt"
    check "the journal says what is wrong (low_power.fps)" grep -q "fps" "$R/journal-reload-broken.txt"
    shot reload-broken
    cp "$state/chakra.toml.good" /etc/chakra/chakra.toml
    sed -i 's/^dim_level = 30/dim_level = 55/' /etc/chakra/chakra.toml
    systemctl reload chakrad
    wait_for 10 bash -c 'runuser -u kioskadmin -- chakractl get low_power.dim_level 2>/dev/null | grep -q "= 55$"'
    check "a reload with a good configuration applies it (low_power.dim_level = $(runuser -u kioskadmin -- chakractl get low_power.dim_level 2>&1))" \
        bash -c 'runuser -u kioskadmin -- chakractl get low_power.dim_level | grep -q "= 55$"'
    check "the same process ($pid) after both reloads" test "$(main_pid)" = "$pid"

    # A drop-in in the directory the package ships is laid over the file,
    # checked by `chakrad validate` and applied by a reload; removed again
    # (the next boot runs on the file alone).
    check "the package ships /etc/chakra/chakra.toml.d" test -d /etc/chakra/chakra.toml.d
    printf '[low_power]\ndim_level = 65\n' >/etc/chakra/chakra.toml.d/50-site.toml
    chakrad validate >"$R/validate.txt" 2>&1
    check "chakrad validate accepts the file and the drop-in ($(cat "$R/validate.txt"))" grep -q "^valid: .*1 drop-in$" "$R/validate.txt"
    systemctl reload chakrad
    wait_for 10 bash -c 'runuser -u kioskadmin -- chakractl get low_power.dim_level 2>/dev/null | grep -q "= 65$"'
    check "a reload applies the drop-in (low_power.dim_level = $(runuser -u kioskadmin -- chakractl get low_power.dim_level 2>&1))" \
        bash -c 'runuser -u kioskadmin -- chakractl get low_power.dim_level | grep -q "= 65$"'
    rm -f /etc/chakra/chakra.toml.d/50-site.toml

    # Health for update tools, and a breathing session recorded under the
    # unit's StateDirectory: an exercise begun through the socket (`touch`,
    # as a finger would), then cancelled, is one abandoned record.
    check "chakractl health: healthy, exit 0 ($(runuser -u kioskadmin -- chakractl health 2>&1))" runuser -u kioskadmin -- chakractl health
    ctl() { runuser -u kioskadmin -- chakractl "$@"; }
    ctl spiral start >/dev/null
    ctl spiral path >"$R/spiral-path.txt"
    read -r x y <"$R/spiral-path.txt"
    ctl touch down "$x" "$y"
    sed -n '2,30p' "$R/spiral-path.txt" | while read -r px py; do ctl touch move "$px" "$py"; done
    ctl touch up
    ctl spiral cancel >/dev/null
    wait_for 10 bash -c 'runuser -u kioskadmin -- chakractl --json stats 2>/dev/null | grep -q "\"total\":{\"abandoned\":1,"'
    ctl --json stats >"$R/stats-1.json" 2>&1
    check "chakractl stats: the cancelled exercise, abandoned ($(cat "$R/stats-1.json"))" \
        grep -qE '"total":\{"abandoned":1,"completed":0,"completion_rate":0(\.0)?,"minutes_breathed":[0-9.e+-]+,"started":1\}' "$R/stats-1.json"
    check "/var/lib/chakra is chakra's, mode 0750 ($(stat -c '%U %a' /var/lib/chakra))" test "$(stat -c '%U %a' /var/lib/chakra)" = "chakra 750"
    check "sessions.log: chakra's, mode 0640, one record ($(stat -c '%U %a' /var/lib/chakra/sessions.log 2>&1))" \
        bash -c '[[ $(stat -c "%U %a" /var/lib/chakra/sessions.log) == "chakra 640" && $(grep -c "^v1 .* outcome=abandoned ending=cancelled " /var/lib/chakra/sessions.log) == 1 ]]'

    # Stopped: the console is back on tty1, with a login prompt
    # (chakra-console.service starts getty@tty1 again).
    sample_start stop
    systemctl stop chakrad
    check "systemctl stop: inactive" test "$(property chakrad.service ActiveState)" = inactive
    if wait_for 20 bash -c '[[ $(systemctl show -p ActiveState --value getty@tty1.service) == active ]]'; then
        ok "systemctl stop gives tty1 back to its login prompt (getty@tty1 active)"
    else
        fail "getty@tty1 is not active after systemctl stop: $(systemctl status chakra-console getty@tty1 --no-pager 2>&1 | tail -n 20)"
    fi
    sleep 3
    sample_stop
    shot stopped

    # The reboot from the picture: chakrad started again, then a window
    # from before `systemctl reboot` that ends when QEMU does (the host's
    # watcher closes it), and the next boot sampled from QEMU's start
    # until the heart is up (kiosk_boot --sample-boot).
    # A fresh start (the store was flushed) sets the mode: the kernel's
    # log says so, the own check of continuity_check's "no modeset".
    reset_start_limit
    echo 0x10 >"$drm_debug"
    dmesg -C
    systemctl start chakrad
    wait_for 60 active || fail "chakrad did not start again before the reboot"
    dmesg >"$R/fresh-start-dmesg.txt"
    echo 0 >"$drm_debug"
    check "a fresh start after the stop sets the mode (the kernel's log: $(grep -m 1 -o 'Set \[MODE:[^]]*\]' "$R/fresh-start-dmesg.txt"))" \
        grep -q 'Set \[MODE:' "$R/fresh-start-dmesg.txt"
    sleep 2
    echo reboot >"$state/next"
    log "rebooting"
    sync
    sample_start reboot
    systemctl reboot
    exit 0
fi

if ((boot == 2)); then
    if wait_for 90 active; then ok "after a reboot chakrad.service is active by itself"; else fail "not active after the reboot"; fi
    # The boot's window (from QEMU's start) ends with the heart up.
    sample_stop
    seams_boot_figures
    plymouth_handover
    check "the main process runs as chakra" test "$(ps -o user= -p "$(main_pid)" | tr -d ' ')" = chakra
    wait_for 10 bash -c 'runuser -u kioskadmin -- chakractl --json stats 2>/dev/null | grep -q "\"started\":1}"'
    runuser -u kioskadmin -- chakractl stats >"$R/stats-2.txt" 2>&1
    check "the session record survived the reboot ($(head -n 1 "$R/stats-2.txt"))" grep -q "^sessions since .*: 1 started, 0 completed" "$R/stats-2.txt"
    sleep 3
    shot after-reboot

    systemd-analyze security chakrad.service --no-pager >"$R/security.txt" 2>&1
    score=$(sed -n 's/.*Overall exposure level for chakrad.service: \([0-9.]*\).*/\1/p' "$R/security.txt")
    figure exposure "${score:-none}"
    check "systemd-analyze security: exposure ${score:-?} <= 2.0" awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'

    apt-get remove -y chakra >"$R/apt-remove.log" 2>&1
    check "apt remove succeeds" grep -q "Removing chakra" "$R/apt-remove.log"
    check "apt remove stopped the daemon" bash -c '! pgrep -x chakrad >/dev/null'
    check "the configuration stays after remove" test -f /etc/chakra/chakra.toml
    check "the session records stay after remove" test -s /var/lib/chakra/sessions.log
    wait_for 20 bash -c '[[ $(systemctl show -p ActiveState --value getty@tty1.service) == active ]]'
    check "apt remove gives tty1 back to its login prompt (getty@tty1 active)" test "$(property getty@tty1.service ActiveState)" = active
    sleep 3
    shot removed
    apt-get purge -y chakra >"$R/apt-purge.log" 2>&1
    check "apt purge succeeds" grep -q "Purging configuration files for chakra" "$R/apt-purge.log"
    check "purge removed /etc/chakra" test ! -e /etc/chakra
    check "purge removed the session records (/var/lib/chakra)" test ! -e /var/lib/chakra
    check "purge removed the binaries and units" bash -c '[[ ! -e /usr/bin/chakrad && ! -e /usr/bin/chakractl && ! -e /lib/systemd/system/chakrad.service ]]'
    check "dpkg no longer knows chakra" bash -c '! dpkg -s chakra >/dev/null 2>&1'
    finish passed
fi
fail "booted a third time (boot $boot)"
finish "too many boots"

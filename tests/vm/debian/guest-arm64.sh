#!/bin/bash
# The guest half of 70-debian-arm64, run by chakra-vmtest.service in the
# booted Debian 13 arm64 kiosk (systemd is PID 1, virtio-gpu the screen)
# from the results share, once per boot:
#   boot 1: the machine as booted (arm64, the virtio-gpu DRM device, tty1's
#           login prompt); `apt install ./chakra_VERSION_arm64.deb` (no
#           network: its dependencies are in the root); the service active
#           and READY, as user chakra, tty1 given to it; chakractl status
#           and health; the heart on screen at a pinned scene time; a finger
#           on a uinput touchscreen starts the spiral exercise; reboot;
#   boot 2: the heart back by itself; apt remove gives tty1 its login
#           prompt back; power off.
# The checks, figures and screendumps as kiosk-guest.bash (beside it on the
# results share) writes them; the host compares the screendumps with
# `chakrad render`. The scene time is pinned from the start: a drop-in,
# put in place before the install, adds --pin-time 2.5 to the unit's
# ExecStart and changes nothing else (the stock unit's other behaviours
# are 60-debian-systemd's; every restart costs here).
# Checks are functions called through check and wait_for (SC2317).
# shellcheck disable=SC2317
set -uo pipefail
# shellcheck source=tests/vm/debian/kiosk-guest.bash
source "$CHAKRA_RESULTS/kiosk-guest.bash"
export DEBIAN_FRONTEND=noninteractive

# status_json NAME: `chakractl --json status` into NAME.json.
status_json() { chakractl --json status >"$R/$1.json" 2>&1; }
# json NAME KEY: KEY's first value in NAME.json, a string (quoted there)
# or a number. (Keys are sorted: the top-level "scene":"heart" comes
# after errors' "scene":0; hence a string for a name, a number for a
# count.)
json() { grep -o "\"$2\":\(\"[^\"]*\"\|[-0-9.]*\|true\|false\)" "$R/$1.json" | head -n 1 | cut -d: -f2 | tr -d '"'; }
json_string() { grep -o "\"$2\":\"[^\"]*\"" "$R/$1.json" | head -n 1 | cut -d: -f2 | tr -d '"'; }
# spiral_json NAME KEY: KEY in NAME.json's spiral object.
spiral_json() { grep -o '"spiral":{.*' "$R/$1.json" | grep -o "\"$2\":\(\"[^\"]*\"\|[-0-9.]*\|true\|false\)" | head -n 1 | cut -d: -f2 | tr -d '"'; }
# healthy: `chakractl health` exits 0 (frames reach the screen; with the
# scene time pinned, the still frame is on it).
healthy() { chakractl health >/dev/null 2>&1; }
# console_text: tty1's screen holds the login prompt (the VT's text, read
# through /dev/vcs1).
console_text() { tr -s ' ' <"/dev/vcs1" | grep -q 'login:'; }
# ready_seconds: when chakrad.service became active (READY=1), in seconds
# of this boot's uptime.
ready_seconds() { awk -v us="$(property chakrad.service ActiveEnterTimestampMonotonic)" 'BEGIN { printf "%.1f", us / 1e6 }'; }
# heart_on_screen NAME: active (READY: the first frame is on screen),
# healthy, chakrad's output and journal recorded, the dump NAME taken.
heart_on_screen() {
    if wait_for 120 active; then ok "$1: chakrad.service active"; else fail "$1: chakrad.service not active: $(systemctl status chakrad --no-pager 2>&1 | tail -n 20)"; fi
    check "$1: chakractl health: exit 0" wait_for 60 healthy
    chakractl status >"$R/status-$1.txt" 2>&1
    journalctl -b -u chakrad.service --no-pager >"$R/journal-$1.txt" 2>&1
    check "$1: chakrad on the screen: $(sed -n 's/^output *//p' "$R/status-$1.txt") (status)" \
        grep -q '^output *drm /dev/dri/card0 ' "$R/status-$1.txt"
    shot "$1"
}

# start_finger NAME WIDTH HEIGHT: finger.pl's touchscreen, its commands
# written to the descriptor $finger, its node in $node.
start_finger() {
    rm -f /tmp/finger.fifo
    mkfifo /tmp/finger.fifo
    perl "$R/finger.pl" "$@" </tmp/finger.fifo >"$R/finger.out" 2>&1 &
    exec {finger}>/tmp/finger.fifo
    finger_created() { grep -q '^created ' "$R/finger.out"; }
    wait_for 30 finger_created
    node=$(sed -n 's/^created //p' "$R/finger.out")
    check "a uinput touchscreen: ${node:-none} ($(head -n 1 "$R/finger.out"))" test -n "$node"
}
# finger_done N: finger.pl has done N commands.
finger_done() { (($(grep -c '^done ' "$R/finger.out") >= $1)); }

# machine_touch: a touch through the kernel's input core, read back from
# the event node by another process (cat; events decoded by perl as
# "TYPE CODE VALUE"): the finger down at (640, 400) of 1280x800, i.e.
# x 16384 in device units, BTN_TOUCH 1; the move; the lift (tracking id
# -1, BTN_TOUCH 0).
machine_touch() {
    start_finger chakra-probe 1280 800
    [[ -n $node ]] || return
    check "the kernel lists it: a direct touchscreen (INPUT_PROP_DIRECT)" \
        bash -c "grep -A 8 'Name=\"chakra-probe\"' /proc/bus/input/devices | grep -q '^B: PROP=2$'"
    timeout 60 cat <"$node" >"$R/probe-events.bin" &
    local reader=$!
    reading() { [[ $(readlink "/proc/$reader/fd/0") == "$node" ]]; }
    wait_for 10 reading
    printf 'down 640 400\nmove 650 410\nup\n' >&"$finger"
    events() {
        perl -e 'local $/ = \24; while (<STDIN>) { my (undef, undef, @e) = unpack("q q S S l", $_); print "@e\n" }' \
            <"$R/probe-events.bin" >"$R/probe-events.txt"
        grep -qx '1 330 0' "$R/probe-events.txt"
    }
    wait_for 30 events
    kill "$reader" 2>/dev/null
    check "the touch read back from $node: $(wc -l <"$R/probe-events.txt") events, down at x 16384 and lifted" \
        bash -c "grep -qx '1 330 1' '$R/probe-events.txt' && grep -qx '3 53 16384' '$R/probe-events.txt' && grep -qx '3 57 -1' '$R/probe-events.txt' && grep -qx '1 330 0' '$R/probe-events.txt'"
    exec {finger}>&-
}

log "guest test starts: $(uname -m), kernel $(uname -r), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), state $(systemctl is-system-running)"
figure "boot${boot}_test_start_uptime" "$(cut -d' ' -f1 /proc/uptime)"
systemd-analyze time >"$R/boot$boot-analyze.txt" 2>&1 || true

# What the boot was, for the record: the kernel's log, the modules udev
# loaded. (Not systemd-analyze blame: 35-45 s under TCG.)
record_boot() {
    dmesg >"$R/boot$boot-dmesg.txt" 2>&1
    cat /proc/modules >"$R/boot$boot-modules.txt"
}
# The boot's journal, when a check has failed (a few seconds under TCG):
# before the guest reboots or powers off.
journal_if_failed() {
    if grep -q '^FAIL' "$R/checks.txt" 2>/dev/null; then
        journalctl -b -o short-monotonic --no-pager >"$R/boot$boot-journal.txt" 2>&1
    fi
}

if ((boot == 1)); then
    # udev loads the display's and input's modules while the rest of the
    # boot goes on; multi-user.target does not wait for them.
    began=$SECONDS
    udevadm settle --timeout=120
    figure boot1_udev_settled_uptime "$(cut -d' ' -f1 /proc/uptime) (waited $((SECONDS - began)) s)"
    record_boot
    figure machine "$(uname -m) $(tr -d '\0' </proc/device-tree/model 2>/dev/null), $(nproc) CPU(s), $(grep -m1 -o 'CPU part.*' /proc/cpuinfo)"
    check "an arm64 kernel and userland ($(uname -m), dpkg $(dpkg --print-architecture))" \
        test "$(uname -m) $(dpkg --print-architecture)" = "aarch64 arm64"
    check "Debian 13 ($(cat /etc/debian_version))" grep -q '^13\.' /etc/debian_version
    check "systemd is PID 1 ($(cat /proc/1/comm))" test "$(cat /proc/1/comm)" = systemd
    gpu() { [[ -c /dev/dri/card0 ]] && compgen -G '/sys/bus/virtio/drivers/virtio_gpu/virtio*' >/dev/null; }
    check "the screen: /dev/dri/card0, virtio-gpu's ($(grep -o 'Initialized virtio_gpu.*' "$R/boot1-dmesg.txt"))" gpu
    connector=$(basename /sys/class/drm/card0-*-1)
    check "its connector $connector: $(cat "/sys/class/drm/$connector/status" 2>/dev/null), modes $(head -n 3 "/sys/class/drm/$connector/modes" 2>/dev/null | tr '\n' ' ')" \
        grep -qx connected "/sys/class/drm/$connector/status"
    check "fbcon on virtio-gpu's fbdev emulation ($(cat /sys/class/graphics/fb0/name 2>/dev/null))" \
        grep -q virtio /sys/class/graphics/fb0/name
    if wait_for 60 getty_active && wait_for 30 console_text; then
        ok "tty1's login prompt (getty@tty1 active, 'login:' on the VT)"
    else
        fail "no login prompt on tty1: getty@tty1 $(property getty@tty1.service ActiveState); $(tr -s ' ' </dev/vcs1 | head -c 300)"
    fi
    check "tty1's text on the screen" console_shot login-before

    # Without the package (the host's CHAKRA_VM_ARM64_MACHINE_ONLY): the
    # machine alone, with a finger on a uinput touchscreen read back
    # through its evdev node; then power off.
    if ! compgen -G "$R/chakra_*_arm64.deb" >/dev/null; then
        machine_touch
        journal_if_failed
        finish passed
    fi

    # The package, with apt, offline. The pinned scene time first (a
    # drop-in for the unit the package brings).
    mkdir -p /etc/systemd/system/chakrad.service.d
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/chakrad run --config /etc/chakra/chakra.toml --pin-time 2.5\n' \
        >/etc/systemd/system/chakrad.service.d/pin-time.conf
    deb=$(cd "$R" && echo chakra_*_arm64.deb)
    log "apt install ./$deb"
    cp "$R/$deb" /tmp/
    began=$SECONDS
    if (cd /tmp && apt install -y "./$deb") >"$R/apt-install.log" 2>&1; then
        ok "apt install ./$deb (offline, $((SECONDS - began)) s)"
    else
        fail "apt install ./$deb: $(tail -n 15 "$R/apt-install.log")"
    fi
    figure apt_install_seconds $((SECONDS - began))
    installed_at=$SECONDS
    if wait_for 120 active; then
        ok "chakrad.service is active after the install ($((SECONDS - installed_at)) s more)"
    else
        fail "chakrad.service did not become active: $(systemctl status chakrad --no-pager 2>&1 | tail -n 20)"
    fi
    check "enabled for boot" test "$(systemctl is-enabled chakrad.service)" = enabled
    check "Type=notify (active means READY=1 arrived; status: $(property chakrad.service StatusText))" \
        test "$(property chakrad.service Type)" = notify
    pid=$(main_pid)
    uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    check "the main process ($pid) runs as chakra, not root (uid ${uid:-?}; chakra is $(id -u chakra))" test "${uid:-x}" = "$(id -u chakra)"
    check "tty1's login prompt made way (getty@tty1 $(property getty@tty1.service ActiveState))" test "$(property getty@tty1.service ActiveState)" = inactive

    heart_on_screen pinned
    check "chakractl status: the heart ($(tr -s ' \n' ' ' <"$R/status-pinned.txt" | cut -c1-300))" \
        grep -q '^scene *heart\b' "$R/status-pinned.txt"
    figure boot1_ready_uptime "$(ready_seconds)"

    # A finger on a touchscreen (uinput, in the kernel's input core, read by
    # chakrad through libevdev) starts the spiral exercise: `spiral start`
    # shows its idle light; the finger down on it and along the path.
    out=$(chakractl spiral start 2>&1); status=$?
    check "chakractl spiral start (exit $status: $out)" test "$status" = 0
    status_json spiral-idle
    check "status: the spiral, idle ($(json_string spiral-idle scene), $(spiral_json spiral-idle state))" \
        test "$(json_string spiral-idle scene) $(spiral_json spiral-idle state)" = "spiral idle"
    chakractl spiral path >"$R/spiral-path.txt"
    width=$(json spiral-idle width) height=$(json spiral-idle height)
    start_finger chakra-arm64-finger "$width" "$height"
    taken() { status_json touch-taken && grep -qF "$node" "$R/touch-taken.json"; }
    wait_for 30 taken
    check "chakrad took it (status $(grep -o '"input_devices":\[[^]]*\]' "$R/touch-taken.json" 2>/dev/null))" taken
    {
        echo "down $(head -n 1 "$R/spiral-path.txt")"
        sed -n '2,40p' "$R/spiral-path.txt" | sed 's/^/move /'
    } >&"$finger"
    check "the finger went down on the light and traced 39 points of the path" wait_for 60 finger_done 40
    status_json spiral-touched
    check "status: the exercise began ($(spiral_json spiral-touched state), touching $(spiral_json spiral-touched touching), progress $(spiral_json spiral-touched progress))" \
        test "$(json_string spiral-touched scene) $(spiral_json spiral-touched state) $(spiral_json spiral-touched touching)" = "spiral inhale true"
    check "the touch reached the screen (touch_latency_ms: $(grep -o '"touch_latency_ms":{[^}]*}' "$R/spiral-touched.json"))" \
        bash -c "grep -q '\"touch_latency_ms\":{[^}]*\"samples\":[1-9]' '$R/spiral-touched.json'"
    chakractl status >"$R/status-spiral.txt" 2>&1
    shot spiral
    echo up >&"$finger"
    exec {finger}>&-
    out=$(chakractl spiral cancel 2>&1); status=$?
    check "chakractl spiral cancel (exit $status: $out)" test "$status" = 0
    heart_again() { status_json spiral-cancelled && [[ $(json_string spiral-cancelled scene) == heart ]]; }
    wait_for 30 heart_again
    check "the heart again ($(json_string spiral-cancelled scene))" heart_again

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
    # (Emulated arm64 starts chakrad in 8-18 s: 60 s is the bound.)
    seams_watchdog 60
    shot after-watchdog
    cp "$R"/upgrade-*.deb /tmp/
    seams_upgrades /tmp/upgrade-*.deb
    shot after-upgrades
    continuity_release

    journal_if_failed
    log "rebooting"
    sync
    # From before `systemctl reboot` until QEMU ends (the host's watcher
    # closes the window); the next boot is sampled from QEMU's start.
    sample_start reboot
    systemctl reboot
    exit 0
fi

if ((boot == 2)); then
    heart_on_screen after-reboot
    # The boot's window (from QEMU's start) ends with the heart up.
    sample_stop
    seams_boot_figures
    record_boot
    figure boot2_ready_uptime "$(ready_seconds)"
    figure boot2_virtio_gpu_uptime "$(sed -n 's/^\[ *\([0-9.]*\)\] \[drm\] Initialized virtio_gpu.*/\1/p' "$R/boot2-dmesg.txt")"
    # Whether this boot's chakrad found no display at first and waited for
    # udev's device events (the driver loading late; the heart above is on
    # DRM either way).
    figure boot2_chakrad_udev_wait "$(journalctl -b -u chakrad -o cat --no-pager 2>/dev/null | grep -E "udev's device events done|waiting up to" | tr '\n' ' ')"
    check "getty@tty1 stays inactive" test "$(property getty@tty1.service ActiveState)" = inactive

    daemon_gone() { [[ $(property chakrad.service ActiveState) != active ]] && ! grep -qx chakrad /proc/[0-9]*/comm 2>/dev/null; }
    began=$SECONDS
    sample_start remove
    apt-get remove -y chakra >"$R/apt-remove.log" 2>&1
    check "apt remove ($((SECONDS - began)) s)" grep -q "Removing chakra" "$R/apt-remove.log"
    check "apt remove stopped the daemon ($(property chakrad.service ActiveState))" \
        daemon_gone
    if wait_for 60 getty_active && wait_for 30 console_text; then
        ok "apt remove gives tty1 back to its login prompt (getty@tty1 active, 'login:' on the VT)"
    else
        fail "no login prompt after apt remove: getty@tty1 $(property getty@tty1.service ActiveState); $(tr -s ' ' </dev/vcs1 | head -c 300)"
    fi
    check "after apt remove, tty1's text on the screen" console_shot removed
    sample_stop
    journal_if_failed
    finish passed
fi
fail "booted a third time (boot $boot)"
journal_if_failed
finish "too many boots"

#!/bin/bash
# Stage 2 of the guest: PID 1, chrooted into the host's root (see
# tests/vm/initramfs/init). Loads the drivers with the host's own modprobe
# (kmod reads compressed modules and resolves dependencies), waits for the
# device nodes, runs the test's COMMAND, reports its exit status through the
# results share and powers off.
#
# PID 1 must never exit (the kernel would panic): the work runs in a
# subshell, whose failures (reported to the host in .vm/harness-error) end
# only the subshell; PID 1 then always powers off.

export PATH=$CHAKRA_REPO/tests/vm/guest:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=linux CHAKRA_VM=1
vm=$CHAKRA_RESULTS/.vm

log() { echo "chakra-vm: $*"; }

power_off() {
    dmesg >"$CHAKRA_RESULTS/dmesg.txt" 2>/dev/null
    sync
    # The host's busybox (busybox-static is a prerequisite) calls reboot(2)
    # directly; systemd's poweroff would look for a running systemd.
    /bin/busybox poweroff -f
    echo o >/proc/sysrq-trigger
    sleep 60
}

harness_error() {
    log "harness error: $*"
    echo "$*" >"$vm/harness-error"
    exit 1
}

# .vm/config holds KEY=value lines written by run-guest.sh.
read_config() {
    local key value
    while IFS='=' read -r key value; do
        case $key in
            DISPLAY_KIND) export CHAKRA_DISPLAY=$value ;;
        esac
    done <"$vm/config"
}

# Drivers per display. fbdev emulation (CONFIG_DRM_FBDEV_EMULATION) and
# fbcon are built into Debian's kernel, so the DRM driver alone brings
# /dev/fb0 and a framebuffer console on tty1.
load_drivers() {
    local modules=(evdev uinput)
    case $CHAKRA_DISPLAY in
        bochs) modules+=(bochs) ;;
        virtio) modules+=(virtio_gpu) ;;
        none) ;;
        *) harness_error "unknown display '$CHAKRA_DISPLAY'" ;;
    esac
    modprobe -a "${modules[@]}" || harness_error "modprobe ${modules[*]} failed"
}

# devtmpfs creates the nodes as the drivers register them; probing runs in
# the module's init, but give it a moment in case it is deferred.
wait_for_nodes() {
    local nodes=(/dev/uinput /dev/tty1) node tries
    [[ $CHAKRA_DISPLAY == none ]] || nodes+=(/dev/dri/card0 /dev/fb0)
    for node in "${nodes[@]}"; do
        for ((tries = 0; tries < 100; tries++)); do
            [[ -e $node ]] && break
            sleep 0.1
        done
        [[ -e $node ]] || harness_error "$node did not appear"
    done
}

# A blinking text cursor would be drawn over whatever a test puts into the
# framebuffer; vt.global_cursor_default=0 on the kernel command line hides
# it on new consoles, and this stops the blink timer on the fbcon too.
quiet_console() {
    local blink=/sys/class/graphics/fbcon/cursor_blink
    [[ ! -w $blink ]] || echo 0 >"$blink"
    ip link set lo up 2>/dev/null || true
    hostname chakra-vm
}

run_command() {
    local status uptime
    cd "$CHAKRA_REPO" || harness_error "cannot cd to $CHAKRA_REPO"
    read -r uptime _ </proc/uptime
    log "command starts at guest uptime ${uptime}s"
    status=0
    bash "$vm/command" </dev/null || status=$?
    log "command exited with status $status"
    echo "$status" >"$vm/exit-status.tmp" && mv "$vm/exit-status.tmp" "$vm/exit-status"
}

(
    # -E: the ERR trap also fires inside the functions.
    set -Eeuo pipefail
    trap '[[ -e $vm/exit-status ]] || harness_error "stage2.sh failed near line $LINENO"' ERR
    read_config
    load_drivers
    wait_for_nodes
    quiet_console
    run_command
)
power_off

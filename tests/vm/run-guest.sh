#!/usr/bin/env bash
# Boots a QEMU guest on Debian's kernel with the host root shared read-only
# over 9p, runs COMMAND in it (cwd = this repository, same path as on the
# host) and exits with COMMAND's exit status. See tests/vm/README.md.
#
#   tests/vm/run-guest.sh [--display bochs|virtio|none] [--display-opts OPTS]
#       [--results DIR] [--timeout SECONDS] [--memory MB] [--smp N]
#       [--append KERNEL-ARGS] [--qemu-arg ARG]... -- COMMAND [ARGS...]
#
# Exit status: COMMAND's; 124 if the guest timed out, 125 if the harness or
# the guest failed before COMMAND reported (panic, missing package, ...).
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/lib/common.sh"

# usage [STATUS]: the synopsis above; on stderr unless asked for (-h).
usage() {
    local status=${1:-125}
    sed -n '6,8p' "$0" | sed 's/^# \{0,3\}//' >&$((status ? 2 : 1))
    exit "$status"
}

# One vCPU less than the host has (at most 2): QEMU's main loop, which
# serves 9p and QMP, and the watcher need a core too. On a 2-core machine
# one vCPU boots faster than two (measured: 2.6-3.6 s against 3-5 s).
smp=$(($(nproc) - 1))
((smp >= 1)) || smp=1
((smp <= 2)) || smp=2
display=bochs display_opts='' results='' timeout=300 memory=1024 append=''
qemu_extra=()
while (($#)); do
    case $1 in
        --display) display=${2:?}; shift 2 ;;
        --display-opts) display_opts=${2:?}; shift 2 ;;
        --results) results=${2:?}; shift 2 ;;
        --timeout) timeout=${2:?}; shift 2 ;;
        --memory) memory=${2:?}; shift 2 ;;
        --smp) smp=${2:?}; shift 2 ;;
        --append) append=${2:?}; shift 2 ;;
        --qemu-arg) qemu_extra+=("${2:?}"); shift 2 ;;
        --) shift; break ;;
        -h | --help) usage 0 ;;
        *) vm_log "unknown option '$1'"; usage ;;
    esac
done
(($#)) || usage
[[ $display =~ ^(bochs|virtio|none)$ ]] || vm_die "--display must be bochs, virtio or none"
[[ $timeout =~ ^[0-9]+$ && $memory =~ ^[0-9]+$ && $smp =~ ^[0-9]+$ ]] ||
    vm_die "--timeout, --memory and --smp take whole numbers"

missing=$(vm_missing_prerequisites)
[[ -z $missing ]] || vm_die "cannot boot a guest; missing: ${missing//$'\n'/, } (scripts/install-deps.sh --test installs them)"
kver=$(vm_kernel_version)
initramfs=$("$VM_DIR/lib/build-initramfs.sh" "$kver")

# The results directory is shared writable with the guest and mounted there
# at the same path. A default one is emptied; a given one only loses what
# this script wrote there before.
if [[ -z $results ]]; then
    results=$VM_BUILD/results/last
    rm -rf "$results"
fi
mkdir -p "$results"
results=$(cd "$results" && pwd -P)
# QEMU splits its options at commas; the guest's config reader at newlines.
[[ $results != *[,$'\n']* && $VM_REPO != *[,$'\n']* ]] ||
    vm_die "paths with commas or newlines cannot be shared with the guest"
vm=$results/.vm
rm -rf "$vm" "$results/console.log" "$results/dmesg.txt"
mkdir -p "$vm/requests" "$vm/replies"

# The guest reads these (initramfs/init and guest/stage2.sh).
printf 'REPO=%s\nRESULTS=%s\nDISPLAY_KIND=%s\n' "$VM_REPO" "$results" "$display" >"$vm/config"
{
    echo "# written by run-guest.sh"
    printf 'exec'
    printf ' %q' "$@"
    echo
} >"$vm/command"

# A unix socket path must fit in 108 bytes; fall back to a short temp dir.
socket_dir=$vm
if ((${#vm} > 90)); then
    socket_dir=$(mktemp -d "${TMPDIR:-/tmp}/chakra-vm.XXXXXX")
fi
qmp_socket=$socket_dir/qmp.sock

case $display in
    bochs) display_device=(-device "VGA${display_opts:+,$display_opts}") ;;
    virtio) display_device=(-device "virtio-gpu-pci${display_opts:+,$display_opts}") ;;
    none) display_device=() ;;
esac

# - TCG: no KVM here; -cpu max gives the guest what TCG can emulate
#   (SSE4, AVX2 since QEMU 7.2), so x86-64-v3 builds run.
# - -nodefaults: no NIC (its option ROM slows boot), no default VGA; the
#   i8042 keyboard/mouse of the pc machine stay (they feed /dev/input).
# - -no-reboot with panic=-1: a guest panic ends QEMU at once.
# - serial console: to our stdout and to console.log.
# - multidevs=remap: the host root spans several file systems (/proc,
#   /sys, /tmp, ...); without it their inode numbers collide in the guest.
# no_timer_check: the kernel's boot-time check that the IO-APIC timer
# ticks counts ticks against a busy loop; with the host's cores busy (a
# second guest, a build) TCG's vCPU missed them and the guest panicked
# ("IO-APIC + timer doesn't work!", seen in 55-device-faults beside two
# other guests). The check buys nothing in an emulated PC whose timer is
# QEMU's.
kernel_args="console=ttyS0 panic=-1 quiet loglevel=4 vt.global_cursor_default=0 consoleblank=0 no_timer_check $append"
qemu=(
    qemu-system-x86_64 -accel tcg -cpu max -m "$memory" -smp "$smp"
    -nodefaults -no-reboot -display none -vga none "${display_device[@]}"
    -chardev "stdio,id=serial0,signal=off,logfile=$results/console.log"
    -serial chardev:serial0
    -kernel "/boot/vmlinuz-$kver" -initrd "$initramfs" -append "$kernel_args"
    -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
    -virtfs "local,path=$results,mount_tag=results,security_model=none"
    -qmp "unix:$qmp_socket,server=on,wait=off"
    "${qemu_extra[@]}"
)

qemu_pid='' watcher_pid=''
# Runs on every exit. A failing command here would replace the exit status
# (set -e applies inside traps too), hence the `|| true`s.
# shellcheck disable=SC2317 # (reached through the trap)
cleanup() {
    local pid
    for pid in $qemu_pid $watcher_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [[ $socket_dir == "$vm" ]] || rm -rf "$socket_dir"
    rm -rf "$vm/requests" "$vm/replies" "$vm/qmp.sock"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

vm_log "booting $kver, display $display, timeout ${timeout}s, results in $results"
started_ms=$(date +%s%3N)
# timeout(1) sends TERM at the deadline and KILL 5 s later if QEMU lingers.
timeout --kill-after=5 "$timeout" "${qemu[@]}" </dev/null &
qemu_pid=$!
python3 "$VM_DIR/host/qmp-watcher.py" --socket "$qmp_socket" --results "$results" &
watcher_pid=$!

qemu_status=0
wait "$qemu_pid" || qemu_status=$?
qemu_pid=''
elapsed_ms=$(($(date +%s%3N) - started_ms))
elapsed=$((elapsed_ms / 1000)).$(printf '%03d' $((elapsed_ms % 1000)))
boot=$(sed -n 's/.*command starts at guest uptime \([0-9.]*\)s.*/\1/p' "$results/console.log" 2>/dev/null | head -n 1)
vm_log "guest ran ${elapsed}s${boot:+ (COMMAND started at guest uptime ${boot}s)}"

if [[ -s $vm/exit-status ]]; then
    status=$(<"$vm/exit-status")
    vm_log "COMMAND exited with status $status"
    exit "$status"
fi
if [[ -s $vm/harness-error ]]; then
    vm_die "guest harness failed: $(<"$vm/harness-error")"
fi
if grep -q "chakra-vm: stage 1 failed" "$results/console.log" 2>/dev/null; then
    vm_die "guest harness failed: $(grep -m1 -o "stage 1 failed.*" "$results/console.log")"
fi
if ((qemu_status == 124 || qemu_status == 137)); then
    VM_DIE_STATUS=124 vm_die "guest timed out after ${timeout}s (console: $results/console.log)"
fi
if grep -q "Kernel panic" "$results/console.log" 2>/dev/null; then
    vm_die "guest kernel panicked: $(grep -m1 "Kernel panic" "$results/console.log")"
fi
if ((qemu_status != 0)); then
    vm_die "QEMU failed with status $qemu_status (its message is above; console: $results/console.log)"
fi
vm_die "guest stopped without reporting COMMAND's exit status (console: $results/console.log)"

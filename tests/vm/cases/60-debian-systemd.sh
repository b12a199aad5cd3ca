#!/usr/bin/env bash
# The Debian package on a kiosk as it really boots: a debootstrapped Debian
# 12 (tests/vm/debian/build-rootfs.sh, cached) on a virtio disk, the host's
# Debian kernel and initramfs, systemd as PID 1, bochs-drm for the screen.
# The guest half (tests/vm/debian/guest-test.sh, run by a systemd unit in
# the guest on each boot) installs out/deb/chakra_*.deb with dpkg and
# checks it: the service active (Type=notify: READY), its user, the
# control socket's permissions, journald restarted and killed under the
# running daemon (it lives, the same process, its frames moving), reload
# with a broken and a good configuration, the watchdog after SIGSTOP,
# stop, a reboot, the exposure score, apt remove and purge. This half
# compares the screendumps with `chakrad render`: the heart after the
# install, after journald's restart and kill, after each reload, after
# the watchdog's restart and after the reboot; the console (not the heart,
# not black) after stop and after remove.
# The package: $CHAKRA_DEB, else out/deb/chakra_VERSION_ARCH.deb (make deb
# builds it when missing). The chakrad that renders the references:
# $CHAKRAD, else the release build.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
((EUID == 0)) || { echo "skipped: the Debian guest's root file system needs root (debootstrap, file ownership)"; exit 77; }
command -v mkfs.ext4 >/dev/null || vm_die "mkfs.ext4 is missing (package e2fsprogs)"

deb=${CHAKRA_DEB:-}
if [[ -z $deb ]]; then
    deb=$(vm_debian_package_path)
    [[ -s $deb ]] || make -C "$VM_REPO" deb >"$VM_BUILD/make-deb.log" 2>&1 || vm_die "make deb failed: see $VM_BUILD/make-deb.log"
fi
[[ -s $deb ]] || vm_die "no package at $deb"
display_build_chakrad

kver=$(vm_kernel_version)
initrd=/boot/initrd.img-$kver
[[ -r $initrd ]] || vm_die "no $initrd (the guest boots Debian's initramfs for its virtio disk)"
rootfs=$("$VM_DIR/debian/build-rootfs.sh" "$kver")

dir=$(vm_results_dir)
work=$(mktemp -d "$VM_BUILD/debian.XXXXXX")
qemu_pid='' watcher_pid='' socket_dir=''
# shellcheck disable=SC2317 # (reached through the trap)
cleanup() {
    local pid
    for pid in $qemu_pid $watcher_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work" ${socket_dir:+"$socket_dir"}
}
trap cleanup EXIT

# The guest's disk: the cached root file system, the test driver unit and
# a mount of the results share; ext4 made from the directory without any
# mount on the host (mkfs.ext4 -d). The package and the guest's scripts go
# through the share.
started=$SECONDS
root=$work/root
mkdir "$root"
tar -C "$root" --numeric-owner -xf "$rootfs"
mkdir -p "$root/mnt/results"
cat >"$root/etc/systemd/system/mnt-results.mount" <<'UNIT'
[Unit]
Description=The test harness's results share (9p)
[Mount]
What=results
Where=/mnt/results
Type=9p
Options=trans=virtio,version=9p2000.L,msize=512000,cache=none
UNIT
cat >"$root/etc/systemd/system/chakra-vmtest.service" <<'UNIT'
[Unit]
Description=Chakra VM test driver (tests/vm/debian/guest-test.sh)
Requires=mnt-results.mount
After=mnt-results.mount multi-user.target
[Service]
Type=simple
Environment=CHAKRA_RESULTS=/mnt/results
ExecStart=/bin/bash /mnt/results/guest-test.sh
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/chakra-vmtest.service "$root/etc/systemd/system/multi-user.target.wants/chakra-vmtest.service"
image=$work/disk.img
mkfs.ext4 -q -F -L kiosk -d "$root" "$image" 2G || vm_die "mkfs.ext4 -d failed"
rm -rf "$root"
cp "$deb" "$VM_DIR/debian/guest-test.sh" "$VM_DIR/guest/screendump" "$VM_DIR/guest/request.sh" "$dir/"
mkdir -p "$dir/.vm/requests" "$dir/.vm/replies"
echo "disk image ready in $((SECONDS - started)) s"

# Debian's way of booting: its kernel and initramfs, root on the virtio
# disk, systemd as init. The guest reboots once and powers off at the end.
# Its reboot ends QEMU (-no-reboot) and a new QEMU boots the same disk: a
# cold boot. (After a warm reset in the same QEMU, TCG ran the second boot
# 4-5 times slower than the first, 364 s against 92 s to the test unit,
# with soft lockups in modprobe on a loaded host: what it translated of
# the first boot's code lingers over RAM the second boot writes to; a new
# QEMU booted it in 82 s.) A panic (panic=10) ends QEMU too, without the
# guest's "rebooting", and is not booted again.
socket_dir=$(mktemp -d "${TMPDIR:-/tmp}/chakra-vm.XXXXXX")
timeout=${CHAKRA_VM_DEBIAN_TIMEOUT:-1200}
kernel_args="root=/dev/vda rw console=ttyS0 quiet loglevel=4 panic=10 vt.global_cursor_default=0 consoleblank=0 systemd.show_status=0"
qemu=(
    qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1
    -nodefaults -no-reboot -display none -vga none -device VGA
    -chardev "stdio,id=serial0,signal=off,logfile=$dir/console.log,logappend=on" -serial chardev:serial0
    -kernel "/boot/vmlinuz-$kver" -initrd "$initrd" -append "$kernel_args"
    -drive "file=$image,if=virtio,format=raw,cache=unsafe"
    -virtfs "local,path=$dir,mount_tag=results,security_model=none"
)
vm_log "booting Debian 12 under systemd ($kver, bochs), timeout ${timeout}s, results in $dir"
booted=$SECONDS
qemu_status=0
for ((boot = 1; boot <= 3; boot++)); do
    left=$((booted + timeout - SECONDS))
    if ((left <= 0)); then qemu_status=124; break; fi
    qmp_socket=$socket_dir/qmp-$boot.sock
    timeout --kill-after=5 "$left" "${qemu[@]}" -qmp "unix:$qmp_socket,server=on,wait=off" </dev/null >/dev/null &
    qemu_pid=$!
    python3 "$VM_DIR/host/qmp-watcher.py" --socket "$qmp_socket" --results "$dir" &
    watcher_pid=$!
    qemu_status=0
    wait "$qemu_pid" || qemu_status=$?
    qemu_pid=''
    # (The watcher ends with QEMU's QMP connection.)
    wait "$watcher_pid" 2>/dev/null || true
    watcher_pid=''
    echo "boot $boot: QEMU ran $((SECONDS - booted)) s in all (status $qemu_status)"
    # Booted again only when this boot's guest said it reboots.
    reboots=$(grep -c '] rebooting$' "$dir/guest.log" 2>/dev/null || true)
    if ((qemu_status != 0 || ${reboots:-0} < boot)) || [[ -e $dir/guest-finished ]]; then
        break
    fi
done
rm -rf "$socket_dir"
echo "guest ran $((SECONDS - booted)) s (QEMU status $qemu_status)"

if [[ -e $dir/guest.log ]]; then sed 's/^/  guest: /' "$dir/guest.log"; fi
[[ -e $dir/checks.txt ]] || vm_die "the guest wrote no checks (console: $dir/console.log)"
while read -r line; do
    case $line in
        ok:*) vm_pass "${line#ok: }" ;;
        *) vm_fail "${line#FAIL: }" ;;
    esac
done <"$dir/checks.txt"
if [[ $(cat "$dir/guest-finished" 2>/dev/null) == passed ]]; then
    vm_pass "the guest ran both boots to the end and powered off"
else
    vm_fail "the guest did not finish (QEMU status $qemu_status; see $dir/guest.log, $dir/console.log)"
fi

# The screen. The panel's size is the bochs default mode the daemon chose.
shot() { vm_screendump_path "$dir" "$1" 2>/dev/null || echo "$dir/$1.png"; }
if [[ -e $(shot pinned) ]]; then
    size=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import images; w, h, _ = images.read_image(sys.argv[2]); print(f"{w}x{h}")' \
        "$VM_DIR/lib" "$(shot pinned)") || vm_die "cannot read $(shot pinned)"
    echo "panel: $size"
    reference "$dir/heart.png" "$size" 2.5 0
    # The unpinned heart after the install: the same picture within the
    # scene's motion (a loose bound; the pinned ones below are exact).
    same_image "the heart on screen right after dpkg -i (stock unit, scene moving)" "$(shot stock)" "$dir/heart.png" \
        --tolerance 48 --max-bad-fraction 0.35
    different_image "the heart replaced the login prompt" "$(shot stock)" "$(shot login-before)"
    # journald restarted, then killed, under the running daemon: the heart
    # still on screen (the same loose bound: the scene moves), and moved on
    # since the stock dump. A daemon dead of its log's stream would leave
    # the console (52 % of the pixels off by more than 48) or, restarted, a
    # new heart but not the same main process (the guest's checks).
    same_image "the heart on screen after journald's restart and kill" "$(shot journald)" "$dir/heart.png" \
        --tolerance 48 --max-bad-fraction 0.35
    changed_image "the picture moved on since the stock dump" "$(shot journald)" "$(shot stock)"
    same_image "the heart, scene time pinned" "$(shot pinned)" "$dir/heart.png"
    same_image "the picture kept through a broken reload" "$(shot reload-broken)" "$dir/heart.png"
    same_image "the picture back after the watchdog's restart" "$(shot after-watchdog)" "$dir/heart.png"
    same_image "the heart after a reboot" "$(shot after-reboot)" "$dir/heart.png"
    # After `systemctl stop` and after `apt remove` tty1 shows its login
    # prompt again (chakra-console.service starts getty@tty1).
    for name in stopped removed; do
        different_image "$name: the heart is gone" "$(shot "$name")" "$dir/heart.png"
        # Text on the console lights a few thousand pixels; a black
        # screen none.
        lit=$(python3 "$VM_DIR/cases/display_tools.py" lit "$(shot "$name")" 2>/dev/null || echo 0)
        if ((lit > 500)); then
            vm_pass "$name: the console shows text ($lit pixels lit)"
        else
            vm_fail "$name: the screen is black ($lit pixels lit), not the console ($(shot "$name"))"
        fi
    done
else
    vm_fail "no screendump of the pinned heart"
fi
if [[ -e $dir/figures.txt ]]; then sed 's/^/figure: /' "$dir/figures.txt"; fi
vm_finish

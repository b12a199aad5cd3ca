# shellcheck shell=bash disable=SC2034 # (kiosk_image and kiosk_guest_seconds are for the sourcing script)
# Sourced by the host halves of the Debian kiosk cases (60-debian-systemd,
# 70-debian-arm64), after display-host.bash: a debootstrapped root made
# into the guest's disk with the test driver in it, QEMU run with the QMP
# watcher (screendumps), and the guest's checks reported.
#
# The guest half (GUEST-SCRIPT, sourcing kiosk-guest.bash) runs from the
# results share, once per boot, as chakra-vmtest.service; it writes its
# checks to checks.txt, figures to figures.txt, a log to guest.log, and
# "passed" to guest-finished at the end.

kiosk_work='' kiosk_qemu_pid='' kiosk_watcher_pid='' kiosk_socket_dir=''
# shellcheck disable=SC2317 # (reached through the trap)
kiosk_cleanup() {
    local pid
    for pid in $kiosk_qemu_pid $kiosk_watcher_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [[ -z $kiosk_work ]] || rm -rf "$kiosk_work"
    [[ -z $kiosk_socket_dir ]] || rm -rf "$kiosk_socket_dir"
}
trap kiosk_cleanup EXIT

# kiosk_disk DIR GUEST-SCRIPT TARBALL...: makes kiosk_image, an ext4 disk
# image (in a work directory removed at exit) of the tarballs unpacked in
# order, with a unit that mounts the results share (9p) at /mnt/results
# and a unit that runs GUEST-SCRIPT from it on every boot; copies
# GUEST-SCRIPT, kiosk-guest.bash and the screendump helper into DIR, the
# results share. No mount on the host (mkfs.ext4 -d).
kiosk_disk() {
    local dir=$1 script=$2 root image tarball started=$SECONDS
    shift 2
    kiosk_work=$(mktemp -d "$VM_BUILD/debian.XXXXXX")
    root=$kiosk_work/root
    mkdir "$root"
    for tarball; do
        tar -C "$root" --numeric-owner -xf "$tarball" || vm_die "cannot unpack $tarball"
    done
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
    cat >"$root/etc/systemd/system/chakra-vmtest.service" <<UNIT
[Unit]
Description=Chakra VM test driver (tests/vm/debian/$(basename "$script"))
Requires=mnt-results.mount
After=mnt-results.mount multi-user.target
[Service]
Type=simple
Environment=CHAKRA_RESULTS=/mnt/results
ExecStart=/bin/bash /mnt/results/$(basename "$script")
StandardOutput=journal+console
[Install]
WantedBy=multi-user.target
UNIT
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    ln -s /etc/systemd/system/chakra-vmtest.service "$root/etc/systemd/system/multi-user.target.wants/chakra-vmtest.service"
    # A seamless kiosk image (README.md): tty1 cleared before udev loads
    # the display's driver, so that what the firmware left on the VGA text
    # console (SeaBIOS's lines, kept by the kernel's vgacon) is not drawn
    # again by fbcon on the panel when the driver takes it over.
    cat >"$root/etc/systemd/system/kiosk-clear-console.service" <<'UNIT'
[Unit]
Description=Clear tty1 before the display's driver takes the panel
DefaultDependencies=no
Before=sysinit.target systemd-udev-trigger.service
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'printf "\033[H\033[2J\033[3J" >/dev/tty1'
[Install]
WantedBy=sysinit.target
UNIT
    mkdir -p "$root/etc/systemd/system/sysinit.target.wants"
    ln -s /etc/systemd/system/kiosk-clear-console.service "$root/etc/systemd/system/sysinit.target.wants/kiosk-clear-console.service"
    image=$kiosk_work/disk.img
    mkfs.ext4 -q -F -L kiosk -d "$root" "$image" 2G || vm_die "mkfs.ext4 -d failed"
    rm -rf "$root"
    cp "$script" "$VM_DIR/debian/kiosk-guest.bash" "$VM_DIR/guest/screendump" "$VM_DIR/guest/request.sh" "$dir/"
    mkdir -p "$dir/.vm/requests" "$dir/.vm/replies"
    kiosk_image=$image
    echo "disk image ready in $((SECONDS - started)) s"
}

# kiosk_boot DIR TIMEOUT QEMU-COMMAND...: boots the guest, bounded by
# TIMEOUT seconds in all, with the QMP watcher beside QEMU (screendumps)
# and the serial console appended to DIR/console.log; QEMU's -no-reboot,
# -serial, -virtfs (the results share) and -qmp options are added here.
# The guest's reboot ends QEMU (-no-reboot) and a new QEMU boots the same
# disk: a cold boot. (After a warm reset in the same QEMU, TCG ran
# 60-debian-systemd's second boot 4-5 times slower than the first, 364 s
# against 92 s to the test unit, with soft lockups in modprobe on a loaded
# host: what it translated of the first boot's code lingers over RAM the
# second boot writes to; a new QEMU booted it in 82 s.) A boot is followed
# by another only when its guest said "rebooting" in guest.log: a panic
# (panic=10) or a failed stage 1 (power off) ends QEMU too, and is not
# booted again. Sets kiosk_qemu_status and kiosk_guest_seconds.
kiosk_boot() {
    local dir=$1 timeout=$2 booted=$SECONDS boot left qmp_socket reboots failure wait_tenths sample
    shift 2
    kiosk_socket_dir=$(mktemp -d "${TMPDIR:-/tmp}/chakra-vm.XXXXXX")
    kiosk_qemu_status=0
    for ((boot = 1; boot <= 3; boot++)); do
        left=$((booted + timeout - SECONDS))
        if ((left <= 0)); then kiosk_qemu_status=124; break; fi
        qmp_socket=$kiosk_socket_dir/qmp-$boot.sock
        timeout --kill-after=5 "$left" "$@" -no-reboot \
            -chardev "stdio,id=serial0,signal=off,logfile=$dir/console.log,logappend=on" -serial chardev:serial0 \
            -virtfs "local,path=$dir,mount_tag=results,security_model=none" \
            -qmp "unix:$qmp_socket,server=on,wait=off" </dev/null >/dev/null &
        kiosk_qemu_pid=$!
        # Boots from the second on (the kiosk's own, with chakrad
        # installed) are sampled from QEMU's start (issue 30's boot window;
        # the guest ends it when the heart is up).
        sample=()
        ((boot < ${kiosk_sample_boots_from:-2})) || sample=(--sample-boot "boot$boot")
        python3 "$VM_DIR/host/qmp-watcher.py" --socket "$qmp_socket" --results "$dir" "${sample[@]}" &
        kiosk_watcher_pid=$!
        kiosk_qemu_status=0
        wait "$kiosk_qemu_pid" || kiosk_qemu_status=$?
        kiosk_qemu_pid=''
        # The watcher ends with QEMU's QMP connection, after classifying
        # and writing a sampling window still open (a reboot's): up to
        # 30 s for that. One still waiting to connect to a QEMU that ended
        # early would not end: killed.
        for ((wait_tenths = 0; wait_tenths < 300; wait_tenths++)); do
            kill -0 "$kiosk_watcher_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill "$kiosk_watcher_pid" 2>/dev/null || true
        wait "$kiosk_watcher_pid" 2>/dev/null || true
        kiosk_watcher_pid=''
        echo "boot $boot: QEMU ran $((SECONDS - booted)) s in all (status $kiosk_qemu_status)"
        reboots=$(grep -c '] rebooting$' "$dir/guest.log" 2>/dev/null || true)
        if ((kiosk_qemu_status != 0 || ${reboots:-0} < boot)) || [[ -e $dir/guest-finished ]]; then
            break
        fi
    done
    rm -rf "$kiosk_socket_dir"
    kiosk_socket_dir=''
    if failure=$(grep -m 1 -E 'Kernel panic - not syncing|chakra-vm: stage 1 failed' "$dir/console.log" 2>/dev/null); then
        echo "the guest could not boot: $failure (console: $dir/console.log)"
    fi
    kiosk_guest_seconds=$((SECONDS - booted))
    echo "guest ran $kiosk_guest_seconds s (QEMU status $kiosk_qemu_status)"
}

# kiosk_report DIR: the guest's log and checks, and whether it finished.
kiosk_report() {
    local dir=$1 line
    if [[ -e $dir/guest.log ]]; then sed 's/^/  guest: /' "$dir/guest.log"; fi
    [[ -e $dir/checks.txt ]] || vm_die "the guest wrote no checks (console: $dir/console.log)"
    while read -r line; do
        case $line in
            ok:*) vm_pass "${line#ok: }" ;;
            *) vm_fail "${line#FAIL: }" ;;
        esac
    done <"$dir/checks.txt"
    if [[ $(cat "$dir/guest-finished" 2>/dev/null) == passed ]]; then
        vm_pass "the guest ran its boots to the end and powered off"
    else
        vm_fail "the guest did not finish (QEMU status $kiosk_qemu_status; see $dir/guest.log, $dir/console.log)"
    fi
}

# kiosk_shot DIR NAME: the path of screendump NAME (png or ppm).
kiosk_shot() { vm_screendump_path "$1" "$2" 2>/dev/null || echo "$1/$2.png"; }

# kiosk_size SHOT: the image's WxH.
kiosk_size() {
    python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import images; w, h, _ = images.read_image(sys.argv[2]); print(f"{w}x{h}")' \
        "$VM_DIR/lib" "$1"
}

# kiosk_console WHAT SHOT [HEART]: the console shows text: a few thousand
# pixels lit (a black screen lights none), and, given the heart's
# reference, clearly not the heart.
kiosk_console() {
    local what=$1 shot=$2 heart=${3:-} lit
    [[ -z $heart ]] || different_image "$what: the heart is gone" "$shot" "$heart"
    lit=$(python3 "$VM_DIR/cases/display_tools.py" lit "$shot" 2>/dev/null || echo 0)
    if ((lit > 500)); then
        vm_pass "$what: the console shows text ($lit pixels lit)"
    else
        vm_fail "$what: the screen is black ($lit pixels lit), not the console ($shot)"
    fi
}

# kiosk_seams_counts DIR RESTARTS CRASHES UPGRADES: how many of each event
# the guest's windows hold (DIR/seams-counts, read by kiosk-guest.bash),
# and the upgrade packages for them. Issue 30 asks for 5, 3 and 2, and a
# strict run (the default) holds those; with CHAKRA_VM_SEAMS_STRICT=0 a
# case holds the fewer it names (each is seconds of emulated start-up).
kiosk_seams_counts() {
    local dir=$1 deb=$5
    if [[ ${CHAKRA_VM_SEAMS_STRICT:-1} == 1 ]]; then set -- "$1" 5 3 2 "$5"; fi
    printf 'seams_restart_count=%d\nseams_crash_count=%d\nseams_upgrade_count=%d\n' "$2" "$3" "$4" >"$dir/seams-counts"
    echo "issue 30's windows: restart x$2, SEGV x$3, upgrade x$4"
    kiosk_upgrade_debs "$dir" "$deb" "$4"
}

# kiosk_upgrade_debs DIR DEB N: DIR/upgrade-1.deb ... upgrade-N.deb, DEB
# with its version raised (VERSION+vm1, ...), for the guest's `apt-get
# install` of a newer package (issue 30's upgrade window). Repacked, not
# rebuilt: dpkg-deb -R, the control file's Version, dpkg-deb -b with fast
# gzip (a few seconds).
kiosk_upgrade_debs() {
    local dir=$1 deb=$2 n=$3 work version k
    work=$(mktemp -d "$VM_BUILD/upgrade.XXXXXX")
    dpkg-deb -R "$deb" "$work/root" || vm_die "dpkg-deb -R $deb failed"
    version=$(dpkg-deb -f "$deb" Version)
    for ((k = 1; k <= n; k++)); do
        sed -i "s/^Version: .*/Version: $version+vm$k/" "$work/root/DEBIAN/control"
        dpkg-deb -Zgzip -z1 -b "$work/root" "$dir/upgrade-$k.deb" >/dev/null || vm_die "dpkg-deb -b (version $version+vm$k) failed"
    done
    rm -rf "$work"
}

# kiosk_seams DIR WINDOW...: issue 30's figures and checks from the
# sampling windows' summaries (DIR/samples.txt, host/sampler.py): each
# WINDOW sampled; the console seen in the windows named in
# kiosk_seams_text_expected (a stop, a remove: the classifier catches the
# login prompt); and (strict, the default) no black or text frame in a
# restart, crash, watchdog or upgrade window, no text after the display's
# hand-over in a boot window, no text in a reboot window, and 10 frames a
# second or more in each. CHAKRA_VM_SEAMS_STRICT=0 makes those counts
# figures only, for a daemon that does not keep its picture (a bisection
# before the hand-over landed; docs/robustness.md has those figures).
kiosk_seams() {
    local dir=$1 window line name key value clean strict=${CHAKRA_VM_SEAMS_STRICT:-1}
    shift
    local -A field
    for window; do
        line=$(grep -m 1 "^$window " "$dir/samples.txt" 2>/dev/null) || line=''
        if [[ -z $line ]]; then
            vm_fail "issue 30: no sampling window $window (samples.txt; guest.log)"
            continue
        fi
        echo "figure: frames $line"
        field=()
        for key in ${line#* }; do field[${key%%=*}]=${key#*=}; done
        name=$window
        if ((${field[frames]:-0} >= 5)); then
            vm_pass "issue 30: window $name sampled (${field[frames]} frames at ${field[hz]} Hz, longest gap ${field[max_gap_ms]} ms)"
        else
            vm_fail "issue 30: window $name has ${field[frames]:-no} frames"
        fi
        if [[ " ${kiosk_seams_text_expected:-} " == *" $name "* ]]; then
            if ((${field[text]:-0} > 0)); then
                vm_pass "issue 30: $name: the console's text seen by the classifier (${field[text]} text frames; $dir/samples/$name-first-text-*.png)"
            else
                vm_fail "issue 30: $name: no text frame, but the login prompt should be back ($line)"
            fi
            continue
        fi
        [[ $strict == 1 ]] || continue
        if awk -v hz="${field[hz]:-0}" 'BEGIN { exit !(hz >= 10) }'; then
            vm_pass "issue 30 (strict): $name sampled at ${field[hz]} Hz (>= 10)"
        else
            vm_fail "issue 30 (strict): $name sampled at ${field[hz]:-0} Hz, under 10"
        fi
        case $name in
            boot*) value="text_after=${field[text_after]:-?}" clean=$([[ ${field[text_after]:-1} == 0 ]] && echo yes) ;;
            reboot*) value="text=${field[text]:-?}" clean=$([[ ${field[text]:-1} == 0 ]] && echo yes) ;;
            *) value="black=${field[black]:-?} text=${field[text]:-?}" clean=$([[ ${field[black]:-1} == 0 && ${field[text]:-1} == 0 ]] && echo yes) ;;
        esac
        if [[ $clean == yes ]]; then
            vm_pass "issue 30 (strict): $name: no seam ($value)"
        else
            vm_fail "issue 30 (strict): $name: $value ($dir/samples/$name.timeline, $dir/samples/$name-first-*.png)"
        fi
    done
}

# kiosk_splash DIR WINDOW PANEL-SHOT: boot window WINDOW began with
# Plymouth's splash (build-rootfs.sh's kiosk-splash theme) and went from it
# into the scene without black: its first scene frame at the panel's size
# (PANEL-SHOT's) has the theme's colours (the gradient's teal top and
# violet bottom, the disc in the middle, within 12 levels: the gradient is
# dithered) and the window's black_after_scene is 0.
kiosk_splash() {
    local dir=$1 window=$2 size splash line after
    size=$(kiosk_size "$3") || { vm_fail "Plymouth: cannot read $3 for the panel's size"; return; }
    splash=$dir/samples/$window-first-scene-$size.png
    if [[ ! -e $splash ]]; then
        vm_fail "Plymouth: no scene frame at $size in window $window"
        return
    fi
    if python3 - "$VM_DIR/lib" "$splash" <<'PYTHON'; then
import sys
sys.path.insert(0, sys.argv[1])
import images
width, height, rgb = images.read_image(sys.argv[2])
def at(x, y):
    index = (y * width + x) * 3
    return tuple(rgb[index:index + 3])
expected = {  # (x, y): the theme's colour there
    (width // 2, 2): (26, 115, 140), (10, height - 3): (102, 51, 140),
    (width // 2, height // 2): (250, 200, 120),
}
off = {point: at(*point) for point, colour in expected.items()
       if max(abs(a - b) for a, b in zip(at(*point), colour)) > 12}
if off:
    print(f"the splash's pixels off: {off}", file=sys.stderr)
sys.exit(1 if off else 0)
PYTHON
        vm_pass "Plymouth: the boot's first picture is the image's splash ($splash)"
    else
        vm_fail "Plymouth: the boot's first picture is not the image's splash ($splash)"
    fi
    line=$(grep -m 1 "^$window " "$dir/samples.txt" 2>/dev/null) || line=''
    after=$(sed -n 's/.* black_after_scene=\([0-9]*\).*/\1/p' <<<"$line")
    if [[ $after == 0 ]]; then
        vm_pass "Plymouth: from the splash to the heart, no black frame (window $window)"
    else
        vm_fail "Plymouth: ${after:-no count of} black frames after the splash (window $window: $line)"
    fi
}

# kiosk_maintainer_scripts DEB: the package's maintainer scripts as
# debhelper wrote them restart chakrad on an upgrade with one
# `deb-systemd-invoke restart` in the postinst, and stop it nowhere else
# than on removal: systemd's file descriptor store survives a restart job,
# not a stop and a start (issue 30; debian/rules).
kiosk_maintainer_scripts() {
    local deb=$1 control
    control=$(mktemp -d "$VM_BUILD/control.XXXXXX")
    dpkg-deb -e "$deb" "$control" || vm_die "dpkg-deb -e $deb failed"
    # (The $ signs are the scripts' own: SC2016.)
    # shellcheck disable=SC2016
    if grep -q '_dh_action=restart$' "$control/postinst" && grep -q 'deb-systemd-invoke $_dh_action .*chakrad.service' "$control/postinst"; then
        vm_pass "postinst: an upgrade restarts chakrad.service (deb-systemd-invoke restart)"
    else
        vm_fail "postinst: no deb-systemd-invoke restart of chakrad.service on upgrade ($(grep -n 'deb-systemd-invoke' "$control/postinst" | tr '\n' ' '))"
    fi
    # Every stop in the prerm under `[ "$1" = remove ]`; none in the preinst.
    # shellcheck disable=SC2016
    if ! grep -qs 'deb-systemd-invoke stop' "$control/preinst" &&
        [[ $(grep -B 1 'deb-systemd-invoke stop' "$control/prerm" | grep -c '"$1" = remove') == $(grep -c 'deb-systemd-invoke stop' "$control/prerm") ]]; then
        vm_pass "prerm and preinst: chakrad is stopped on removal only, not before an upgrade"
    else
        vm_fail "a stop before an upgrade: $(grep -n -B 1 'deb-systemd-invoke stop' "$control/prerm" "$control/preinst" 2>/dev/null | tr '\n' ' ')"
    fi
    rm -rf "$control"
}

# shellcheck shell=bash disable=SC2034 # (boot and R are for the sourcing script)
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

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

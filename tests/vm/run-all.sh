#!/usr/bin/env bash
# Runs the VM integration tests: selftest.sh (host only), then every
# tests/vm/cases/*.sh, JOBS at a time, and prints a summary. A case exits 0
# to pass, 77 to skip, anything else to fail; so does this script overall
# (0 when nothing failed).
#   tests/vm/run-all.sh [--jobs N] [WORD...]   only the cases whose names contain a WORD
#
# --jobs N (or CHAKRA_VM_JOBS=N): cases run in N lanes at once. Default 2
# on a machine with 2 cores or more, else 1: a TCG guest keeps one host core
# busy with its one vCPU, so two lanes on 2 cores nearly halve the wall
# time; more lanes than cores would only slow every guest down (the cases'
# timing checks are measured with a guest that has about a core).
# What the cases share is made once before the lanes start: the initramfs,
# the release chakrad and chakractl ($CHAKRAD, $CHAKRACTL), the debug
# test binary ($CHAKRA_TESTS) and the Debian packages ($CHAKRA_DEB, and
# $CHAKRA_DEB_ARM64 where qemu-system-aarch64 is installed), each
# only when a selected case needs it and it is not given. Each case writes
# its output to .build-vm/logs/CASE.log, printed whole when the case ends;
# the summary lists the cases in name order. With more than one lane the
# longest cases start first, by the times of the last run
# (.build-vm/case-times) or, for a case not timed here yet, the hint below.
# SIGINT or SIGTERM stops every lane's case and its guest.
#
# Without QEMU or a guest kernel the tests are skipped (status 0), unless
# they can be installed: with CI set, or as root on Debian with apt-get,
# scripts/install-deps.sh installs them first. With CI set, anything still
# missing is a failure, so CI cannot pass by skipping.
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$VM_REPO"

usage() {
    local status=${1:-2}
    sed -n '6p' "$0" | sed 's/^# \{0,3\}//' >&$((status ? 2 : 1))
    exit "$status"
}

jobs=${CHAKRA_VM_JOBS:-}
words=()
while (($#)); do
    case $1 in
        -j | --jobs) jobs=${2:?--jobs takes a number}; shift 2 ;;
        --jobs=*) jobs=${1#--jobs=}; shift ;;
        -h | --help) usage 0 ;;
        --) shift; words+=("$@"); break ;;
        -*) vm_log "unknown option '$1'"; usage ;;
        *) words+=("$1"); shift ;;
    esac
done
if [[ -z $jobs ]]; then
    jobs=1
    (($(nproc) >= 2)) && jobs=2
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || vm_die "--jobs (CHAKRA_VM_JOBS) takes a whole number from 1"

can_install() {
    [[ -n ${CI:-} ]] || { ((EUID == 0)) && [[ -e /etc/debian_version ]] && command -v apt-get >/dev/null; }
}

missing=$(vm_missing_prerequisites)
if [[ -n $missing ]] && can_install; then
    vm_log "installing the VM test prerequisites (scripts/install-deps.sh --test)"
    # It also insists on Swift, which these tests do not need: judge by
    # what is still missing afterwards, not by its status.
    scripts/install-deps.sh --test || vm_log "scripts/install-deps.sh --test failed"
    missing=$(vm_missing_prerequisites)
fi
if [[ -n $missing ]]; then
    if [[ -n ${CI:-} ]]; then
        vm_die "CI is set but the VM tests cannot run; missing: ${missing//$'\n'/, }"
    fi
    echo "skipped: VM tests need ${missing//$'\n'/, } (scripts/install-deps.sh --test installs them)"
    exit 0
fi

cases=()
for case in tests/vm/cases/*.sh; do
    name=$(basename "$case" .sh)
    if ((${#words[@]})); then
        selected=false
        for word in "${words[@]}"; do [[ $name == *"$word"* ]] && selected=true; done
        $selected || continue
    fi
    cases+=("$case")
done

# Seconds each case took in the last run here (.build-vm/case-times,
# "NAME SECONDS" lines, rewritten after every run), else this hint: the
# cases' times in two lanes on a 2-core machine. Only the order comes from
# them; a new case counts as 120 s until it has run once.
times_file=$VM_BUILD/case-times
declare -A expected=(
    [00-smoke]=70 [10-drm-bochs]=90 [20-drm-virtio]=75 [30-fbdev]=70 [35-fbdev-vfb]=50
    [40-touch-uinput]=45 [45-control-drm]=30 [47-continuity-drm]=40 [50-spiral-touch]=200
    [55-device-faults]=140 [60-debian-systemd]=540 [65-display-power]=240 [66-cec-vivid]=75
    [67-schedule-drm]=125 [68-touch-schedule]=115 [70-debian-arm64]=720
)
if [[ -r $times_file ]]; then
    while read -r name seconds; do
        [[ $seconds =~ ^[0-9]+$ ]] && expected[$name]=$seconds
    done <"$times_file"
fi
# The order the lanes take the cases in: one lane, name order; more,
# longest first (a long case started last would run on alone at the end).
queue=("${cases[@]}")
if ((jobs > 1)); then
    mapfile -t queue < <(
        for case in "${cases[@]}"; do
            name=$(basename "$case" .sh)
            echo "${expected[$name]:-120} $case"
        done | sort -k1,1nr -k2,2 | cut -d' ' -f2-
    )
fi

failed=0
declare -A verdicts=() took=()
# verdict NAME STATUS SECONDS: PASS, SKIP or FAIL into verdicts/took.
verdict() {
    local name=$1 status=$2 seconds=$3
    case $status in
        0) verdicts[$name]=PASS ;;
        77) verdicts[$name]=SKIP ;;
        *) verdicts[$name]="FAIL (status $status)"; failed=$((failed + 1)) ;;
    esac
    took[$name]=$seconds
}
# What the cases share, made once. Each step names what it builds; its
# output goes to a log in .build-vm, shown when it fails.
# needs WORD: some selected case's script says WORD.
needs() { ((${#cases[@]})) && grep -qw -- "$1" "${cases[@]}"; }
# prepare NAME WHAT COMMAND...: runs COMMAND with its output in
# .build-vm/prepare-NAME.log; on failure the log is shown and the run fails.
prepare() {
    local log=$VM_BUILD/prepare-$1.log what=$2 started=$SECONDS
    shift 2
    echo "--- $what"
    if ! "$@" >"$log" 2>&1; then
        cat "$log"
        vm_die "$what failed (log: $log)"
    fi
    echo "    done in $((SECONDS - started)) s"
}
# The display cases' own builder, run once in a shell of its own; prints
# the path it settles on: prepared_binary FUNCTION VARIABLE.
prepared_binary() {
    # shellcheck disable=SC2016 # (expanded by that shell)
    bash -c 'source "$1" && "$2" >&2 && printf "%s\n" "${!3}"' prepare "$VM_DIR/cases/display-host.bash" "$1" "$2"
}

wall_started=$SECONDS
echo "=== selftest"
status=0
tests/vm/selftest.sh || status=$?
verdict selftest "$status" $((SECONDS - wall_started))

echo "=== preparing what the cases share"
mkdir -p "$VM_BUILD"
kver=$(vm_kernel_version)
prepare initramfs "the initramfs for $kver" "$VM_DIR/lib/build-initramfs.sh" "$kver"
if needs display_build_chakrad && [[ -z ${CHAKRAD:-} ]]; then
    echo "--- chakrad (release, $VM_BUILD/swift)"
    CHAKRAD=$(prepared_binary display_build_chakrad CHAKRAD) || vm_die "chakrad did not build"
fi
if needs display_build_chakractl && [[ -z ${CHAKRACTL:-} ]]; then
    echo "--- chakractl (release, $VM_BUILD/swift)"
    CHAKRACTL=$(prepared_binary display_build_chakractl CHAKRACTL) || vm_die "chakractl did not build"
fi
if needs CHAKRA_TESTS && [[ -z ${CHAKRA_TESTS:-} ]]; then
    prepare tests "the tests (debug, .build)" swift build --build-tests
    CHAKRA_TESTS=$VM_REPO/.build/debug/ChakraPackageTests.xctest
fi
if needs vm_debian_package_path && [[ -z ${CHAKRA_DEB:-} ]] && ((EUID == 0)); then
    CHAKRA_DEB=$(vm_debian_package_path)
    [[ -s $CHAKRA_DEB ]] || prepare deb "the Debian package (make deb)" make deb
fi
# The arm64 one for 70-debian-arm64, where it can boot (a cross build in
# a Debian 13 root: 15-25 minutes the first time, both cores; here, not
# beside a lane's guest).
# (An arm64 package given as CHAKRA_DEB is taken for it.)
if [[ -z ${CHAKRA_DEB_ARM64:-} && -n ${CHAKRA_DEB:-} && $(dpkg-deb -f "$CHAKRA_DEB" Architecture 2>/dev/null) == arm64 ]]; then
    CHAKRA_DEB_ARM64=$CHAKRA_DEB
fi
if needs vm_debian_package_path_for && [[ -z ${CHAKRA_DEB_ARM64:-} ]] && ((EUID == 0)) && command -v qemu-system-aarch64 >/dev/null; then
    CHAKRA_DEB_ARM64=$(vm_debian_package_path_for arm64)
    [[ -s $CHAKRA_DEB_ARM64 ]] || prepare deb-arm64 "the arm64 Debian package (make deb ARCH=arm64)" make deb ARCH=arm64
fi
for variable in CHAKRAD CHAKRACTL CHAKRA_TESTS CHAKRA_DEB CHAKRA_DEB_ARM64; do
    if [[ -n ${!variable:-} ]]; then
        export "${variable?}"
        echo "$variable=${!variable}"
    fi
done

logs=$VM_BUILD/logs
mkdir -p "$logs"
declare -A case_of=() started_at=()
# Stops every running case: SIGTERM to its process group (the case, its
# run-guest.sh, the QMP watcher; run-guest.sh and 60-debian-systemd kill
# their QEMU, which timeout(1) keeps in a group of its own), SIGKILL to
# what is left of the groups after 30 s.
stop_lanes() {
    local signal=$1 pid tries alive=false
    trap '' INT TERM
    echo "chakra-vm: SIG$signal: stopping ${case_of[*]:-nothing}" >&2
    for pid in "${!case_of[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
    # (bash reaps its children as they end, so a group that answers has
    # a live process in it.)
    for ((tries = 0; tries < 300; tries++)); do
        alive=false
        for pid in "${!case_of[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=true; done
        $alive || break
        sleep 0.1
    done
    if $alive; then
        for pid in "${!case_of[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
    fi
    for pid in "${!case_of[@]}"; do
        wait "$pid" 2>/dev/null || true
        echo "chakra-vm: stopped ${case_of[$pid]} (its log: $logs/${case_of[$pid]}.log)" >&2
    done
    [[ $signal == INT ]] && exit 130
    exit 143
}
trap 'stop_lanes INT' INT
trap 'stop_lanes TERM' TERM

# Each case in a session of its own (setsid), so that stop_lanes can end
# its whole process group; stdin /dev/null, output to its log.
start_case() {
    local case=$1 name pid
    name=$(basename "$case" .sh)
    setsid "$case" </dev/null >"$logs/$name.log" 2>&1 &
    pid=$!
    case_of[$pid]=$name
    started_at[$pid]=$SECONDS
    echo "--- $(date +%T) started $name (log: $logs/$name.log)"
}

echo "=== ${#queue[@]} case(s), $jobs at a time$( ((jobs > 1)) && echo ', longest first')"
next=0
while ((next < ${#queue[@]} || ${#case_of[@]})); do
    while ((next < ${#queue[@]} && ${#case_of[@]} < jobs)); do
        start_case "${queue[next]}"
        next=$((next + 1))
    done
    status=0 done_pid=''
    wait -n -p done_pid "${!case_of[@]}" || status=$?
    [[ -n $done_pid ]] || continue
    name=${case_of[$done_pid]}
    seconds=$((SECONDS - started_at[$done_pid]))
    unset "case_of[$done_pid]" "started_at[$done_pid]"
    verdict "$name" "$status" "$seconds"
    echo "=== $name"
    cat "$logs/$name.log"
    echo "--- $(date +%T) $name: ${verdicts[$name]} in $seconds s"
    # Times of cases that ran to the end (a skip says nothing of them).
    ((status == 77)) || expected[$name]=$seconds
done
trap - INT TERM
wall=$((SECONDS - wall_started))

# The times for the next run's order: those of this run, and the last
# known ones of the cases not selected now.
for name in "${!expected[@]}"; do echo "$name ${expected[$name]}"; done | sort >"$times_file.new"
mv "$times_file.new" "$times_file"

minutes() { printf '%dm %02ds' $(($1 / 60)) $(($1 % 60)); }
busy=0
echo "=== summary (kernel $kver, $(qemu-system-x86_64 --version | head -n 1), $jobs lane(s))"
for name in selftest $(printf '%s\n' "${!verdicts[@]}" | grep -vx selftest | sort); do
    printf '%-5s %-28s %4ds%s\n' "${verdicts[$name]%% *}" "$name" "${took[$name]}" \
        "$([[ ${verdicts[$name]} == *' '* ]] && echo " ${verdicts[$name]#* }")"
    busy=$((busy + took[$name]))
done
echo "wall time $(minutes "$wall") (the cases' own times add up to $(minutes "$busy"))"
if ((failed)); then
    echo "$failed failed"
    exit 1
fi
echo "all passed"

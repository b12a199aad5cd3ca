#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser Chakra exposes to the outside:
# the configuration file, the string catalogues, the control protocol
# (line framer and request decoder), the touch tracker fed raw evdev
# event streams, and what comes back from the HDMI-CEC bus (fuzz-cec: the
# power sequence on a bus played from the fuzzer's bytes, on a virtual
# clock), the session log read from arbitrary bytes (fuzz-sessions), the
# state record a restarted chakrad reads back (fuzz-continuation) and the
# $LISTEN_* variables systemd passes descriptors with (fuzz-listen).
# Each target is a libFuzzer entry point in
# tests/fuzz/targets/<name>, built with AddressSanitizer by SwiftPM
# (CHAKRA_FUZZ=1 adds the targets to Package.swift) into .build-fuzz.
#
#   tests/fuzz/run.sh [seconds-per-target] [target...]
#
# Seeds: tests/fuzz/corpus/<name> (committed, small). What the fuzzer
# learns goes to a working corpus outside the clone
# (~/.cache/chakra-fuzz/<name>), so later runs start from it; a crash is
# written to out/fuzz/<name>/ and fails the run. Leak detection is on: a
# leak is a bug for a daemon that runs for months.
#
# The targets are built one after another, then fuzzed CHAKRA_FUZZ_JOBS at
# a time (default 2 on a machine with 2 cores or more, else 1: a libFuzzer
# process is single-threaded, so two keep 2 cores busy), each for the
# whole of its seconds; a target's lines are printed when it ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz-config fuzz-catalog fuzz-control fuzz-touch fuzz-cec fuzz-sessions fuzz-continuation fuzz-listen)
scratch=.build-fuzz
work=${CHAKRA_CACHE:-$HOME/.cache}/chakra-fuzz

for target in "${targets[@]}"; do
    [[ -d tests/fuzz/targets/$target ]] || { echo "no fuzz target '$target' (tests/fuzz/targets)" >&2; exit 2; }
    # --sanitize=fuzzer instruments only the target's own module; the
    # coverage flag instruments the libraries it calls too (inline 8-bit
    # counters: the form today's libFuzzer reads).
    CHAKRA_FUZZ=1 swift build -c release --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --product "$target" 2>&1 | grep -E 'error|Compiling|Build' | grep -v 'ld.gold: warning' || true
    [[ -x $scratch/release/$target ]] || { echo "$target did not build" >&2; exit 1; }
done

jobs=${CHAKRA_FUZZ_JOBS:-}
if [[ -z $jobs ]]; then
    jobs=1
    [[ $(nproc) -ge 2 ]] && jobs=2
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "CHAKRA_FUZZ_JOBS takes a whole number from 1" >&2; exit 2; }

# fuzz TARGET: one libFuzzer run, its output in out/fuzz/TARGET/fuzz.log;
# its status is the fuzzer's.
fuzz() {
    local target=$1 corpus=$work/$1 artifacts=out/fuzz/$1
    # SWIFT_BACKTRACE: the Swift runtime's crash handler and ASan's fight
    # over a crashing process; ASan reports.
    # The working corpus first: new inputs are written there, never into
    # the committed seeds.
    SWIFT_BACKTRACE=enable=no exec "$scratch/release/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "tests/fuzz/corpus/${target#fuzz-}" >"$artifacts/fuzz.log" 2>&1
}

# What one target found, printed whole when it ends: report TARGET STATUS.
report() {
    local target=$1 status=$2 artifacts=out/fuzz/$1
    echo "== $target: ${seconds}s"
    grep -E '^#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss|SUMMARY|ERROR|Fatal error' "$artifacts/fuzz.log" | tail -6 || true
    if [[ $status != 0 ]]; then
        echo "$target: FAILED (status $status); the input is in $artifacts/, the log in $artifacts/fuzz.log" >&2
        failed+=("$target")
    fi
}

failed=()
declare -A running=()
# Ctrl-C or SIGTERM: the running fuzzers go too.
stop() {
    trap '' INT TERM
    [[ ${#running[@]} -eq 0 ]] || kill -TERM "${!running[@]}" 2>/dev/null || true
    wait || true
    exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM
next=0
while [[ $next -lt ${#targets[@]} || ${#running[@]} -gt 0 ]]; do
    while [[ $next -lt ${#targets[@]} && ${#running[@]} -lt $jobs ]]; do
        target=${targets[next]}
        next=$((next + 1))
        mkdir -p "$work/$target" "out/fuzz/$target"
        fuzz "$target" &
        running[$!]=$target
    done
    status=0 done_pid=''
    wait -n -p done_pid "${!running[@]}" || status=$?
    [[ -n $done_pid ]] || continue
    target=${running[$done_pid]}
    unset "running[$done_pid]"
    report "$target" "$status"
done
trap - INT TERM
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzzing found bugs in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzzing: ${#targets[@]} targets, ${seconds}s each, no crash, leak or hang"

#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser Chakra exposes to the outside:
# the configuration file, the string catalogues, the control protocol
# (line framer and request decoder), the touch tracker fed raw evdev
# event streams, and what comes back from the HDMI-CEC bus (fuzz-cec: the
# power sequence on a bus played from the fuzzer's bytes, on a virtual
# clock), and the session log read from arbitrary bytes (fuzz-sessions).
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
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz-config fuzz-catalog fuzz-control fuzz-touch fuzz-cec fuzz-sessions)
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

failed=()
for target in "${targets[@]}"; do
    corpus=$work/$target
    artifacts=out/fuzz/$target
    mkdir -p "$corpus" "$artifacts"
    log=$artifacts/fuzz.log
    echo "== $target: ${seconds}s"
    status=0
    # SWIFT_BACKTRACE: the Swift runtime's crash handler and ASan's fight
    # over a crashing process; ASan reports.
    # The working corpus first: new inputs are written there, never into
    # the committed seeds.
    SWIFT_BACKTRACE=enable=no "$scratch/release/$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "tests/fuzz/corpus/${target#fuzz-}" >"$log" 2>&1 || status=$?
    grep -E '^#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss|SUMMARY|ERROR|Fatal error' "$log" | tail -6 || true
    if [[ $status != 0 ]]; then
        echo "$target: FAILED (status $status); the input is in $artifacts/, the log in $log" >&2
        failed+=("$target")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzzing found bugs in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzzing: ${#targets[@]} targets, ${seconds}s each, no crash, leak or hang"

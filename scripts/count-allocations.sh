#!/usr/bin/env bash
# Heap allocations per rendered frame, measured with valgrind: the same
# benchmark run for 10 and for 40 frames; the difference in malloc counts,
# divided by 30, is what one frame allocates. The render loop must show 0.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
scene=${1:-heart}
# valgrind 3.19 cannot read the DWARF 5 that clang gives the C++ of a
# dependency (TOMLKit's toml++): count on a copy without debug sections
# (the symbol table stays, so reports still name functions).
binary=$(mktemp)
trap 'rm -f "$binary"' EXIT
strip --strip-debug -o "$binary" .build/release/chakrad
count() {
    valgrind --tool=memcheck --leak-check=no "$binary" bench --scene "$scene" --size 320x240 \
        --threads "$1" --frames "$2" 2>&1 | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}
status=0
for threads in 1 2; do
    few=$(count "$threads" 10); many=$(count "$threads" 40)
    per_frame=$(( (many - few) / 30 ))
    echo "$scene, $threads thread(s): $few allocations for 10 frames, $many for 40: $per_frame per frame"
    # Setup itself varies by a few allocations from run to run (thread
    # start-up); one allocation per frame would add 30.
    (( many - few <= 8 && few - many <= 8 )) || status=1
done
exit $status

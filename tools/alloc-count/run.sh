#!/usr/bin/env bash
# Heap allocations per frame without valgrind: the same benchmark for 10 and
# for 100 frames under an LD_PRELOAD malloc counter; equal counts (give or
# take a few from set-up, whose hash tables are seeded per process) mean
# the frames allocate nothing.   usage: tools/alloc-count/run.sh SCENE [bench options]
set -euo pipefail
cd "$(dirname "$0")/../.."
scene=${1:-heart}; shift || true
lib=${TMPDIR:-/tmp}/chakra-alloc-count.so
cc -shared -fPIC -O2 -o "$lib" tools/alloc-count/count.c -ldl
for frames in 10 100; do
    echo -n "$scene, $frames frames: "
    LD_PRELOAD=$lib .build/release/chakrad bench --scene "$scene" --size 320x240 --threads 1 --frames "$frames" "$@" 2>&1 | grep ALLOCS
done

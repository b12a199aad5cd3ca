#!/usr/bin/env bash
# The renderer's and the scenes' unit tests on arm64: ChakraRaster,
# ChakraMotion, ChakraScenes, ChakraSpiral and ChakraText with their tests
# (Package.swift's CHAKRA_TESTS=renderer), built for aarch64 by Debian 13's
# Swift 6.0.3 in the arm64 build root (scripts/arm64/toolchain.sh makes it,
# cached) and run under qemu-aarch64 with Swift Testing. So the code builds
# with both compilers, and what the renderer checks about its frames
# (Chromium references, SIMD lanes, blur, coverage) holds on the other
# architecture too, NEON paths included.
#   tests/arm64/unit-tests.sh [TESTING-ARGUMENT...]   (e.g. --filter Heart)
# $SCRATCH: the build directory (default .build-arm64-tests). Needs root.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${SCRATCH:-.build-arm64-tests}
# Release, with testable imports (-enable-testing: 6.0.3's swift build has
# no --enable-testable-imports): the renderer in debug is the slowest part
# of the native tests already, and under qemu-user several times so.
configuration=${CONFIGURATION:-release}
triple=aarch64-unknown-linux-gnu
runtime=/opt/chakra-arm64/swift/lib/swift/linux

started=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
scripts/arm64/toolchain.sh
build_started=$EPOCHREALTIME
scripts/arm64/in-root.sh env CHAKRA_TESTS=renderer PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig \
    swift build --build-tests -c "$configuration" -Xswiftc -enable-testing \
    --swift-sdk chakra-arm64 --scratch-path "$scratch"
echo "arm64 unit tests: built in $(since "$build_started") s" >&2
bundle=$scratch/$triple/$configuration/ChakraPackageTests.xctest
[[ -x $bundle ]] || { echo "arm64 unit tests: no test bundle at $bundle" >&2; exit 1; }
readelf -h "$bundle" | grep -q 'Machine: *AArch64' || { echo "arm64 unit tests: $bundle is not an aarch64 executable" >&2; exit 1; }

# In the root, whose arm64 libraries are its own (multiarch): the loader
# and libc as on a board; the Swift runtime from libswiftlang:arm64.
run_started=$EPOCHREALTIME
scripts/arm64/in-root.sh env LD_LIBRARY_PATH="$runtime" \
    qemu-aarch64 "$bundle" --testing-library swift-testing "$@"
echo "arm64 unit tests: run in $(since "$run_started") s under qemu-aarch64, $(since "$started") s in all" >&2

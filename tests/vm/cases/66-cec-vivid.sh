#!/usr/bin/env bash
# HDMI-CEC on a real kernel's CEC framework: vivid's emulated bus (its
# HDMI input's adapter plays the TV, its HDMI output's is chakra's side),
# one boot with --display none (66-cec-vivid.guest does the guest half;
# the TV is cec_tools.py in a second process). Checks:
#   - vivid's two adapters: cec0 at 0.0.0.0 (the input), cec1 at 1.0.0.0;
#   - CECController with the `auto` choice passes over cec0 (0.0.0.0 is a
#     TV's own side) and claims playback device 4 on cec1; off: Standby
#     reaches the TV, the TV's "in transition" answers are waited out,
#     and the report is confirmed by its Report Power Status; on: Image
#     View On, then Active Source with 1.0.0.0, confirmed likewise;
#   - a TV that never answers: both reports failed, "the TV did not answer
#     Give Device Power Status"; one that answers Feature Abort: unchecked
#     with the reason; no TV on the bus: "the TV did not acknowledge
#     Standby" / "Image View On";
#   - chakrad (headless, `[display] cec = "/dev/cec1"`) once it drives CEC:
#     `chakractl display off` brings Standby to the TV and status says
#     display_check confirmed with "cec: CEC Standby confirmed (TV reports
#     standby)"; `display on` brings Image View On and Active Source,
#     confirmed; with the TV gone, off is failed, "the TV did not
#     acknowledge Standby". Skipped (with a line saying so) while
#     Sources/ChakraDaemon does not use CECController.
# CECController runs through the test binary (its real-adapter test is
# skipped unless CHAKRA_CEC_DEVICE is set): $CHAKRA_TESTS, or a debug
# `swift build --build-tests` here.
# Skipped (77) where the guest kernel has no vivid with CEC.
set -euo pipefail
# shellcheck source=tests/vm/cases/display-host.bash
source "$(dirname "$0")/display-host.bash"
vm_require
kver=$(vm_kernel_version)
if ! vm_modprobe -S "$kver" --show-depends vivid >/dev/null 2>&1 ||
    ! grep -qs '^CONFIG_VIDEO_VIVID_CEC=y' "/boot/config-$kver"; then
    echo "skipped: kernel $kver has no vivid module with CEC (CONFIG_VIDEO_VIVID_CEC)"
    exit 77
fi
if [[ -z ${CHAKRA_TESTS:-} ]]; then
    echo "building the tests (debug, .build)"
    (cd "$VM_REPO" && swift build --build-tests >"$VM_BUILD/swift-build-tests.log" 2>&1) ||
        vm_die "swift build --build-tests failed: see $VM_BUILD/swift-build-tests.log"
    CHAKRA_TESTS=$VM_REPO/.build/debug/ChakraPackageTests.xctest
fi
[[ -x $CHAKRA_TESTS ]] || vm_die "CHAKRA_TESTS=$CHAKRA_TESTS is not an executable"
# The daemon's half once FrameLoop drives CECController (or when
# CHAKRA_CEC_DAEMON=1 says the given CHAKRAD does).
if [[ ${CHAKRA_CEC_DAEMON:-} == 1 ]] || grep -q CECController "$VM_REPO"/Sources/ChakraDaemon/*.swift; then
    display_build_chakrad
    display_build_chakractl
    export CHAKRA_CEC_DAEMON=1
fi
CHAKRAD=${CHAKRAD:-}

dir=$(vm_results_dir)
run_case_guest "$dir" --display none --timeout 300 -- env CHAKRA_TESTS="$CHAKRA_TESTS" CHAKRACTL="${CHAKRACTL:-}" \
    CHAKRA_CEC_DAEMON="${CHAKRA_CEC_DAEMON:-}" tests/vm/cases/66-cec-vivid.guest
vm_finish

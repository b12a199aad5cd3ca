# shellcheck shell=bash
# Sourced by the host halves of the display cases (10-*.sh ... 50-*.sh):
# the release chakrad the guests run, references from `chakrad render`,
# and image checks.
# shellcheck source=tests/vm/lib/case.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/case.sh"
TOOLS=(python3 "$VM_DIR/cases/display_tools.py")

# The binary the guests run: $CHAKRAD, or a release build in .build-vm
# (the guest sees the host's root, so the host-built binary runs there).
display_build_chakrad() {
    if [[ -n ${CHAKRAD:-} ]]; then
        [[ -x $CHAKRAD ]] || vm_die "CHAKRAD=$CHAKRAD is not an executable"
        return
    fi
    local scratch=$VM_BUILD/swift
    echo "building chakrad (release, $scratch)"
    swift build -c release --scratch-path "$scratch" --product chakrad >"$VM_BUILD/swift-build.log" 2>&1 ||
        vm_die "swift build failed: see $VM_BUILD/swift-build.log"
    CHAKRAD=$scratch/release/chakrad
    export CHAKRAD
}

# The chakractl the guests run: $CHAKRACTL, else a release build in
# .build-vm.
display_build_chakractl() {
    if [[ -n ${CHAKRACTL:-} ]]; then
        [[ -x $CHAKRACTL ]] || vm_die "CHAKRACTL=$CHAKRACTL is not an executable"
        return
    fi
    # Built every time (a no-op when nothing changed): a chakractl left from
    # an older build would not know newer commands.
    echo "building chakractl (release, $VM_BUILD/swift)"
    swift build -c release --scratch-path "$VM_BUILD/swift" --product chakractl >"$VM_BUILD/swift-build-ctl.log" 2>&1 ||
        vm_die "swift build failed: see $VM_BUILD/swift-build-ctl.log"
    CHAKRACTL=$VM_BUILD/swift/release/chakractl
    export CHAKRACTL
}

# reference OUT SIZE TIME [ROTATION] [render options...]: the scene as
# `chakrad render` draws it, turned like the panel (an independent
# rotation in Python) when ROTATION is not 0.
reference() {
    local out=$1 size=$2 time=$3 rotation=${4:-0}
    shift 4 || shift $#
    local frame=$size
    if ((rotation == 90 || rotation == 270)); then frame=${size#*x}x${size%x*}; fi
    "$CHAKRAD" render --scene heart --time "$time" --size "$frame" "$@" -o "$out.unrotated.png" >/dev/null
    if ((rotation == 0)); then
        mv "$out.unrotated.png" "$out"
    else
        "${TOOLS[@]}" rotate "$out.unrotated.png" "$out" "$rotation"
    fi
}

# same_image WHAT SHOT REFERENCE [compare-images options]: the screendump
# equals the reference up to dithering (default: ≤ 2 levels, ≤ 1% pixels).
same_image() {
    local what=$1 shot=$2 reference=$3 report
    shift 3
    local options=("$@")
    ((${#options[@]})) || options=(--tolerance 2 --max-bad-fraction 0.01)
    if [[ ! -e $shot ]]; then
        vm_fail "$what: no screendump $shot"
        return
    fi
    if report=$(python3 "$COMPARE_IMAGES" "$shot" "$reference" "${options[@]}" --diff "${shot%.*}-diff.png"); then
        vm_pass "$what: screen = reference ($report)"
    else
        vm_fail "$what: screen ≠ reference ($report; see ${shot%.*}-diff.png)"
    fi
}

# changed_image WHAT SHOT EARLIER: the screen moved on since EARLIER (over
# 1% of the pixels changed by more than 8 levels): frames reach the screen.
changed_image() {
    local what=$1 shot=$2 earlier=$3 report
    if [[ ! -e $shot || ! -e $earlier ]]; then
        vm_fail "$what: no screendump $shot or $earlier"
        return
    fi
    # Changed at all, not changed a lot: a screen that stopped following
    # the frames does not change one pixel, while the heart between two
    # dumps a second apart may move little (572 of 307,200 pixels in a
    # CI run that failed on a 1 % threshold).
    if report=$(python3 "$COMPARE_IMAGES" "$shot" "$earlier" --tolerance 8 --max-bad-fraction 0.0002 2>&1); then
        vm_fail "$what: the screen did not change ($report)"
    else
        vm_pass "$what ($report)"
    fi
}

# different_image WHAT SHOT REFERENCE: the screen is clearly not the
# reference (another size, or a mean difference over 10 levels).
different_image() {
    local what=$1 shot=$2 reference=$3 report mean
    if [[ ! -e $shot ]]; then
        vm_fail "$what: no screendump $shot"
        return
    fi
    report=$(python3 "$COMPARE_IMAGES" "$shot" "$reference" 2>&1 | head -n 1) || true
    mean=$(sed -n 's/.*mean |delta| \([0-9.]*\).*/\1/p' <<<"$report")
    if [[ -z $mean ]] || python3 -c "import sys; sys.exit(0 if float('$mean') > 10 else 1)"; then
        vm_pass "$what (${report:-size differs})"
    else
        vm_fail "$what: the screen still looks like the reference ($report)"
    fi
}

# guest_checks DIR: the ok/FAIL lines the guest half printed.
guest_checks() {
    grep -E '^(ok|FAIL): ' "$1/guest.log" || true
    if grep -q '^FAIL: ' "$1/guest.log"; then vm_failures=$((vm_failures + $(grep -c '^FAIL: ' "$1/guest.log"))); fi
}

# run_case_guest DIR RUN-GUEST-OPTIONS... -- GUEST-SCRIPT ARGS: boots the
# guest with CHAKRAD in its environment; its output in DIR/guest.log.
run_case_guest() {
    local dir=$1 status=0 options=()
    shift
    while (($#)) && [[ $1 != -- ]]; do options+=("$1"); shift; done
    shift
    "$RUN_GUEST" --results "$dir" "${options[@]}" -- env CHAKRAD="$CHAKRAD" "$@" >"$dir/guest.log" 2>&1 || status=$?
    guest_checks "$dir"
    if ((status != 0)); then
        vm_fail "guest exited with status $status (log: $dir/guest.log)"
        tail -n 20 "$dir/guest.log" | sed 's/^/    /'
    fi
}

# window_rates DIR NAME: the frame rate of each window rate_windows
# copied (NAME-0.stats, NAME-1.stats, ...), one a line.
window_rates() {
    local dir=$1 name=$2 n
    for ((n = 1; n < 100; n++)); do
        [[ -e $dir/$name-$n.stats ]] || break
        "${TOOLS[@]}" rate "$dir/$name-$((n - 1)).stats" "$dir/$name-$n.stats"
    done
}

# check_window_rates WHAT DIR NAME LOW HIGH: the best window at LOW or
# more (what the pacing reaches), every window at HIGH or less (never
# faster); Python expressions.
check_window_rates() {
    local what=$1 dir=$2 name=$3 low=$4 high=$5 rates best
    rates=$(window_rates "$dir" "$name" | paste -sd ' ' -)
    best=$(tr ' ' '\n' <<<"$rates" | sort -g | tail -n 1)
    if [[ -n $best ]] && display_within "$best" "$low" "$high" &&
        python3 -c "import sys; sys.exit(0 if all(float(r) <= $high for r in sys.argv[1].split()) else 1)" "$rates"; then
        vm_pass "$what: best window $best/s, none over $(python3 -c "print(round($high, 1))") (windows: $rates)"
    else
        vm_fail "$what: best window ${best:-?}/s, wanted $(python3 -c "print(round($low, 1))")-$(python3 -c "print(round($high, 1))") (windows: ${rates:-none})"
    fi
}

# display_check_rates DIR: flips-N.stats (undrawn, rate_windows) at the
# display's refresh: no window above it (the pacing under test: these
# drivers complete flips at once), and the best window not far below (85%:
# under emulation a busy host can delay a flip's round trip through QEMU);
# capped-N.stats (if any) at 20/s; moving.stats animating.
display_check_rates() {
    local dir=$1 refresh moving
    refresh=$(sed -n 's/^output=.* 640x480@\([0-9.]*\) .*/\1/p' "$dir/flips.stats")
    moving=$("${TOOLS[@]}" rate "$dir/moving-a.stats" "$dir/moving-b.stats")
    echo "display ${refresh:-?} Hz: $(window_rates "$dir" flips | paste -sd ' ' -) flips/s undrawn; the heart drawn under emulation: ${moving} fps"
    if [[ -n $refresh ]]; then
        check_window_rates "flips at the display's refresh ($refresh Hz)" "$dir" flips "$refresh * 0.85" "$refresh * 1.02"
    else
        vm_fail "no refresh rate in $dir/flips.stats"
    fi
    if [[ -e $dir/capped-0.stats ]]; then
        check_window_rates "--fps 20" "$dir" capped 19 20.5
    fi
    if [[ -n $refresh ]] && display_within "$moving" 0.5 "$refresh * 1.02"; then
        vm_pass "the heart animates ($moving fps under emulation)"
    else
        vm_fail "the heart at $moving fps"
    fi
}

# display_within VALUE LOW HIGH (Python expressions).
display_within() {
    python3 -c "import sys; sys.exit(0 if $2 <= float('$1') <= $3 else 1)"
}

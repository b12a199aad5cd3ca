#!/usr/bin/env bash
# Runs the VM integration tests: selftest.sh (host only), then every
# tests/vm/cases/*.sh in name order, and prints a summary. A case exits 0
# to pass, 77 to skip, anything else to fail; so does this script overall
# (0 when nothing failed).
#   tests/vm/run-all.sh [WORD...]     only the cases whose names contain a WORD
#
# Without QEMU or a guest kernel the tests are skipped (status 0), unless
# they can be installed: with CI set, or as root on Debian with apt-get,
# scripts/install-deps.sh installs them first. With CI set, anything still
# missing is a failure, so CI cannot pass by skipping.
set -euo pipefail
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "$0")/lib/common.sh"
cd "$VM_REPO"

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
    if (($#)); then
        selected=false
        for word in "$@"; do [[ $name == *"$word"* ]] && selected=true; done
        $selected || continue
    fi
    cases+=("$case")
done

summary=() failed=0
run() {
    local name=$1 status=0 started=$SECONDS verdict=PASS detail=''
    shift
    echo "=== $name"
    "$@" || status=$?
    case $status in
        0) ;;
        77) verdict=SKIP ;;
        *) verdict=FAIL detail=" (status $status)"; failed=$((failed + 1)) ;;
    esac
    summary+=("$(printf '%-5s %-28s %4ds' "$verdict" "$name" $((SECONDS - started)))$detail")
}

run selftest tests/vm/selftest.sh
for case in "${cases[@]}"; do
    run "$(basename "$case" .sh)" "$case"
done

echo "=== summary (kernel $(vm_kernel_version), $(qemu-system-x86_64 --version | head -n 1))"
printf '%s\n' "${summary[@]}"
if ((failed)); then
    echo "$failed failed"
    exit 1
fi
echo "all passed"

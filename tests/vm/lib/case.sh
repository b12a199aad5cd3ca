# shellcheck shell=bash disable=SC2034 # (its variables are for the scripts that source it)
# Sourced by the cases in tests/vm/cases/: the small vocabulary they share.
# A case is a host-side script: exit 0 pass, 77 skip, anything else fail.
# shellcheck source=tests/vm/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

RUN_GUEST=$VM_DIR/run-guest.sh
COMPARE_IMAGES=$VM_DIR/compare-images.py

# Skips the case (exit 77) when no guest can be booted here.
vm_require() {
    local missing
    missing=$(vm_missing_prerequisites)
    if [[ -n $missing ]]; then
        echo "skipped: missing ${missing//$'\n'/, }"
        exit 77
    fi
}

# A fresh results directory for this case (or one part of it), under
# .build-vm/results/CASE[/PART]; prints its path. (PART is optional.)
# shellcheck disable=SC2120
vm_results_dir() {
    local dir
    dir=$VM_BUILD/results/$(basename "$0" .sh)${1:+/$1}
    rm -rf "$dir"
    mkdir -p "$dir"
    echo "$dir"
}

# The file `screendump NAME` wrote: NAME.png or NAME.ppm.
vm_screendump_path() {
    local dir=$1 name=$2 extension
    for extension in png ppm; do
        [[ -e $dir/$name.$extension ]] && { echo "$dir/$name.$extension"; return; }
    done
    echo "no screendump '$name' in $dir" >&2
    return 1
}

vm_failures=0
vm_pass() { echo "ok: $*"; }
vm_fail() { echo "FAIL: $*"; vm_failures=$((vm_failures + 1)); }
# Ends the case: status 1 when any vm_fail was recorded.
vm_finish() {
    if ((vm_failures)); then
        echo "$vm_failures check(s) failed"
        exit 1
    fi
    exit 0
}

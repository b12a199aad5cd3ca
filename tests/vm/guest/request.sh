# shellcheck shell=bash
# Sourced by the guest helpers qmp and screendump: one request to the host's
# qmp-watcher.py through the results share, and its reply (see that file
# for the protocol). The guest cannot reach QEMU's QMP socket itself.

# vm_request JSON: prints the reply's payload; status 0 if the host says
# "ok", 1 if "error", 2 if there is no harness or no reply in time.
vm_request() {
    local json=$1 timeout=${CHAKRA_VM_QMP_TIMEOUT:-60}
    local vm=${CHAKRA_RESULTS:-}/.vm
    if [[ -z ${CHAKRA_RESULTS:-} || ! -d $vm/requests ]]; then
        echo "${0##*/}: not inside a guest of tests/vm/run-guest.sh (no \$CHAKRA_RESULTS/.vm/requests)" >&2
        return 2
    fi
    # Builtins where possible: every exec costs tens of milliseconds on TCG.
    local id=${EPOCHREALTIME/./}-$$-$RANDOM reply deadline=$((SECONDS + timeout))
    reply=$vm/replies/$id
    # Renamed into place so the watcher never reads half a request.
    printf '%s\n' "$json" >"$vm/requests/$id.tmp"
    mv "$vm/requests/$id.tmp" "$vm/requests/$id.json"
    until [[ -e $reply ]]; do
        if ((SECONDS >= deadline)); then
            rm -f "$vm/requests/$id.json"
            echo "${0##*/}: no reply from the host's QMP watcher in ${timeout}s (request $id)" >&2
            return 2
        fi
        sleep 0.05
    done
    local lines
    mapfile -t lines <"$reply"
    rm -f "$reply"
    printf '%s\n' "${lines[@]:1}"
    [[ ${lines[0]} == ok ]]
}

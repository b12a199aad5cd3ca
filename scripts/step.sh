#!/usr/bin/env bash
# One named step of `make test`, timed: runs COMMAND, prints the step's wall
# time when it ends and appends "NAME SECONDS STATUS" to FILE. When a step
# fails, the table of the steps so far follows, and its status is passed on.
#   scripts/step.sh FILE NAME COMMAND [ARGS...]
#   scripts/step.sh FILE --table          the table of the steps in FILE
set -uo pipefail

file=${1:?usage: step.sh FILE NAME COMMAND... | step.sh FILE --table}
shift

minutes() { printf '%dm %02ds' $(($1 / 60)) $(($1 % 60)); }

table() {
    local name seconds status total=0
    echo "=== steps"
    while read -r name seconds status; do
        printf '%-12s %9s%s\n' "$name" "$(minutes "$seconds")" "$( ((status == 0)) || echo "  FAILED (status $status)")"
        total=$((total + seconds))
    done <"$file"
    printf '%-12s %9s\n' total "$(minutes "$total")"
}

if [[ ${1:-} == --table ]]; then
    [[ -s $file ]] && table
    exit 0
fi
name=${1:?usage: step.sh FILE NAME COMMAND...}
shift
(($#)) || { echo "step.sh: no command for step $name" >&2; exit 2; }
mkdir -p "$(dirname "$file")"
echo "=== step $name: $*"
started=$SECONDS
status=0
"$@" || status=$?
seconds=$((SECONDS - started))
echo "$name $seconds $status" >>"$file"
if ((status == 0)); then
    echo "=== step $name: $(minutes "$seconds")"
else
    echo "=== step $name: FAILED (status $status) after $(minutes "$seconds")"
    table
fi
exit "$status"

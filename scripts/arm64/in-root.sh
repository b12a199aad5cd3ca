#!/usr/bin/env bash
# Runs a command in the arm64 build root that scripts/arm64/toolchain.sh
# made ($CHAKRA_ARM64_CACHE, default ~/.cache/chakra-arm64, /root), as
# root, in the repository, and in a mount namespace of its own: the root's
# /proc, /dev and an empty /tmp, the repository at its own path (so that
# the build's -file-prefix-map and the checks see the paths they see
# outside), and, read-only, the local directories that git's
# url.<base>.insteadOf rules point at (the Swift package copies), with the
# same rules given to git inside. The mounts go away with the command.
#   scripts/arm64/in-root.sh COMMAND [ARG...]
# The environment inside is HOME, PATH, LANG, TERM, SOURCE_DATE_EPOCH and
# DEB_BUILD_OPTIONS, and what COMMAND sets (`env NAME=VALUE ...`).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=${CHAKRA_ARM64_CACHE:-$HOME/.cache/chakra-arm64}
root=$cache/root
(($#)) || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
((EUID == 0)) || { echo "in-root.sh: needs root (chroot, mounts); run it with sudo" >&2; exit 1; }
[[ -f $root/.chakra-arm64-stamp ]] || { echo "in-root.sh: no build root in $cache (scripts/arm64/toolchain.sh makes it)" >&2; exit 1; }
# Shared: toolchain.sh, which replaces the root, waits for it.
exec 9>"$cache/lock"
flock -s 9

repository=$(pwd -P)
environment=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM="${TERM:-dumb}")
for name in SOURCE_DATE_EPOCH DEB_BUILD_OPTIONS; do
    [[ -n ${!name:-} ]] && environment+=("$name=${!name}")
done
declare -A bound=()
directories=()
count=0
while read -r key value; do
    environment+=("GIT_CONFIG_KEY_$count=$key" "GIT_CONFIG_VALUE_$count=$value")
    count=$((count + 1))
    base=${key#url.}
    base=${base%.insteadof}
    base=${base%/}
    if [[ $base == /* && -d $base && -z ${bound[$base]:-} ]]; then
        bound[$base]=1
        directories+=("$base")
    fi
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
environment+=("GIT_CONFIG_COUNT=$count")

exec unshare --mount --propagation private -- /bin/bash -euc '
    root=$1 repository=$2 ndirectories=$3 nenvironment=$4
    shift 4
    directories=("${@:1:ndirectories}")
    shift "$ndirectories"
    environment=("${@:1:nenvironment}")
    shift "$nenvironment"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
    mkdir -p "$root$repository"
    mount --bind "$repository" "$root$repository"
    for directory in "${directories[@]}"; do
        mkdir -p "$root$directory"
        mount --bind "$directory" "$root$directory"
        mount -o remount,bind,ro "$root$directory"
    done
    exec chroot "$root" /usr/bin/env -i "${environment[@]}" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$repository" "$@"
' in-root "$root" "$repository" "${#directories[@]}" "${#environment[@]}" "${directories[@]}" "${environment[@]}" "$@"

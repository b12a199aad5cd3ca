#!/usr/bin/env bash
# Checks that release binaries can run on a kiosk that has no Swift
# toolchain: every shared library they need is one Debian ships (no
# libswiftCore, no Foundation), they carry no RPATH/RUNPATH, every library
# resolves outside the toolchain's directory, and no string in them names
# the build machine's directories (the repository, the toolchain). (The
# Swift runtime's own assertion messages name the source files of the
# machine that built the toolchain, /home/build-user/...: those are in
# every static Swift binary and say nothing about this machine.) Prints
# each binary's size, stripped and as built. Binaries of another
# architecture (arm64, from `make deb ARCH=arm64`) are checked the same way
# with that architecture's loader and binutils (aarch64-linux-gnu-strip,
# -nm, where installed), and their libraries resolved by their own loader
# under qemu-aarch64 where that and the arm64 libraries are installed.
#   scripts/check-release-binaries.sh [DIR]     (default .build/release)
# Exit status 0 when every check passes, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
dir=${1:-.build/release}
repository=$(pwd -P)
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc || command -v swift || echo /opt/swift/usr/bin/swift)")")")
# The run-time libraries a kiosk gets from Debian: libc6, libgcc-s1,
# libstdc++6 (TOMLKit's C++), libdrm2, libevdev2, libpng16-16, libfreetype6;
# and the architecture's loader (below).
allowed='libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libdrm\.so\.2|libevdev\.so\.2|libpng16\.so\.16|libfreetype\.so\.6'
host_machine=$(LC_ALL=C readelf -h /bin/sh | sed -n 's/ *Machine: *//p')

failed=0 checked=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
for name in chakrad chakractl; do
    binary=$dir/$name
    [[ -x $binary ]] || { fail "$binary: not built"; continue; }
    checked=$((checked + 1))
    dynamic=$(LC_ALL=C readelf -d "$binary") || { fail "$binary: readelf failed"; continue; }
    # The architecture: its loader (the program interpreter Debian's libc6
    # puts there), and binutils that know its relocations.
    machine=$(LC_ALL=C readelf -h "$binary" | sed -n 's/ *Machine: *//p')
    case $machine in
        *X86-64) loader=/lib64/ld-linux-x86-64.so.2 tools= qemu= ;;
        AArch64) loader=/lib/ld-linux-aarch64.so.1 tools=aarch64-linux-gnu- qemu=qemu-aarch64 ;;
        *) fail "$name is for $machine, an architecture this check does not know"; continue ;;
    esac
    command -v "${tools}strip" >/dev/null || tools=
    interpreter=$(LC_ALL=C readelf -l "$binary" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
    [[ $interpreter == "$loader" ]] || fail "$name's program interpreter is '$interpreter', not $machine's $loader"
    while read -r library; do
        [[ $library =~ ^($allowed|${loader##*/})$ ]] || fail "$name needs $library, which is not one of Debian's base libraries"
    done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic")
    grep -Eq '\((RPATH|RUNPATH)\)' <<<"$dynamic" &&
        fail "$name has a library search path: $(grep -E '\((RPATH|RUNPATH)\)' <<<"$dynamic" | sed 's/.*\[\(.*\)\]/\1/')"
    # Where each library resolves on this machine: never the toolchain.
    # Another architecture's binaries are listed by their own loader under
    # QEMU's user mode, where both are installed (the arm64 build root).
    if [[ $machine == "$host_machine" ]]; then
        resolve=(ldd "$binary")
    elif [[ -n $qemu ]] && command -v "$qemu" >/dev/null && [[ -e $loader ]]; then
        resolve=("$qemu" "$loader" --list "$binary")
    else
        resolve=()
        echo "($name: libraries not resolved here: no $qemu or no $loader)"
    fi
    ((${#resolve[@]})) &&
    while read -r line; do
        [[ $line == *"$toolchain"* || $line == *"not found"* ]] && fail "$name: $line"
    done < <(env -u LD_LIBRARY_PATH "${resolve[@]}" 2>&1)
    # Foundation proper (swift-corelibs-foundation) carries ICU and its
    # locale data, 40 MB, for what a kiosk never does (locales, calendars,
    # formatters). FoundationEssentials, which TOMLKit and the argument
    # parser need, is enough: the symbol table as built tells which came in.
    symbols=$("${tools}nm" "$binary" 2>/dev/null | grep -Ec '\$s[A-Za-z0-9]*10Foundation|icudt[0-9]+_dat') &&
        fail "$name links Foundation proper or ICU's data ($symbols symbols; use FoundationEssentials or Glibc, see docs/packaging.md)"
    # chakractl reads its command line and JSON itself: no Foundation at
    # all, and a size for small boards (10 MB stripped; it was 15 MB with
    # swift-argument-parser, which links FoundationEssentials).
    if [[ $name == chakractl ]]; then
        symbols=$("${tools}nm" "$binary" 2>/dev/null | grep -c 'FoundationEssentials') &&
            fail "chakractl links FoundationEssentials ($symbols symbols): a dependency brought it in"
    fi
    # Paths of this machine in the bytes that ship (debug sections are
    # stripped from the package, so look at a stripped copy).
    stripped=$(mktemp)
    "${tools}strip" -o "$stripped" "$binary"
    for path in "$repository" "$toolchain"; do
        if LC_ALL=C grep -aq -- "$path/" "$stripped"; then
            fail "$name names $path: $(LC_ALL=C grep -ao -- "$path/[[:print:]]*" "$stripped" | head -n 3 | tr '\n' ' ')"
        fi
    done
    if [[ $name == chakractl ]] && (($(stat -c %s "$stripped") > 10000000)); then
        fail "chakractl is $(stat -c %s "$stripped") bytes stripped, more than 10 MB"
    fi
    awk -v name="$name" -v small="$(stat -c %s "$stripped")" -v built="$(stat -c %s "$binary")" -v needs="$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dynamic" | tr '\n' ' ')" \
        -v machine="$machine" 'BEGIN { printf "%-10s %5.1f MB stripped (%5.1f MB as built), %s, needs: %s\n", name, small / 1e6, built / 1e6, machine, needs }'
    rm -f "$stripped"
done
((checked)) || fail "no binaries in $dir"
echo "release binaries in $dir: $checked checked, $failed problem(s)"
((failed == 0))

#!/usr/bin/env bash
# Checks the Debian package that `make deb` wrote and the release binaries
# in it, on the host (the guest boot test, tests/vm/cases/60-*, installs
# it under systemd):
#   - scripts/check-release-binaries.sh passes on the release build, and
#     fails on a build that links the Swift runtime from the toolchain
#     (the debug build), so the check can catch what it is for;
#   - the package's name, version (scripts/version.sh) and architecture,
#     Depends computed by dpkg-shlibdeps plus fonts-dejavu-core, nothing
#     Swift;
#   - where each file lands, the conffiles, the maintainer scripts' steps,
#     the man pages;
#   - lintian: no error and no warning.
#   tests/packaging/run.sh [DEB] [RELEASE_DIR] [DEBUG_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
version=$(scripts/version.sh) || exit 1
architecture=$(dpkg --print-architecture)
deb=${1:-out/deb/chakra_${version}_$architecture.deb}
release=${2:-.build/release}
debug=${3:-.build/debug}
passed=0 failed=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok: $what"; else failed=$((failed + 1)); echo "FAIL: $what"; fi
}
[[ -s $deb ]] || { echo "no package at $deb (make deb)"; echo "packaging: 0 passed, 1 failed"; exit 1; }

check "the release binaries need nothing from the toolchain" scripts/check-release-binaries.sh "$release"
if [[ -x $debug/chakrad && -x $debug/chakractl ]]; then
    output=$(scripts/check-release-binaries.sh "$debug" 2>&1)
    check "the check refuses a binary that loads the toolchain's Swift runtime" \
        grep -q 'needs libswiftCore.so' <<<"$output"
else
    echo "(no debug build in $debug: the check's own test skipped)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -f "$deb" >"$work/control"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/files"
dpkg-deb -e "$deb" "$work/DEBIAN"
field() { sed -n "s/^$1: //p" "$work/control"; }
check "Package: chakra" test "$(field Package)" = chakra
check "Version is scripts/version.sh's ($version)" test "$(field Version)" = "$version"
check "Architecture is this machine's ($architecture)" test "$(field Architecture)" = "$architecture"
depends=$(field Depends)
for dependency in libc6 libdrm2 libevdev2 libpng16-16 libfreetype6 libstdc++6 fonts-dejavu-core; do
    check "Depends names $dependency" grep -Eq "(^|, )${dependency//+/\\+}( |,|$)" <<<"$depends"
done
check "Depends names nothing of Swift's" bash -c "! grep -qi swift <<<'$depends'"
for file in /usr/bin/chakrad /usr/bin/chakractl /lib/systemd/system/chakrad.service /lib/systemd/system/chakrad.socket /lib/systemd/system/chakra-console.service \
            /usr/lib/sysusers.d/chakra.conf /lib/udev/rules.d/90-chakra-backlight.rules /etc/chakra/chakra.toml \
            /etc/chakra/lang/en.toml /etc/chakra/lang/de.toml /usr/share/doc/chakra/copyright /usr/share/doc/chakra/README.md \
            /usr/share/man/man1/chakrad.1.gz /usr/share/man/man1/chakractl.1.gz; do
    check "ships $file" grep -qx "$file" "$work/files"
done
check "nothing under /usr/local, /opt or /home" bash -c "! grep -Eq '^/(usr/local|opt|home)/' '$work/files'"
check "chakra.toml is a conffile (an operator's edits survive upgrades)" grep -qx /etc/chakra/chakra.toml "$work/DEBIAN/conffiles"
check "postinst makes the user before it starts the service" \
    awk '/systemd-sysusers/ { user = NR } /deb-systemd-invoke .*chakrad.service/ { start = NR } END { exit !(user && start && user < start) }' "$work/DEBIAN/postinst"
check "postinst enables chakrad.service" grep -q "deb-systemd-helper enable 'chakrad.service'" "$work/DEBIAN/postinst"
check "postinst reloads udev's rules" grep -q "udevadm control --reload-rules" "$work/DEBIAN/postinst"
check "postinst does not enable the optional socket on a new install" \
    bash -c "! grep -q \"deb-systemd-invoke start 'chakrad.socket'\" '$work/DEBIAN/postinst'"
check "prerm stops chakrad.service on removal" grep -q "deb-systemd-invoke stop 'chakrad.service'" "$work/DEBIAN/prerm"
check "postrm removes /etc/chakra on purge" grep -q "rm -rf /etc/chakra" "$work/DEBIAN/postrm"
dpkg-deb -x "$deb" "$work/root"
check "the man pages are the binaries' help (chakrad: run, render, bench)" \
    bash -c "zcat '$work/root/usr/share/man/man1/chakrad.1.gz' | grep -q '^\.TH \"CHAKRAD\"' && zcat '$work/root/usr/share/man/man1/chakrad.1.gz' | grep -c '^\.SS' | grep -qx '[4-9]'"
check "chakractl's man page lists its commands (status, switch, spiral)" \
    bash -c "zcat '$work/root/usr/share/man/man1/chakractl.1.gz' | grep -q '^\.SS status' && zcat '$work/root/usr/share/man/man1/chakractl.1.gz' | grep -q '^\.SS switch' && zcat '$work/root/usr/share/man/man1/chakractl.1.gz' | grep -q '^\.SS spiral'"
check "the packaged chakrad and chakractl report the package's version" \
    bash -c "'$work/root/usr/bin/chakrad' --version | grep -qF '$version' && '$work/root/usr/bin/chakractl' --version | grep -qF '$version'"
check "the unit starts the packaged binary" grep -qx 'ExecStart=/usr/bin/chakrad run --config /etc/chakra/chakra.toml' \
    "$work/root/lib/systemd/system/chakrad.service"
if command -v lintian >/dev/null; then
    # Lintian refuses nothing as root, but says so on stderr.
    lintian --fail-on error,warning --suppress-tags hardening-no-fortify-functions "$deb" >"$work/lintian" 2>&1
    status=$?
    sed '/running with root privileges/d' "$work/lintian"
    check "lintian: no errors, no warnings" test "$status" = 0
else
    check "lintian is installed (scripts/install-deps.sh --test)" false
fi
echo "packaging: $passed passed, $failed failed"
((failed == 0))

#!/usr/bin/env bash
# `make install DESTDIR=...` lays out the expected files, with the unit
# templates filled in, an existing chakra.toml kept, and units that
# `systemd-analyze verify` accepts (where it is installed).
# BUILD_DIR names a directory with chakrad and chakractl (default .build/debug).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
BUILD_DIR=${BUILD_DIR:-.build/debug}
stage=$(mktemp -d /tmp/chakra-install-XXXXXX)
trap 'rm -rf "$stage"' EXIT
passed=0 failed=0
check() {   # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what" >&2; fi
}
mode() { stat -c %a "$1"; }

make -s install DESTDIR="$stage/usr-prefix" PREFIX=/usr BUILD_DIR="$BUILD_DIR" >/dev/null || { echo "make install failed" >&2; exit 1; }
root=$stage/usr-prefix
for f in usr/bin/chakrad usr/bin/chakractl; do
    check "$f is an executable (0755)" test "$(mode "$root/$f")" = 755
done
for f in usr/lib/systemd/system/chakrad.service usr/lib/systemd/system/chakrad.socket usr/lib/systemd/system/chakra-console.service usr/lib/sysusers.d/chakra.conf \
         usr/lib/udev/rules.d/90-chakra-backlight.rules usr/share/chakra/chakra.toml.example etc/chakra/chakra.toml etc/chakra/lang/en.toml etc/chakra/lang/de.toml \
         usr/share/doc/chakra/README.md usr/share/doc/chakra/protocol.md usr/share/doc/chakra/configuration.md; do
    check "$f is installed 0644" test "$(mode "$root/$f" 2>/dev/null)" = 644
done
check "the drop-in directory etc/chakra/chakra.toml.d is made, empty" bash -c "[[ -d '$root/etc/chakra/chakra.toml.d' && -z \$(ls -A '$root/etc/chakra/chakra.toml.d') ]]"
check "the installed chakrad runs" bash -c "'$root/usr/bin/chakrad' --help >/dev/null"
check "ExecStart points at the installed binary and config" \
    grep -qx 'ExecStart=/usr/bin/chakrad run --config /etc/chakra/chakra.toml' "$root/usr/lib/systemd/system/chakrad.service"
check "no template placeholder is left" bash -c "! grep -q '@[A-Z]*@' '$root'/usr/lib/systemd/system/*"
check "the example config is the repository's" cmp -s etc/chakra/chakra.toml "$root/etc/chakra/chakra.toml"
check "the service runs as chakra, not root" grep -qx 'User=chakra' "$root/usr/lib/systemd/system/chakrad.service"
check "sysusers makes the user" grep -q '^u *chakra' "$root/usr/lib/sysusers.d/chakra.conf"

# A second install keeps an edited configuration, and honours the default PREFIX.
echo 'reduce_motion = true' > "$root/etc/chakra/chakra.toml"
make -s install DESTDIR="$root" PREFIX=/usr BUILD_DIR="$BUILD_DIR" >/dev/null
check "an existing chakra.toml is kept" grep -qx 'reduce_motion = true' "$root/etc/chakra/chakra.toml"
make -s install DESTDIR="$stage/local" BUILD_DIR="$BUILD_DIR" >/dev/null
check "PREFIX defaults to /usr/local" test -x "$stage/local/usr/local/bin/chakractl"
check "units under /usr/local/lib/systemd/system name /usr/local/bin" \
    grep -q 'ExecStart=/usr/local/bin/chakrad' "$stage/local/usr/local/lib/systemd/system/chakrad.service"
check "the config stays in /etc" test -f "$stage/local/etc/chakra/chakra.toml"

if command -v systemd-analyze >/dev/null; then
    # The units as installed, with ExecStart= pointing into the stage (the
    # binary is not at /usr/bin on this machine).
    mkdir "$stage/verify"
    sed "s|=/usr/bin/chakrad|=$root/usr/bin/chakrad|" "$root/usr/lib/systemd/system/chakrad.service" > "$stage/verify/chakrad.service"
    cp "$root/usr/lib/systemd/system/chakrad.socket" "$root/usr/lib/systemd/system/chakra-console.service" "$stage/verify/"
    check "systemd-analyze verify accepts the units" \
        systemd-analyze verify --man=no "$stage/verify/chakrad.service" "$stage/verify/chakrad.socket" "$stage/verify/chakra-console.service"
else
    echo "systemd-analyze not installed: units not verified"
fi

echo "install test: $passed passed, $failed failed"
((failed == 0))

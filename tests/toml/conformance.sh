#!/usr/bin/env bash
# Runs Chakra's TOML reader against two public TOML test suites: toml-test
# (github.com/toml-lang/toml-test) and iarna's toml-spec-tests, as shipped
# inside the sdist of the Python package tomlkit (PyPI is where CI can
# fetch them from). The suites are cached outside the clone
# (~/.cache/chakra-toml-test); the checks are TOMLConformanceTests.
#
#   tests/toml/conformance.sh [scratch-path]
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=${1:-.build}
cache=${CHAKRA_CACHE:-$HOME/.cache}/chakra-toml-test
sdist=tomlkit-0.13.2

if [[ ! -d $cache/$sdist/tests/toml-test/tests ]]; then
    rm -rf "$cache" && mkdir -p "$cache/download"
    python3 -m pip download --quiet --no-deps --no-binary :all: "tomlkit==${sdist#tomlkit-}" -d "$cache/download"
    tar -xzf "$cache/download/$sdist.tar.gz" -C "$cache" "$sdist/tests/toml-test" "$sdist/tests/toml-spec-tests"
fi
# toml-spec-tests names its directories values/ and errors/.
spec=$cache/spec
if [[ ! -d $spec/valid ]]; then
    mkdir -p "$spec"
    cp -r "$cache/$sdist/tests/toml-spec-tests/values" "$spec/valid"
    cp -r "$cache/$sdist/tests/toml-spec-tests/errors" "$spec/invalid"
fi

for suite in "$cache/$sdist/tests/toml-test/tests" "$spec"; do
    echo "== TOML conformance: $suite"
    status=0
    output=$(CHAKRA_TOML_TEST=$suite swift test --scratch-path "$scratch" --skip-build --filter TOMLConformanceTests 2>&1) || status=$?
    grep -E '✘|✔ Test|↳ /|error' <<<"$output" || true
    if [[ $status != 0 ]]; then
        echo "TOML conformance failed on $suite" >&2
        exit 1
    fi
done

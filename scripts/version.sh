#!/usr/bin/env bash
# Prints Chakra's version. The one place it is written is
# ChakraVersion.current in Sources/ChakraControl/ControlProtocol.swift
# (what `chakrad --version`, `chakractl version` and the protocol report);
# the Debian package, its changelog and the man pages take it from here.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/ChakraControl/ControlProtocol.swift)
[[ $version =~ ^[0-9]+(\.[0-9]+)*([~+][0-9A-Za-z.~+]+)?$ ]] ||
    { echo "version.sh: no usable ChakraVersion.current in Sources/ChakraControl/ControlProtocol.swift (found '$version')" >&2; exit 1; }
echo "$version"

#!/bin/sh
# Installs the Debian packages confpol builds and tests with, when missing.
# As root it runs apt-get; otherwise it prints the command and fails.
# libclang-rt-14-dev: libFuzzer and the ASan/UBSan runtimes for clang 14.
set -eu
PKGS="build-essential flex bison libcjson-dev check pkg-config bubblewrap clang libclang-rt-14-dev valgrind python3 python3-jsonschema iproute2 strace"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "confpol: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends $missing >&2
else
    echo "confpol: missing packages:$missing" >&2
    echo "run: sudo apt-get install -y$missing" >&2
    exit 1
fi

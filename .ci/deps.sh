#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages that one make target needs, when missing:
#   sh .ci/deps.sh GROUP...     GROUP: build demo check asan valgrind fuzz lint
# Each target asks only for its own group (make demo does not pull in clang
# or valgrind).  As root it runs apt-get; otherwise it prints the command
# for exactly what is missing and fails.
# libclang-rt-14-dev: libFuzzer and the ASan/UBSan runtimes for clang 14.
set -eu
pkgs_of() {
    case $1 in
    build)    echo "build-essential flex bison pkg-config" ;;
    demo)     pkgs_of build; echo "bubblewrap" ;;
    check)    pkgs_of build; echo "check bubblewrap python3 python3-jsonschema iproute2 strace procps openssl openssh-client jq curl git groff-base socat ripgrep util-linux psmisc zsh fish" ;;
    asan)     pkgs_of check; echo "clang libclang-rt-14-dev" ;;
    valgrind) pkgs_of check; echo "valgrind" ;;
    fuzz)     pkgs_of build; echo "clang libclang-rt-14-dev" ;;
    lint)     echo "cppcheck clang-tidy clang-format pmccabe" ;;
    *)        echo "deps.sh: unknown group '$1'" >&2; exit 2 ;;
    esac
}
[ $# -gt 0 ] || set -- check
want=""
for g in "$@"; do want="$want $(pkgs_of "$g")"; done
missing=""
for p in $(printf '%s\n' $want | sort -u); do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# The Claude Code client (npm), for the tests that start it offline
# (tests/sh/claude-path.sh, claude-whole.sh: skipped without it, failed
# under CI=true).  Only as root, only with npm present, never fatal here.
claude_client() {
    command -v claude >/dev/null 2>&1 && return 0
    command -v npm >/dev/null 2>&1 || { echo "confpol: no npm: the claude client is not installed (tests that need it skip)" >&2; return 0; }
    [ "$(id -u)" = 0 ] || { echo "confpol: run: npm install -g @anthropic-ai/claude-code" >&2; return 0; }
    echo "confpol: installing: @anthropic-ai/claude-code (npm)" >&2
    timeout 600 npm install -g --no-fund --no-audit @anthropic-ai/claude-code >&2 ||
        echo "confpol: npm install of the claude client failed (tests that need it skip)" >&2
}
# The sandbox runtime Claude Code runs Bash under on Linux (npm, pinned),
# for the claude campaign on the real runtime (tests/sh/claude-srt-campaign.sh:
# skipped without it, failed under CI=true).  It needs bubblewrap, socat
# and ripgrep (Debian, in the check group above).  Same rules as above.
SRT_PKG=@anthropic-ai/sandbox-runtime@0.0.83
srt_runtime() {
    [ "$(srt --version 2>/dev/null)" = "${SRT_PKG##*@}" ] && return 0
    command -v npm >/dev/null 2>&1 || { echo "confpol: no npm: the sandbox runtime is not installed (tests that need it skip)" >&2; return 0; }
    [ "$(id -u)" = 0 ] || { echo "confpol: run: npm install -g $SRT_PKG" >&2; return 0; }
    echo "confpol: installing: $SRT_PKG (npm)" >&2
    timeout 600 npm install -g --no-fund --no-audit --engine-strict=false "$SRT_PKG" >&2 ||
        echo "confpol: npm install of the sandbox runtime failed (tests that need it skip)" >&2
}
case " $* " in *" check "*|*" asan "*|*" valgrind "*) claude_client; srt_runtime ;; esac
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "confpol: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    # apt's and dpkg's progress goes to a log, shown only when it fails.
    log=$(mktemp "${TMPDIR:-/tmp}/confpol-apt.XXXXXX")
    if apt-get update -qq >"$log" 2>&1 &&
       apt-get install -y -qq --no-install-recommends $missing >>"$log" 2>&1; then
        rm -f "$log"
    else
        cat "$log" >&2
        echo "confpol: apt-get failed (log above, kept in $log)" >&2
        exit 1
    fi
else
    echo "confpol: missing packages:$missing" >&2
    echo "run: sudo apt-get install -y$missing" >&2
    exit 1
fi

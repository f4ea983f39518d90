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
    build)    echo "build-essential flex bison pkg-config musl-tools" ;;
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
# Node.js and npm from Debian where the machine has none: the npm tools
# below need them.
case " $* " in *" check "*|*" asan "*|*" valgrind "*)
    command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm" ;;
esac
# The npm tools of the tests, pinned, installed into the build directory
# (build/tools/NAME, with build/tools/bin/NAME linked to its command; the
# shell tests put build/tools/bin first on PATH), never globally:
#   Claude Code, the version the reference sheet measured, for the tests
#   that start it offline (tests/sh/claude-e2e.sh, claude-path.sh,
#   claude-whole.sh, settings-client.sh);
#   the sandbox runtime Claude Code runs Bash under on Linux, for the
#   claude campaign on the real runtime (tests/sh/claude-srt-campaign.sh;
#   it needs bubblewrap, socat and ripgrep, in the check group above).
# Without npm or its registry they are not installed and the tests that
# need them say why and skip; never fatal here.
TOOLS=${CONFPOL_TOOLS:-$(dirname "$0")/../build/tools}
npm_tool() { # NAME PACKAGE@VERSION BIN
    v=$("$TOOLS/bin/$3" --version 2>/dev/null | sed 's/ .*//')
    [ "$v" = "${2##*@}" ] && return 0
    command -v npm >/dev/null 2>&1 || { echo "confpol: no npm: $2 is not installed (tests that need it skip)" >&2; return 0; }
    echo "confpol: installing: $2 (npm, into $TOOLS/$1)" >&2
    mkdir -p "$TOOLS/$1" "$TOOLS/bin"
    if timeout 600 npm install --prefix "$TOOLS/$1" --no-fund --no-audit \
        --loglevel=error --engine-strict=false "$2" >&2; then
        ln -sf "../$1/node_modules/.bin/$3" "$TOOLS/bin/$3"
    else
        echo "confpol: npm install of $2 failed (tests that need it skip)" >&2
    fi
}
npm_tools() {
    npm_tool claude @anthropic-ai/claude-code@2.1.332 claude
    npm_tool srt @anthropic-ai/sandbox-runtime@0.0.83 srt
}
if [ -z "$missing" ]; then
    case " $* " in *" check "*|*" asan "*|*" valgrind "*) npm_tools ;; esac
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    echo "confpol: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    # apt's and dpkg's progress goes to a log, shown only when it fails.
    log=$(mktemp "${TMPDIR:-/tmp}/confpol-apt.XXXXXX")
    if apt-get update -qq >"$log" 2>&1 &&
       apt-get install -y -qq --no-install-recommends $missing >>"$log" 2>&1; then
        rm -f "$log"
        case " $* " in *" check "*|*" asan "*|*" valgrind "*) npm_tools ;; esac
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

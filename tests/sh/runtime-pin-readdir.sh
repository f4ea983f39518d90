#!/bin/sh
# SPDX-License-Identifier: MIT
# A directory read that fails is never read as a shorter directory
# (spec/runtime.md §5): each readdir loop of the runtime tells the end from
# a failure.  strace makes every getdents64 of the runtime's own process
# fail (EIO), and the launch must then be refused (126) and say where,
# not go on without what the read would have shown:
#   - a deny glob's matches (both enforcers): a match not seen would stay
#     readable and writable;
#   - the entries of a write root split around a deny target (Landlock):
#     an entry not seen would go ungranted without a word;
#   - the descriptors the launcher inherited, listed from /proc/self/fd
#     when close_range is missing: one not seen would reach the sandbox.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
command -v strace >/dev/null 2>&1 || { echo "strace is not installed"; exit 77; }
if [ -n "${CONFPOL_SANITIZER:-}" ]; then
    # the sanitizer's runtime reads directories of its own at start-up
    echo "ok - no fault injection under $CONFPOL_SANITIZER (make check runs it)"
    exit 0
fi
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 || { echo "bwrap cannot run here"; exit 77; }
T=$(mktemp -d /var/tmp/confpol-readdir.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/w/sub" "$T/w/keep"
touch "$T/w/sub/f1" "$T/w/sub/f2" "$T/w/top"
MARK=$T/w/keep/ran # a granted directory (Landlock splits w)

fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# art NAME RECORD...: $T/NAME.bwrap, confined, failing closed
art() {
    name=$1
    shift
    printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
        'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "$@" 'arg --unshare-net' >"$T/$name.txt"
    $MK "$T/$name.txt" "$T/$name.bwrap" || exit 2
}
# refused DESC ENFORCER NAME PATTERN [STRACE-ARGS...]: every getdents64
# failing (and the given injections), the launch is refused with 126, the
# command never runs, and the output holds PATTERN
refused() {
    d=$1 e=$2 a=$3 pat=$4
    shift 4
    rm -f "$MARK"
    timeout -k 5 60 strace -qq -o /dev/null -e trace=getdents64,close_range \
        -e inject=getdents64:error=EIO "$@" \
        "$RUN" --enforcer "$e" "$T/$a.bwrap" -- sh -c "touch '$MARK'" >"$T/out" 2>&1
    rc=$?
    if [ "$rc" = 126 ] && [ ! -e "$MARK" ] && grep -q "$pat" "$T/out"; then
        ok "$e: $d"
    else
        bad "$e: $d: exit $rc: $(head -c 400 "$T/out")"
    fi
}
enforcers=bwrap
"$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]' && enforcers="bwrap landlock"

art glob "bind '' $T/w" "roglob '' $T/w/sub/f*"
art split "bind '' $T/w" "ro '' $T/w/sub"
for e in $enforcers; do
    refused "a deny glob's directory that cannot be read" $e glob \
        "the glob '$T/w/sub/f\*' under '/' cannot be matched: '$T/w/sub' cannot be read (I/O error)"
    refused "inherited descriptors that cannot be listed" $e split \
        "cannot close the inherited descriptors: I/O error" -e inject=close_range:error=ENOSYS
done
case $enforcers in *landlock*)
    refused "a split write root whose entries cannot be read" landlock split \
        "cannot enforce with Landlock: '/[^']*': I/O error (its grant cannot be planned)" ;;
esac
# A control: the same launches without the injection run the command.
for e in $enforcers; do
    for a in glob split; do
        rm -f "$MARK"
        timeout -k 5 60 "$RUN" --enforcer $e -q "$T/$a.bwrap" -- sh -c "touch '$MARK'" >"$T/out" 2>&1
        if [ -e "$MARK" ]; then ok "$e: $a: runs without the injection"; else
            bad "$e: $a: did not run without the injection: $(head -c 300 "$T/out")"; fi
    done
done
echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]

#!/bin/sh
# The proxy is a program of its own (spec/runtime.md 14.1): under
# `confpol run` with a `net allow` list the proxy process is
# confpol-proxy from the runtime's own directory, exec'd with nothing of
# the runtime's but stdin/stdout on /dev/null, stderr, its log and its
# listening socket (and the sandbox's resolver socket it is handed), under its own seccomp filter with no_new_privs; a
# runtime without confpol-proxy beside it refuses to run (125, the command
# does not run) and never takes one from PATH; run by hand the program
# refuses.  Exit 77 when bwrap cannot run.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
CONFPOL=${CONFPOL:-$TOP/$BUILD/confpol}
PROXY=$(dirname "$CONFPOL")/confpol-proxy

command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed"; exit 77; }
bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
    { echo "bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d /var/tmp/confpol-proxyprog.XXXXXX)
RPID=
cleanup() {
    [ -n "$RPID" ] && kill "$RPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"; }

printf 'confpol 1\nprofile confined\nnet allow example.test\n' > "$T/p.confpol"

# ---- the running proxy -----------------------------------------------------------
timeout 30 "$CONFPOL" run "$T/p.confpol" -- sleep 6 2>"$T/run.err" &
RPID=$!
P=
for _ in $(seq 1 100); do
    for c in $(pgrep -x confpol-proxy 2>/dev/null); do
        [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$(readlink -f "$PROXY")" ] || continue
        # the proxy of this run: its parent is the runtime under timeout
        pp=$(awk '{print $4}' "/proc/$c/stat" 2>/dev/null)
        [ -n "$pp" ] && [ "$(awk '{print $4}' "/proc/$pp/stat" 2>/dev/null)" = "$RPID" ] && P=$c
    done
    [ -n "$P" ] && break
    sleep 0.05
done
if [ -z "$P" ]; then
    fail "no process of $PROXY under the run"
else
    expect "seccomp mode" 2 "$(awk '/^Seccomp:/ {print $2}' "/proc/$P/status")"
    expect "no_new_privs" 1 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$P/status")"
    expect "stdin" /dev/null "$(readlink "/proc/$P/fd/0")"
    expect "stdout" /dev/null "$(readlink "/proc/$P/fd/1")"
    # 0-2, the log, the listening socket and the sandbox's resolver socket
    # (the direct path, spec/runtime.md 14.8): nothing else of the runtime's
    expect "descriptors" 6 "$(ls "/proc/$P/fd" | wc -l)"
    n=0
    for f in /proc/$P/fd/*; do
        case $(readlink "$f") in socket:*) n=$((n + 1)) ;; esac
    done
    expect "sockets" 2 "$n"
    # the proxy's code is not in the runtime's binary
    if grep -q px_http_rewrite "$TOP/$BUILD/confpol-run" 2>/dev/null; then
        fail "confpol-run still holds the proxy's code"
    fi
fi
wait "$RPID"
RPID=

# ---- no program beside the runtime: refused, never one from PATH ---------------------
# A complete installation but for the proxy: the launcher, its stage and
# its janitor beside confpol (a missing stage would be refused first).
# The refusal must name the proxy's program ("cannot run '.../confpol-proxy'";
# the temporary directory's name holds the word too).
mkdir -p "$T/bin" "$T/path"
B=$(dirname "$CONFPOL")
cp "$CONFPOL" "$B/confpol-run" "$B/confpol-stage" "$B/confpol-janitor" "$T/bin/"
printf '#!/bin/sh\ntouch %s/decoy-ran\nexec sleep 5\n' "$T" > "$T/path/confpol-proxy"
chmod +x "$T/path/confpol-proxy"
# no_proxy CASE: the launch is refused (125), the command does not run, no
# proxy from PATH runs, and the refusal names the program beside it.
no_proxy() {
    rm -f "$T/decoy-ran"
    out=$(PATH="$T/path:$PATH" timeout 30 "$T/bin/confpol" run "$T/p.confpol" -- \
        echo cmd-ran 2>"$T/missing.err")
    expect "exit, proxy program $1" 125 "$?"
    [ -n "$out" ] && fail "the command ran, proxy program $1: $out"
    [ -e "$T/decoy-ran" ] && fail "a confpol-proxy from PATH was run ($1)"
    grep -q "proxy: cannot run '$T/bin/confpol-proxy'" "$T/missing.err" ||
        fail "proxy program $1: the refusal does not name it: $(cat "$T/missing.err")"
}
no_proxy missing
cp "$PROXY" "$T/bin/confpol-proxy" && chmod 644 "$T/bin/confpol-proxy"
no_proxy "not executable"
rm -f "$T/bin/confpol-proxy" && mkdir "$T/bin/confpol-proxy"
no_proxy "a directory"
rmdir "$T/bin/confpol-proxy" && cp "$PROXY" "$T/bin/confpol-proxy"
out=$(PATH="$T/path:$PATH" timeout 30 "$T/bin/confpol" run "$T/p.confpol" -- \
    echo cmd-ran 2>"$T/complete.err")
expect "the complete copy runs the command" "cmd-ran" "$out"

# ---- by hand -----------------------------------------------------------------------
"$PROXY" >/dev/null 2>"$T/hand.err"
expect "by hand" 2 "$?"
grep -q "started by the runtime only" "$T/hand.err" || fail "by hand: $(cat "$T/hand.err")"
# A descriptor number that is no number, or out of range: refused before
# anything is read.
for bad in abc -2 7x ""; do
    "$PROXY" --prog t --parent $$ --listen-fd "$bad" --rules-fd 0 >/dev/null 2>&1 </dev/null
    expect "by hand, --listen-fd '$bad'" 2 "$?"
done
# Rules that are not PATTERN WHERE pairs (an odd number of fields):
# refused, nothing served.
printf 'example.test\0' > "$T/rules"
"$PROXY" --prog t --parent $$ --listen-fd 0 --rules-fd 3 3<"$T/rules" \
    >/dev/null 2>"$T/rules.err" </dev/null
expect "by hand, odd rules" 1 "$?"
grep -q "its rules cannot be read" "$T/rules.err" || fail "odd rules: $(cat "$T/rules.err")"

[ "$fails" = 0 ] || exit 1
echo "ok"

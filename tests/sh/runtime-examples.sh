#!/bin/sh
# `confpol run` of each agentteams example confines a shell the way the
# seed describes (shared/seed and seed-material/bwrap-argv): the control
# plane is read-only, the operator key directory unreadable, credential
# directories unreadable under exclusive, project writes allowed, the
# network open under confined and closed under exclusive; cooperative runs
# unconfined.  Throwaway PROJECT and HOME trees; real bwrap and Landlock.
# Run once per enforcer (ENFORCER=bwrap, ENFORCER=landlock; both when unset).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
if [ -z "${ENFORCER:-}" ]; then
    rc=0 ran=0
    for e in bwrap landlock; do
        ENFORCER=$e sh "$0" > "${TMPDIR:-/tmp}/examples.$$.$e" 2>&1; r=$?
        sed "s/^/[$e] /" "${TMPDIR:-/tmp}/examples.$$.$e"; rm -f "${TMPDIR:-/tmp}/examples.$$.$e"
        case $r in 0) ran=1 ;; 77) ;; *) rc=1 ;; esac
    done
    [ $rc -ne 0 ] && exit 1
    [ $ran -eq 0 ] && { echo "no enforcer can run here"; exit 77; }
    exit 0
fi
if [ "$ENFORCER" = bwrap ]; then
    command -v bwrap >/dev/null 2>&1 || { echo "bwrap is not installed"; exit 77; }
    bwrap --ro-bind / / --unshare-user --unshare-pid --unshare-net true 2>/dev/null ||
        { echo "bwrap cannot create namespaces here"; exit 77; }
fi
[ -x "$CONFPOL" ] || { echo "confpol not built: $CONFPOL"; exit 1; }
"${CONFPOL_RUN:-$TOP/build/confpol-run}" --check | grep -q '^landlock: ABI' || { echo "Landlock is unavailable"; exit 77; }

# Landlock cannot hide a deny-read path's metadata: its launches are
# refused without --allow-unenforced (tests/sh/runtime-landlock-metadata.sh).
LLX=; [ "$ENFORCER" = landlock ] && LLX=--allow-unenforced
T=$(mktemp -d /var/tmp/confpol-ex.XXXXXX)
LPID=
cleanup() { [ -n "$LPID" ] && kill "$LPID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
P=$T/proj H=$T/home
R=$P/.claude/agents/references
mkdir -p "$R/authorized-verify-keys" "$P/.claude/hooks" "$P/src" "$H/.ssh" "$H/.aws" \
         "$H/.config/agentteams/keys"
echo '{"profile":"confined"}' > "$R/agent-privilege.json"
echo README > "$R/authorized-verify-keys/README"
echo gate > "$P/.claude/hooks/constitutional-gate.py"
echo '{}' > "$P/.claude/settings.json"
echo code > "$P/src/main.py"
echo SSHKEY > "$H/.ssh/id_rsa"; echo AWSKEY > "$H/.aws/credentials"
echo SIGNKEY > "$H/.config/agentteams/keys/operator.pem"
echo LEGACY > "$H/.config/agentteams/legacy.pem"; echo notes > "$H/.config/agentteams/notes.txt"
chmod 755 "$T"


fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
# check PROFILE allow|deny DESC SHELL-COMMAND (PROFILE: agentteams-PROFILE, or an
# example's name)
check() {
    prof=$1 want=$2 d=$3 ex=$TOP/examples/agentteams-$1.confpol
    [ -f "$ex" ] || ex=$TOP/examples/$1.confpol
    (cd "$P" && "$CONFPOL" run --enforcer "$ENFORCER" $LLX -q -D PROJECT="$P" -D HOME="$H" \
        "$ex" -- sh -c "echo ran-inside; $4") >"$T/out" 2>&1
    rc=$?
    # A deny counts only when the shell really ran inside and the operation failed.
    if ! grep -q '^ran-inside$' "$T/out"; then bad "$prof: $d: the shell did not run (exit $rc): $(tail -n 3 "$T/out")"
    elif [ "$want" = allow ] && [ $rc = 0 ]; then ok "$prof: allowed: $d"
    elif [ "$want" = deny ] && [ $rc != 0 ]; then ok "$prof: denied: $d"
    else bad "$prof: $want: $d (exit $rc): $(tail -n 3 "$T/out")"; fi
}

for prof in confined exclusive; do
    check $prof allow "write in the project" "echo x > '$P/src/new-$prof.py'"
    check $prof deny "rewrite the privilege switch" "echo x > '$R/agent-privilege.json'"
    check $prof deny "plant a key in the verify-key store" "echo k > '$R/authorized-verify-keys/op.pub.pem'"
    check $prof deny "rewrite the gate hook" "echo x > '$P/.claude/hooks/constitutional-gate.py'"
    check $prof deny "create .claude/settings.local.json" "echo '{}' > '$P/.claude/settings.local.json'"
    check $prof deny "rename .claude" "mv '$P/.claude' '$P/claude-old'"
    check $prof deny "rename .claude/agents" "mv '$P/.claude/agents' '$P/.claude/agents-old'"
    check $prof allow "read the settings" "cat '$P/.claude/settings.json'"
    check $prof deny "read the operator signing key" "cat '$H/.config/agentteams/keys/operator.pem'"
    check $prof deny "read a legacy key (glob expanded at start)" "cat '$H/.config/agentteams/legacy.pem'"
    check $prof allow "read a non-key file beside it" "cat '$H/.config/agentteams/notes.txt'"
    check $prof deny "write outside the project" "echo x > '$H/outside'"
    check $prof deny "create a missing framework directory" "mkdir -p '$P/.codex/agents/references' && echo x > '$P/.codex/config.toml'"
done
check confined allow "read ~/.ssh" "cat '$H/.ssh/id_rsa'"
check exclusive deny "read ~/.ssh" "cat '$H/.ssh/id_rsa'"
check confined allow "read ~/.aws" "cat '$H/.aws/credentials'"
check exclusive deny "read ~/.aws" "cat '$H/.aws/credentials'"
# A listener on 127.0.0.1 for at most 20 s (perl starts fast; IO::Socket is in perl-base).
perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 16,
                                  ReuseAddr => 1) or die "listen: $!";
    open(my $f, ">", "$ARGV[0].tmp") or die; print $f $s->sockport; close $f;
    rename("$ARGV[0].tmp", $ARGV[0]);
    local $SIG{ALRM} = sub { exit 0 }; alarm 20;
    while (my $c = $s->accept) { close $c }' "$T/port" &
LPID=$!
i=0; while [ ! -f "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/port" 2>/dev/null)
NET="timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT'"
eval "$NET" && ok "listener reachable outside the sandbox" || bad "listener reachable outside the sandbox"
check confined allow "connect to 127.0.0.1 outside" "$NET"
check exclusive deny "connect to 127.0.0.1 outside" "$NET"
# The other examples.
mkdir -p "$P/.git/hooks" "$P/.github" "$P/node_modules/.bin" "$P/bin" "$H/.cache"
echo cfg > "$P/.git/config"; echo old > "$P/.git/HEAD"; echo ENV > "$P/.env"; echo NPMRC > "$H/.npmrc"
cp /bin/true "$P/bin/tool"; cp /bin/true "$P/node_modules/.bin/jest"
check developer-laptop allow "write in the project" "echo x > '$P/src/dl.txt'"
check developer-laptop deny "plant a git hook" "echo x > '$P/.git/hooks/pre-commit'"
check developer-laptop deny "rewrite .git/config" "echo x > '$P/.git/config'"
check developer-laptop allow "write .git/HEAD beside the carve-outs" "echo ref > '$P/.git/HEAD'"
check developer-laptop deny "read .env" "cat '$P/.env'"
check developer-laptop deny "create .env.local" "echo x > '$P/.env.local'"
check developer-laptop allow "write the cache" "echo x > '$H/.cache/dl'"
check developer-laptop deny "read ~/.ssh" "cat '$H/.ssh/id_rsa'"
check developer-laptop deny "connect to 127.0.0.1 outside (allow-list without proxy: stricter)" "$NET"
check ci-runner allow "exec from the allow-list" "/usr/bin/true"
check ci-runner allow "exec from node_modules/.bin" "'$P/node_modules/.bin/jest'"
check ci-runner deny "exec a binary outside the allow-list" "'$P/bin/tool'"
check ci-runner deny "write .github" "echo x > '$P/.github/ci.yml'"
check ci-runner allow "write the project's sources" "echo x > '$P/src/ci.txt'"
check ci-runner deny "read ~/.npmrc" "cat '$H/.npmrc'"
check ci-runner deny "connect to 127.0.0.1 outside" "$NET"
rm -rf "$P/.git" "$P/.github" "$P/node_modules" "$P/bin" "$P/.env"

[ "$(cat "$R/agent-privilege.json")" = '{"profile":"confined"}' ] && [ ! -e "$P/.claude/settings.local.json" ] &&
    [ ! -e "$P/claude-old" ] && [ ! -e "$P/.codex" ] && [ ! -e "$P/.goose" ] && [ ! -e "$P/.github" ] &&
    ok "host tree unchanged, no placeholder left" || bad "host tree unchanged: $(ls -A "$P")"

(cd "$P" && "$CONFPOL" run --enforcer "$ENFORCER" $LLX "$TOP/examples/agentteams-cooperative.confpol" -- sh -c "echo x > '$H/coop'") >"$T/out" 2>&1
[ $? = 0 ] && [ -f "$H/coop" ] && grep -q "running sh unconfined" "$T/out" &&
    ok "cooperative: runs unconfined with a note" || bad "cooperative: $(cat "$T/out")"

# A policy with errors runs nothing (125), and says so.
printf 'confpol 1\nprofile bogus\n' > "$T/bad.confpol"
"$CONFPOL" run "$T/bad.confpol" -- sh -c "echo x > '$H/ran'" >"$T/out" 2>&1
rc=$?
[ $rc = 125 ] && [ ! -e "$H/ran" ] && grep -q "has errors; nothing was run" "$T/out" &&
    ok "a policy with errors runs nothing (exit 125)" || bad "a policy with errors: exit $rc: $(cat "$T/out")"

echo "1..$n"
[ $fails -eq 0 ]

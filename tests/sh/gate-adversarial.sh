#!/bin/sh
# The gate hook on adversarial command lines of nearly 1 MiB (the input
# limit) that once took it from 130 ms to 2 s of CPU: 200,000 words of one
# program ("curl curl ..."), brace expansions, here-documents with many
# words, glob words against library alternatives of the "*.bashrc" shape,
# words holding every byte a library alternative needs.  Each call must
# answer (a decision, exit 0 or 2) within a generous bound of 1 s of CPU
# time (user + system: the machine may be busy, wall time is not judged; the
# target, 100 ms on an idle machine, is measured by
# tests/bench/gate-adversarial.sh), and the same input must get the same
# answer on the policy and on its artifact.
set -u
: "${CONFPOL:?}" "${TOP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
unset CONFPOL_GATE_LOG CONFPOL_GATE_LOG_KEY
export CONFPOL_LIBRARY="$TOP/gates"
cat >"$tmp/adv.confpol" <<'P'
confpol 1
profile confined
include "<all>"
gate ask re"x+y"
gate ask re"curl.*[|].*sh"
gate deny re"(x|xx)+z"
P
"$CONFPOL" build --target claude -o "$tmp" "$tmp/adv.confpol" >"$tmp/b" 2>&1 ||
    { cat "$tmp/b"; echo "FAIL: build"; exit 1; }
python3 - "$CONFPOL" "$tmp" <<'EOF'
import json, os, subprocess, sys
confpol, tmp = sys.argv[1:3]
N = 1040000
def rep(word, tail=""):
    return (word * N)[:N] + tail
def prog(name, arg):
    return name + " " + ((arg + " ") * N)[:N - len(name) - 1]
cases = {
    "curl words": rep("curl "),
    "brace words": rep("x{a,b} "),
    "here-documents": rep("<<E"),
    "a b then ;": rep("a b ", ";"),
    "glob words": rep("curl ~/.bashrcx*cron*/systemd/x "),
    "needed bytes": prog("curl", "abcdefghijklmnopqrstuvwxyz./_-:0123456789"),
    "words after a here-document": "cat <<E\nE\n" + rep("curl ")[:N - 20],
}
fails = 0
for name, cmd in cases.items():
    inp = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": cmd}}).encode()
    answers = []
    for target in ("adv.confpol", "adv.claude.json"):
        p = subprocess.Popen([confpol, "gate", os.path.join(tmp, target)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        out, _ = p.communicate(inp, timeout=60)
        answers.append((p.returncode, out))
    # the CPU time of one call of each, from wait4's rusage
    cpu = []
    for target in ("adv.confpol", "adv.claude.json"):
        fd_in = os.open(os.path.join(tmp, "in.json"),
                        os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd_in, inp)
        os.close(fd_in)
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.path.join(tmp, "in.json"), os.O_RDONLY)
            os.dup2(fd, 0)
            nul = os.open(os.devnull, os.O_WRONLY)
            os.dup2(nul, 1)
            os.dup2(nul, 2)
            os.execv(confpol, [confpol, "gate", os.path.join(tmp, target)])
        _, status, ru = os.wait4(pid, 0)
        cpu.append(1000 * (ru.ru_utime + ru.ru_stime))
    (rc1, o1), (rc2, o2) = answers
    ok = rc1 in (0, 2) and o1 == o2 and rc1 == rc2 and max(cpu) < 1000
    print("%s %-28s policy %6.1f ms  artifact %6.1f ms CPU  %s" % (
        "ok  " if ok else "FAIL", name, cpu[0], cpu[1],
        o1.decode()[:80].strip() or "allow"))
    fails += not ok
sys.exit(1 if fails else 0)
EOF

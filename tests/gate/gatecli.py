"""What the gate corpus scripts share: running confpol and reading the
answer of `explain` and of the gate hook for one command.  The caller sets
CONFPOL (the binary) before the first call.  On an artifact the hook is
run twice, as `confpol gate` and as confpol-gate (beside CONFPOL: the
program installed settings run, linked apart), and any difference in
exit status, stdout or stderr is an answer of its own, which then
disagrees with every other."""
import json
import os
import subprocess

CONFPOL = None


def run(args, stdin=None):
    p = subprocess.run(args, input=stdin, capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def explain(policy, cmd):
    rc, out, err = run([CONFPOL, "explain", policy, "gate", cmd])
    return out.split("\n", 1)[0] if rc in (0, 1) else "error: " + err


def hook(target, cmd):
    inp = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": cmd}})
    rc, out, err = run([CONFPOL, "gate", target], inp)
    if target.endswith(".json"):
        prog = os.path.join(os.path.dirname(CONFPOL), "confpol-gate")
        got = run([prog, target], inp)
        if got != (rc, out, err):
            return "confpol-gate differs: %r against %r" % (got, (rc, out, err))
    if rc != 0 and not out:
        return "error: " + err.strip()
    if not out.strip():
        return "allow"
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"]

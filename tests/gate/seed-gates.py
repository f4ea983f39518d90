#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The seed's Bash gate table (seed-gate-rows.tsv: Python regexes matched
with re.search(..., re.IGNORECASE)) translated to POSIX ERE.

  seed-gates.py emit        prints tests/gate/seed-gates.confpol
  seed-gates.py artifact POLICY-PATH
                            prints a .claude.json gate table for the emitted
                            policy (as the Claude backend writes it)
  seed-gates.py gate CONFPOL TARGET [TARGET2]
                            runs `CONFPOL gate TARGET` on every sample of
                            samples.tsv and checks each answer exactly;
                            with TARGET2, its answers must be the same bytes
  seed-gates.py check N     differential test over N generated commands and
                            the sample commands of samples.tsv: wherever a
                            seed row matches, its ERE must match too (the
                            translation may be stricter, never looser)

Translation (spec/gate.md, "The seed gate table"), in a small notation:
  {<}  a word boundary before a word:     (^|[^[:alnum:]_])
  {>}  a word boundary after a word:      ([^[:alnum:]_]|$)
  {s}  one BYTE of Python's \\s: ([[:space:]]|[^[:print:]]), i.e. an ASCII
       space, a control byte (U+001C..U+001F are \\s in Python) or any byte
       >= 0x80 (the bytes of the Unicode spaces, and of every other
       non-ASCII character: a superset).  A Unicode space is several bytes,
       so \\s becomes {s}+, \\s* {s}* and \\s+ {s}+.
  {w}  one byte of Python's \\w: ([[:alnum:]_]|[^[:print:]]); \\w+ is {w}+
  {L}  [a-zA-Z] under IGNORECASE: also the Unicode letters that fold to
       ASCII (U+0130, U+0131, U+017F, U+212A)
  letters outside brackets are case-folded: s -> ([sS]|U+017F), i ->
  ([iI]|U+0130|U+0131), k -> ([kK]|U+212A), x -> [xX].
A \\b in the middle of a row (between two [^\\n]* runs or after a word that
is followed by [^\\n]*) is dropped, and [^\\n]* becomes .*: both only let
the row match more.  Matching is bytewise in the C locale (confpol never
calls setlocale), on the UTF-8 bytes of the command.
"""
import ctypes
import random
import re
import sys

B_BEFORE = "(^|[^[:alnum:]_])"
B_AFTER = "([^[:alnum:]_]|$)"
# In the C locale [^[:print:]] is the control bytes and every byte >= 0x80.
SPACE = "([[:space:]]|[^[:print:]])"
WORD = "([[:alnum:]_]|[^[:print:]])"
LETTER = "([a-zA-Z]|\u0130|\u0131|\u017f|\u212a)"
FOLD = {"i": "([iI]|\u0130|\u0131)", "s": "([sS]|\u017f)", "k": "([kK]|\u212a)"}

# (row number in seed-gate-rows.tsv, ERE in the notation above)
ROWS = [
    "{<}sudo{>}|{<}doas{>}",
    "curl[^|]*[|]{s}*(ba)?sh|wget[^|]*[|]{s}*(ba)?sh|iwr[^|]*[|]{s}*iex",
    "{<}(crontab|launchctl){>}|/etc/sudoers|launchagents",
    "{<}(brew|apt|apt-get|dnf|yum){s}+install{>}|{<}pip{s}+install{>}"
    "|{<}npm{s}+i(nstall)?{>}",
    "{<}git.*push.*--force|{<}git.*reset{s}+--hard{>}",
    "{<}gh.*{s}+{w}+{s}+delete{>}"
    "|{<}gh{s}+api.*(-x{s}*delete|--method{s}+delete)",
    "{<}gh.*pr{s}+merge{>}|{<}gh{s}+api.*/pulls/[^[:space:]/]+/merge{>}",
    "{<}git.*push.*(--delete|--mirror|--prune)|{<}git.*push.*{s}+:[^[:space:]]",
    "{<}git.*(branch|tag){s}+(-{L}*[dD]{>}|--delete{>})"
    "|{<}git.*update-ref{s}+-d{>}|{<}git.*worktree{s}+remove{>}",
    "{<}(agentteams|build_team).*--branch-[cpCP].*--appl"
    "|{<}(agentteams|build_team).*--appl.*--branch-[cpCP]"
    "|{<}branch_cleanup.*(run_cleanup|run_post_merge|execute_items){>}",
    "{<}rm{s}+[^[:space:]]"
    "|{<}(unlink|srm|wipe|rmdir|shred|truncate){>}"
    "|{<}find.*{s}+-delete{>}|{<}dd.*of="
    "|>[|]{s}*[^[:space:]]|(^|[;&|]){s}*:{s}*>{s}*[^[:space:]]"
    "|{<}mv.*{s}+/dev/null{>}|{<}cp{s}+/dev/null{>}",
    "{<}kubectl.*delete{>}|{<}helm{s}+uninstall{>}"
    "|{<}terraform{s}+(destroy|state{s}+rm){>}|{<}terraform{s}+apply.*-destroy"
    "|{<}docker{s}+(container{s}+rm|image{s}+rm|rm|rmi|volume{s}+(rm|prune)"
    "|system{s}+prune){>}|{<}docker{s}+compose{s}+down.*(-v|--volumes)"
    "|{<}aws{s}+[^[:space:]]+{s}+delete-|{<}aws{s}+s3{s}+r[bmBM]{>}"
    "|{<}gcloud.*{s}+delete{>}|{<}az.*{s}+delete{>}|{<}dropdb{>}",
    "{<}(psql|mysql|mariadb|sqlite3?|mongo|redis-cli|clickhouse).*"
    "(drop{s}+(table|database|schema){>}|truncate{>}|delete{s}+from{>})",
    "{<}(shutil[.]rmtree|os[.](remove|unlink|rmdir)|rimraf){>}|[.]unlink[(]"
    "|{<}fs[.]rm(sync|dirsync)?[(]",
]

MACROS = {"<": B_BEFORE, ">": B_AFTER, "s": SPACE, "w": WORD, "L": LETTER}


def expand(src):
    """Notation to ERE: macros, and case-folding of letters outside
    bracket expressions."""
    out, i, depth = [], 0, 0
    while i < len(src):
        c = src[i]
        if depth == 0 and c == "{":
            j = src.index("}", i)
            out.append(MACROS[src[i + 1:j]])
            i = j + 1
            continue
        if c == "[":
            # copy the bracket expression verbatim, [:class:] included
            j = i + 1
            if j < len(src) and src[j] == "^":
                j += 1
            if j < len(src) and src[j] == "]":
                j += 1
            while src[j] != "]":
                if src[j] == "[" and src[j + 1] == ":":
                    j = src.index(":]", j + 2) + 2
                else:
                    j += 1
            out.append(src[i:j + 1])
            i = j + 1
            continue
        if c.isascii() and c.isalpha():
            lc = c.lower()
            out.append(FOLD.get(lc, "[" + lc + lc.upper() + "]"))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def seed_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            verdict, tool, pat, reason = line.rstrip("\n").split("\t")
            rows.append((pat, reason))
    return rows


def emit(rows):
    print("# The seed's Bash gate table (tests/gate/seed-gate-rows.tsv) as POSIX")
    print("# ERE, generated by tests/gate/seed-gates.py emit: see that script and")
    print("# spec/gate.md for the translation, which is exact or stricter.")
    print("confpol 1")
    print("profile confined")
    for n, ((pat, reason), src) in enumerate(zip(rows, ROWS), 1):
        print()
        print("# row %d: %s" % (n, reason))
        print("gate ask re\"%s\"" % expand(src))


class Ere:
    """POSIX regcomp/regexec through libc, in the C locale like confpol."""

    def __init__(self):
        self.libc = ctypes.CDLL(None)
        self.libc.setlocale.restype = ctypes.c_char_p
        self.libc.setlocale(0, b"C")  # LC_CTYPE

    def compile(self, ere):
        buf = ctypes.create_string_buffer(512)
        rc = self.libc.regcomp(buf, ere.encode("utf-8"), 1 | 8)  # EXTENDED|NOSUB
        if rc != 0:
            raise ValueError("regcomp failed (%d) for %r" % (rc, ere))
        return buf

    def search(self, compiled, text):
        return self.libc.regexec(compiled, text.encode("utf-8"), 0, None, 0) == 0


ALPHABET = [
    "sudo", "doas", "curl", "wget", "iwr", "iex", "sh", "bash", "crontab",
    "launchctl", "/etc/sudoers", "LaunchAgents", "brew", "apt", "apt-get", "dnf",
    "yum", "install", "pip", "npm", "i", "git", "push", "--force", "reset",
    "--hard", "gh", "api", "delete", "-X", "DELETE", "--method", "pr", "merge",
    "/pulls/12/merge", "--delete", "--mirror", "--prune", ":main", "branch", "tag",
    "-d", "-D", "-fd", "update-ref", "worktree", "remove", "agentteams",
    "build_team", "--branch-cleanup", "--apply", "branch_cleanup", "run_cleanup",
    "rm", "unlink", "rmdir", "shred", "truncate", "find", "-delete", "dd", "of=x",
    ">|", ":", ">", "mv", "/dev/null", "cp", "kubectl", "helm", "uninstall",
    "terraform", "destroy", "state", "apply", "-destroy", "docker", "container",
    "image", "rmi", "volume", "prune", "system", "compose", "down", "-v", "aws",
    "s3", "rb", "delete-bucket", "gcloud", "az", "dropdb", "psql", "sqlite3",
    "DROP", "TABLE", "TRUNCATE", "FROM", "shutil.rmtree", "os.remove", "rimraf",
    ".unlink(", "fs.rmSync(", "x", "ls", "echo", "pseudo", "sudoku", "é",
    "\u017f", "\u0131", "\u212a", "_", "-", "/", "\"", "'", "(",
]
THEMES = [
    ["git", "push", "--force", "reset", "--hard", "origin", ":main", "--delete",
     "--mirror", "--prune", "branch", "tag", "-d", "-D", "-fd", "-a",
     "update-ref", "worktree", "remove", "-C", "repo", "--force-with-lease"],
    ["gh", "api", "delete", "-X", "DELETE", "--method", "pr", "merge", "repo",
     "/pulls/12/merge", "repos/o/r/pulls/1", "release", "-XDELETE"],
    ["agentteams", "build_team", "--branch-cleanup", "--branch-prune",
     "--apply", "--applied", "branch_cleanup", "run_cleanup", "run_post_merge",
     "execute_items"],
    ["psql", "mysql", "mariadb", "sqlite3", "mongo", "redis-cli",
     "clickhouse-client", "DROP", "TABLE", "DATABASE", "SCHEMA", "TRUNCATE",
     "DELETE", "FROM", "-c", "'"],
    ["curl", "wget", "iwr", "iex", "sh", "bash", "|", "-fsSL", "url"],
]
SEPS = [" ", " ", " ", "\t", "\n", "|", ";", "&&", "", "\u00a0", "\x1c", "\u2003",
        " | ", "; ", "=", "."]


def sample_cmd(line):
    return (line.rstrip("\n").split("\t", 2)[2].encode("ascii")
            .decode("unicode_escape"))


def mutate(word, rnd):
    if rnd.random() < 0.3:
        word = "".join(ch.upper() if rnd.random() < 0.5 else ch for ch in word)
    if rnd.random() < 0.05:
        word = word.replace("s", "\u017f").replace("i", "\u0131").replace("k", "\u212a")
    return word


def check(rows, n, samples_path):
    ere = Ere()
    compiled = [ere.compile(expand(src)) for src in ROWS]
    pys = [re.compile(pat, re.IGNORECASE) for pat, _ in rows]
    rnd = random.Random(1)
    cmds = []
    bad = 0
    with open(samples_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            expect, row = line.split("\t")[:2]
            cmd = sample_cmd(line)
            cmds.append(cmd)
            ere_rows = [r for r, c in enumerate(compiled, 1) if ere.search(c, cmd)]
            seed_rows_ = [r for r, p in enumerate(pys, 1) if p.search(cmd)]
            got = ere_rows[0] if ere_rows else 0
            want_seed = seed_rows_[0] if seed_rows_ else 0
            if got != int(row) or want_seed != int(row):
                bad += 1
                print("sample %r: expected row %s; ERE decides %d, seed %d"
                      % (cmd, row, got, want_seed))
    for _ in range(n):
        k = rnd.randint(1, 7)
        parts = []
        words = ALPHABET if rnd.random() < 0.5 else rnd.choice(THEMES) + ALPHABET[:8]
        for _ in range(k):
            parts.append(mutate(rnd.choice(words), rnd))
            parts.append(rnd.choice(SEPS))
        cmds.append("".join(parts))
    looser = stricter = 0
    hits = [0] * len(ROWS)
    for cmd in cmds:
        for r, (py, c) in enumerate(zip(pys, compiled), 1):
            a, b = bool(py.search(cmd)), ere.search(c, cmd)
            hits[r - 1] += a
            if a and not b:
                looser += 1
                print("row %d: the seed matches but the ERE does not: %r" % (r, cmd))
            elif b and not a:
                stricter += 1
    print("%d commands x %d rows: %d looser (must be 0), %d stricter; "
          "seed matches per row: %s" % (len(cmds), len(ROWS), looser, stricter,
                                        " ".join(map(str, hits))))
    if bad:
        print("%d samples not decided as expected" % bad)
    return 1 if looser or bad or 0 in hits else 0


def artifact(rows, policy_path):
    import json
    gates = []
    with open(policy_path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith('gate ask re"'):
                gates.append({"id": "gate#%d" % (len(gates) + 1), "verdict": "ask",
                              "kind": "regex", "pattern": line[len('gate ask re"'):-2],
                              "where": "%s:%d" % (policy_path, lineno)})
    print(json.dumps({"confpol": {"version": 1, "stem": "seed-gates",
                                  "failClosed": True, "gates": gates}},
                     indent=2, ensure_ascii=False))


def gate(confpol, target, target2=None):
    import json
    import subprocess
    bad = n = 0
    with open(sys.path[0] + "/samples.tsv", encoding="utf-8") as f:
        samples = [l for l in f if l.strip() and not l.startswith("#")]
    for line in samples:
        expect, row = line.split("\t")[:2]
        cmd = sample_cmd(line)
        hook = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_use_id": "t",
                           "tool_input": {"command": cmd, "description": "d"}})
        p = subprocess.run([confpol, "gate", target], input=hook.encode(),
                           capture_output=True, timeout=10)
        n += 1
        why = None
        if p.returncode != 0:
            why = "exit %d" % p.returncode
        elif expect == "allow":
            if p.stdout:
                why = "output for an allow: %r" % p.stdout
        else:
            try:
                out = json.loads(p.stdout)
                h = out["hookSpecificOutput"]
                if (list(out) != ["hookSpecificOutput"] or h["hookEventName"] != "PreToolUse"
                        or h["permissionDecision"] != expect
                        or not h["permissionDecisionReason"].startswith(
                            "rule gate#%s (" % row)):
                    why = "wrong answer %r" % p.stdout
            except (ValueError, KeyError) as e:
                why = "not the answer JSON (%s): %r" % (e, p.stdout)
        if not why and target2:
            q = subprocess.run([confpol, "gate", target2], input=hook.encode(),
                               capture_output=True, timeout=10)
            if (q.returncode, q.stdout) != (p.returncode, p.stdout):
                why = "%s answers %r (exit %d), %s %r (exit %d)" % (
                    target, p.stdout, p.returncode, target2, q.stdout, q.returncode)
        if why:
            bad += 1
            print("%s %r: %s; stderr %r" % (expect, cmd, why, p.stderr))
    print("%d samples through `confpol gate %s`: %d wrong" % (n, target, bad))
    return 1 if bad else 0


def main():
    here = sys.path[0]
    rows = seed_rows(here + "/seed-gate-rows.tsv")
    if len(rows) != len(ROWS):
        sys.exit("seed-gate-rows.tsv has %d rows, the translation %d"
                 % (len(rows), len(ROWS)))
    if sys.argv[1:2] == ["emit"]:
        emit(rows)
        return 0
    if sys.argv[1:2] == ["artifact"]:
        artifact(rows, sys.argv[2])
        return 0
    if sys.argv[1:2] == ["gate"]:
        return gate(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    if sys.argv[1:2] == ["check"]:
        return check(rows, int(sys.argv[2]), here + "/samples.tsv")
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: MIT
"""A reader of the claude target's artifact: what Claude Code (2.1.332, as
measured in ../shared/reference/claude-settings.md) lets Bash and the file
tools do under it, on Linux, for concrete paths.  Used by
tests/sh/claude-decision.sh to compare with `confpol explain`.

usage: claudemodel.py decide POLICY ARTIFACT STDERR DECIDE_BATCH
Prints one line per looser answer; exits 1 if any is not announced by the
build's warnings."""
import fnmatch
import json
import re
import subprocess
import sys

H = "/home/u"
P = "/home/u/proj"
RUNTIME = [H + "/.claude/debug", H + "/.npm/_logs", "/tmp/claude"]
VERBOSE = bool(__import__("os").environ.get("CLAUDEMODEL_VERBOSE"))


def strip(p):
    while p.endswith("/**"):
        p = p[:-3]
    return p or "/"


def sandbox_abs(s):
    if s.startswith("//"):
        return strip(s[1:])
    if s.startswith("/"):
        return strip(s)
    if s == "~" or s.startswith("~/"):
        return strip(H + s[1:])
    if s == ".":
        return P
    if s.startswith("./"):
        s = s[2:]
    return strip(P + "/" + s)


def rule_abs(s):
    if s.startswith("//"):
        return s[1:]
    if s.startswith("/"):
        return P + s
    if s == "~" or s.startswith("~/"):
        return H + s[1:]
    if s.startswith("./"):
        s = s[2:]
    return P + "/" + s


def is_glob(s):
    return any(c in s for c in "*?[")


def under(x, root):
    return root == "/" or x == root or x.startswith(root + "/")


def glob_match(pat, x):
    """gitignore-style: '*' and '?' within a segment, '**' any segments;
    a pattern names what it matches and everything beneath."""
    ps = [s for s in pat.split("/") if s]
    xs = [s for s in x.split("/") if s]

    def m(i, j):
        if i == len(ps):
            return True  # the rest is beneath a match
        if ps[i] == "**":
            return any(m(i + 1, k) for k in range(j, len(xs) + 1))
        if j == len(xs):
            return False
        return fnmatch.fnmatchcase(xs[j], ps[i]) and m(i + 1, j + 1)

    return m(0, 0)


class Claude:
    def __init__(self, doc):
        sb = doc.get("sandbox")
        self.sandboxed = sb is not None
        fs = (sb or {}).get("filesystem", {})
        self.allow_write = [sandbox_abs(s) for s in fs.get("allowWrite", [])
                            if not is_glob(strip(s))]
        self.deny_write = []   # literal: bwrap binds them
        self.deny_write_glob = []  # skipped on Linux
        for s in fs.get("denyWrite", []):
            (self.deny_write_glob if is_glob(strip(s)) else self.deny_write).append(sandbox_abs(s))
        self.deny_read = [sandbox_abs(s) for s in fs.get("denyRead", [])]
        self.edit_deny, self.read_deny = [], []
        for r in doc.get("permissions", {}).get("deny", []):
            for tool, lst in (("Edit", self.edit_deny), ("Read", self.read_deny)):
                if r.startswith(tool + "(") and r.endswith(")"):
                    lst.append(rule_abs(r[len(tool) + 1:-1]))
        # Claude Code merges Edit deny rules into denyWrite and Read deny
        # rules into denyRead (globs again skipped for writes on Linux).
        for p in self.edit_deny:
            (self.deny_write_glob if is_glob(strip(p)) else self.deny_write).append(strip(p))
        self.deny_read += [strip(p) for p in self.read_deny]

    def bash_write(self, x):
        if not self.sandboxed:
            return True
        ok = (any(under(x, r) for r in self.allow_write) or under(x, P)
              or any(under(x, r) for r in RUNTIME))
        return ok and not any(under(x, d) for d in self.deny_write)

    def bash_read(self, x):
        if not self.sandboxed:
            return True
        # denyRead globs are expanded at start: a probe path exists then.
        return not self.hidden(x)

    def write_paths(self):
        """What the sandbox runtime binds back beneath a denyRead tmpfs:
        the working directory, each allowWrite entry, its own paths."""
        return self.allow_write + [P] + list(RUNTIME)

    def bound_back(self, x):
        """Is x under a deny-read path, but inside a write path bound back
        over it (readable and writable again)?"""
        return any(glob_match(d, x) and any(
            under(x, w) and glob_match(d, w) for w in self.write_paths())
            for d in self.deny_read)

    def hidden(self, x):
        """Is x under a deny-read tmpfs?  The sandbox runtime mounts an
        empty tmpfs on each denyRead path (a glob's matches at the start)
        and binds every write path at or below it back
        (sandbox/linux-sandbox-utils.js, pushReadDenyDirMounts)."""
        return any(glob_match(d, x) for d in self.deny_read) and \
            not self.bound_back(x)

    def tool_write(self, x):
        return not any(glob_match(p, x) for p in self.edit_deny + self.read_deny)

    def tool_read(self, x):
        return not any(glob_match(p, x) for p in self.read_deny)


def probes(doc, policy_text):
    ps = {P, H, P + "/src/a.c", H + "/.bashrc", "/etc/passwd", "/tmp/x",
          H + "/.ssh/id_rsa", P + "/.git/config", "/usr/bin/env"} | set(RUNTIME)
    fs = doc.get("sandbox", {}).get("filesystem", {})
    lists = [sandbox_abs(s) for k in ("allowWrite", "denyWrite", "denyRead") for s in fs.get(k, [])]
    for r in doc.get("permissions", {}).get("deny", []):
        m = re.match(r"^(Edit|Read)\((.*)\)$", r)
        if m:
            lists.append(strip(rule_abs(m.group(2))))
    # The policy's own paths, independent of what the artifact says.
    for m in re.finditer(r'(\$\{PROJECT\}|~|(?<=\s)/)([^\s"{}]*)', policy_text):
        root = {"${PROJECT}": P, "~": H}.get(m.group(1), "")
        rest = m.group(2) if m.group(1) != "/" else "/" + m.group(2)
        lists.append(strip(root + rest) if root + rest else "/")
    for p in lists:
        if is_glob(p):
            # a concrete instance of the glob
            p = re.sub(r"\*\*", "d", p)
            p = p.replace("*", "x").replace("?", "q").replace("[", "").replace("]", "")
        p = strip(p)
        ps.add(p)
        ps.add(p + "/child")
        parent = p.rsplit("/", 1)[0] or "/"
        ps.add(parent)
    return sorted(x for x in ps if "\n" not in x and x.startswith("/"))


def main():
    policy, art, stderr, helper = sys.argv[2:6]
    doc = json.load(open(art, encoding="utf-8"))
    warn = open(stderr, encoding="utf-8", errors="replace").read()
    cl = Claude(doc)
    ps = probes(doc, open(policy, encoding="utf-8", errors="replace").read())
    q = "".join(f"{a} {p}\n" for p in ps for a in ("read", "write"))
    out = subprocess.run([helper, policy, "HOME=" + H, "PROJECT=" + P], input=q,
                         capture_output=True, text=True)
    if out.returncode != 0:
        print(f"FAIL: explain: {out.stderr}")
        return 1
    verdicts = out.stdout.split("\n")
    lost_runtime = re.search(r"keeps (.*) writable for Bash", warn)
    lost_runtime = lost_runtime.group(1) if lost_runtime else ""
    coop = doc.get("confpol", {}).get("profile") == "cooperative"
    bad = announced = checked = 0
    i = 0
    for p in ps:
        for acc in ("read", "write"):
            v = verdicts[i]
            i += 1
            if v != "deny":
                continue
            checked += 1
            looser = []
            if acc == "read":
                if not cl.bash_read(p):
                    pass
                elif coop and "CP0761" in warn:
                    announced += 1
                elif cl.bound_back(p) and "CP0773" in warn:
                    announced += 1  # a write path bound back, rated not enforced
                else:
                    looser.append("Bash may read it")
                if cl.tool_read(p):
                    looser.append("the Read tool may read it")
            else:
                if cl.bash_write(p):
                    why = None
                    if coop and "CP0761" in warn:
                        why = "cooperative"
                    elif any(under(p, r) for r in RUNTIME) and \
                            any(r.replace(H, "~") in lost_runtime for r in RUNTIME if under(p, r)):
                        why = "CP0756"
                    elif under(p, P) and "CP0757" in warn:
                        why = "CP0757"
                    elif any(glob_match(g, p) for g in cl.deny_write_glob) and "CP0753" in warn:
                        why = "CP0753"
                    if why:
                        announced += 1
                        if VERBOSE:
                            print(f"  announced ({why}): Bash may write {p}")
                    else:
                        looser.append("Bash may write it")
                if cl.tool_write(p):
                    # A deny the policy wrote must bind the file tools; the
                    # default deny outside the write roots cannot (CP0758).
                    if not (cl.sandboxed and "CP0758" in warn
                            and not any(under(p, d) for d in cl.deny_write)) and \
                            not (coop and "CP0761" in warn and not any(under(p, d) for d in cl.deny_write)):
                        looser.append("the Edit tool may write it")
                    else:
                        announced += 1
                        if VERBOSE:
                            print(f"  announced (CP0758): the Edit tool may write {p}")
            for l in looser:
                print(f"FAIL: {policy}: explain denies {acc} {p}, but {l}")
                bad += 1
    print(f"{policy}: {checked} denied probes, {announced} announced losses, {bad} unannounced")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

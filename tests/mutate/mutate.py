#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make mutate: mutation run over the runtime's security checks.

A security check is found mechanically (spec/runtime.md, "Mutation run"):
an `if` of a C file whose controlled statement (the braces after the
condition, or the one statement) refuses:
  - returns an error status: a negative number, -E..., -errno, false, an
    errno constant (E..., also in a conditional expression), or an exit
    status of the runtime (CP_RT_EXIT_ERROR/CANNOT/NOTFOUND, 125-127);
  - calls a refusing function: a name with a word fail, failure, die,
    refuse, unenforceable, abort, perror or deny_log / deny_line in it,
    exit/_exit with a status other than 0, or an HTTP answer 4xx/5xx
    (px_http_reply(c, 403, ...));
  - jumps to a label named fail, err, error, bad, deny or refuse.
Each check gives these mutants, one at a time:
  - delete: the condition is evaluated for its side effects and the
    branch never taken: `if (((void)(C), 0))`;
  - flip: each operand of the condition's && and || tree (or the whole
    condition when it has none) negated: `A && !(B)`.
Each mutant is built in a copy of the tree (never the working files):
the one object rebuilt, confpol-run, confpol-stage, confpol-janitor,
confpol-run-portable, confpol and the unit tests relinked.  A mutant whose objects are byte for byte the
original's is equivalent (the compiler proved it) and is not counted; one
that does not compile is stillborn and not counted either.  The others run
the runtime tests, ordered by how often each has killed before per time it
takes, stopping at the first failure; every test run has a time limit
(a run over it kills the mutant).  The tests: the Check suites whose files
include runtime.h or netproxy.h, and the shell tests that start the
runtime (they name CONFPOL_RUN, confpol-run or `confpol run`).  A mutant
runs only the tests that can reach its file (the test map): a Check suite
when its object references the file's object, directly or through other
runtime objects (nm); a shell test when its text matches the file's row of
SHELL_MAP (every runtime shell test for a file without a row).  Only the
binaries those tests run are relinked.

Environment (or the options of the same name in lower case):
  MUTATE_FILES   files to mutate (default runtime/*.c util/netaddr.c
                 util/netmatch.c)
  MUTATE_SAMPLE  run a sample of this many mutants (0: all of them, the
                 default of this script; `make mutate` samples unless FULL=1)
  MUTATE_SEED    the sample's seed (default: the day of the year); printed
  MUTATE_ALLTESTS=1  every runtime test for every mutant (no test map)
  MUTATE_LIMIT   run at most this many mutants (after MUTATE_MATCH)
  MUTATE_MATCH   a regular expression: only mutants whose description or
                 file:line matches
  MUTATE_SURVIVORS=1  only the mutants that survived an earlier run (or
                 did not compile)
  MUTATE_NEW=1   only the mutants without a result from an earlier run
  MUTATE_JOBS    copies of the tree run at once (default 2)
  MUTATE_MIN     fail (exit 1) when the reasoned score (survivors listed
                 in tests/mutate/survivors.txt with their reason left out) is
                 below this percentage (default 90; 0 only reports)
  MUTATE_LIST=1  print the checks and mutants, run nothing
  MUTATE_REPORT=1  run nothing: the report of the selected mutants that
                 have a result from earlier runs (a run stopped half-way)
  MUTATE_WORK    where the copies and results are (default BUILD/mutate)
  MUTATE_TESTS   the tests to run instead (unit:SUITE, tests/sh/NAME.sh)
The report goes to stdout and to BUILD/mutate/report.txt.
"""

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
WORK = os.path.join(TOP, os.environ.get("MUTATE_WORK") or
                    os.path.join(BUILD, "mutate"))
# No -g: a mutant whose object is byte for byte the original's is then
# recognisably equivalent.  No -Werror: a deleted check often leaves a
# variable "maybe uninitialized", which is the point, not a build error.
MAKE_FLAGS = ["BUILD=build", "CFLAGS=-O2", "EXTRA_CFLAGS=-Wno-error"]
TARGETS = ["build/confpol-run", "build/confpol-stage", "build/confpol-janitor",
           "build/confpol-run-portable", "build/confpol-proxy",
           "build/confpol-proxy-portable", "build/confpol", "build/unit-tests"]
PRODUCTS = TARGETS + ["build/libconfpol.a"]


# ---- finding the checks ----------------------------------------------------

PP_LINE = re.compile(r"[ \t]*#")


def blank(src):
    """src with comments, string and character literals and preprocessor
    lines replaced by spaces (newlines kept): offsets stay the same."""
    out = list(src)
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and PP_LINE.match(src, i):
            j = i
            while j < n:
                if src[j] == "\n" and src[j - 1] != "\\":
                    break
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        line_start = False
        if c == "\n":
            line_start = True
            i += 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_close(b, i, open_c, close_c):
    """Index of the bracket closing the one at b[i]."""
    depth = 0
    for j in range(i, len(b)):
        if b[j] == open_c:
            depth += 1
        elif b[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    return -1


def statement_end(b, i):
    """End (exclusive) of the statement starting at b[i]."""
    while i < len(b) and b[i].isspace():
        i += 1
    if i < len(b) and b[i] == "{":
        return match_close(b, i, "{", "}") + 1
    depth = 0
    j = i
    while j < len(b):
        c = b[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            return match_close(b, j, "{", "}") + 1
        elif c == ";" and depth == 0:
            return j + 1
        j += 1
    return j


REFUSE_RETURN = re.compile(
    r"\breturn\s*\(?\s*(-\s*\d+|-\s*E[A-Z0-9]+\b|-\s*errno\b|false\b|"
    r"CP_RT_EXIT_(ERROR|CANNOT|NOTFOUND)\b|12[5-7]\b)")
# "0 or an errno" functions (the path walk, the supervisor's answers):
# a return naming an errno constant, alone or in a conditional expression
REFUSE_ERRNO = re.compile(
    r"\breturn\s+(?:[^;?]*\?\s*)?E[A-Z][A-Z0-9]{2,}\b\s*[;:]")
REFUSE_CALL = re.compile(
    r"\b\w*(?<![a-z])(fail|failure|die|refuse|unenforceable|abort|perror|"
    r"deny_log|deny_line)\w*\s*\(", re.I)
REFUSE_EXIT = re.compile(r"\b_?exit\s*\(\s*(?!0\s*\))")
REFUSE_HTTP = re.compile(r"\bpx_http_reply\s*\(\s*\w+\s*,\s*[45]\d\d\b")
REFUSE_GOTO = re.compile(r"\bgoto\s+\w*(fail|err|error|bad|deny|refuse)\w*",
                         re.I)


def refuses(branch):
    for rx in (REFUSE_RETURN, REFUSE_ERRNO, REFUSE_CALL, REFUSE_EXIT, REFUSE_HTTP,
               REFUSE_GOTO):
        if rx.search(branch):
            return True
    return False


def split_top(b, lo, hi, op):
    """Spans of the operands of the operator op ('&&' or '||') at the top
    level of b[lo:hi], or None when it has none."""
    parts, depth, start, j = [], 0, lo, lo
    while j < hi:
        c = b[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "?" and depth == 0:
            return None  # a conditional expression: one operand
        elif depth == 0 and b.startswith(op, j):
            parts.append((start, j))
            start = j + 2
            j += 2
            continue
        j += 1
    if not parts:
        return None
    parts.append((start, hi))
    return parts


def strip_span(b, lo, hi):
    while lo < hi and b[lo].isspace():
        lo += 1
    while hi > lo and b[hi - 1].isspace():
        hi -= 1
    return lo, hi


def atoms(b, lo, hi):
    """The operands of the && / || tree of b[lo:hi] (parentheses looked
    into), as spans."""
    lo, hi = strip_span(b, lo, hi)
    for op in ("||", "&&"):
        parts = split_top(b, lo, hi, op)
        if parts:
            out = []
            for p in parts:
                out.extend(atoms(b, *p))
            return out
    # (A || B) and !(A || B): the operands inside
    p = lo + 1 if b[lo] == "!" else lo
    while p < hi and b[p].isspace():
        p += 1
    if b[p] == "(" and match_close(b, p, "(", ")") == hi - 1:
        inner = atoms(b, p + 1, hi - 1)
        if len(inner) > 1:
            return inner
    return [(lo, hi)]


def squash(s):
    return " ".join(s.split())


# Named mutants: checks that are not an `if` (a row of a table, an entry
# of a list, a flag in a mask), each broken by replacing one exact text of
# its file.  A text not found exactly once stops the run: a named mutant
# never silently goes missing after an edit.
NAMED = [
    ("util/netaddr.c",
     '{AF_INET, 8, V4(10, 0, 0, 0), "10.0.0.0/8", "private-use (RFC 1918)"},',
     "", "remove the refusal of 10.0.0.0/8 (its row)"),
    ("util/netaddr.c",
     '{AF_INET, 16, V4(169, 254, 0, 0), "169.254.0.0/16",\n'
     '     "link-local, cloud metadata 169.254.169.254 (RFC 3927)"},',
     "",
     "remove the refusal of 169.254.0.0/16 (its row)"),
    ("util/netaddr.c",
     "out->range = addr_lookup(&out->inner);",
     "out->range = out->embed == CP_EMBED_MAPPED ? NULL "
     ": addr_lookup(&out->inner);",
     "remove the refusal of IPv4-mapped addresses (decided as public)"),
    ("runtime/proxy.c",
     '"keep-alive:", "proxy-authorization:"};',
     '"keep-alive:"};',
     "remove the stripping of Proxy-Authorization"),
    ("runtime/proxy.c",
     '{"proxy-connection:", "connection:",',
     '{"proxy-connection:",',
     "remove the stripping of Connection"),
    ("runtime/netsock.c",
     "(m.msg_flags & (MSG_CTRUNC | MSG_TRUNC))",
     "(m.msg_flags & (MSG_TRUNC))",
     "remove the MSG_CTRUNC check"),
]


def named_mutants(path, src):
    out = []
    for f, old, new, what in NAMED:
        if f != path:
            continue
        if src.count(old) != 1:
            sys.exit("mutate: the named mutant '%s' of %s: its text is "
                     "not in the file exactly once: %s" % (what, f, old))
        lo = src.find(old)
        ln = src.count("\n", 0, lo) + 1
        key = hashlib.sha1(("%s\0%s\0named\0%s" % (path, squash(old), what))
                           .encode()).hexdigest()[:16]
        out.append({"file": path, "line": ln, "if_line": ln, "kind": "named",
                    "cond": squash(old), "what": what, "lo": lo,
                    "hi": lo + len(old), "repl": new, "key": key})
    return out


def find_mutants(path, src):
    b = blank(src)
    out = named_mutants(path, src)
    checks = len(out)
    for m in re.finditer(r"\bif\s*\(", b):
        po = m.end() - 1
        pc = match_close(b, po, "(", ")")
        if pc < 0:
            continue
        end = statement_end(b, pc + 1)
        if not refuses(b[pc + 1:end]):
            continue
        checks += 1
        line = src.count("\n", 0, m.start()) + 1
        cond = src[po + 1:pc]
        ctext = squash(cond)
        seen = set()

        def add(kind, lo, hi, repl, what):
            text = src[:lo] + repl + src[hi:]
            h = hashlib.sha1(text.encode()).hexdigest()
            if h in seen:
                return
            seen.add(h)
            ln = src.count("\n", 0, lo) + 1
            key = hashlib.sha1(
                ("%s\0%s\0%s\0%s" % (path, ctext, kind, what)).encode()
            ).hexdigest()[:16]
            out.append({"file": path, "line": ln, "if_line": line,
                        "kind": kind, "cond": ctext, "what": what,
                        "lo": lo, "hi": hi, "repl": repl, "key": key})

        add("delete", po + 1, pc, "((void)(%s), 0)" % cond,
            "delete `if (%s)`" % ctext)
        spans = atoms(b, po + 1, pc)
        for i, (lo, hi) in enumerate(spans):
            a = src[lo:hi]
            add("flip", lo, hi, "!(%s)" % a,
                "flip `%s` in `if (%s)`" % (squash(a), ctext)
                if len(spans) > 1 else "flip `if (%s)`" % ctext)
    # the same check text twice in a file: keys made unique by order
    count = {}
    for mu in out:
        n = count.get(mu["key"], 0)
        count[mu["key"]] = n + 1
        if n:
            mu["key"] += "-%d" % n
    return checks, out


# What `make mutate` breaks by default: the runtime and the address and
# name decisions it shares with the compiler (util/), whose checks the
# proxy and the direct path depend on.
DEFAULT_FILES = "runtime/*.c util/netaddr.c util/netmatch.c"


# ---- the tests -----------------------------------------------------------

def unit_suites():
    names = []
    for f in sorted(os.listdir(os.path.join(TOP, "tests", "unit"))):
        if not f.endswith(".c"):
            continue
        t = open(os.path.join(TOP, "tests", "unit", f)).read()
        if not re.search(r'#include "(runtime|netproxy|netaddr|netmatch|match)\.h"',
                         t):
            continue
        names += re.findall(r"^Suite \*cp_test_([a-z0-9_]+)_suite\(void\)$",
                            t, re.M)
    return names


def shell_tests():
    d = os.path.join(TOP, "tests", "sh")
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".sh"):
            continue
        t = open(os.path.join(d, f)).read()
        if re.search(r"CONFPOL_RUN|confpol-run|confpol run|\$CONFPOL\"? run",
                     t):
            out.append("tests/sh/" + f)
    return out


def run_limited(cmd, cwd, env, limit, log):
    """Runs cmd in its own session; at the limit the whole process group is
    killed.  Returns (status, seconds, timed_out)."""
    t0 = time.monotonic()
    with open(log, "wb") as f:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=f,
                             stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL,
                             start_new_session=True)
        LIVE.add(p.pid)
        try:
            rc = p.wait(timeout=limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = 124
        # anything the test left behind in its group goes too
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if timed_out:
            p.wait()
        LIVE.discard(p.pid)
    return rc, time.monotonic() - t0, timed_out


# The process groups of the runs under way: a run stopped (SIGTERM, the
# limit of `make mutate`, Ctrl-C) kills them, not only itself.
LIVE = set()


def descendants(pid):
    """pid's descendants, from /proc (children of each thread)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for t in tasks:
            try:
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                kids = []
            out += kids
            todo += kids
    return out


def stop(signum, _frame):
    """Kills every run under way with all it started: the process group
    of each, and each descendant's (a test's `timeout` leads a group of
    its own), stopped first so that none forks meanwhile."""
    for pg in list(LIVE):
        tree = [pg] + descendants(pg)
        for p in tree:
            try:
                os.kill(p, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                pass
        tree = [pg] + descendants(pg)
        for p in tree:
            for kill in (lambda q: os.killpg(q, signal.SIGKILL),
                         lambda q: os.kill(q, signal.SIGKILL)):
                try:
                    kill(p)
                except (ProcessLookupError, PermissionError):
                    pass
    os._exit(128 + signum)


# Shell tests that can reach a file: a regular expression over the test's
# text.  A file without a row is reached by every runtime shell test (the
# launcher, the stage, the artifact reader and the seccomp filters run in
# every launch).  A row is a superset by design: a test it leaves out
# cannot kill that file's mutants, so MUTATE_ALLTESTS=1 exists to check a
# survivor against everything.
SHELL_MAP = {
    # the filtering proxy and its sockets start for `net allow` records
    # and for the macOS path's `;; confpol-net` lines
    "runtime/proxy.c": r"net allow|proxy|PROXY|confpol-net",
    "runtime/netsock.c": r"net allow|proxy|PROXY|confpol-net|unix|Unix",
    "runtime/netbridge.c": r"net allow|proxy|PROXY|confpol-net|unix|Unix",
    # the proxy program, its start and its confinement; the bridge and
    # the direct path in the sandbox (started for the same records)
    "runtime/proxy_start.c": r"net allow|proxy|PROXY|confpol-net",
    "runtime/proxy_main.c": r"net allow|proxy|PROXY|confpol-net",
    "runtime/proxy_confine.c": r"net allow|proxy|PROXY|confpol-net",
    "runtime/bridge.c": r"net allow|proxy|PROXY|confpol-net|unix|Unix",
    "runtime/netdirect.c": r"net allow|proxy|PROXY|confpol-net|unix|Unix",
    # the address and name decisions of the proxy and the direct path
    "util/netaddr.c": r"net allow|proxy|PROXY|confpol-net",
    "util/netmatch.c": r"net allow|proxy|PROXY|confpol-net",
    # the Landlock enforcer and its supervisor of the process lifetime
    "runtime/ll_enforce.c": r"landlock|ENFORCER|enforcer",
    "runtime/supervise.c": r"landlock|ENFORCER|enforcer",
    # the macOS path, run on Linux with a stand-in for sandbox-exec
    "runtime/seatbelt.c": r"\.sb\b|macos|seatbelt|sandbox-exec",
    # the supervisor of named Unix sockets
    "runtime/unixsock.c": r"unix|Unix|UNIX",
}
# The files built a second time for the macOS path (Makefile,
# PORTABLE_SRCS): their mutants relink confpol-run-portable too.
PORTABLE = ("runtime/proxy.c", "runtime/netsock.c", "runtime/seatbelt.c",
            "runtime/proxy_start.c", "runtime/proxy_main.c")


def nm_symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    r = subprocess.run(["nm", "-g", obj], capture_output=True, text=True)
    d, u = set(), set()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            u.add(f[1])
        elif len(f) == 3 and f[1] not in ("U", "w", "v"):
            d.add(f[2])
    return d, u


def unit_reach(w, files):
    """{suite: set of runtime files its test file reaches}: the runtime
    objects that define a symbol the test object uses, and so on through
    the runtime objects themselves."""
    objs = {}
    for f in files:
        o = os.path.join(w, "build", os.path.splitext(f)[0] + ".o")
        if os.path.exists(o):
            objs[f] = nm_symbols(o)
    out = {}
    d = os.path.join(TOP, "tests", "unit")
    for src in sorted(os.listdir(d)):
        if not src.endswith(".c"):
            continue
        t = open(os.path.join(d, src)).read()
        suites = re.findall(
            r"^Suite \*cp_test_([a-z0-9_]+)_suite\(void\)$", t, re.M)
        o = os.path.join(w, "build", "tests", "unit", src[:-2] + ".o")
        if not suites or not os.path.exists(o):
            continue
        need = set(nm_symbols(o)[1])
        reached = set()
        while True:
            more = [f for f, (df, _) in objs.items()
                    if f not in reached and df & need]
            if not more:
                break
            for f in more:
                reached.add(f)
                need |= objs[f][1]
        for su in suites:
            out[su] = reached
    return out


class Tests:
    def __init__(self, only=None):
        self.list = ["unit:" + s for s in unit_suites()] + shell_tests()
        if only:
            self.list = only.split()
        self.dur = {t: 1.0 for t in self.list}
        self.kills = {t: 0 for t in self.list}
        self.fkills = {}
        self.lock = threading.Lock()
        self.map = None  # {file: [tests]}; None: every test for every file
        self.text = {}
        for t in self.list:
            if not t.startswith("unit:"):
                self.text[t] = open(os.path.join(TOP, t)).read()

    def build_map(self, w, files):
        """The test map (the module's docstring)."""
        reach = unit_reach(w, files)
        self.map = {}
        for f in files:
            rx = re.compile(SHELL_MAP[f]) if f in SHELL_MAP else None
            ts = []
            for t in self.list:
                if t.startswith("unit:"):
                    # a suite nm cannot see through (none today) runs too
                    if f in reach.get(t[5:], {f}):
                        ts.append(t)
                elif rx is None or rx.search(self.text[t]):
                    ts.append(t)
            self.map[f] = ts

    def for_file(self, f):
        return list(self.list) if self.map is None else \
            [t for t in self.map.get(f, self.list) if t in self.list]

    def targets(self, f):
        """The binaries the tests of f run (relinked for a mutant of f)."""
        ts = self.for_file(f)
        out = []
        if any(t.startswith("unit:") for t in ts):
            out.append("build/unit-tests")
        if any(not t.startswith("unit:") for t in ts):
            out += ["build/confpol-run", "build/confpol-stage",
                    "build/confpol-janitor", "build/confpol-proxy",
                    "build/confpol"]
        # its object is compared for equivalence: always built
        if f in PORTABLE:
            out += ["build/confpol-run-portable",
                    "build/confpol-proxy-portable"]
        return out or ["build/confpol-run"]

    def cmd(self, t, limit):
        if t.startswith("unit:"):
            return ["timeout", "-k", "5", str(int(limit)), "build/unit-tests"]
        return ["sh", "tests/run.sh", t]

    def env(self, w, t, limit):
        e = dict(os.environ)
        e.update(BUILD="build", CI="true", TEST_TIMEOUT=str(int(limit)))
        e.pop("MAKEFLAGS", None)
        e.pop("MFLAGS", None)
        if t.startswith("unit:"):
            e["CK_RUN_SUITE"] = t[5:]
        return e

    def limit(self, t):
        # generous: a loaded machine must not pass for a hanging mutant
        return max(120.0, 8 * self.dur[t])

    def run(self, w, t, log):
        lim = self.limit(t)
        rc, secs, to = run_limited(self.cmd(t, lim), w, self.env(w, t, lim),
                                   lim + 15, log)
        return rc, secs, to

    def order(self, f, first=None):
        with self.lock:
            fk = self.fkills.get(f, {})

            def score(t):
                return (1 + 4 * fk.get(t, 0) + self.kills[t]) / \
                    max(self.dur[t], 0.05)
            ts = sorted(self.for_file(f), key=lambda t: (-score(t), t))
        if first in ts:
            ts.remove(first)
            ts.insert(0, first)
        return ts

    def killed(self, f, t):
        with self.lock:
            self.kills[t] += 1
            fk = self.fkills.setdefault(f, {})
            fk[t] = fk.get(t, 0) + 1


# ---- the copies of the tree -----------------------------------------------

def tree_files():
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"],
                       cwd=TOP, capture_output=True, check=True)
    fs = [f for f in r.stdout.decode().split("\0") if f]
    return [f for f in fs if os.path.isfile(os.path.join(TOP, f))]


def sync_copy(w):
    """w holds the working tree's files: changed ones copied (with a new
    mtime, so that make rebuilds from them), vanished ones removed."""
    files = tree_files()
    want = set(files)
    for f in files:
        src, dst = os.path.join(TOP, f), os.path.join(w, f)
        try:
            same = open(src, "rb").read() == open(dst, "rb").read()
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            shutil.copymode(src, dst)
    for root, dirs, names in os.walk(w):
        rel = os.path.relpath(root, w)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in ("build", ".mutate-save")]
        for n in names:
            f = os.path.normpath(os.path.join(rel, n))
            if f not in want:
                os.unlink(os.path.join(root, n))


def make(w, targets=TARGETS, limit=900):
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    log = os.path.join(w, ".mutate-make.log")
    rc, _, _ = run_limited(["make", "-s", "-j1"] + MAKE_FLAGS + targets,
                           w, env, limit, log)
    return rc == 0


def objects_of(path):
    """Every object built from path: the build's, the portable build's and
    the musl build's of the launcher and the stage (Makefile RT_LIBC): each
    is saved and put back around a mutant, so that no mutated object
    outlives it."""
    base = os.path.splitext(path)[0] + ".o"
    return ["build/" + base, "build/portable/" + base, "build/musl/" + base]


def save(w, files):
    d = os.path.join(w, ".mutate-save")
    os.makedirs(d, exist_ok=True)
    for f in files:
        if os.path.exists(os.path.join(w, f)):
            dst = os.path.join(d, f.replace("/", "%"))
            shutil.copy2(os.path.join(w, f), dst)


def restore(w, files):
    d = os.path.join(w, ".mutate-save")
    for f in files:
        s = os.path.join(d, f.replace("/", "%"))
        if os.path.exists(s):
            dst = os.path.join(w, f)
            tmp = dst + ".mutate-tmp"
            shutil.copy2(s, tmp)
            os.replace(tmp, dst)


def same_file(a, b):
    try:
        return open(a, "rb").read() == open(b, "rb").read()
    except OSError:
        return not os.path.exists(a) and not os.path.exists(b)


# ---- one mutant ------------------------------------------------------------

def run_mutant(w, mu, srcs, tests, history):
    path = mu["file"]
    src = srcs[path]
    text = src[:mu["lo"]] + mu["repl"] + src[mu["hi"]:]
    full = os.path.join(w, path)
    st = os.stat(full)
    objs = objects_of(path)
    saved = os.path.join(w, ".mutate-save")
    try:
        with open(full, "w") as f:
            f.write(text)
        newest = max([st.st_mtime] + [os.stat(os.path.join(w, o)).st_mtime
                                      for o in objs
                                      if os.path.exists(os.path.join(w, o))])
        os.utime(full, (newest + 1, newest + 1))
        if not make(w, tests.targets(path)):
            return "stillborn", None, 0.0
        if all(same_file(os.path.join(w, o),
                         os.path.join(saved, o.replace("/", "%")))
               for o in objs):
            return "equivalent", None, 0.0
        logdir = os.path.join(w, ".mutate-logs")
        os.makedirs(logdir, exist_ok=True)
        spent = 0.0
        for t in tests.order(path, history.get(mu["key"])):
            log = os.path.join(logdir, re.sub(r"[^a-z0-9]+", "_", t) + ".log")
            rc, secs, to = tests.run(w, t, log)
            spent += secs
            if rc != 0:
                tests.killed(path, t)
                return "killed", t + (" (time limit)" if to else ""), spent
        return "survived", None, spent
    finally:
        with open(full, "w") as f:
            f.write(src)
        os.utime(full, (st.st_atime, st.st_mtime))
        restore(w, objs + PRODUCTS)


# ---- the survivors reasoned unkillable ----------------------------------------

def reasoned():
    """{(file, description): reason} from tests/mutate/survivors.txt: lines
    `FILE: DESCRIPTION | REASON` (spec/runtime.md §8.1).  Such a mutant is
    still run; surviving, it is reported with its reason and left out of
    the reasoned score; killed, it is reported so that the line goes."""
    out = {}
    try:
        lines = open(os.path.join(TOP, "tests", "mutate",
                                  "survivors.txt")).read().splitlines()
    except OSError:
        return out
    for ln in lines:
        if not ln.strip() or ln.startswith("#"):
            continue
        # the first " | " outside backquotes: a condition may hold one
        # (`A | B`)
        cut = next((i for i in range(len(ln))
                    if ln.startswith(" | ", i) and ln.count("`", 0, i) % 2 == 0),
                   len(ln))
        head, why = ln[:cut], ln[cut + 3:]
        f, _, what = head.partition(": ")
        out[(f.strip(), what.strip())] = why.strip()
    return out


# ---- main ------------------------------------------------------------------

def opt(name, default=None):
    for a in sys.argv[1:]:
        if a.startswith("--%s=" % name.lower()):
            return a.split("=", 1)[1]
    v = os.environ.get("MUTATE_" + name)
    return v if v not in (None, "") else default


def expand_files(spec):
    import glob
    out = []
    for pat in spec.split():
        hits = sorted(glob.glob(os.path.join(TOP, pat)))
        if not hits:
            sys.exit("mutate: no such file: %s" % pat)
        out += [os.path.relpath(h, TOP) for h in hits]
    return out


def main():
    t_start = time.monotonic()
    for sg in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sg, stop)
    files = expand_files(opt("FILES", DEFAULT_FILES))
    srcs = {f: open(os.path.join(TOP, f)).read() for f in files}
    mutants, nchecks = [], 0
    for f in files:
        c, ms = find_mutants(f, srcs[f])
        nchecks += c
        mutants += ms
    os.makedirs(WORK, exist_ok=True)
    hist_path = os.path.join(WORK, "history.json")
    try:
        history = json.load(open(hist_path))
    except (OSError, ValueError):
        history = {}
    match = opt("MATCH")
    if match:
        rx = re.compile(match)
        mutants = [m for m in mutants
                   if rx.search("%s:%d: %s" % (m["file"], m["line"],
                                               m["what"]))]
    if opt("NEW") == "1":
        mutants = [m for m in mutants if m["key"] not in history]
    if opt("SURVIVORS") == "1":
        mutants = [m for m in mutants
                   if history.get(m["key"]) in ("survived", "stillborn")]
    # a fixed order that mixes the files and the checks: a slice
    # (MUTATE_LIMIT) samples all of them, and a run is repeatable
    # (the named mutants first: each is a check a test was written for)
    mutants.sort(key=lambda m: (m["kind"] != "named",
                                hashlib.sha1(m["key"].encode()).hexdigest()))
    limit = opt("LIMIT")
    if limit:
        mutants = mutants[:int(limit)]
    nall = len(mutants)
    sample = int(opt("SAMPLE", "0"))
    if 0 < sample < nall and opt("REPORT") != "1":
        seed = int(opt("SEED", time.strftime("%j", time.gmtime())))
        rng = random.Random(seed)
        pick = set(m["key"] for m in rng.sample(mutants, sample))
        mutants = [m for m in mutants if m["key"] in pick]
        print("mutate: a SAMPLE of %d of the %d mutants, seed %d "
              "(MUTATE_SEED=%d repeats it; FULL=1 runs all of them)" %
              (sample, nall, seed, seed), flush=True)
    print("mutate: %d checks in %d files, %d mutants to run" %
          (nchecks, len(files), len(mutants)), flush=True)
    if opt("LIST") == "1":
        for m in mutants:
            print("%s:%d: %s" % (m["file"], m["line"], m["what"]))
        return 0
    if opt("REPORT") == "1":
        # no run: what earlier runs found (one stopped half-way included)
        mutants = [m for m in mutants if m["key"] in history]
        results = [("killed", history[m["key"]], 0)
                   if history[m["key"]] not in
                   ("survived", "equivalent", "stillborn")
                   else (history[m["key"]], "", 0) for m in mutants]
        return report(mutants, results, files, srcs, history, nchecks, 0, 0)

    jobs = max(1, int(opt("JOBS", "2")))
    tests = Tests(opt("TESTS"))
    # the first copy is brought up to date and built; the others are its
    # copies (same mtimes: nothing to rebuild)
    w0 = os.path.join(WORK, "w0")
    os.makedirs(w0, exist_ok=True)
    # a run stopped half-way may have left a mutant's objects: the saved
    # originals go back first (older than any change since, which make
    # then rebuilds)
    sv = os.path.join(w0, ".mutate-save")
    if os.path.isdir(sv):
        restore(w0, [n.replace("%", "/") for n in os.listdir(sv)])
    sync_copy(w0)
    print("mutate: building the copy %s" % w0, flush=True)
    if not make(w0):
        sys.exit("mutate: the copy does not build: %s" %
                 os.path.join(w0, ".mutate-make.log"))
    if opt("ALLTESTS") != "1" and not opt("TESTS"):
        tests.build_map(w0, files)
        # only the tests some mutant of this run can use
        used = set(t for m in mutants for t in tests.for_file(m["file"]))
        tests.list = [t for t in tests.list if t in used]
        for f in sorted(set(m["file"] for m in mutants)):
            print("mutate: map: %s: %d tests" % (f, len(tests.for_file(f))),
                  flush=True)
    # the baseline: every test passes unmutated, and its time is measured
    logdir = os.path.join(w0, ".mutate-logs")
    os.makedirs(logdir, exist_ok=True)
    bad = []
    for t in list(tests.list):
        rc, secs, to = run_limited(tests.cmd(t, 600), w0,
                                   tests.env(w0, t, 600), 615,
                                   os.path.join(logdir, "baseline.log"))
        tests.dur[t] = secs
        if rc != 0:
            bad.append(t)
            tests.list.remove(t)
    print("mutate: baseline: " + ", ".join(
        "%s %.1f s" % (t, tests.dur[t]) for t in tests.list), flush=True)
    print("mutate: baseline %d tests in %.0f s%s" %
          (len(tests.list), sum(tests.dur[t] for t in tests.list),
           "; FAILING WITHOUT A MUTANT, left out: " + " ".join(bad)
           if bad else ""), flush=True)
    save(w0, [o for f in files for o in objects_of(f)] + PRODUCTS)
    copies = [w0]
    for j in range(1, jobs):
        w = os.path.join(WORK, "w%d" % j)
        shutil.rmtree(w, ignore_errors=True)
        subprocess.run(["cp", "-a", w0, w], check=True)
        copies.append(w)

    results = [None] * len(mutants)
    nextm = [0]
    lock = threading.Lock()

    def worker(w):
        while True:
            with lock:
                i = nextm[0]
                nextm[0] += 1
            if i >= len(mutants):
                return
            mu = mutants[i]
            prev = history.get(mu["key"])
            r = run_mutant(w, mu, srcs, tests,
                           {mu["key"]: prev} if prev not in
                           (None, "survived", "equivalent", "stillborn")
                           else {})
            results[i] = r
            with lock:
                # kept after each mutant: a run stopped half-way is not lost
                if r[0] == "killed":
                    history[mu["key"]] = r[1].split(" ")[0]
                else:
                    history[mu["key"]] = r[0]
                with open(hist_path + ".tmp", "w") as f:
                    json.dump(history, f, indent=0, sort_keys=True)
                os.replace(hist_path + ".tmp", hist_path)
                done = sum(1 for x in results if x)
                print("[%d/%d] %s:%d: %s: %s%s (%.0f s)" %
                      (done, len(mutants), mu["file"], mu["line"], mu["what"],
                       r[0], " by " + r[1] if r[1] else "", r[2]),
                      flush=True)

    th = [threading.Thread(target=worker, args=(w,)) for w in copies]
    for t in th:
        t.start()
    for t in th:
        t.join()

    return report(mutants, results, files, srcs, history, nchecks,
                  time.monotonic() - t_start, jobs)

def report(mutants, results, files, srcs, history, nchecks, secs, jobs):
    """Writes the report of results (one per mutant) to stdout and
    WORK/report.txt; the exit status: 1 under MUTATE_MIN."""
    count = {}
    for r in results:
        count[r[0]] = count.get(r[0], 0) + 1
    k, s = count.get("killed", 0), count.get("survived", 0)
    score = 100.0 * k / (k + s) if k + s else 100.0
    lines = ["mutate: %d checks in %d files; %d mutants: %d killed, "
             "%d survived, %d equivalent (same object code), %d stillborn"
             % (nchecks, len(files), len(mutants), k, s,
                count.get("equivalent", 0), count.get("stillborn", 0)),
             "mutate: score %d / %d = %.1f%% killed, %s"
             % (k, k + s, score, "in %.0f s (%d copies)" % (secs, jobs)
                if jobs else "from earlier runs (MUTATE_REPORT=1)")]
    per = {}
    for mu, r in zip(mutants, results):
        pf = per.setdefault(mu["file"], {})
        pf[r[0]] = pf.get(r[0], 0) + 1
    for f in sorted(per):
        pk, ps = per[f].get("killed", 0), per[f].get("survived", 0)
        lines.append("mutate:   %-28s %3d / %3d killed%s" %
                     (f, pk, pk + ps, "  (%d equivalent, %d stillborn)" %
                      (per[f].get("equivalent", 0),
                       per[f].get("stillborn", 0))
                      if per[f].get("equivalent") or per[f].get("stillborn")
                      else ""))
    why = reasoned()
    nr = 0
    for mu, r in zip(mutants, results):
        reason = why.get((mu["file"], mu["what"]))
        if r[0] == "survived":
            nr += reason is not None
            lines.append("SURVIVED %s:%d: %s -- %s" % (
                mu["file"], mu["line"], mu["what"],
                "reasoned: " + reason if reason else "NOT REASONED"))
        elif r[0] == "killed" and reason:
            lines.append("note: killed, yet listed as unkillable in "
                         "tests/mutate/survivors.txt: %s: %s" %
                         (mu["file"], mu["what"]))
    rscore = 100.0 * k / (k + s - nr) if k + s - nr else 100.0
    lines.insert(2, "mutate: reasoned score %d / %d = %.1f%% killed (the %d "
                 "survivors reasoned unkillable in tests/mutate/survivors.txt "
                 "left out)" % (k, k + s - nr, rscore, nr))
    # every mutant of these files with a result in this run or an earlier
    # one (MUTATE_SURVIVORS=1 reruns only the survivors)
    allm = []
    for f in files:
        allm += find_mutants(f, srcs[f])[1]
    hk = sum(1 for m in allm if history.get(m["key"]) not in
             (None, "survived", "equivalent", "stillborn"))
    hs = sum(1 for m in allm if history.get(m["key"]) == "survived")
    hr = sum(1 for m in allm if history.get(m["key"]) == "survived" and
             (m["file"], m["what"]) in why)
    if hk + hs > k + s:
        lines.append("mutate: with earlier runs: %d / %d = %.1f%% killed "
                     "(reasoned: %d / %d = %.1f%%), %d mutants without a "
                     "result" %
                     (hk, hk + hs, 100.0 * hk / (hk + hs), hk, hk + hs - hr,
                      100.0 * hk / max(1, hk + hs - hr),
                      sum(1 for m in allm if m["key"] not in history)))
    rep = "\n".join(lines) + "\n"
    kills = "\n".join("killed %s:%d: %s by %s" % (mu["file"], mu["line"],
                                                   mu["what"], r[1])
                      for mu, r in zip(mutants, results)
                      if r[0] == "killed")
    with open(os.path.join(WORK, "report.txt"), "w") as f:
        f.write(rep + kills + "\n")
    sys.stdout.write(rep)
    return 1 if rscore < float(opt("MIN", "90")) else 0


if __name__ == "__main__":
    sys.exit(main())

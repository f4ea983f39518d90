#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two confpol binaries' gate answers on random command lines, compared
(a check for a change of the matcher that must keep every decision, not a
test: nothing of it runs in `make check`).

    gate-differential.py OLD NEW ARTIFACT [N [SEED]]

Each line is built from the programs and words the gate library's rows
name (file names its globs want, options, interpreter code), bytes the
matcher's refusals look at (first and last bytes, adjacent pairs) and
shell syntax (quotes, expansions, globs, redirections, pipes, lists,
here-documents); one in twenty is made longer than 4 KiB (the regexes'
prefilter then reads the line's pairs).  Both binaries answer each as a
Bash hook call on ARTIFACT; any difference in stdout or exit status is
printed and the exit status is 1.  N lines (3,000), SEED (1)."""
import json, random, subprocess, sys

PROGS = ["curl", "wget", "tee", "cp", "mv", "ln", "install", "rsync", "dd",
         "sed", "perl", "vim", "touch", "chmod", "tar", "scp", "python3",
         "python", "pypy3", "node", "ruby", "pwsh", "powershell", "find",
         "fd", "rm", "git", "npm", "pip", "pip3", "sudo", "bash", "sh",
         "env", "xargs", "docker", "ssh", "crontab", "awk", "cat", "echo",
         "http", "xh", "gh", "make", "sudoedit", "doas", "/usr/bin/curl",
         "./run", "Curl"]
WORDS = ["~/.bashrc", "/etc/cron.d/x", "/etc/systemd/system/a.service",
         "x.bashrc", ".bashrcx", "crontab", "cr", "on", "/home/u/.ssh/rc",
         "/home/u/.ssh/authorized_keys", ".git/hooks/pre-commit",
         "https://api.github.com/gists", "gist.github.com", "pastebin.com",
         "ix.io", "x.io", "telnet://h", "dict://h", "-c", "-e", "-d",
         "--data", "-T", "-F", "--upload-file", "@f", "-o", "out", "-X",
         "POST", "install", "i", "add", "exec", "-m", "pip", "4755", "0755",
         "-rf", "-f", "--force", "push", "origin", "main", "iex", "IEX",
         "Invoke-Expression", "DownloadString", "iwr", "*.py", "*", "?",
         "a*b", "$x", "${HOME}", "$(id)", "`id`", "'a b'", '"q"', "x{a,b}",
         "--", "-", "/dev/stdin", "/proc/self/fd/0", "sudo", "su", "rmtree",
         "rm_rf", "system", "http", "urlopen", "profile", "/profile.d/x",
         "LaunchAgents", "/Library/LaunchAgents/x.plist", "autostart",
         "abcdefghijklmnopqrstuvwxyz./_-:0123456789", "aab", "abab", "ba"]
SEPS = [" ", " ", " ", " ", " | ", " && ", "; ", " || ", " > ", " >> ",
        " < ", " 2>&1 ", " <<< ", "\n"]
ALPHA = "ab./_-:crontsyedmhi*$'\"~"


def word(r):
    k = r.random()
    if k < 0.6:
        return r.choice(WORDS)
    if k < 0.8:
        return "".join(r.choice(ALPHA) for _ in range(r.randint(1, 12)))
    a, b = r.choice(WORDS), r.choice(WORDS)
    return a + r.choice(["", "/", ".", "*"]) + b


def line(r):
    out = []
    for _ in range(r.randint(1, 3)):
        cmd = [r.choice(PROGS)] + [word(r) for _ in range(r.randint(0, 8))]
        out.append(" ".join(cmd))
        out.append(r.choice(SEPS))
    s = "".join(out[:-1])
    if r.random() < 0.05:
        s = "cat <<E\n" + s + "\nE\n" + r.choice(PROGS) + " " + word(r)
    if r.random() < 0.05:  # 4 KiB or more: the regexes' prefilter reads pairs
        pad = " ".join(word(r) for _ in range(8))
        s = s + " " + " ".join([pad] * (4096 // len(pad) + 1)) + " " + line(r)
    return s


def answer(binary, art, cmd):
    inp = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": cmd}})
    p = subprocess.run([binary, "gate", art], input=inp.encode(),
                       capture_output=True, timeout=30)
    return p.returncode, p.stdout


def main():
    old, new, art = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
    r = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    diff, verdicts = 0, {}
    for _ in range(n):
        cmd = line(r)
        a, b = answer(old, art, cmd), answer(new, art, cmd)
        v = b[1].split(b'"permissionDecision": "')[1].split(b'"')[0] \
            if b[1] else b"allow"
        verdicts[v] = verdicts.get(v, 0) + 1
        if a != b:
            diff += 1
            print("differ: %r\n  old %r\n  new %r" % (cmd, a, b))
    print("%d lines, %d differ; new answers: %s" % (
        n, diff, ", ".join("%s %d" % (k.decode(), v)
                           for k, v in sorted(verdicts.items()))))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())

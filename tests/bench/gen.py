#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deterministic policy generator for `make bench`.

  gen.py DIR N...

For each N writes DIR/N/main.confpol (profile confined, includes) and
DIR/N/part-K.confpol (at most 20,000 rules each) holding exactly N rules in
a realistic mix, and DIR/N/covered.txt: the paths of the rules that another
rule of the same effect covers (the backends must emit no mount for them).

The mix, per unit of 20 rules (unit u).  Units 0..99 (the first 2,000
rules) are "mount" units:
  write roots (project and absolute), carve-outs inside them (deny write of
  a directory and of a file), deny-read files and directories, a deny-read
  glob and a deny-write glob (apply-time expansion), gate patterns (words;
  a regex in every 50th unit), and in every 10th unit two rules covered by
  another rule of the same effect (a write under a write root, a deny read
  under a deny-read directory).
Every later unit needs no mount of its own, because bwrap cannot take more
than about 2,900 mounts (its 9,000-argument limit; confpol refuses such a
policy with CP0703), so no policy that builds for bwrap has many more
mount-bearing rules than that:
  gate patterns (words; a regex in every 50th unit), an exec allow-list,
  net allow domains, deny write of system paths outside every write root
  (already read-only: no mount), deny-read globs, and in every 10th unit a
  deny read covered by a deny-read directory of the first units.
Deny-read rules stay outside the write roots, so the analysis warns about
nothing but the covered rules.
"""
import os
import sys

PART = 20000


def light_unit(u):
    """A unit that needs no mount of its own."""
    rules = [
        ('gate ask "tool%d deploy *"' % u, None),
        ('gate deny "tool%d destroy --all *"' % u, None),
        ('gate ask "git push origin u%d-release"' % u, None),
        ('gate ask "kubectl --context u%d delete *"' % u, None),
        ('gate deny "terraform destroy u%d *"' % u, None),
        ("exec /opt/tools/u%d/bin" % u, None),
        ("exec /opt/tools/u%d/libexec" % u, None),
        ("exec /usr/lib/u%d/helper" % u, None),
        ("net allow u%d.example.com" % u, None),
        ("net allow *.u%d.example.org" % u, None),
        ("deny write /etc/app%d" % u, None),
        ("deny write /usr/local/app%d/conf" % u, None),
        ("deny write /var/lib/app%d/state" % u, None),
        ("deny write /opt/u%d/etc/config.yaml" % u, None),
        ("deny read ~/.cache/u%d/**/*.secret" % u, None),
        ("deny read ~/.local/share/u%d/*.key" % u, None),
        ("deny write /etc/app%d/*.conf" % u, None),
        ('gate ask "docker --context u%d rm *"' % u, None),
    ]
    if u % 10 == 0:
        p = "/srv/data/u%d/c%d" % (u % 100 // 10 * 10, u)
        rules.append(("deny read %s" % p, p))
    else:
        rules.append(("deny write /etc/app%d/secrets.d" % u, None))
    if u % 50 == 1:
        rules.append(('gate ask re"^deploy-u%d( |$)"' % u, None))
    else:
        rules.append(('gate ask "deploy-u%d *"' % u, None))
    assert len(rules) == 20
    return rules


def unit(u):
    """The 20 rules of unit u: (rule text, covered path or None)."""
    if u >= 100:
        return light_unit(u)
    p = "${PROJECT}/u%d" % u
    rules = [
        ("write %s" % p, None),
        ("deny write %s/.git/hooks" % p, None),
        ("deny write %s/config/prod.yaml" % p, None),
        ("deny write %s/vendor" % p, None),
        ("deny write %s/dist/*.lock" % p, None),
        ("write /tmp/confpol-bench/scratch/u%d" % u, None),
        ("deny write /tmp/confpol-bench/scratch/u%d/ro" % u, None),
        ("deny read ~/.cred/u%d.key" % u, None),
        ("deny read ~/.cred/u%d.pem" % u, None),
        ("deny read /srv/data/u%d" % u, None),
        ("deny read /var/lib/app%d/secrets" % u, None),
        ("deny read /opt/u%d/private" % u, None),
        ("deny read /home/shared/u%d/notes.txt" % u, None),
        ("deny read ~/.cache/u%d/**/*.secret" % u, None),
        ('gate ask "tool%d deploy *"' % u, None),
        ('gate deny "tool%d destroy --all *"' % u, None),
        ('gate ask "git push origin u%d-release"' % u, None),
        ("deny read ~/.config/u%d" % u, None),
    ]
    if u % 10 == 0:
        rules.append(("write %s/build/cache" % p, "%s/build/cache" % p))
        rules.append(("deny read /srv/data/u%d/archive" % u, "/srv/data/u%d/archive" % u))
    elif u % 50 == 1:
        rules.append(('gate ask re"^deploy-u%d( |$)"' % u, None))
        rules.append(("deny write %s/.env" % p, None))
    else:
        rules.append(("deny read /etc/app%d/token" % u, None))
        rules.append(("deny write %s/.env" % p, None))
    assert len(rules) == 20
    return rules


def generate(d, n):
    os.makedirs(d, exist_ok=True)
    rules, covered = [], []
    u = 0
    while len(rules) < n:
        for text, cov in unit(u):
            if len(rules) == n:
                break
            rules.append(text)
            if cov:
                covered.append(cov)
        u += 1
    parts = [rules[i:i + PART] for i in range(0, len(rules), PART)]
    with open(os.path.join(d, "main.confpol"), "w") as f:
        f.write("# generated by tests/bench/gen.py: %d rules in %d include files\n"
                % (n, len(parts)))
        f.write("confpol 1\nprofile confined\n")
        for k in range(len(parts)):
            f.write('include "part-%d.confpol"\n' % k)
    for k, part in enumerate(parts):
        with open(os.path.join(d, "part-%d.confpol" % k), "w") as f:
            f.write("confpol 1\n")
            f.write("\n".join(part))
            f.write("\n")
    with open(os.path.join(d, "covered.txt"), "w") as f:
        f.write("".join(c + "\n" for c in covered))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for n in sys.argv[2:]:
        generate(os.path.join(sys.argv[1], n), int(n))


if __name__ == "__main__":
    main()

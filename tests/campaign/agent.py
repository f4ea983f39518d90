"""Runs inside the sandbox: observes each probe of plan.json and prints
one JSON object {"ACCESS PATH": observation}.  Observations: for read
'file:CONTENT' / 'dir:NAMES' / 'err' / 'absent'; for write and exec
'allow' / 'deny' / 'absent'."""
import json
import os
import subprocess
import sys


def read(p):
    if not os.path.lexists(p):
        return 'absent'
    try:
        if os.path.isdir(p):
            return 'dir:' + '/'.join(sorted(os.listdir(p)))
        with open(p, 'rb') as f:
            return 'file:' + f.read(200).decode('latin-1')
    except OSError:
        return 'err'


def write_existing_contents(p):
    """CAMPAIGN_WRITE=contents: a file is opened for writing (nothing is
    written), a directory gets an entry created and removed, a symlink is
    renamed in place and back: the contents, not the metadata."""
    try:
        if os.path.islink(p):
            os.rename(p, p + '.probe')
            os.rename(p + '.probe', p)
        elif os.path.isdir(p):
            n = os.path.join(p, '.probe-new')
            os.close(os.open(n, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.unlink(n)
        else:
            os.close(os.open(p, os.O_WRONLY))
        return 'allow'
    except OSError:
        return 'deny'


def write(p):
    if os.path.lexists(p) and os.environ.get('CAMPAIGN_WRITE') == 'contents':
        return write_existing_contents(p)
    if os.path.lexists(p):
        try:
            os.utime(p, None, follow_symlinks=False)
            return 'allow'
        except OSError:
            return 'deny'
    made = []
    d = os.path.dirname(p)
    todo = []
    while not os.path.lexists(d):
        todo.append(d)
        d = os.path.dirname(d)
    try:
        for d in reversed(todo):
            os.mkdir(d)
            made.append(d)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
        os.unlink(p)
        return 'allow'
    except OSError:
        return 'deny'
    finally:
        for d in reversed(made):
            try:
                os.rmdir(d)
            except OSError:
                pass


def execute(p):
    if not os.path.exists(p):
        return 'absent'
    try:
        r = subprocess.run([p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return 'allow' if r.returncode == 0 else 'deny'
    except OSError:
        return 'deny'


def main():
    plan = json.load(open(sys.argv[1]))
    out = {}
    for acc, p in plan:
        out[acc + ' ' + p] = {'read': read, 'write': write, 'exec': execute}[acc](p)
    sys.stdout.write(json.dumps(out))


main()

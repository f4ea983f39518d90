# SPDX-License-Identifier: MIT
"""An evaluator of the SBPL profiles confpol writes, written from the
reference (../shared/reference/sbpl.md), not from backends/sbpl.c.

* Expressions: strings, numbers, (param "K"), (string-append ...),
  (regex-quote E), (if C A B), (and ...), (string=? A B), (integer? X),
  (> A B), (< A B), (string->number S), (number->string N), (error ...)
  (the profile does not load), and calls of functions the profile defines
  with (define (NAME ARGS...) BODY).  As in TinyScheme, an argument of the
  wrong type is an error: the profile does not load.
* Bindings: a dict NAME -> value.  A param "NAME:ancestors" that the dict
  lacks is computed as the binder (confpol-run) does: an anchored regex of
  "/" and every proper ancestor of NAME's value; with strict=True it is an
  unbound param, as under a bare `sandbox-exec -D NAME=VALUE`, and the
  profile does not load (ProfileError).
* Rules: (allow|deny OP... FILTER...); between filtered rules the last match
  wins, an unfiltered rule applies when no filtered one matches, and
  `default` last (sbpl.md §2).  Operations inherit (file-read-data under
  file-read* under file*); file-link is outside file* and outside default
  (sbpl.md §3): only a rule naming it decides it, else it is allowed.
* Regexes: reading="bytes" matches the UTF-8 bytes of pattern and path (the
  reading sbpl.md §6 reports), reading="chars" matches characters; a sound
  profile must be sound in both.
* Network (sbpl.md §4): (remote ip|ip4|ip6|tcp|tcp4|tcp6|udp|udp4|udp6
  "HOST:PORT") with HOST `*` or `localhost` and PORT `*` or 1-65535 (any
  other value: the profile does not load), and (remote unix-socket PATH-
  FILTER).  A destination is (PROTO, ADDRESS, PORT), PROTO 'tcp' or 'udp',
  ADDRESS an IP literal, or ('unix', PATH).  `localhost` is read in its
  weakest form: all of 127.0.0.0/8 and ::1.  Probes: connect, sendto,
  connect-unix (the operation network-outbound).
* Probes: read, write (existing file), create, unlink, exec, exists
  (file-test-existence), link (new name and target), clone (clonefile,
  checked as file-clone only: the weakest reading), rename (unlink of the
  source, create of the destination).
"""
import ipaddress
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sbpl_reader import Str, is_symbol, sbpl_read  # noqa: E402

REGEX_META = '.*+?^$|\\()[]{}'


class ProfileError(Exception):
    """The profile would not load (sandbox-exec refuses it)."""


def regex_quote(s):
    return ''.join('\\' + c if c in REGEX_META else c for c in s)


def ancestors_regex(value):
    """The binder's NAME:ancestors value: "/" and every proper ancestor."""
    segs = [s for s in value.split('/') if s][:-1]
    out = '^/'
    for i, s in enumerate(segs):
        out += '(' + ('/' if i else '') + regex_quote(s)
    return out + ')?' * len(segs) + '$'


def string_to_number(text):
    """TinyScheme's string->number: a number, or False."""
    if re.fullmatch(r'[+-]?[0-9]+', text):
        return int(text)
    if re.fullmatch(r'#x[0-9a-fA-F]+', text):
        return int(text[2:], 16)
    if re.fullmatch(r'[+-]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?',
                    text):
        return float(text)
    return False


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _typed(name, test, f):
    """A primitive whose arguments must pass TEST, as TinyScheme checks."""
    def call(vals):
        if not all(test(v) for v in vals):
            raise ProfileError('%s: argument of the wrong type' % name)
        return f(*vals)
    return call


def _error(vals):
    raise ProfileError('error: %r' % (vals,))


NUMERIC = {
    'string->number': _typed('string->number',
                             lambda v: isinstance(v, str), string_to_number),
    'number->string': _typed('number->string', _is_num, str),
    'integer?': lambda vals: isinstance(vals[0], int) and
    not isinstance(vals[0], bool),
    '>': _typed('>', _is_num, lambda a, b: a > b),
    '<': _typed('<', _is_num, lambda a, b: a < b),
    'error': _error,
}

NET_PROTOS = {'ip': (None, None), 'ip4': (None, 4), 'ip6': (None, 6),
              'tcp': ('tcp', None), 'tcp4': ('tcp', 4), 'tcp6': ('tcp', 6),
              'udp': ('udp', None), 'udp4': ('udp', 4), 'udp6': ('udp', 6)}


def _remote_ip(proto, value):
    """A compiled (remote PROTO "HOST:PORT"), or ProfileError."""
    if not isinstance(value, str) or ':' not in value:
        raise ProfileError('ip filter: expected "host:port", got %r'
                           % (value,))
    host, port = value.rsplit(':', 1)
    if host not in ('*', 'localhost'):
        raise ProfileError('ip filter: host must be * or localhost: %r'
                           % (value,))
    if port != '*' and not (re.fullmatch('[0-9]+', port) and
                            0 < int(port) < 65536):
        raise ProfileError('ip filter: port must be * or a number: %r'
                           % (value,))
    return ('remote', NET_PROTOS[proto], host,
            None if port == '*' else int(port))


def _remote_match(f, dest):
    (want_proto, want_family), host, port = f[1], f[2], f[3]
    proto, addr, dport = dest
    ip = ipaddress.ip_address(addr)
    if want_proto and proto != want_proto:
        return False
    if want_family and ip.version != want_family:
        return False
    if host == 'localhost' and not ip.is_loopback:
        return False
    return port is None or port == dport


OPS_PARENT = {
    'file-read-data': ['file-read*', 'file*'],
    'file-read-metadata': ['file-read*', 'file*'],
    'file-write-data': ['file-write*', 'file*'],
    'file-write-unlink': ['file-write*', 'file*'],
    'file-write-create': ['file-write*', 'file*'],
    'process-exec': ['process-exec*', 'process*'],
    'network-outbound': ['network*'],
    'file-link': [],
    'file-clone': [],
    'file-test-existence': [],
}
# Operations outside `default` (sbpl.md §3): allowed unless a rule names them.
EXEMPT = {'file-link', 'file-clone', 'file-test-existence'}


class Profile:
    """FORMS: the profile as sbpl_read returns it (or its text)."""

    def __init__(self, forms, params, strict=False, reading='bytes'):
        if isinstance(forms, str):
            forms = sbpl_read(forms)
        self.params = dict(params)
        self.strict = strict
        self.reading = reading
        self.funcs = {}
        self.rules = []
        if not forms or forms[0] != ['version', '1']:
            raise ProfileError('profile does not start with (version 1)')
        seen_filtered = set()
        for f in forms[1:]:
            if f[0] == 'define':
                head = f[1]
                self.funcs[head[0]] = (head[1:], f[2])
                continue
            if f[0] not in ('allow', 'deny'):
                raise ProfileError('unexpected form %r' % (f,))
            ops = [x for x in f[1:] if is_symbol(x)]
            has_filter = any(isinstance(x, list) for x in f[1:])
            for o in ops:
                # confpol's shape: no unfiltered rule after a filtered rule
                # of the opposite action on the same operation (sbpl.md §2.4)
                other = 'allow' if f[0] == 'deny' else 'deny'
                if not has_filter and (o, other) in seen_filtered:
                    raise ValueError('unfiltered %s %s after a filtered %s'
                                     % (f[0], o, o))
                if has_filter:
                    seen_filtered.add((o, f[0]))
            # Filters are evaluated when the profile loads: an unbound param
            # fails here, whatever the probe.
            filters = [self._compile(x, {}) for x in f[1:]
                       if isinstance(x, list)]
            self.rules.append((f[0], ops, filters))

    # ---- expressions, evaluated at load ---------------------------------
    def expr(self, e, env):
        if isinstance(e, Str):
            return str(e)
        if is_symbol(e):
            if e in env:
                return env[e]
            num = string_to_number(e)
            if num is not False:
                return num
            raise ProfileError('unbound variable ' + e)
        h = e[0]
        args = e[1:]
        if h in NUMERIC:
            return NUMERIC[h]([self.expr(x, env) for x in args])
        if h == 'and':
            v = True
            for x in args:
                v = self.expr(x, env)
                if v is False:
                    return False
            return v
        if h == 'param':
            k = self.expr(args[0], env)
            if k in self.params:
                return self.params[k]
            if k.endswith(':ancestors') and not self.strict:
                base = k[:-len(':ancestors')]
                if base in self.params:
                    return ancestors_regex(self.params[base])
            return False  # an undefined param is #f
        if h == 'string-append':
            vals = [self.expr(x, env) for x in args]
            if not all(isinstance(v, str) for v in vals):
                raise ProfileError('string-append of a non-string')
            return ''.join(vals)
        if h == 'regex-quote':
            v = self.expr(args[0], env)
            if not isinstance(v, str):
                raise ProfileError('regex-quote of a non-string')
            return regex_quote(v)
        if h == 'string=?':
            a, b = (self.expr(x, env) for x in args)
            if not isinstance(a, str) or not isinstance(b, str):
                raise ProfileError('string=?: argument must be a string')
            return a == b
        if h == 'if':
            c = self.expr(args[0], env)
            if c is not False:
                return self.expr(args[1], env)
            return self.expr(args[2], env) if len(args) > 2 else False
        if h in self.funcs:
            names, body = self.funcs[h]
            vals = [self.expr(x, env) for x in args]
            return self.expr(body, dict(zip(names, vals)))
        raise ProfileError('unknown function %r' % (h,))

    def _path_arg(self, e):
        v = self.expr(e, {})
        if not isinstance(v, str):
            raise ProfileError('invalid data type of path filter; expected '
                               'pattern, got boolean')
        return v

    def _compile(self, f, env):
        kind = f[0]
        if kind in ('literal', 'path', 'subpath', 'regex', 'path-regex',
                    'path-literal'):
            v = self._path_arg(f[1])
            if kind.endswith('regex'):
                try:
                    if self.reading == 'bytes':
                        rx = re.compile(v.encode('utf-8'), re.S)
                    else:
                        rx = re.compile(v, re.S)
                except re.error as err:
                    raise ProfileError('bad regex %r: %s' % (v, err))
                return ('regex', rx)
            return ('literal' if kind in ('path', 'path-literal') else kind,
                    v)
        if kind in ('require-not', 'require-all', 'require-any'):
            return (kind, [self._compile(x, env) for x in f[1:]])
        if kind == 'remote' and len(f) == 3 and f[1] == 'unix-socket':
            return ('unix', self._compile(f[2], env))
        if kind == 'remote' and len(f) == 3 and f[1] in NET_PROTOS:
            return _remote_ip(f[1], self.expr(f[2], env))
        raise ProfileError('unknown filter %r' % (f,))

    def _match(self, f, path):
        kind = f[0]
        if isinstance(path, tuple):  # a network destination
            if kind == 'remote':
                return path[0] != 'unix' and _remote_match(f, path)
            if kind == 'unix':
                return path[0] == 'unix' and self._match(f[1], path[1])
            if kind in ('require-not', 'require-all', 'require-any'):
                pass
            else:
                return False
        elif kind in ('remote', 'unix'):
            return False
        if kind == 'literal':
            return path == f[1]
        if kind == 'subpath':
            s = f[1]
            return path == s or path.startswith(s.rstrip('/') + '/')
        if kind == 'regex':
            subj = path.encode('utf-8', 'surrogateescape') \
                if self.reading == 'bytes' else path
            return f[1].search(subj) is not None
        if kind == 'require-not':
            return not self._match(f[1][0], path)
        if kind == 'require-all':
            return all(self._match(x, path) for x in f[1])
        if kind == 'require-any':
            return any(self._match(x, path) for x in f[1])
        raise ValueError(kind)

    # ---- decisions --------------------------------------------------------
    def decide(self, op, path):
        """'allow' or 'deny' for one operation on one (resolved) path."""
        names = [op] + OPS_PARENT.get(op, [])
        default = None
        last_unfiltered = None
        last_filtered = None
        for action, ops, filters in self.rules:
            if ops == ['default']:
                default = action
                continue
            if not any(o in names for o in ops):
                continue
            if not filters:
                last_unfiltered = action
            elif any(self._match(x, path) for x in filters):
                last_filtered = action
        for r in (last_filtered, last_unfiltered):
            if r:
                return r
        if op in EXEMPT:
            return 'allow'
        return default or 'deny'

    def probe(self, kind, path, dest=None):
        """A probe of the campaign: True when the sandbox lets it happen."""
        ok = lambda op, p: self.decide(op, p) == 'allow'  # noqa: E731
        if kind == 'read':
            return ok('file-read-data', path)
        if kind == 'write':
            return ok('file-write-data', path)
        if kind == 'create':
            return ok('file-write-create', path)
        if kind == 'unlink':
            return ok('file-write-unlink', path)
        if kind == 'exec':
            return ok('process-exec', path)
        if kind == 'exists':
            return ok('file-test-existence', path)
        if kind == 'clone':
            # clonefile: which checks apply is not known (sbpl.md §10):
            # allowed when file-clone is, whatever else is checked.
            return ok('file-clone', path) and ok('file-clone', dest)
        if kind == 'rename':
            return ok('file-write-unlink', path) and \
                ok('file-write-create', dest)
        if kind in ('connect', 'sendto'):
            # dest: (ADDRESS, PORT); connect is TCP, sendto UDP
            proto = 'tcp' if kind == 'connect' else 'udp'
            return ok('network-outbound', (proto, path, dest))
        if kind == 'connect-unix':
            # connect(2) to the filesystem Unix socket at PATH (resolved)
            return ok('network-outbound', ('unix', path))
        if kind == 'link':
            # Which name file-link is checked against is not known
            # (sbpl.md §10): allowed only when both names are, and the new
            # name may be created.
            return ok('file-link', path) and ok('file-link', dest) and \
                ok('file-write-create', dest)
        raise ValueError(kind)


def macos_path(p):
    """The path the kernel shows the sandbox (sbpl.md §7)."""
    for d in ('/tmp', '/var', '/etc'):
        if p == d or p.startswith(d + '/'):
            return '/private' + p
    return p


def sbpl_expr(e, params, forms=()):
    """Value of expression E under PARAMS, with the functions FORMS define."""
    prof = Profile.__new__(Profile)
    prof.params = dict(params)
    prof.strict = False
    prof.funcs = {f[1][0]: (f[1][1:], f[2]) for f in forms
                  if isinstance(f, list) and f and f[0] == 'define'}
    return prof.expr(e, {})


_CACHE = {}


def sbpl_decide(forms, op, path, params, reading='bytes'):
    """allow or deny (the evaluator of tests/golden/osmodel.py)."""
    key = (id(forms), tuple(sorted(params.items())), reading)
    prof = _CACHE.get(key)
    if prof is None or prof[0] is not forms:
        prof = (forms, Profile(forms, params, reading=reading))
        _CACHE[key] = prof
    return prof[1].decide(op, path)


def load(path, params, strict=False, reading='bytes'):
    return Profile(open(path, encoding='utf-8').read(), params, strict,
                   reading)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write('usage: sbpl_model.py FILE.sb OP PATH [K=V]...\n')
        return 2
    params = dict(x.split('=', 1) for x in sys.argv[4:])
    print(load(sys.argv[1], params).decide(sys.argv[2], sys.argv[3]))
    return 0


if __name__ == '__main__':
    sys.exit(main())

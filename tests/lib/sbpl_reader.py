# SPDX-License-Identifier: MIT
"""A reader for SBPL as TinyScheme reads it, shared by the tests that read
back the `.sb` profiles (tests/golden/osmodel.py, tests/injection/readback.py).

String rules: \\\\ \\" \\n \\t \\r \\xHH are escapes, any other \\c is c;
#"..." is a raw string; ; starts a line comment, #| ... |# a block comment.
Strings come back as Str (a str with a `raw` flag), symbols as plain str,
lists as Python lists."""


class Str(str):
    """A string literal (as opposed to a symbol)."""
    raw = False


def _string(value, raw):
    s = Str(value)
    s.raw = raw
    return s


def sbpl_read(text, on_escape=None):
    """The list of top-level forms of TEXT.  ON_ESCAPE, if given, is called
    with the letter of every backslash escape in a non-raw string."""
    i, n = 0, len(text)
    stack = [[]]
    while i < n:
        c = text[i]
        if c in ' \t\r\n':
            i += 1
        elif c == ';':
            while i < n and text[i] != '\n':
                i += 1
        elif text.startswith('#|', i):
            j = text.find('|#', i + 2)
            if j < 0:
                raise ValueError('unterminated block comment at %d' % i)
            i = j + 2
        elif c == '(':
            stack.append([])
            i += 1
        elif c == ')':
            if len(stack) < 2:
                raise ValueError('unbalanced ) at %d' % i)
            top = stack.pop()
            stack[-1].append(top)
            i += 1
        elif c == '"' or text.startswith('#"', i):
            raw = c == '#'
            i += 2 if raw else 1
            out = []
            while True:
                if i >= n:
                    raise ValueError('unterminated string')
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == '\\' and not raw:
                    if i + 1 >= n:
                        raise ValueError('unterminated string')
                    e = text[i + 1]
                    i += 2
                    if on_escape:
                        on_escape(e)
                    if e == 'n':
                        out.append('\n')
                    elif e == 't':
                        out.append('\t')
                    elif e == 'r':
                        out.append('\r')
                    elif e == 'x':
                        out.append(chr(int(text[i:i + 2], 16)))
                        i += 2
                    else:
                        out.append(e)
                    continue
                out.append(c)
                i += 1
            stack[-1].append(_string(''.join(out), raw))
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n();"':
                j += 1
            stack[-1].append(text[i:j])
            i = j
    if len(stack) != 1:
        raise ValueError('unbalanced (: %d open' % (len(stack) - 1))
    return stack[0]


def sbpl_strings(forms):
    """Every string literal in FORMS, depth first."""
    for f in forms:
        if isinstance(f, Str):
            yield str(f)
        elif isinstance(f, list):
            yield from sbpl_strings(f)


def is_symbol(x):
    return isinstance(x, str) and not isinstance(x, Str)

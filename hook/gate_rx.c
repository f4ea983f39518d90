/* SPDX-License-Identifier: MIT */
/* A necessary condition for a gate regex to match, so that the gate need
 * not compile (regcomp) or run a regex that cannot match the command line
 * (spec/gate.md, "Cost").
 *
 * The scanner reads a deliberately small subset of POSIX ERE: ordinary
 * printable ASCII characters and, outside brackets, bytes 0x80-0xff (the
 * process never calls setlocale: regcomp runs in the C locale, where every
 * byte is one character), '.', '^', '$', groups, alternation, the
 * quantifiers '*', '+' and '?' after an atom, and bracket expressions of
 * plain characters, ascending ranges and the standard [:classes:].  Within
 * that subset regcomp(REG_EXTENDED) cannot fail, which is what lets the
 * gate table accept such a pattern without compiling it.  Anything else
 * (backslashes, intervals, braces, collating elements, an empty branch or
 * group, a quantifier with nothing to repeat, control bytes)
 * makes the scanner give up, and the pattern is compiled at load as before.
 *
 * The condition is a formula over required substrings: each branch needs
 * every run of consecutive single-character atoms that no quantifier makes
 * optional, and every group it contains unless the group is optional; an
 * alternation needs one of its branches.  A bracket counts as a single
 * character when its members differ only by ASCII case ([gG]); the
 * substrings and the line are compared with ASCII letters folded to lower
 * case, which only weakens the condition.  So: if the condition fails, the
 * regex cannot match (tests/unit/test_gate_rx.c checks this against
 * regexec on mutated patterns and lines). */
#include "gate.h"

#include <string.h>

#define CP_RX_MAX_DEPTH 32
#define CP_RX_MAX_LEN 8192

enum cp_rx_kind {
    CP_RX_TRUE, /* no condition */
    CP_RX_LIT,  /* the folded line contains lit */
    CP_RX_AND,
    CP_RX_OR,
};

struct cp_gate_rx_req {
    enum cp_rx_kind kind;
    const char *lit;
    size_t len;
    const struct cp_gate_rx_req **kids;
    size_t nkids;
};

struct cp_rx {
    struct cp_arena *a;
    const char *p;
    size_t i, n;
};

static const struct cp_gate_rx_req cp_rx_true = {.kind = CP_RX_TRUE};

static char cp_rx_fold(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool cp_rx_plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f;
}

/* AND or OR of the kids collected in v; TRUE kids drop out of an AND and
 * make an OR true. */
static const struct cp_gate_rx_req *cp_rx_join(struct cp_arena *a,
                                               enum cp_rx_kind kind,
                                               struct cp_vec *v)
{
    size_t k = 0;
    for (size_t i = 0; i < v->len; i++) {
        const struct cp_gate_rx_req *r = v->items[i];
        if (r->kind == CP_RX_TRUE) {
            if (kind == CP_RX_OR)
                return &cp_rx_true;
            continue;
        }
        v->items[k++] = v->items[i];
    }
    if (k == 0)
        return &cp_rx_true;
    if (k == 1)
        return v->items[0];
    struct cp_gate_rx_req *r = cp_arena_alloc(a, sizeof *r);
    r->kind = kind;
    r->kids = (const struct cp_gate_rx_req **)v->items;
    r->nkids = k;
    return r;
}

static void cp_rx_flush(struct cp_rx *x, struct cp_buf *run, struct cp_vec *and)
{
    if (run->len == 0)
        return;
    struct cp_gate_rx_req *r = cp_arena_alloc(x->a, sizeof *r);
    r->kind = CP_RX_LIT;
    r->lit = cp_arena_strndup(x->a, run->data, run->len);
    r->len = run->len;
    cp_vec_push(x->a, and, r);
    run->len = 0;
}

/* A character class "[:name:]" at x->i inside a bracket expression (one
 * of the standard names); false outside the subset. */
static bool cp_rx_class(struct cp_rx *x)
{
    static const char *const classes[] = {"alpha",  "upper", "lower", "digit",
                                          "xdigit", "space", "print", "punct",
                                          "graph",  "cntrl", "blank", "alnum"};
    if (x->i + 1 >= x->n || x->p[x->i + 1] != ':')
        return false; /* '[', '[.' or '[=': not in the subset */
    const char *s = x->p + x->i + 2;
    const char *e = strstr(s, ":]");
    if (!e)
        return false;
    size_t len = (size_t)(e - s), k = 0;
    while (k < sizeof classes / sizeof classes[0] &&
           !(strlen(classes[k]) == len && memcmp(classes[k], s, len) == 0))
        k++;
    if (k == sizeof classes / sizeof classes[0])
        return false;
    x->i = (size_t)(e - x->p) + 2;
    return true;
}

/* What the members of a bracket expression read so far allow. */
struct cp_rx_set {
    bool multi; /* several characters (beyond ASCII case) */
    bool first; /* no member read yet */
    int one;    /* the one character seen (folded), -1 before any */
};

/* Is c-hi an ascending range of plain characters in the subset? */
static bool cp_rx_range_ok(unsigned char c, unsigned char hi)
{
    return !(c == '-' || c == ']' || !cp_rx_plain(hi) || hi == '\\' ||
             hi == '[' || hi == '-' || hi < c);
}

/* One member (a character c at x->i, or a range c-hi) of a bracket
 * expression; false outside the subset. */
static bool cp_rx_member(struct cp_rx *x, unsigned char c, struct cp_rx_set *st)
{
    bool last = x->i + 1 < x->n && x->p[x->i + 1] == ']';
    if (c == '-' && !st->first && !last)
        return false; /* a '-' that is neither first, last nor a range */
    x->i++;
    if (x->i + 1 < x->n && x->p[x->i] == '-' && x->p[x->i + 1] != ']') {
        if (!cp_rx_range_ok(c, (unsigned char)x->p[x->i + 1]))
            return false;
        x->i += 2;
        st->multi = true;
    } else if (st->one < 0) {
        st->one = (unsigned char)cp_rx_fold((char)c);
    } else if (st->one != (unsigned char)cp_rx_fold((char)c)) {
        st->multi = true;
    }
    return true;
}

/* A bracket expression at x->i ('['): returns 0 outside the subset, 1 for
 * a set of several characters, 2 for one character up to ASCII case (in
 * *single, folded). */
static int cp_rx_bracket(struct cp_rx *x, char *single)
{
    struct cp_rx_set st = {.first = true, .one = -1};
    bool neg = false;
    x->i++;
    if (x->i < x->n && x->p[x->i] == '^') {
        neg = true;
        x->i++;
    }
    for (;;) {
        if (x->i >= x->n)
            return 0; /* unterminated */
        unsigned char c = (unsigned char)x->p[x->i];
        if (c == ']' && !st.first) {
            x->i++;
            break;
        }
        if (!cp_rx_plain(c) || c == '\\')
            return 0;
        if (c == '[') {
            if (!cp_rx_class(x))
                return 0;
            st.multi = true;
        } else if (!cp_rx_member(x, c, &st)) {
            return 0;
        }
        st.first = false;
    }
    if (neg || st.multi || st.one < 0)
        return 1;
    *single = (char)st.one;
    return 2;
}

static const struct cp_gate_rx_req *cp_rx_alt(struct cp_rx *x, int depth);

/* One atom of a branch with its quantifier. */
struct cp_rx_atom {
    enum { A_CHAR, A_ANY, A_ANCHOR, A_GROUP } kind;
    char ch;                          /* A_CHAR: the character, folded */
    const struct cp_gate_rx_req *sub; /* A_GROUP: the group's condition */
    char q;                           /* '*', '+', '?' or 0 */
};

/* The quantifier after an atom, if any; false for one on an anchor, and
 * for stacked quantifiers and intervals. */
static bool cp_rx_quantifier(struct cp_rx *x, struct cp_rx_atom *at)
{
    if (x->i < x->n && strchr("*+?", x->p[x->i])) {
        at->q = x->p[x->i++];
        if (at->kind == A_ANCHOR)
            return false;
    }
    return !(x->i < x->n && strchr("*+?{}", x->p[x->i]));
}

/* A group "(...)" at x->i; false outside the subset. */
static bool cp_rx_group(struct cp_rx *x, int depth, struct cp_rx_atom *at)
{
    x->i++;
    if (depth >= CP_RX_MAX_DEPTH || x->i >= x->n || x->p[x->i] == ')')
        return false;
    at->sub = cp_rx_alt(x, depth + 1);
    if (!at->sub || x->i >= x->n || x->p[x->i] != ')')
        return false;
    x->i++;
    at->kind = A_GROUP;
    return true;
}

/* One atom at x->i and its quantifier; false outside the subset. */
static bool cp_rx_atom(struct cp_rx *x, int depth, struct cp_rx_atom *at)
{
    unsigned char c = (unsigned char)x->p[x->i];
    *at = (struct cp_rx_atom){.kind = A_CHAR};
    if (c == '(') {
        if (!cp_rx_group(x, depth, at))
            return false;
    } else if (c == '[') {
        int b = cp_rx_bracket(x, &at->ch);
        if (b == 0)
            return false;
        at->kind = b == 2 ? A_CHAR : A_ANY;
    } else if (c == '.') {
        x->i++;
        at->kind = A_ANY;
    } else if (c == '^' || c == '$') {
        x->i++;
        at->kind = A_ANCHOR;
    } else if ((!cp_rx_plain(c) && c < 0x80) || strchr("*+?{}\\", c)) {
        return false; /* nothing to repeat, an interval, an escape, a byte */
    } else {
        x->i++;
        at->ch = cp_rx_fold((char)c);
    }
    return cp_rx_quantifier(x, at);
}

/* Adds what an atom requires to the branch: a character that must occur
 * extends the current run; anything else ends it, and a group that must
 * occur adds its condition. */
static void cp_rx_require(struct cp_rx *x, const struct cp_rx_atom *at,
                          struct cp_buf *run, struct cp_vec *and)
{
    if (at->kind == A_CHAR && at->q != '*' && at->q != '?') {
        cp_buf_addc(run, at->ch);
        if (at->q == '+')
            cp_rx_flush(x, run, and); /* "ab+c" needs "ab", then "c" */
        return;
    }
    cp_rx_flush(x, run, and);
    if (at->kind == A_GROUP && at->q != '*' && at->q != '?')
        cp_vec_push(x->a, and, (void *)at->sub);
}

/* One branch: up to '|', ')' or the end.  NULL outside the subset. */
static const struct cp_gate_rx_req *cp_rx_branch(struct cp_rx *x, int depth)
{
    struct cp_vec and = {0};
    struct cp_buf run = {0};
    size_t natoms = 0;
    const struct cp_gate_rx_req *res = NULL;
    while (x->i < x->n && x->p[x->i] != '|' && x->p[x->i] != ')') {
        struct cp_rx_atom at;
        if (!cp_rx_atom(x, depth, &at))
            goto out;
        cp_rx_require(x, &at, &run, &and);
        natoms++;
    }
    if (natoms == 0)
        goto out; /* empty branch */
    cp_rx_flush(x, &run, &and);
    res = cp_rx_join(x->a, CP_RX_AND, &and);
out:
    cp_buf_free(&run);
    return res;
}

static const struct cp_gate_rx_req *cp_rx_alt(struct cp_rx *x, int depth)
{
    struct cp_vec or = {0};
    for (;;) {
        const struct cp_gate_rx_req *b = cp_rx_branch(x, depth);
        if (!b)
            return NULL;
        cp_vec_push(x->a, & or, (void *)b);
        if (x->i < x->n && x->p[x->i] == '|') {
            x->i++;
            continue;
        }
        return cp_rx_join(x->a, CP_RX_OR, & or);
    }
}

const struct cp_gate_rx_req *cp_gate_rx_scan(struct cp_arena *a, const char *re)
{
    struct cp_rx x = {.a = a, .p = re, .i = 0, .n = strlen(re)};
    if (x.n == 0 || x.n > CP_RX_MAX_LEN || strspn(re, " ") == x.n)
        return NULL; /* empty or blank: cp_gate_parse has the message */
    const struct cp_gate_rx_req *r = cp_rx_alt(&x, 0);
    if (!r || x.i != x.n)
        return NULL; /* e.g. an unmatched ')' */
    return r;
}

void cp_gate_rx_line_of(struct cp_arena *a, const char *line, bool pairs,
                        struct cp_gate_rx_line *out)
{
    size_t n = strlen(line);
    char *f = cp_arena_strndup(a, line, n);
    uint64_t *bits = NULL;
    if (pairs)
        bits = cp_arena_alloc(a, 65536 / 8);
    unsigned char prev = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)cp_rx_fold(f[i]);
        f[i] = (char)c;
        if (bits && i > 0) {
            unsigned k = (unsigned)prev << 8 | c;
            bits[k >> 6] |= (uint64_t)1 << (k & 63);
        }
        prev = c;
    }
    *out = (struct cp_gate_rx_line){.folded = f, .len = n, .pairs = bits};
}

char *cp_gate_rx_fold_line(struct cp_arena *a, const char *line)
{
    struct cp_gate_rx_line l;
    cp_gate_rx_line_of(a, line, false, &l);
    return (char *)l.folded;
}

/* Does the line hold the literal (already folded)?  A pair of it that the
 * line's pairs lack answers no at once. */
static bool cp_rx_line_has(const struct cp_gate_rx_line *l, const char *lit,
                           size_t n)
{
    for (size_t i = 0; l->pairs && i + 1 < n; i++) {
        unsigned k = (unsigned)(unsigned char)lit[i] << 8 |
                     (unsigned char)lit[i + 1];
        if (!(l->pairs[k >> 6] >> (k & 63) & 1))
            return false;
    }
    return memmem(l->folded, l->len, lit, n) != NULL;
}

bool cp_gate_rx_line_may_match(const struct cp_gate_rx_req *r,
                               const struct cp_gate_rx_line *l)
{
    switch (r->kind) {
    case CP_RX_TRUE:
        return true;
    case CP_RX_LIT:
        return cp_rx_line_has(l, r->lit, r->len);
    case CP_RX_AND:
        for (size_t i = 0; i < r->nkids; i++)
            if (!cp_gate_rx_line_may_match(r->kids[i], l))
                return false;
        return true;
    case CP_RX_OR:
        for (size_t i = 0; i < r->nkids; i++)
            if (cp_gate_rx_line_may_match(r->kids[i], l))
                return true;
        return false;
    }
    return true;
}

bool cp_gate_rx_may_match(const struct cp_gate_rx_req *r, const char *folded,
                          size_t len)
{
    struct cp_gate_rx_line l = {.folded = folded, .len = len};
    return cp_gate_rx_line_may_match(r, &l);
}

/* SPDX-License-Identifier: MIT */
/* The regex engine (spec/patterns.md, "Regexes").
 *
 * A backtracking or a regexec-style matcher takes time quadratic (or worse)
 * in the subject for patterns as plain as "x+y" on a line of x's, and the
 * gate hook must answer on lines of a mebibyte.  So: the pattern is parsed
 * into a tree, the tree is emitted as a Thompson NFA (repetitions with
 * counts expanded, at most CP_RX_MAX_STATES states), and the search runs a
 * DFA whose states (sets of NFA states) are built lazily, one transition
 * the first time it is taken.  Each byte costs one table lookup once its
 * transition exists, and at most one pass over the NFA when it does not;
 * the cache is emptied when it outgrows CP_RX_CACHE_BYTES, so memory is
 * bounded and the time stays linear in the subject for a given pattern.
 *
 * Only "does it match somewhere" is answered (REG_NOSUB): no captures, no
 * leftmost-longest bookkeeping.  Bytes are characters (the C locale).
 * Anchors hold at line ends in every mode: ^ at the start and after each
 * newline, $ at the end and before each newline (a newline separates
 * commands, so "^sudo" must see the second line; without CP_RX_NEWLINE
 * this matches more than POSIX, never less).  CP_RX_NEWLINE only keeps '.'
 * and [^...] off the newline. */
#include "rx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

/* ---- the tree ------------------------------------------------------------ */

enum rx_nk { NK_EMPTY, NK_SET, NK_BOL, NK_EOL, NK_CAT, NK_ALT, NK_REP };

struct rx_node {
    enum rx_nk k;
    int a, b;     /* SET: set index; CAT/ALT: first kid, count; REP: sub */
    int min, max; /* REP: counts, max -1 for no bound */
};

struct rx_set {
    uint64_t w[4];
};

struct rx_parse {
    const unsigned char *t;
    size_t n, i;
    int flags, depth;
    struct rx_node *nodes;
    size_t nn, cn;
    int *kids;
    size_t nk, ck;
    struct rx_set *sets;
    size_t ns, cs;
    const char *err;
};

static void set_add(struct rx_set *s, unsigned c)
{
    s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static bool set_has(const struct rx_set *s, unsigned c)
{
    return (s->w[c >> 6] >> (c & 63)) & 1;
}

static int new_node(struct rx_parse *p, enum rx_nk k, int a, int b)
{
    if (p->nn == p->cn) {
        p->cn = p->cn ? 2 * p->cn : 64;
        p->nodes = cp_xrealloc(p->nodes, p->cn * sizeof *p->nodes);
    }
    p->nodes[p->nn] = (struct rx_node){.k = k, .a = a, .b = b};
    return (int)p->nn++;
}

static int new_set(struct rx_parse *p, const struct rx_set *s)
{
    for (size_t i = 0; i < p->ns; i++)
        if (memcmp(&p->sets[i], s, sizeof *s) == 0)
            return (int)i;
    if (p->ns == p->cs) {
        p->cs = p->cs ? 2 * p->cs : 16;
        p->sets = cp_xrealloc(p->sets, p->cs * sizeof *p->sets);
    }
    p->sets[p->ns] = *s;
    return (int)p->ns++;
}

static int set_node(struct rx_parse *p, const struct rx_set *s)
{
    return new_node(p, NK_SET, new_set(p, s), 0);
}

/* A node over the N kids in K (kept in p->kids); one kid is itself. */
static int list_node(struct rx_parse *p, enum rx_nk k, const int *kid, size_t n)
{
    if (n == 0)
        return new_node(p, NK_EMPTY, 0, 0);
    if (n == 1)
        return kid[0];
    if (p->nk + n > p->ck) {
        p->ck = (p->nk + n) * 2;
        p->kids = cp_xrealloc(p->kids, p->ck * sizeof *p->kids);
    }
    memcpy(p->kids + p->nk, kid, n * sizeof *kid);
    int at = (int)p->nk;
    p->nk += n;
    return new_node(p, k, at, (int)n);
}

/* ---- brackets ------------------------------------------------------------ */

/* The twelve classes, ASCII definitions (the C locale's). */
static bool cl_upper(unsigned c)
{
    return c >= 'A' && c <= 'Z';
}
static bool cl_lower(unsigned c)
{
    return c >= 'a' && c <= 'z';
}
static bool cl_digit(unsigned c)
{
    return c >= '0' && c <= '9';
}
static bool cl_alpha(unsigned c)
{
    return cl_upper(c) || cl_lower(c);
}
static bool cl_alnum(unsigned c)
{
    return cl_alpha(c) || cl_digit(c);
}
static bool cl_space(unsigned c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}
static bool cl_blank(unsigned c)
{
    return c == ' ' || c == '\t';
}
static bool cl_graph(unsigned c)
{
    return c > 0x20 && c < 0x7f;
}
static bool cl_punct(unsigned c)
{
    return cl_graph(c) && !cl_alnum(c);
}
static bool cl_print(unsigned c)
{
    return cl_graph(c) || c == ' ';
}
static bool cl_cntrl(unsigned c)
{
    return c < 0x20 || c == 0x7f;
}
static bool cl_xdigit(unsigned c)
{
    return cl_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const struct {
    const char *name;
    bool (*has)(unsigned c);
} rx_classes[] = {
    {"alpha", cl_alpha}, {"digit", cl_digit}, {"alnum", cl_alnum},
    {"upper", cl_upper}, {"lower", cl_lower}, {"space", cl_space},
    {"blank", cl_blank}, {"punct", cl_punct}, {"print", cl_print},
    {"graph", cl_graph}, {"cntrl", cl_cntrl}, {"xdigit", cl_xdigit},
};

/* The class named NAME (LEN bytes), or -1. */
static int class_index(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof rx_classes / sizeof rx_classes[0]; i++)
        if (strlen(rx_classes[i].name) == len &&
            memcmp(rx_classes[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* "[:name:]", "[.c.]" or "[=c=]" at p->i ('['): the class is added to S
 * (returns -1), or the one byte of the element is returned.  -2: error. */
static int bracket_special(struct rx_parse *p, struct rx_set *s)
{
    unsigned char kind = p->t[p->i + 1];
    size_t j = p->i + 2;
    while (j + 1 < p->n && !(p->t[j] == kind && p->t[j + 1] == ']'))
        j++;
    if (j + 1 >= p->n) {
        p->err = "Unmatched [, [^, [:, [., or [=";
        return -2;
    }
    const char *name = (const char *)p->t + p->i + 2;
    size_t len = j - p->i - 2;
    p->i = j + 2;
    if (kind != ':') {
        if (len != 1) {
            p->err = "Invalid collation character";
            return -2;
        }
        return (unsigned char)name[0];
    }
    int k = class_index(name, len);
    if (k < 0) {
        p->err = "Invalid character class name";
        return -2;
    }
    for (unsigned c = 1; c < 256; c++)
        if (rx_classes[k].has(c))
            set_add(s, c);
    return -1;
}

/* One element of a bracket at p->i: a byte (returned), a class (added to
 * S, -1) or an error (-2). */
static int bracket_elem(struct rx_parse *p, struct rx_set *s)
{
    if (p->t[p->i] == '[' && p->i + 1 < p->n &&
        (p->t[p->i + 1] == ':' || p->t[p->i + 1] == '.' ||
         p->t[p->i + 1] == '='))
        return bracket_special(p, s);
    return p->t[p->i++];
}

/* A range from LO: p->i is on the '-'. */
static bool bracket_range(struct rx_parse *p, struct rx_set *s, int lo)
{
    p->i++;
    int hi = bracket_elem(p, s);
    if (hi == -2)
        return false;
    if (hi < 0 || hi < lo) {
        p->err = "Invalid range end";
        return false;
    }
    for (int c = lo; c <= hi; c++)
        set_add(s, (unsigned)c);
    return true;
}

/* A bracket expression from just after its '['. */
static int parse_bracket(struct rx_parse *p)
{
    struct rx_set s = {{0}};
    bool neg = p->i < p->n && p->t[p->i] == '^';
    p->i += neg;
    bool first = true;
    while (p->i < p->n && (first || p->t[p->i] != ']')) {
        first = false;
        int c = bracket_elem(p, &s);
        if (c == -2)
            return -1;
        if (c >= 0 && p->i + 1 < p->n && p->t[p->i] == '-' &&
            p->t[p->i + 1] != ']') {
            if (!bracket_range(p, &s, c))
                return -1;
        } else if (c >= 0) {
            set_add(&s, (unsigned)c);
        }
    }
    if (p->i >= p->n) {
        p->err = "Unmatched [, [^, [:, [., or [=";
        return -1;
    }
    p->i++;
    if (neg) {
        for (int k = 0; k < 4; k++)
            s.w[k] = ~s.w[k];
        if (p->flags & CP_RX_NEWLINE)
            s.w[0] &= ~((uint64_t)1 << '\n');
    }
    s.w[0] &= ~(uint64_t)1; /* NUL never occurs in a subject */
    return set_node(p, &s);
}

/* ---- the parser ------------------------------------------------------------ */

static int parse_alt(struct rx_parse *p);

static int single_byte(struct rx_parse *p, unsigned char c)
{
    struct rx_set s = {{0}};
    set_add(&s, c);
    return set_node(p, &s);
}

static int any_byte(struct rx_parse *p)
{
    struct rx_set s;
    memset(&s, 0xff, sizeof s);
    s.w[0] &= ~(uint64_t)1;
    if (p->flags & CP_RX_NEWLINE)
        s.w[0] &= ~((uint64_t)1 << '\n');
    return set_node(p, &s);
}

static int parse_group(struct rx_parse *p)
{
    if (++p->depth > 256) {
        p->err = "groups nested too deeply";
        return -1;
    }
    int sub = parse_alt(p);
    p->depth--;
    if (sub < 0)
        return -1;
    if (p->i >= p->n || p->t[p->i] != ')') {
        p->err = "Unmatched ( or \\(";
        return -1;
    }
    p->i++;
    return sub;
}

static int parse_escape(struct rx_parse *p)
{
    if (p->i >= p->n) {
        p->err = "Trailing backslash";
        return -1;
    }
    unsigned char c = p->t[p->i++];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        (c >= '0' && c <= '9')) {
        p->err = "a backslash before a letter or digit (a back-reference "
                 "or a GNU operator such as \\w, \\s, \\b) is not supported; "
                 "write a bracket such as [[:space:]] instead";
        return -1;
    }
    return single_byte(p, c);
}

/* One atom at p->i; *anchor set for ^ and $ (nothing to repeat). */
static int parse_atom(struct rx_parse *p, bool *anchor)
{
    unsigned char c = p->t[p->i++];
    *anchor = false;
    switch (c) {
    case '(':
        return parse_group(p);
    case '[':
        return parse_bracket(p);
    case '.':
        return any_byte(p);
    case '^':
    case '$':
        *anchor = true;
        return new_node(p, c == '^' ? NK_BOL : NK_EOL, 0, 0);
    case '\\':
        return parse_escape(p);
    case '*':
    case '+':
    case '?':
    case '{':
        p->err = "Invalid preceding regular expression";
        return -1;
    default:
        return single_byte(p, c);
    }
}

static bool rx_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int read_count(struct rx_parse *p)
{
    int v = 0;
    while (p->i < p->n && rx_digit(p->t[p->i])) {
        v = v * 10 + (p->t[p->i++] - '0');
        if (v > 0x7fff) { /* RE_DUP_MAX */
            p->err = "Regular expression too big";
            return -1;
        }
    }
    return v;
}

/* An interval from just after its '{': *min, *max (-1: none). */
static bool parse_interval(struct rx_parse *p, int *min, int *max)
{
    bool lo_digits = p->i < p->n && rx_digit(p->t[p->i]);
    *min = read_count(p);
    *max = *min;
    if (p->i < p->n && p->t[p->i] == ',') {
        p->i++;
        bool hi_digits = p->i < p->n && rx_digit(p->t[p->i]);
        *max = hi_digits ? read_count(p) : -1;
        if (!lo_digits && !hi_digits)
            *min = -1;
    } else if (!lo_digits) {
        *min = -1;
    }
    if (*min < 0 || p->err || p->i >= p->n || p->t[p->i] != '}' ||
        (*max >= 0 && *max < *min)) {
        if (!p->err)
            p->err = "Invalid content of \\{\\}";
        return false;
    }
    p->i++;
    return true;
}

/* A repetition after the atom A, if one follows. */
static int parse_repeat(struct rx_parse *p, int a, bool anchor)
{
    if (p->i >= p->n || !strchr("*+?{", p->t[p->i]))
        return a;
    if (anchor) {
        p->err = "Invalid preceding regular expression";
        return -1;
    }
    unsigned char c = p->t[p->i++];
    int min = c == '+' ? 1 : 0, max = c == '?' ? 1 : -1;
    if (c == '{' && !parse_interval(p, &min, &max))
        return -1;
    if (p->i < p->n && strchr("*+?{", p->t[p->i])) {
        p->err = "repetition of a repetition";
        return -1;
    }
    int r = new_node(p, NK_REP, a, 0);
    p->nodes[r].min = min;
    p->nodes[r].max = max;
    return r;
}

static int parse_cat(struct rx_parse *p)
{
    int *kid = NULL;
    size_t n = 0, cap = 0;
    while (p->i < p->n && p->t[p->i] != '|' &&
           !(p->t[p->i] == ')' && p->depth > 0)) {
        bool anchor;
        int a = parse_atom(p, &anchor);
        if (a >= 0)
            a = parse_repeat(p, a, anchor);
        if (a < 0) {
            free(kid);
            return -1;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            kid = cp_xrealloc(kid, cap * sizeof *kid);
        }
        kid[n++] = a;
    }
    int r = list_node(p, NK_CAT, kid, n);
    free(kid);
    return r;
}

static int parse_alt(struct rx_parse *p)
{
    int *kid = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        int c = parse_cat(p);
        if (c < 0) {
            free(kid);
            return -1;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            kid = cp_xrealloc(kid, cap * sizeof *kid);
        }
        kid[n++] = c;
        if (p->i >= p->n || p->t[p->i] != '|')
            break;
        p->i++;
    }
    int r = list_node(p, NK_ALT, kid, n);
    free(kid);
    return r;
}

/* ---- the NFA ----------------------------------------------------------------- */

enum rx_op { OP_CHAR, OP_SPLIT, OP_BOL, OP_EOL, OP_MATCH };

struct rx_st {
    uint8_t op;
    int x, y; /* CHAR: next, byte class set; SPLIT: both; BOL/EOL: next */
};

/* A DFA state: a sorted set of NFA states, its transitions in trans. */
struct rx_ds {
    uint32_t off, len, hash;
    int8_t match, eolm; /* eolm: -1 not known yet */
    bool bolctx;        /* at the start of the subject (or of a line) */
};

struct cp_rx {
    int flags;
    struct rx_st *st;
    size_t nst, cst;
    int start;
    struct rx_set *sets; /* per CHAR state's set index */
    size_t nsets;
    uint16_t cls[256]; /* byte -> class */
    int ncls;
    uint8_t *setcls; /* nsets * ncls: does set s hold class c? */
    /* closure work */
    uint32_t *mark, gen;
    int *stack, *scratch, *pre;
    /* DFA cache */
    struct rx_ds *ds;
    size_t nds, cds;
    int *dsets;
    size_t ndsets, cdsets;
    int *trans; /* nds * ncls, -1 unknown */
    size_t ctrans;
    int *htab; /* dfa ids + 1, 0 empty */
    size_t hcap;
};

static int new_st(struct cp_rx *r, enum rx_op op, int x, int y)
{
    if (r->nst >= CP_RX_MAX_STATES)
        return -1;
    if (r->nst == r->cst) {
        r->cst = r->cst ? 2 * r->cst : 64;
        r->st = cp_xrealloc(r->st, r->cst * sizeof *r->st);
    }
    r->st[r->nst] = (struct rx_st){.op = (uint8_t)op, .x = x, .y = y};
    return (int)r->nst++;
}

static int emit(struct cp_rx *r, const struct rx_parse *p, int node, int next);

static int emit_list(struct cp_rx *r, const struct rx_parse *p,
                     const struct rx_node *nd, int next)
{
    const int *kid = p->kids + nd->a;
    if (nd->k == NK_CAT) {
        for (int i = nd->b; i-- > 0 && next >= 0;)
            next = emit(r, p, kid[i], next);
        return next;
    }
    int s = emit(r, p, kid[nd->b - 1], next);
    for (int i = nd->b - 1; i-- > 0 && s >= 0;) {
        int k = emit(r, p, kid[i], next);
        s = k < 0 ? -1 : new_st(r, OP_SPLIT, k, s);
    }
    return s;
}

static int emit_rep(struct cp_rx *r, const struct rx_parse *p,
                    const struct rx_node *nd, int next)
{
    int cur = next;
    if (nd->max < 0) {
        int loop = new_st(r, OP_SPLIT, -1, next);
        if (loop < 0)
            return -1;
        int body = emit(r, p, nd->a, loop);
        if (body < 0)
            return -1;
        r->st[loop].x = body;
        cur = loop;
    }
    for (int k = 0; k < nd->max - nd->min && cur >= 0; k++) {
        int body = emit(r, p, nd->a, cur);
        cur = body < 0 ? -1 : new_st(r, OP_SPLIT, body, next);
    }
    for (int k = 0; k < nd->min && cur >= 0; k++)
        cur = emit(r, p, nd->a, cur);
    return cur;
}

/* Emits NODE followed by the state NEXT; returns its first state, or -1
 * past CP_RX_MAX_STATES. */
static int emit(struct cp_rx *r, const struct rx_parse *p, int node, int next)
{
    const struct rx_node *nd = &p->nodes[node];
    switch (nd->k) {
    case NK_EMPTY:
        return next;
    case NK_SET:
        return new_st(r, OP_CHAR, next, nd->a);
    case NK_BOL:
        return new_st(r, OP_BOL, next, 0);
    case NK_EOL:
        return new_st(r, OP_EOL, next, 0);
    case NK_CAT:
    case NK_ALT:
        return emit_list(r, p, nd, next);
    case NK_REP:
        return emit_rep(r, p, nd, next);
    }
    return -1;
}

/* The byte classes: bytes that every set holds or lacks alike. */
static void make_classes(struct cp_rx *r)
{
    uint16_t map[512];
    memset(r->cls, 0, sizeof r->cls);
    int n = 1;
    for (size_t s = 0; s < r->nsets; s++) {
        memset(map, 0xff, sizeof map);
        int m = 0;
        for (unsigned c = 0; c < 256; c++) {
            unsigned key = r->cls[c] * 2u + set_has(&r->sets[s], c);
            if (map[key] == 0xffff)
                map[key] = (uint16_t)m++;
            r->cls[c] = map[key];
        }
        n = m;
    }
    r->ncls = n;
    r->setcls = cp_xcalloc(r->nsets ? r->nsets * (size_t)n : 1, 1);
    for (size_t s = 0; s < r->nsets; s++)
        for (unsigned c = 0; c < 256; c++)
            if (set_has(&r->sets[s], c))
                r->setcls[s * (size_t)n + r->cls[c]] = 1;
}

static void parse_free(struct rx_parse *p)
{
    free(p->nodes);
    free(p->kids);
}

const char *cp_rx_compile(const char *t, size_t n, int flags,
                          struct cp_rx **out)
{
    struct rx_parse p = {.t = (const unsigned char *)t, .n = n, .flags = flags};
    *out = NULL;
    int root = parse_alt(&p);
    if (root >= 0 && p.i < p.n)
        p.err = "Unmatched ) or \\)"; /* not reached: ')' at depth 0 */
    if (root < 0 || p.err) {
        parse_free(&p);
        free(p.sets);
        return p.err ? p.err : "invalid regex";
    }
    /* a newline moves the DFA to a line start: a class of its own */
    struct rx_set nl = {{(uint64_t)1 << '\n', 0, 0, 0}};
    new_set(&p, &nl);
    struct cp_rx *r = cp_xcalloc(1, sizeof *r);
    r->flags = flags;
    int match = new_st(r, OP_MATCH, 0, 0);
    r->start = emit(r, &p, root, match);
    parse_free(&p);
    r->sets = p.sets;
    r->nsets = p.ns;
    if (r->start < 0) {
        cp_rx_free(r);
        return "too large once its repetitions are expanded (more than "
               "400,000 states)";
    }
    make_classes(r);
    r->mark = cp_xcalloc(r->nst, sizeof *r->mark);
    r->stack = cp_xmalloc((2 * r->nst + 1) * sizeof *r->stack);
    r->scratch = cp_xmalloc(r->nst * sizeof *r->scratch);
    r->pre = cp_xmalloc(r->nst * sizeof *r->pre);
    *out = r;
    return NULL;
}

void cp_rx_free(struct cp_rx *r)
{
    if (!r)
        return;
    free(r->st);
    free(r->sets);
    free(r->setcls);
    free(r->mark);
    free(r->stack);
    free(r->scratch);
    free(r->pre);
    free(r->ds);
    free(r->dsets);
    free(r->trans);
    free(r->htab);
    free(r);
}

/* ---- closure and the DFA -------------------------------------------------- */

static void next_gen(struct cp_rx *r)
{
    if (++r->gen == 0) {
        memset(r->mark, 0, r->nst * sizeof *r->mark);
        r->gen = 1;
    }
}

/* Adds the closure of state S to scratch[*n]: CHAR, MATCH and (when EOL
 * does not hold here) EOL states are kept; BOL and EOL are passed when
 * they hold. */
static void closure_to(struct cp_rx *r, int s, bool bol, bool eol, int *out,
                       size_t *n)
{
    size_t sp = 0;
    r->stack[sp++] = s;
    while (sp) {
        int q = r->stack[--sp];
        if (r->mark[q] == r->gen)
            continue;
        r->mark[q] = r->gen;
        const struct rx_st *st = &r->st[q];
        if (st->op == OP_SPLIT) {
            r->stack[sp++] = st->y;
            r->stack[sp++] = st->x;
        } else if (st->op == OP_BOL) {
            if (bol)
                r->stack[sp++] = st->x;
        } else if (st->op == OP_EOL && eol) {
            r->stack[sp++] = st->x;
        } else {
            out[(*n)++] = q;
        }
    }
}

static void closure(struct cp_rx *r, int s, bool bol, bool eol, size_t *n)
{
    closure_to(r, s, bol, eol, r->scratch, n);
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static uint32_t set_hash(const int *s, size_t n, bool bolctx)
{
    uint32_t h = 2166136261u ^ bolctx;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint32_t)s[i]) * 16777619u;
    return h;
}

static void cache_clear(struct cp_rx *r)
{
    r->nds = r->ndsets = 0;
    if (r->htab)
        memset(r->htab, 0, r->hcap * sizeof *r->htab);
}

static size_t cache_bytes(const struct cp_rx *r)
{
    return r->ndsets * sizeof(int) +
           r->nds * (sizeof(struct rx_ds) + (size_t)r->ncls * sizeof(int)) +
           r->hcap * sizeof(int);
}

static void hash_grow(struct cp_rx *r)
{
    size_t cap = r->hcap ? 2 * r->hcap : 256;
    free(r->htab);
    r->htab = cp_xcalloc(cap, sizeof *r->htab);
    r->hcap = cap;
    for (size_t d = 0; d < r->nds; d++) {
        size_t h = r->ds[d].hash & (cap - 1);
        while (r->htab[h])
            h = (h + 1) & (cap - 1);
        r->htab[h] = (int)d + 1;
    }
}

static int find_state(const struct cp_rx *r, const int *s, size_t n,
                      bool bolctx, uint32_t hash)
{
    if (!r->hcap)
        return -1;
    for (size_t h = hash & (r->hcap - 1); r->htab[h];
         h = (h + 1) & (r->hcap - 1)) {
        const struct rx_ds *d = &r->ds[r->htab[h] - 1];
        if (d->hash == hash && d->len == n && d->bolctx == bolctx &&
            memcmp(r->dsets + d->off, s, n * sizeof *s) == 0)
            return r->htab[h] - 1;
    }
    return -1;
}

static void add_state_room(struct cp_rx *r, size_t n)
{
    if (r->nds == r->cds) {
        r->cds = r->cds ? 2 * r->cds : 64;
        r->ds = cp_xrealloc(r->ds, r->cds * sizeof *r->ds);
    }
    if ((r->nds + 1) * (size_t)r->ncls > r->ctrans) {
        r->ctrans = 2 * (r->nds + 1) * (size_t)r->ncls;
        r->trans = cp_xrealloc(r->trans, r->ctrans * sizeof *r->trans);
    }
    if (r->ndsets + n > r->cdsets) {
        r->cdsets = 2 * (r->ndsets + n) + 64;
        r->dsets = cp_xrealloc(r->dsets, r->cdsets * sizeof *r->dsets);
    }
    if (2 * (r->nds + 1) > r->hcap)
        hash_grow(r);
}

/* The DFA state of the set scratch[0..n) (sorted here); *flushed is set
 * when the cache had to be emptied first (every older id is then gone). */
static int intern(struct cp_rx *r, size_t n, bool bolctx, bool *flushed)
{
    int *s = r->scratch;
    qsort(s, n, sizeof *s, int_cmp);
    uint32_t hash = set_hash(s, n, bolctx);
    int d = find_state(r, s, n, bolctx, hash);
    if (d >= 0)
        return d;
    if (cache_bytes(r) + n * sizeof(int) > CP_RX_CACHE_BYTES) {
        cache_clear(r);
        *flushed = true;
    }
    add_state_room(r, n);
    struct rx_ds *ds = &r->ds[r->nds];
    *ds = (struct rx_ds){.off = (uint32_t)r->ndsets,
                         .len = (uint32_t)n,
                         .hash = hash,
                         .eolm = -1,
                         .bolctx = bolctx};
    for (size_t i = 0; i < n; i++)
        ds->match |= r->st[s[i]].op == OP_MATCH;
    memcpy(r->dsets + r->ndsets, s, n * sizeof *s);
    r->ndsets += n;
    memset(r->trans + r->nds * (size_t)r->ncls, 0xff,
           (size_t)r->ncls * sizeof *r->trans);
    size_t h = hash & (r->hcap - 1);
    while (r->htab[h])
        h = (h + 1) & (r->hcap - 1);
    r->htab[h] = (int)r->nds + 1;
    return (int)r->nds++;
}

static int start_state(struct cp_rx *r)
{
    bool flushed = false;
    size_t n = 0;
    next_gen(r);
    closure(r, r->start, true, false, &n);
    return intern(r, n, true, &flushed);
}

/* Does the end of a line (or of the subject) right after D complete a
 * match through one of its waiting EOL states? */
static bool eol_match(struct cp_rx *r, int d)
{
    struct rx_ds *ds = &r->ds[d];
    if (ds->eolm >= 0)
        return ds->eolm;
    size_t n = 0;
    next_gen(r);
    for (uint32_t i = 0; i < ds->len; i++) {
        int q = r->dsets[ds->off + i];
        if (r->st[q].op == OP_EOL)
            closure(r, r->st[q].x, ds->bolctx, true, &n);
    }
    bool m = false;
    for (size_t i = 0; i < n; i++)
        m |= r->st[r->scratch[i]].op == OP_MATCH;
    ds->eolm = m;
    return m;
}

/* Before a newline, the EOL states of D hold: the states they lead to
 * (into r->pre) read the newline as well. */
static size_t eol_states(struct cp_rx *r, const struct rx_ds *ds)
{
    size_t n = 0;
    next_gen(r);
    for (uint32_t i = 0; i < ds->len; i++) {
        int q = r->dsets[ds->off + i];
        if (r->st[q].op == OP_EOL)
            closure_to(r, r->st[q].x, ds->bolctx, true, r->pre, &n);
    }
    return n;
}

/* Adds where the states FROM[0..N) go on a byte of class C. */
static void advance(struct cp_rx *r, const int *from, size_t n, int c, bool nl,
                    size_t *out)
{
    for (size_t i = 0; i < n; i++) {
        const struct rx_st *st = &r->st[from[i]];
        if (st->op == OP_CHAR && r->setcls[(size_t)st->y * r->ncls + c])
            closure(r, st->x, nl, false, out);
    }
}

/* The state after D reads a byte of class C (NL: the byte is a newline,
 * after which a line starts). */
static int step(struct cp_rx *r, int d, int c, bool nl)
{
    const struct rx_ds *ds = &r->ds[d];
    size_t npre = nl ? eol_states(r, ds) : 0;
    size_t n = 0;
    next_gen(r);
    advance(r, r->dsets + ds->off, ds->len, c, nl, &n);
    advance(r, r->pre, npre, c, nl, &n);
    closure(r, r->start, nl, false, &n); /* a match may start anywhere */
    bool flushed = false;
    int nd = intern(r, n, nl, &flushed);
    if (!flushed)
        r->trans[(size_t)d * r->ncls + c] = nd;
    return nd;
}

bool cp_rx_search(struct cp_rx *r, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    int d = start_state(r);
    for (size_t i = 0; i < n; i++) {
        if (r->ds[d].match)
            return true;
        if (u[i] == '\n' && eol_match(r, d))
            return true;
        int c = r->cls[u[i]];
        int nx = r->trans[(size_t)d * r->ncls + c];
        d = nx >= 0 ? nx : step(r, d, c, u[i] == '\n');
    }
    return r->ds[d].match || eol_match(r, d);
}

/* SPDX-License-Identifier: MIT */
/* The project's JSON reader and printer (util/json.h): a strict RFC 8259
 * reader that keeps the byte span of every value and key (the settings
 * wiring edits documents in place by splicing those spans), constructors,
 * a deterministic printer, structural equality and a string set. */
#include "json.h"

#include "hash.h"
#include "text.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * JSON reader
 * ====================================================================== */

struct jp {
    struct cp_arena *a;
    const char *t;
    char *w; /* the text itself, when strings are decoded in place */
    size_t len, pos;
    const char *err;
    enum cp_json_err kind;
    int depth;
    const struct cp_json_opts *o;
};

/* Records the first failure.  A syntax error found where the text ends is
 * CP_JSON_E_END: more bytes could still complete the value. */
static void jp_fail_kind(struct jp *p, enum cp_json_err kind, const char *what)
{
    if (p->err)
        return;
    if (kind == CP_JSON_E_SYNTAX && p->pos >= p->len)
        kind = CP_JSON_E_END;
    p->kind = kind;
    p->err = cp_arena_printf(p->a, "%s at byte %zu", what, p->pos);
}

static void jp_fail(struct jp *p, const char *what)
{
    jp_fail_kind(p, CP_JSON_E_SYNTAX, what);
}

static void jp_ws(struct jp *p)
{
    while (p->pos < p->len) {
        char c = p->t[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

/* Is the next byte c?  (false at the end of the text) */
static bool jp_at(const struct jp *p, char c)
{
    return p->pos < p->len && p->t[p->pos] == c;
}

static bool jp_hex4(struct jp *p, uint32_t *out)
{
    uint32_t v = 0;
    if (p->len - p->pos < 4) {
        jp_fail_kind(p, CP_JSON_E_END, "truncated \\u escape");
        return false;
    }
    for (int k = 0; k < 4; k++) {
        int h = cp_hex_digit(p->t[p->pos + (size_t)k]);
        if (h < 0) {
            jp_fail(p, "bad \\u escape");
            return false;
        }
        v = v * 16 + (uint32_t)h;
    }
    p->pos += 4;
    *out = v;
    return true;
}

/* The UTF-8 bytes of cp at d; returns their number. */
static size_t put_utf8(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xc0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xe0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        d[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    d[0] = (char)(0xf0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    d[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* After "\u": the code point of one escape or surrogate pair.  With
 * no_nul, \u0000 is refused: a NUL inside a decoded string would let a
 * C-string consumer see a shorter text than the one the client uses. */
static bool jp_uescape(struct jp *p, uint32_t *out)
{
    uint32_t cp, lo;
    size_t at = p->pos - 2;
    if (!jp_hex4(p, &cp))
        return false;
    if (cp == 0 && p->o->no_nul) {
        p->pos = at;
        jp_fail_kind(p, CP_JSON_E_NUL, "escaped NUL character");
        return false;
    }
    if (cp >= 0xdc00 && cp <= 0xdfff) {
        jp_fail(p, "lone low surrogate in \\u escape");
        return false;
    }
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->len - p->pos < 2 || p->t[p->pos] != '\\' ||
            p->t[p->pos + 1] != 'u') {
            jp_fail(p, "lone high surrogate in \\u escape");
            return false;
        }
        p->pos += 2;
        if (!jp_hex4(p, &lo))
            return false;
        if (lo < 0xdc00 || lo > 0xdfff) {
            jp_fail(p, "bad surrogate pair in \\u escape");
            return false;
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    *out = cp;
    return true;
}

/* At the byte after a backslash: decodes one escape to d[*n], adding its
 * length to *n.  It is shorter than the escape read (bytes written stay
 * behind the bytes still to read, as decoding in place needs). */
static bool jp_escape(struct jp *p, char *d, size_t *n)
{
    /* the one-letter escapes by their letter ('\0': none; a table, not a
     * search per escape: a large Write has one on every line) */
    static const char to[128] = {
        ['"'] = '"',  ['\\'] = '\\', ['/'] = '/',  ['b'] = '\b',
        ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t'};
    if (p->pos >= p->len) {
        jp_fail(p, "unterminated string");
        return false;
    }
    char e = p->t[p->pos++];
    if ((unsigned char)e < 128 && to[(unsigned char)e]) {
        d[(*n)++] = to[(unsigned char)e];
        return true;
    }
    uint32_t cp;
    if (e == 'u') {
        if (!jp_uescape(p, &cp))
            return false;
        *n += put_utf8(d + *n, cp);
        return true;
    }
    p->pos--;
    jp_fail(p, "bad escape in string");
    return false;
}

/* Nonzero exactly when some byte of the eight in w ends a run of plain
 * string bytes: '"', '\\' or below 0x20. */
static inline uint64_t jp_stops(uint64_t w)
{
    const uint64_t one = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t q = w ^ (one * '"'), b = w ^ (one * '\\');
    return (((q - one) & ~q) | ((b - one) & ~b) | ((w - one * 0x20) & ~w)) &
           high;
}

static inline bool jp_plain(char c)
{
    return c != '"' && c != '\\' && (unsigned char)c >= 0x20;
}

/* The end of the run of plain string bytes from t[i] (up to the next
 * '"', '\\' or control character), or len; eight bytes at a time (a large
 * Write's lines are runs of this). */
static inline size_t jp_run_end(const char *t, size_t i, size_t len)
{
    for (; len - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, t + i, 8);
        if (jp_stops(w))
            break;
    }
    while (i < len && jp_plain(t[i]))
        i++;
    return i;
}

/* The same run, copied to d while it is read; returns its end.  d is at
 * or before t + i (in place, the run moves back over the escapes before
 * it), and each word is stored after it is loaded, so no byte is written
 * before it is read.  (The C library's memmove of each short run was a
 * tenth of a 1 MiB Write's call under musl.) */
static inline size_t jp_copy_run(const char *t, size_t i, size_t len, char *d)
{
    size_t k = 0;
    for (; len - (i + k) >= 8; k += 8) {
        uint64_t w;
        memcpy(&w, t + i + k, 8);
        if (jp_stops(w))
            break;
        memcpy(d + k, &w, 8);
    }
    for (; i + k < len && jp_plain(t[i + k]); k++)
        d[k] = t[i + k];
    return i + k;
}

/* Fast path of jp_string: no escape before the closing quote. */
static bool jp_plain_string(struct jp *p, const char **s, size_t *n)
{
    size_t e = jp_run_end(p->t, p->pos, p->len);
    if (e >= p->len || p->t[e] != '"')
        return false;
    *n = e - p->pos;
    if (p->w) { /* the closing quote is read: it ends the string */
        p->w[e] = '\0';
        *s = p->w + p->pos;
    } else {
        *s = cp_arena_strndup(p->a, p->t + p->pos, *n);
    }
    p->pos = e + 1;
    return true;
}

/* The closing quote of the string whose text starts at p->pos (a quote
 * after an even run of backslashes), or p->len when there is none.  Each
 * run of backslashes is read back once, so the search stays linear. */
static size_t jp_string_end(const struct jp *p)
{
    size_t s = p->pos;
    for (;;) {
        const char *q = cp_find_byte(p->t + s, p->len - s, '"');
        if (!q)
            return p->len;
        size_t e = (size_t)(q - p->t), b = e;
        while (b > p->pos && p->t[b - 1] == '\\')
            b--;
        if ((e - b) % 2 == 0)
            return e;
        s = e + 1;
    }
}

/* At the opening quote; decodes into s and n.  A decoded string is never
 * longer than its text (every escape is at least as long as what it
 * stands for), so a string with escapes is decoded straight into one
 * arena block of its text's size, or in place (p->w: every byte is
 * written at or behind the byte read): a large Write's content ("\n" on
 * every line) is written once, not into a growing buffer and then copied.
 * Without a closing quote the text to the end is decoded all the same,
 * for the error it holds. */
static bool jp_string(struct jp *p, const char **s, size_t *n)
{
    p->pos++; /* '"' */
    if (jp_plain_string(p, s, n))
        return true;
    size_t end = jp_string_end(p);
    char *d = p->w ? p->w + p->pos : cp_arena_alloc(p->a, end - p->pos + 1);
    size_t dn = 0;
    for (;;) {
        if (p->pos >= p->len) {
            jp_fail(p, "unterminated string");
            return false;
        }
        unsigned char c = (unsigned char)p->t[p->pos];
        if (c == '"') {
            p->pos++;
            d[dn] = '\0'; /* in place: at or before the closing quote */
            *s = d;
            *n = dn;
            return true;
        }
        if (c < 0x20) {
            jp_fail(p, "control character in string");
            return false;
        }
        if (c != '\\') {
            /* the run of plain bytes up to the next quote, backslash or
             * control character, a word at a time (a byte at a time was
             * most of reading a large escaped string) */
            size_t e = jp_copy_run(p->t, p->pos, p->len, d + dn);
            dn += e - p->pos;
            p->pos = e;
        } else {
            p->pos++;
            if (!jp_escape(p, d, &dn))
                return false;
        }
    }
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static struct cp_jnode *jp_value(struct jp *p);

static struct cp_jnode *jp_node(struct jp *p, enum cp_jtype t)
{
    struct cp_jnode *n = cp_json_new(p->a, t);
    n->start = p->pos;
    return n;
}

static uint64_t bytes_hash(const char *s, size_t len);

/* With no_dup_keys: is a key of the object o there twice?  On a repeat,
 * p->pos is set to the second occurrence for the message.  A table of
 * member indices (open addressing) keeps it linear in the members. */
static bool jp_dup_key(struct jp *p, const struct cp_jnode *o)
{
    if (!p->o->no_dup_keys || o->n < 2)
        return false;
    size_t cap = 16;
    while (cap < 2 * o->n)
        cap *= 2;
    /* most objects have a few members: their table is on the stack */
    size_t few[16] = {0};
    size_t *slot = cap == 16 ? few : cp_xcalloc(cap, sizeof *slot);
    /* index + 1; 0: free */
    bool dup = false;
    for (size_t i = 0; i < o->n && !dup; i++) {
        const struct cp_jmember *m = &o->members[i];
        size_t k = bytes_hash(m->key, m->klen) & (cap - 1);
        for (; slot[k] && !dup; k = (k + 1) & (cap - 1)) {
            const struct cp_jmember *x = &o->members[slot[k] - 1];
            dup = x->klen == m->klen && memcmp(x->key, m->key, m->klen) == 0;
        }
        if (dup)
            p->pos = m->kstart;
        else
            slot[k] = i + 1;
    }
    if (slot != few)
        free(slot);
    if (dup)
        jp_fail_kind(p, CP_JSON_E_DUP, "duplicate key");
    return dup;
}

/* The members or items of a container while it is read: on the stack up
 * to JP_FEW, on the heap beyond, so that only the finished array goes
 * into the arena (grown there by doubling, each smaller copy stayed
 * behind: a gate row of five members took 576 bytes for 160). */
enum { JP_FEW = 8 };

struct jp_list {
    struct cp_jmember *m; /* objects: few.m until there are more */
    struct cp_jnode **i;  /* arrays: few.i until there are more */
    size_t n, cap;
    union {
        struct cp_jmember m[JP_FEW];
        struct cp_jnode *i[JP_FEW];
    } few;
};

/* Room for one more entry of l. */
static void jp_list_grow(struct jp_list *l, bool obj)
{
    if (l->n < l->cap)
        return;
    size_t size = obj ? sizeof *l->m : sizeof *l->i;
    void *old = obj ? (void *)l->m : (void *)l->i;
    bool few = old == (void *)&l->few;
    void *v = few ? cp_xmalloc(2 * l->cap * size)
                  : cp_xrealloc(old, 2 * l->cap * size);
    if (few)
        memcpy(v, old, l->n * size);
    l->cap *= 2;
    if (obj)
        l->m = v;
    else
        l->i = v;
}

/* One "key": value member into l. */
static bool jp_member(struct jp *p, struct jp_list *l)
{
    if (!jp_at(p, '"')) {
        jp_fail(p, "expected a string key");
        return false;
    }
    size_t kstart = p->pos;
    const char *k;
    size_t kl;
    if (!jp_string(p, &k, &kl))
        return false;
    jp_ws(p);
    if (!jp_at(p, ':')) {
        jp_fail(p, "expected ':'");
        return false;
    }
    p->pos++;
    struct cp_jnode *v = jp_value(p);
    if (!v)
        return false;
    jp_list_grow(l, true);
    l->m[l->n++] = (struct cp_jmember){.key = k,
                                       .klen = kl,
                                       .kstart = kstart,
                                       .val = v};
    return true;
}

/* One element into l. */
static bool jp_element(struct jp *p, struct jp_list *l)
{
    struct cp_jnode *v = jp_value(p);
    if (!v)
        return false;
    jp_list_grow(l, false);
    l->i[l->n++] = v;
    return true;
}

/* At the closing bracket of n. */
static struct cp_jnode *jp_close(struct jp *p, struct cp_jnode *n)
{
    p->pos++;
    n->end = p->pos;
    p->depth--;
    return n;
}

/* The entries of l into n, in an arena array whose capacity is the next
 * power of two (cp_json_set and cp_json_push grow parsed nodes on that
 * rule). */
static void jp_list_keep(struct jp *p, const struct jp_list *l,
                         struct cp_jnode *n, bool obj)
{
    size_t cap = 1;
    while (cap < l->n)
        cap *= 2;
    size_t size = obj ? sizeof *l->m : sizeof *l->i;
    void *v = cp_arena_alloc(p->a, cap * size);
    memcpy(v, obj ? (const void *)l->m : (const void *)l->i, l->n * size);
    if (obj)
        n->members = v;
    else
        n->items = v;
    n->n = l->n;
}

/* The entries of the container n, from after its opening bracket. */
static struct cp_jnode *jp_entries(struct jp *p, struct cp_jnode *n,
                                   struct jp_list *l, bool obj)
{
    char close = obj ? '}' : ']';
    for (;;) {
        jp_ws(p);
        if (!(obj ? jp_member(p, l) : jp_element(p, l)))
            return NULL;
        jp_ws(p);
        if (jp_at(p, ',')) {
            p->pos++;
            continue;
        }
        if (jp_at(p, close)) {
            size_t at = p->pos;
            jp_list_keep(p, l, n, obj);
            if (obj && jp_dup_key(p, n))
                return NULL;
            p->pos = at;
            return jp_close(p, n);
        }
        jp_fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
}

static struct cp_jnode *jp_container(struct jp *p, bool obj)
{
    struct cp_jnode *n = jp_node(p, obj ? CP_J_OBJ : CP_J_ARR);
    if (++p->depth > CP_JSON_MAX_DEPTH) {
        jp_fail_kind(p, CP_JSON_E_DEPTH, "nesting deeper than 256 levels");
        return NULL;
    }
    p->pos++;
    jp_ws(p);
    if (jp_at(p, obj ? '}' : ']'))
        return jp_close(p, n);
    struct jp_list l = {.cap = JP_FEW};
    l.m = l.few.m;
    l.i = l.few.i;
    struct cp_jnode *r = jp_entries(p, n, &l, obj);
    if (obj ? l.m != l.few.m : l.i != l.few.i)
        free(obj ? (void *)l.m : (void *)l.i);
    return r;
}

/* true, false or null. */
static struct cp_jnode *jp_literal(struct jp *p, char c)
{
    const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
    size_t wl = strlen(w);
    if (p->len - p->pos < wl || memcmp(p->t + p->pos, w, wl) != 0) {
        jp_fail(p, "invalid literal");
        return NULL;
    }
    struct cp_jnode *n = jp_node(p, c == 't'   ? CP_J_TRUE
                                    : c == 'f' ? CP_J_FALSE
                                               : CP_J_NULL);
    p->pos += wl;
    n->end = p->pos;
    return n;
}

/* One or more digits (else "bad number"). */
static bool jp_digits(struct jp *p)
{
    if (p->pos >= p->len || !is_digit(p->t[p->pos])) {
        jp_fail(p, "bad number");
        return false;
    }
    while (p->pos < p->len && is_digit(p->t[p->pos]))
        p->pos++;
    return true;
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as
 * its text. */
static struct cp_jnode *jp_number(struct jp *p)
{
    struct cp_jnode *n = jp_node(p, CP_J_NUM);
    if (p->t[p->pos] == '-')
        p->pos++;
    if (jp_at(p, '0'))
        p->pos++;
    else if (!jp_digits(p))
        return NULL;
    if (jp_at(p, '.')) {
        p->pos++;
        if (!jp_digits(p))
            return NULL;
    }
    if (jp_at(p, 'e') || jp_at(p, 'E')) {
        p->pos++;
        if (jp_at(p, '+') || jp_at(p, '-'))
            p->pos++;
        if (!jp_digits(p))
            return NULL;
    }
    n->end = p->pos;
    n->s = cp_arena_strndup(p->a, p->t + n->start, n->end - n->start);
    n->len = n->end - n->start;
    return n;
}

static struct cp_jnode *jp_value(struct jp *p)
{
    jp_ws(p);
    if (p->pos >= p->len) {
        jp_fail(p, "unexpected end of input");
        return NULL;
    }
    char c = p->t[p->pos];
    if (c == '{' || c == '[')
        return jp_container(p, c == '{');
    if (c == 't' || c == 'f' || c == 'n')
        return jp_literal(p, c);
    if (c == '"') {
        struct cp_jnode *n = jp_node(p, CP_J_STR);
        if (!jp_string(p, &n->s, &n->len))
            return NULL;
        n->end = p->pos;
        return n;
    }
    if (c != '-' && !is_digit(c)) {
        jp_fail(p, "unexpected character");
        return NULL;
    }
    return jp_number(p);
}

/* Checks made before the value is read: presence, size, byte order mark,
 * UTF-8.  Returns the message (kind set) or NULL. */
static const char *jp_precheck(const char *text, size_t len,
                               const struct cp_json_opts *o,
                               enum cp_json_err *kind)
{
    *kind = CP_JSON_E_SYNTAX;
    if (!text)
        return "no input";
    if (o->max_bytes && len > o->max_bytes) {
        *kind = CP_JSON_E_SIZE;
        return "larger than the size limit";
    }
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        return "byte order mark at byte 0 (not allowed in JSON)";
    if (!cp_utf8_valid(text, len)) {
        *kind = CP_JSON_E_UTF8;
        return "invalid UTF-8";
    }
    *kind = CP_JSON_OK;
    return NULL;
}

static const char *jp_read(struct cp_arena *a, const char *text, char *w,
                           size_t len, const struct cp_json_opts *o,
                           struct cp_jnode **out, enum cp_json_err *kind);

const char *cp_json_read(struct cp_arena *a, const char *text, size_t len,
                         const struct cp_json_opts *o, struct cp_jnode **out,
                         enum cp_json_err *kind)
{
    return jp_read(a, text, NULL, len, o, out, kind);
}

const char *cp_json_read_in_place(struct cp_arena *a, char *text, size_t len,
                                  const struct cp_json_opts *o,
                                  struct cp_jnode **out, enum cp_json_err *kind)
{
    return jp_read(a, text, text, len, o, out, kind);
}

static const char *jp_read(struct cp_arena *a, const char *text, char *w,
                           size_t len, const struct cp_json_opts *o,
                           struct cp_jnode **out, enum cp_json_err *kind)
{
    static const struct cp_json_opts plain = {0};
    enum cp_json_err k;
    *out = NULL;
    if (!kind)
        kind = &k;
    if (!o)
        o = &plain;
    const char *err = jp_precheck(text, len, o, kind);
    if (err)
        return err;
    struct jp p = {.a = a, .t = text, .w = w, .len = len, .o = o};
    struct cp_jnode *v = jp_value(&p);
    if (v) {
        jp_ws(&p);
        if (p.pos != p.len)
            jp_fail_kind(&p, CP_JSON_E_TRAILING,
                         "trailing characters after the JSON value");
    }
    *kind = p.err ? p.kind : CP_JSON_OK;
    if (p.err)
        return p.err;
    *out = v;
    return NULL;
}

const char *cp_json_parse(struct cp_arena *a, const char *text, size_t len,
                          struct cp_jnode **out)
{
    return cp_json_read(a, text, len, NULL, out, NULL);
}

/* ======================================================================
 * Building and printing
 * ====================================================================== */

struct cp_jnode *cp_json_new(struct cp_arena *a, enum cp_jtype t)
{
    struct cp_jnode *n = cp_arena_alloc(a, sizeof *n);
    n->type = t;
    return n;
}

struct cp_jnode *cp_json_str(struct cp_arena *a, const char *s, size_t len)
{
    struct cp_jnode *n = cp_json_new(a, CP_J_STR);
    n->s = cp_arena_strndup(a, s, len);
    n->len = len;
    return n;
}

struct cp_jnode *cp_json_bool(struct cp_arena *a, bool v)
{
    return cp_json_new(a, v ? CP_J_TRUE : CP_J_FALSE);
}

/* Capacity is the next power of two >= n (arena arrays never shrink). */
static bool need_grow(size_t n)
{
    return n == 0 || (n & (n - 1)) == 0;
}

void cp_json_push(struct cp_arena *a, struct cp_jnode *arr, struct cp_jnode *v)
{
    if (need_grow(arr->n)) {
        size_t cap = arr->n ? arr->n * 2 : 4;
        struct cp_jnode **it = cp_arena_alloc(a, cap * sizeof *it);
        if (arr->n)
            memcpy(it, arr->items, arr->n * sizeof *it);
        arr->items = it;
    }
    arr->items[arr->n++] = v;
}

void cp_json_set(struct cp_arena *a, struct cp_jnode *obj, const char *key,
                 struct cp_jnode *v)
{
    if (need_grow(obj->n)) {
        size_t cap = obj->n ? obj->n * 2 : 4;
        struct cp_jmember *m = cp_arena_alloc(a, cap * sizeof *m);
        if (obj->n)
            memcpy(m, obj->members, obj->n * sizeof *m);
        obj->members = m;
    }
    struct cp_jmember *m = &obj->members[obj->n++];
    m->key = key;
    m->klen = strlen(key);
    m->kstart = 0;
    m->val = v;
}

static uint64_t bytes_hash(const char *s, size_t len)
{
    uint64_t h = cp_fnv64(CP_FNV64_OFFSET, s, len);
    /* FNV's low bits depend only on the low bits of its state: mix the
     * high bits down before masking (murmur3's finaliser). */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

bool cp_strset_has(const struct cp_strset *t, const char *s, size_t len)
{
    if (!t->cap)
        return false;
    for (size_t k = bytes_hash(s, len) & (t->cap - 1); t->slots[k];
         k = (k + 1) & (t->cap - 1))
        if (t->slots[k]->len == len && memcmp(t->slots[k]->s, s, len) == 0)
            return true;
    return false;
}

/* Adds a string node; returns false when an equal one was there. */
bool cp_strset_add(struct cp_arena *a, struct cp_strset *t,
                   const struct cp_jnode *v)
{
    if (cp_strset_has(t, v->s, v->len))
        return false;
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        const struct cp_jnode **sl = cp_arena_alloc(a, cap * sizeof *sl);
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i]) {
                size_t k = bytes_hash(t->slots[i]->s, t->slots[i]->len) &
                           (cap - 1);
                while (sl[k])
                    k = (k + 1) & (cap - 1);
                sl[k] = t->slots[i];
            }
        t->slots = sl;
        t->cap = cap;
    }
    size_t k = bytes_hash(v->s, v->len) & (t->cap - 1);
    while (t->slots[k])
        k = (k + 1) & (t->cap - 1);
    t->slots[k] = v;
    t->n++;
    return true;
}

/* The strings of an array (other elements are skipped). */
struct cp_strset cp_strset_of(struct cp_arena *a, const struct cp_jnode *arr)
{
    struct cp_strset t = {0};
    for (size_t i = 0; arr && arr->type == CP_J_ARR && i < arr->n; i++)
        if (arr->items[i]->type == CP_J_STR)
            cp_strset_add(a, &t, arr->items[i]);
    return t;
}

bool cp_json_str_is(const struct cp_jnode *n, const char *s, size_t len)
{
    return n && n->type == CP_J_STR && n->len == len &&
           memcmp(n->s, s, len) == 0;
}

struct cp_jnode *cp_json_get(const struct cp_jnode *o, const char *key,
                             bool *dup)
{
    struct cp_jnode *found = NULL;
    size_t kl = strlen(key);
    if (dup)
        *dup = false;
    if (!o || o->type != CP_J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (o->members[i].klen == kl &&
            memcmp(o->members[i].key, key, kl) == 0) {
            if (found && dup)
                *dup = true;
            found = o->members[i].val;
        }
    return found;
}

/* One escape of a byte below 0x80 that needs one ('"', '\\', a control):
 * the short forms \b \f \n \r \t, the other controls as \u00XX. */
static void jq_escape(struct cp_buf *b, unsigned char c)
{
    static const char esc[] = "\"\\\b\f\n\r\t", as[] = "\"\\bfnrt";
    const char *k = c ? strchr(esc, (char)c) : NULL;
    if (k)
        cp_buf_printf(b, "\\%c", as[k - esc]);
    else
        cp_buf_printf(b, "\\u%04x", c);
}

/* The UTF-8 sequence at p (n bytes left, p[0] >= 0x80): copied, or with
 * ASCII as \uXXXX (a surrogate pair above U+FFFF); a byte that does not
 * start a well-formed sequence is U+FFFD.  Returns the bytes consumed. */
static size_t jq_utf8(struct cp_buf *b, const unsigned char *p, size_t n,
                      bool ascii)
{
    size_t l = cp_utf8_len(p, n);
    if (l == 0) {
        cp_buf_adds(b, "\\ufffd");
        return 1;
    }
    if (!ascii) {
        cp_buf_add(b, p, l);
        return l;
    }
    uint32_t cp = p[0] & (l == 4 ? 0x07 : l == 3 ? 0x0f : 0x1f);
    for (size_t k = 1; k < l; k++)
        cp = (cp << 6) | (p[k] & 0x3f);
    if (cp >= 0x10000) {
        cp -= 0x10000;
        cp_buf_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
                      0xdc00 + (cp & 0x3ff));
    } else {
        cp_buf_printf(b, "\\u%04x", cp);
    }
    return l;
}

/* The project's one JSON string writer (util/json.h). */
static void jq_quote(struct cp_buf *b, const char *s, size_t len, bool ascii)
{
    const unsigned char *p = (const unsigned char *)s;
    cp_buf_addc(b, '"');
    for (size_t i = 0; i < len;) {
        /* Runs of bytes that need no escape are copied at once (a large
         * settings artifact is mostly such runs).  A plain loop: scanning
         * eight bytes at a time gained 4% of the Claude target's write step
         * (100,000-rule bench policy, median CPU of 15 runs each,
         * interleaved: 24.0 against 25.1 ms), under the 10% that keeps a
         * word-at-a-time scan. */
        size_t j = i;
        while (j < len && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' &&
               p[j] != '\\')
            j++;
        if (j > i) {
            cp_buf_add(b, s + i, j - i);
            i = j;
        } else if (p[i] >= 0x80) {
            i += jq_utf8(b, p + i, len - i, ascii);
        } else {
            jq_escape(b, p[i++]);
        }
    }
    cp_buf_addc(b, '"');
}

void cp_json_quote(struct cp_buf *b, const char *s, size_t len)
{
    jq_quote(b, s, len, true);
}

void cp_json_quote_utf8(struct cp_buf *b, const char *s, size_t len)
{
    jq_quote(b, s, len, false);
}

static void print_rec(struct cp_buf *b, const struct cp_jnode *v,
                      struct cp_buf *ind, const char *unit, bool compact)
{
    switch (v->type) {
    case CP_J_NULL:
        cp_buf_adds(b, "null");
        return;
    case CP_J_TRUE:
        cp_buf_adds(b, "true");
        return;
    case CP_J_FALSE:
        cp_buf_adds(b, "false");
        return;
    case CP_J_NUM:
        cp_buf_add(b, v->s, v->len);
        return;
    case CP_J_STR:
        cp_json_quote(b, v->s, v->len);
        return;
    case CP_J_ARR:
    case CP_J_OBJ:
        break;
    }
    bool obj = v->type == CP_J_OBJ;
    compact = compact || v->oneline;
    if (v->n == 0) {
        cp_buf_adds(b, obj ? "{}" : "[]");
        return;
    }
    cp_buf_addc(b, obj ? '{' : '[');
    size_t save = ind->len;
    if (!compact)
        cp_buf_adds(ind, unit);
    for (size_t i = 0; i < v->n; i++) {
        if (i)
            cp_buf_adds(b, compact ? ", " : ",");
        if (!compact) {
            cp_buf_addc(b, '\n');
            cp_buf_add(b, ind->data, ind->len);
        }
        const struct cp_jnode *x;
        if (obj) {
            cp_json_quote(b, v->members[i].key, v->members[i].klen);
            cp_buf_adds(b, ": ");
            x = v->members[i].val;
        } else {
            x = v->items[i];
        }
        print_rec(b, x, ind, unit, compact);
    }
    ind->len = save;
    if (ind->data)
        ind->data[save] = '\0';
    if (!compact) {
        cp_buf_addc(b, '\n');
        cp_buf_add(b, ind->data ? ind->data : "", ind->len);
    }
    cp_buf_addc(b, obj ? '}' : ']');
}

void cp_json_print(struct cp_buf *b, const struct cp_jnode *v,
                   const char *indent, const char *unit, bool compact)
{
    struct cp_buf ind = {0};
    cp_buf_adds(&ind, indent ? indent : "");
    print_rec(b, v, &ind, unit ? unit : "  ", compact);
    cp_buf_free(&ind);
}

bool cp_json_equal(const struct cp_jnode *x, const struct cp_jnode *y)
{
    if (!x || !y || x->type != y->type || x->n != y->n)
        return false;
    switch (x->type) {
    case CP_J_NULL:
    case CP_J_TRUE:
    case CP_J_FALSE:
        return true;
    case CP_J_NUM:
    case CP_J_STR:
        return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
    case CP_J_ARR:
        for (size_t i = 0; i < x->n; i++)
            if (!cp_json_equal(x->items[i], y->items[i]))
                return false;
        return true;
    case CP_J_OBJ:
        for (size_t i = 0; i < x->n; i++) {
            const struct cp_jmember *m = &x->members[i];
            bool found = false;
            for (size_t j = 0; j < y->n && !found; j++)
                if (y->members[j].klen == m->klen &&
                    memcmp(y->members[j].key, m->key, m->klen) == 0)
                    found = cp_json_equal(m->val, y->members[j].val);
            if (!found)
                return false;
        }
        return true;
    }
    return false;
}

struct cp_jnode *cp_json_copy(struct cp_arena *a, const struct cp_jnode *v)
{
    struct cp_jnode *n = cp_json_new(a, v->type);
    n->oneline = v->oneline;
    switch (v->type) {
    case CP_J_NULL:
    case CP_J_TRUE:
    case CP_J_FALSE:
        break;
    case CP_J_NUM:
    case CP_J_STR:
        n->s = cp_arena_strndup(a, v->s, v->len);
        n->len = v->len;
        break;
    case CP_J_ARR:
        for (size_t i = 0; i < v->n; i++)
            cp_json_push(a, n, cp_json_copy(a, v->items[i]));
        break;
    case CP_J_OBJ:
        for (size_t i = 0; i < v->n; i++) {
            cp_json_set(
                a, n,
                cp_arena_strndup(a, v->members[i].key, v->members[i].klen),
                cp_json_copy(a, v->members[i].val));
            n->members[n->n - 1].klen = v->members[i].klen;
        }
        break;
    }
    return n;
}

/* ======================================================================
 * Streaming compact writer
 * ====================================================================== */

static void jw_sep(struct cp_jw *w)
{
    if (w->comma)
        cp_buf_addc(w->b, ',');
    w->comma = false;
}

void cp_jw_open(struct cp_jw *w, char bracket)
{
    jw_sep(w);
    cp_buf_addc(w->b, bracket);
}

void cp_jw_close(struct cp_jw *w, char bracket)
{
    cp_buf_addc(w->b, bracket);
    w->comma = true;
}

void cp_jw_key(struct cp_jw *w, const char *key)
{
    jw_sep(w);
    cp_json_quote_utf8(w->b, key, strlen(key));
    cp_buf_addc(w->b, ':');
}

void cp_jw_str(struct cp_jw *w, const char *s)
{
    if (!s) {
        cp_jw_null(w);
        return;
    }
    jw_sep(w);
    cp_json_quote_utf8(w->b, s, strlen(s));
    w->comma = true;
}

static void jw_int(struct cp_jw *w, long long v)
{
    jw_sep(w);
    cp_buf_printf(w->b, "%lld", v);
    w->comma = true;
}

void cp_jw_bool(struct cp_jw *w, bool v)
{
    jw_sep(w);
    cp_buf_adds(w->b, v ? "true" : "false");
    w->comma = true;
}

void cp_jw_null(struct cp_jw *w)
{
    jw_sep(w);
    cp_buf_adds(w->b, "null");
    w->comma = true;
}

void cp_jw_kstr(struct cp_jw *w, const char *key, const char *s)
{
    cp_jw_key(w, key);
    cp_jw_str(w, s);
}

void cp_jw_kint(struct cp_jw *w, const char *key, long long v)
{
    cp_jw_key(w, key);
    jw_int(w, v);
}

/* "null", "a boolean", ... for messages. */
const char *cp_json_type_name(enum cp_jtype t)
{
    switch (t) {
    case CP_J_NULL:
        return "null";
    case CP_J_FALSE:
    case CP_J_TRUE:
        return "a boolean";
    case CP_J_NUM:
        return "a number";
    case CP_J_STR:
        return "a string";
    case CP_J_ARR:
        return "an array";
    case CP_J_OBJ:
        return "an object";
    }
    return "?";
}

/* SPDX-License-Identifier: MIT */
/* The diagnostic sink (records on the heap, so they outlive the arena's
 * users) and the GCC-style text renderer; spec/diagnostics.md is the
 * normative description of the format.  JSON and SARIF live in
 * diag_json.c. */
#include "diag.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "hash.h"

static const struct {
    const char *id, *name, *summary;
    enum cp_severity sev;
} cp_codes[] = {
#define CP_DIAG(id, name, sev, summary) {#id, name, summary, sev},
#include "diag_codes.def"
#undef CP_DIAG
};

const char *cp_diag_code_id(enum cp_diag_code c)
{
    return (size_t)c < CP_DIAG__COUNT ? cp_codes[c].id : "CP0000";
}

const char *cp_diag_code_name(enum cp_diag_code c)
{
    return (size_t)c < CP_DIAG__COUNT ? cp_codes[c].name : "unknown";
}

enum cp_severity cp_diag_code_default(enum cp_diag_code c)
{
    return (size_t)c < CP_DIAG__COUNT ? cp_codes[c].sev : CP_SEV_ERROR;
}

const char *cp_diag_code_summary(enum cp_diag_code c)
{
    return (size_t)c < CP_DIAG__COUNT ? cp_codes[c].summary : "";
}

const char *cp_diag_code_flag(enum cp_diag_code c)
{
    return (size_t)c < CP_DIAG__COUNT && cp_codes[c].sev != CP_SEV_ERROR
               ? cp_codes[c].name
               : NULL;
}

const char *cp_diag_code_doc(enum cp_diag_code c)
{
    const char *id = cp_diag_code_id(c); /* "CPnnnn" */
    switch (id[3]) {
    case '1':
    case '2':
    case '3':
        return "spec/language.md";
    case '4':
    case '5':
    case '6':
        return "spec/semantics.md";
    case '7':
        return "spec/backends.md";
    default:
        return "spec/cli.md";
    }
}

int cp_diag_code_lookup(const char *s)
{
    for (size_t i = 0; i < CP_DIAG__COUNT; i++)
        if (strcasecmp(cp_codes[i].id, s) == 0 ||
            strcmp(cp_codes[i].name, s) == 0)
            return (int)i;
    return -1;
}

/* Sets the switch of every warning or note whose name or code is NAME
 * (a name may be shared by codes of several targets). */
static bool cp_diags_set_state(struct cp_diags *d, const char *name,
                               signed char state)
{
    bool found = false;
    for (size_t i = 0; i < CP_DIAG__COUNT; i++) {
        if (cp_codes[i].sev == CP_SEV_ERROR ||
            (strcmp(cp_codes[i].name, name) != 0 &&
             strcasecmp(cp_codes[i].id, name) != 0))
            continue;
        d->wstate[i] = state;
        found = true;
    }
    return found;
}

bool cp_diags_set_warning(struct cp_diags *d, const char *name, bool on)
{
    return cp_diags_set_state(d, name, on ? 1 : -1);
}

bool cp_diags_set_werror(struct cp_diags *d, const char *name)
{
    return cp_diags_set_state(d, name, 2);
}

bool cp_diag_code_quiet(enum cp_diag_code c)
{
    if (cp_diag_code_default(c) != CP_SEV_NOTE)
        return false;
    const char *id = cp_diag_code_id(c);
    return c == CP0602 || strncmp(id, "CP07", 4) == 0;
}

void cp_diags_quiet(struct cp_diags *d, bool targets)
{
    for (size_t i = 0; i < CP_DIAG__COUNT; i++) {
        enum cp_diag_code c = (enum cp_diag_code)i;
        if (d->wstate[i] != 0 || !cp_diag_code_quiet(c))
            continue;
        if (targets || c == CP0602)
            d->wstate[i] = -1;
    }
}

void cp_diags_init(struct cp_diags *d)
{
    memset(d, 0, sizeof(*d));
}

/* A block of message texts; see cp_diags.texts. */
struct cp_diag_text {
    struct cp_diag_text *next;
    size_t used, size;
    char data[];
};

enum { CP_DIAG_TEXT_BLOCK = 64 * 1024 };

/* Room for a text of `n` bytes and its NUL in the text blocks, taken by
 * cp_diags_take: a message is written where it is kept, not copied there. */
static char *cp_diags_room(struct cp_diags *d, size_t n)
{
    struct cp_diag_text *t = d->texts;
    if (!t || t->size - t->used < n + 1) {
        size_t size = n + 1 > CP_DIAG_TEXT_BLOCK ? n + 1 : CP_DIAG_TEXT_BLOCK;
        t = cp_xmalloc(sizeof(*t) + size);
        t->used = 0;
        t->size = size;
        if (size > CP_DIAG_TEXT_BLOCK && d->texts) {
            /* A long text: the current block stays first. */
            t->next = d->texts->next;
            d->texts->next = t;
        } else {
            t->next = d->texts;
            d->texts = t;
            return t->data;
        }
    }
    return t->data + t->used;
}

/* Keeps the text of `n` bytes written at P, the room cp_diags_room gave for
 * it (or for more), and ends it with a NUL; returns P. */
static char *cp_diags_take(struct cp_diags *d, char *p, size_t n)
{
    struct cp_diag_text *t = d->texts;
    if (t->data + t->used != p) /* a long text's block, after the first */
        t = t->next;
    t->used += n + 1;
    p[n] = '\0';
    return p;
}

/* A copy of the `n` bytes at `s`, NUL-terminated, in the text blocks. */
static char *cp_diags_text(struct cp_diags *d, const char *s, size_t n)
{
    char *p = cp_diags_room(d, n);
    memcpy(p, s, n);
    return cp_diags_take(d, p, n);
}

static void cp_diags_seen_release(struct cp_diags *d);
static void cp_diags_seen_free(struct cp_diags *d);

/* Frees the strings of every diagnostic held and empties the list. */
static void cp_diags_release(struct cp_diags *d)
{
    cp_diags_seen_release(d);
    while (d->texts) {
        struct cp_diag_text *t = d->texts;
        d->texts = t->next;
        free(t);
    }
    for (size_t i = 0; i < d->len; i++)
        free(d->items[i].notes);
    d->len = 0;
    d->gen++;
}

void cp_diags_free(struct cp_diags *d)
{
    cp_diags_seen_free(d); /* first: no key of a held record is needed */
    cp_diags_release(d);
    free(d->items);
    d->items = NULL;
    d->len = d->cap = 0;
    d->nerrors = d->nwarnings = d->nusage = 0;
    d->flushed_src = NULL;
}

enum { CP_FMT_MAX = 512 }; /* texts shorter than this are formatted once */

/* The message for the common formats, whose conversions are only %s, %u,
 * %d, %zu and %%, without printf (which costs most of a report); returns
 * -1 for any other format, a null %s or a text of CP_FMT_MAX bytes or
 * more, which go through vsnprintf. */
static int cp_fmt_simple(char *tmp, const char *fmt, va_list ap)
{
    size_t k = 0;
    for (const char *f = fmt; *f;) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        if (lit >= CP_FMT_MAX - k)
            return -1;
        memcpy(tmp + k, f, lit);
        k += lit;
        if (!pct)
            break;
        const char *arg;
        size_t alen;
        char num[24];
        f = pct + 1;
        if (*f == 's') {
            arg = va_arg(ap, const char *);
            if (!arg)
                return -1;
            alen = strlen(arg);
            f++;
        } else if (*f == '%') {
            arg = "%";
            alen = 1;
            f++;
        } else if (*f == 'u' || *f == 'd' || (f[0] == 'z' && f[1] == 'u')) {
            unsigned long long v;
            bool neg = false;
            if (*f == 'u') {
                v = va_arg(ap, unsigned);
            } else if (*f == 'd') {
                int x = va_arg(ap, int);
                neg = x < 0;
                v = neg ? 0ULL - (unsigned long long)x : (unsigned long long)x;
            } else {
                v = va_arg(ap, size_t);
                f++;
            }
            f++;
            size_t j = sizeof num;
            do {
                num[--j] = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            if (neg)
                num[--j] = '-';
            arg = num + j;
            alen = sizeof num - j;
        } else {
            return -1;
        }
        if (alen >= CP_FMT_MAX - k)
            return -1;
        memcpy(tmp + k, arg, alen);
        k += alen;
    }
    return (int)k;
}

/* Formats into `tmp` (CP_FMT_MAX bytes); returns the length of the whole
 * text, which was cut if it is CP_FMT_MAX or more. */
static size_t cp_fmt_tmp(char *tmp, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static size_t cp_fmt_tmp(char *tmp, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = cp_fmt_simple(tmp, fmt, aq);
    va_end(aq);
    if (n < 0) {
        va_copy(aq, ap);
        n = vsnprintf(tmp, CP_FMT_MAX, fmt, aq);
        va_end(aq);
        if (n < 0)
            cp_die_oom();
    }
    return (size_t)n;
}

static char *cp_vfmt(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
static char *cp_vfmt(const char *fmt, va_list ap)
{
    /* Exactly sized: a large policy keeps hundreds of thousands of these
     * until it is rendered. */
    char tmp[CP_FMT_MAX];
    size_t n = cp_fmt_tmp(tmp, fmt, ap);
    if (n < sizeof tmp) {
        char *m = cp_xmalloc(n + 1);
        memcpy(m, tmp, n);
        m[n] = '\0';
        return m;
    }
    struct cp_buf b = {0};
    cp_buf_vprintf(&b, fmt, ap);
    return cp_buf_steal(&b, NULL);
}

/* The message of a record, in the sink's text blocks; its length in *N. */
static char *cp_diags_vfmt(struct cp_diags *d, size_t *n, const char *fmt,
                           va_list ap) __attribute__((format(printf, 3, 0)));
static char *cp_diags_vfmt(struct cp_diags *d, size_t *n, const char *fmt,
                           va_list ap)
{
    char *room = cp_diags_room(d, CP_FMT_MAX - 1);
    *n = cp_fmt_tmp(room, fmt, ap);
    if (*n < CP_FMT_MAX)
        return cp_diags_take(d, room, *n);
    char *m = cp_vfmt(fmt, ap);
    char *t = cp_diags_text(d, m, *n);
    free(m);
    return t;
}

/* ---- deduplication across targets -------------------------------------- */

/* A backend record in the deduplication index.  `key` hashes only its code
 * and location and the length of its message without the target's "sbpl: "
 * prefix, which costs no pass over the text: records that share it are
 * compared byte for byte while they are held (generation `gen` of the sink
 * matches, `v` is the record's index), by `v` = the hash of the whole key
 * (cp_diag_full_key) once they have been released.  `prev` is the entry of
 * the record reported before it on the same source line, plus one (0:
 * none).
 *
 * A repeat has its first record's location, so the entries are chained per
 * line, not hashed: each target reports in rule order, so the line heads
 * and the earlier targets' entries are read in the order they were
 * written, where a hash table took a cache miss per record (build
 * --target all, median CPU of runs interleaved, table then chains: 19.6
 * and 19.2 ms for the 10,000-rule bench policy, 41 runs; 230 and 219 ms,
 * then 244 and 241 ms, for the 100,000-rule one, 21 runs). */
struct cp_diag_seen {
    uint64_t key;
    uint64_t v;
    uint32_t gen;
    uint32_t prev;
};

/* One source's line heads: head[line & (n - 1)] is the newest entry on that
 * line plus one.  N grows to cover the lines met, up to CP_LINES_MAX; past
 * it lines share heads, and the keys, which hold the line, tell them
 * apart. */
struct cp_diag_lines {
    const struct cp_source *src;
    uint32_t *head;
    size_t n;
};

enum { CP_LINES_MAX = 1 << 20 };

static const char *const cp_targets[] = {"sbpl", "bwrap", "claude", "landlock",
                                         NULL};

/* The length of MSG's "TARGET: " prefix (a list "sbpl, bwrap: " too), or 0. */
static size_t cp_target_prefix(const char *msg)
{
    const char *p = msg;
    for (;;) {
        size_t n = 0;
        for (size_t i = 0; cp_targets[i]; i++) {
            size_t l = strlen(cp_targets[i]);
            if (strncmp(p, cp_targets[i], l) == 0 &&
                (p[l] == ':' || p[l] == ','))
                n = l;
        }
        if (!n)
            return 0;
        p += n;
        if (p[0] == ':' && p[1] == ' ')
            return (size_t)(p + 2 - msg);
        if (p[0] != ',' || p[1] != ' ')
            return 0;
        p += 2;
    }
}

/* A 64-bit hash of a byte stream fed in pieces: the key of the repeat and
 * cause tables, which hash every message (a large policy reports tens of
 * thousands).  FNV-1a, a byte at a time, gives the same key however the
 * bytes are split, so a cause (a message with its quoted parts left out)
 * hashes its unquoted spans as one stream.  Only equality of keys is used,
 * never their order.  A plain loop: hashing eight bytes at a time gained
 * nothing measurable (build --target all of the 100,000-rule bench policy,
 * median CPU of 7 runs each, interleaved: 0.57 s either way). */
struct cp_hasher {
    uint64_t h;
};

static void cp_hasher_init(struct cp_hasher *s)
{
    s->h = CP_FNV64_OFFSET;
}

static void cp_hasher_feed(struct cp_hasher *s, const void *data, size_t n)
{
    s->h = cp_fnv64(s->h, data, n);
}

/* The key: never 0 (0 marks an empty slot). */
static uint64_t cp_hasher_end(struct cp_hasher *s)
{
    uint64_t h = s->h;
    /* murmur3's finaliser: the tables mask the low bits. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h ? h : 1;
}

static bool cp_is_backend_code(enum cp_diag_code c)
{
    const char *id = cp_diag_code_id(c);
    return id[2] == '0' && id[3] == '7';
}

/* The hash of a backend record's code, location and MSG (its message
 * without the target prefix, N bytes), or with MSG NULL of all but the
 * message's bytes. */
static uint64_t cp_diag_key(const struct cp_diag *g, const char *msg, size_t n)
{
    struct cp_hasher hs;
    cp_hasher_init(&hs);
    cp_hasher_feed(&hs, &g->code, sizeof g->code);
    cp_hasher_feed(&hs, &g->loc.src, sizeof g->loc.src);
    unsigned pos[4] = {g->loc.line, g->loc.col, g->loc.end_line,
                       g->loc.end_col};
    cp_hasher_feed(&hs, pos, sizeof pos);
    if (msg)
        cp_hasher_feed(&hs, msg, n);
    else
        cp_hasher_feed(&hs, &n, sizeof n);
    return cp_hasher_end(&hs);
}

/* The key a record keeps once released: its code, location and message. */
static uint64_t cp_diag_full_key(const struct cp_diag *g)
{
    const char *m = g->msg + cp_target_prefix(g->msg);
    return cp_diag_key(g, m, strlen(m));
}

/* The head of LOC's line in the deduplication index (a location without a
 * source is line 0 of a source NULL). */
static uint32_t *cp_diags_head(struct cp_diags *d, const struct cp_loc *loc)
{
    const struct cp_source *src = loc->src;
    size_t line = src ? loc->line : 0, k = d->lastlines;
    if (k >= d->nlines || d->lines[k].src != src)
        for (k = 0; k < d->nlines && d->lines[k].src != src; k++)
            ;
    if (k == d->nlines) {
        d->lines = cp_xrealloc(d->lines, (k + 1) * sizeof *d->lines);
        d->lines[k] = (struct cp_diag_lines){src, NULL, 0};
        d->nlines++;
    }
    d->lastlines = k;
    struct cp_diag_lines *l = &d->lines[k];
    if (line >= l->n && l->n < CP_LINES_MAX) {
        size_t n = l->n ? l->n : 64;
        while (n <= line && n < CP_LINES_MAX)
            n *= 2;
        l->head = cp_xrealloc(l->head, n * sizeof *l->head);
        memset(l->head + l->n, 0, (n - l->n) * sizeof *l->head);
        l->n = n;
    }
    return &l->head[line & (l->n - 1)];
}

/* Empties the deduplication index. */
static void cp_diags_seen_free(struct cp_diags *d)
{
    free(d->seen);
    d->seen = NULL;
    d->nseen = d->seencap = 0;
    for (size_t k = 0; k < d->nlines; k++)
        free(d->lines[k].head);
    free(d->lines);
    d->lines = NULL;
    d->nlines = d->lastlines = 0;
}

/* Appends the entry of the record at index V (key H) to the index, at the
 * head of its line *HEAD. */
static void cp_diags_seen_add(struct cp_diags *d, uint32_t *head, uint64_t h,
                              size_t v)
{
    if (d->nseen >= UINT32_MAX - 1)
        cp_die_oom(); /* past what the 32-bit links can number */
    if (d->nseen == d->seencap) {
        d->seencap = d->seencap ? 2 * d->seencap : 256;
        d->seen = cp_xrealloc(d->seen, d->seencap * sizeof *d->seen);
    }
    d->seen[d->nseen++] = (struct cp_diag_seen){h, v, d->gen, *head};
    *head = (uint32_t)d->nseen;
}

/* Adds G's target (the first PN - 2 bytes of its message) to the prefix of
 * FIRST, the held record it repeats, unless it is listed already (one target
 * reporting a rule twice). */
static void cp_diags_merge(struct cp_diags *d, struct cp_diag *first,
                           const struct cp_diag *g, size_t pn)
{
    size_t fn = cp_target_prefix(first->msg);
    char target[16];
    size_t tn = pn - 2 < sizeof target ? pn - 2 : sizeof target - 1;
    memcpy(target, g->msg, tn);
    target[tn] = '\0';
    for (const char *p = first->msg; p < first->msg + fn;) {
        size_t l = strcspn(p, ",:");
        if (l == tn && memcmp(p, target, tn) == 0)
            return;
        p += l + 2;
    }
    struct cp_buf b = {0};
    cp_buf_add(&b, first->msg, fn - 2);
    cp_buf_printf(&b, ", %s", target);
    cp_buf_adds(&b, first->msg + fn - 2);
    first->msg = cp_diags_text(d, b.data, b.len);
    cp_buf_free(&b);
}

/* The held records' entries keep the hash of their whole key from now on:
 * their messages are about to be freed. */
static void cp_diags_seen_release(struct cp_diags *d)
{
    for (size_t i = 0; i < d->nseen; i++) {
        struct cp_diag_seen *e = &d->seen[i];
        if (e->gen == d->gen && e->v < d->len)
            e->v = cp_diag_full_key(&d->items[e->v]);
    }
}

/* Whether A and B have the same code and location. */
static bool cp_diag_same_place(const struct cp_diag *a, const struct cp_diag *b)
{
    return a->code == b->code && a->loc.src == b->loc.src &&
           a->loc.line == b->loc.line && a->loc.col == b->loc.col &&
           a->loc.end_line == b->loc.end_line &&
           a->loc.end_col == b->loc.end_col;
}

/* Looks G (the record just added, with a target prefix of PN bytes and a
 * message of N) up among the backend records: returns true if it repeats
 * one, after adding its target to that one's prefix while it is still held.
 * Only records of the same code, location and message length are compared,
 * so that a message's bytes are hashed only when a released record has to
 * be matched (the hash of every message was 5% of a 10,000-rule build). */
static bool cp_diags_repeat(struct cp_diags *d, struct cp_diag *g, size_t pn,
                            size_t n)
{
    const char *m = g->msg + pn;
    size_t mn = n - pn;
    uint64_t h = cp_diag_key(g, NULL, mn), full = 0;
    uint32_t *head = cp_diags_head(d, &g->loc);
    for (uint32_t j = *head; j; j = d->seen[j - 1].prev) {
        const struct cp_diag_seen *e = &d->seen[j - 1];
        if (e->key != h)
            continue;
        if (e->gen != d->gen) {
            if (!full)
                full = cp_diag_key(g, m, mn);
            if (e->v == full)
                return true; /* printed already: the first target's text */
            continue;
        }
        if (e->v >= d->len)
            continue;
        struct cp_diag *first = &d->items[e->v];
        const char *fm = first->msg + cp_target_prefix(first->msg);
        if (cp_diag_same_place(first, g) && strcmp(fm, m) == 0) {
            cp_diags_merge(d, first, g, pn);
            return true;
        }
    }
    cp_diags_seen_add(d, head, h, (size_t)(g - d->items));
    return false;
}

/* The returned record stays valid until the next cp_diag_report on the same
 * sink (the array may move): attach notes right away. */
struct cp_diag *cp_diag_report(struct cp_diags *d, enum cp_diag_code code,
                               const struct cp_loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct cp_diag *g = cp_diag_vreport(d, code, loc, fmt, ap);
    va_end(ap);
    return g;
}

/* The severity a record of CODE gets after the -W options, or -1 when the
 * code is turned off. */
static int cp_diag_sev(const struct cp_diags *d, enum cp_diag_code code)
{
    enum cp_severity sev = cp_diag_code_default(code);
    if (sev != CP_SEV_ERROR) {
        if ((size_t)code < CP_DIAG__COUNT && d->wstate[code] < 0)
            return -1;
        if (sev == CP_SEV_WARNING &&
            (d->werror ||
             ((size_t)code < CP_DIAG__COUNT && d->wstate[code] == 2)))
            sev = CP_SEV_ERROR;
    }
    return (int)sev;
}

/* A new record, its message still to be set. */
static struct cp_diag *cp_diag_new(struct cp_diags *d, enum cp_diag_code code,
                                   enum cp_severity sev,
                                   const struct cp_loc *loc)
{
    if (d->len == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->items = cp_xrealloc(d->items, d->cap * sizeof(*d->items));
    }
    struct cp_diag *g = &d->items[d->len++];
    memset(g, 0, sizeof(*g));
    g->code = code;
    g->sev = sev;
    g->sink = d;
    if (loc)
        g->loc = *loc;
    return g;
}

/* Keeps G, the record just made, whose message has N bytes: returns it, or
 * NULL when it repeats a backend record (then it is dropped). */
static struct cp_diag *cp_diag_keep(struct cp_diags *d, struct cp_diag *g,
                                    size_t n)
{
    enum cp_severity sev = g->sev;
    size_t pn;
    /* Errors are never merged: a backend's own error count decides whether
     * its artifact is written. */
    if (sev != CP_SEV_ERROR && cp_is_backend_code(g->code) &&
        (pn = cp_target_prefix(g->msg)) != 0 && cp_diags_repeat(d, g, pn, n)) {
        d->len--;
        return NULL;
    }
    if (sev == CP_SEV_ERROR) {
        d->nerrors++;
        const char *id = cp_diag_code_id(g->code);
        if (id[2] == '0' && id[3] == '8')
            d->nusage++;
    } else if (sev == CP_SEV_WARNING) {
        d->nwarnings++;
    }
    return g;
}

struct cp_diag *cp_diag_vreport(struct cp_diags *d, enum cp_diag_code code,
                                const struct cp_loc *loc, const char *fmt,
                                va_list ap)
{
    int sev = cp_diag_sev(d, code);
    if (sev < 0)
        return NULL;
    struct cp_diag *g = cp_diag_new(d, code, (enum cp_severity)sev, loc);
    size_t n;
    g->msg = cp_diags_vfmt(d, &n, fmt, ap);
    return cp_diag_keep(d, g, n);
}

struct cp_diag *cp_diag_report_cat(struct cp_diags *d, enum cp_diag_code code,
                                   const struct cp_loc *loc, ...)
{
    int sev = cp_diag_sev(d, code);
    if (sev < 0)
        return NULL;
    size_t len[CP_VCAT_KEEP] = {0};
    va_list ap;
    va_start(ap, loc);
    size_t n = cp_vcat_len(ap, len);
    va_end(ap);
    if (n > CP_CAT_MAX)
        n = CP_CAT_MAX;
    struct cp_diag *g = cp_diag_new(d, code, (enum cp_severity)sev, loc);
    char *m = cp_diags_room(d, n);
    va_start(ap, loc);
    cp_vcat_copy(m, n, ap, len);
    va_end(ap);
    g->msg = cp_diags_take(d, m, n);
    return cp_diag_keep(d, g, n);
}

void cp_diag_add_note(struct cp_diag *g, const struct cp_loc *loc,
                      const char *fmt, ...)
{
    if (!g)
        return;
    /* Grown to powers of two: a record has a few notes. */
    if ((g->nnotes & (g->nnotes - 1)) == 0)
        g->notes = cp_xrealloc(g->notes, (g->nnotes ? 2 * g->nnotes : 1) *
                                             sizeof(*g->notes));
    struct cp_diag_note *n = &g->notes[g->nnotes++];
    memset(n, 0, sizeof(*n));
    if (loc)
        n->loc = *loc;
    va_list ap;
    va_start(ap, fmt);
    size_t len;
    n->msg = cp_diags_vfmt(g->sink, &len, fmt, ap);
    va_end(ap);
}

void cp_diag_set_suggestion(struct cp_diag *g, const char *fmt, ...)
{
    if (!g)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t len;
    g->suggestion = cp_diags_vfmt(g->sink, &len, fmt, ap);
    va_end(ap);
}

size_t cp_diag_errors(const struct cp_diags *d)
{
    return d->nerrors;
}

/* ---- source order ------------------------------------------------------ */

/* A record's place in source order: its source (in the order the sources
 * first occur in the sink), line, column, then the order it was reported.
 * Sixteen bytes: a large build sorts hundreds of thousands. */
struct cp_order {
    uint32_t src, line, col, seq;
};

#define CP_ORDER_DONE UINT32_MAX /* seq of a record put in place */

static int cp_order_cmp(const void *a, const void *b)
{
    const struct cp_order *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Merges the sorted runs O[0, m) and O[m, n) through TMP (n entries). */
static void cp_order_merge(struct cp_order *o, size_t m, size_t n,
                           struct cp_order *tmp)
{
    size_t i = 0, j = m, k = 0;
    while (i < m && j < n)
        tmp[k++] = cp_order_cmp(&o[j], &o[i]) < 0 ? o[j++] : o[i++];
    while (i < m)
        tmp[k++] = o[i++];
    memcpy(o, tmp, k * sizeof *o); /* o[j, n) is in place already */
}

/* Sorts O (N keys, all distinct: seq tells them apart) by merging the runs
 * it arrives in, pairwise until one is left: each target reports in rule
 * order, so a build's records are a few runs, where qsort took n log n
 * comparisons through a pointer (the sort was 1.3% of the 100,000-rule
 * build). */
static void cp_order_sort(struct cp_order *o, size_t n)
{
    size_t *run = cp_xmalloc((n + 1) * sizeof *run), nrun = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || cp_order_cmp(&o[i - 1], &o[i]) > 0)
            run[nrun++] = i;
    run[nrun] = n;
    struct cp_order *tmp = cp_xmalloc(n * sizeof *tmp);
    while (nrun > 1) {
        size_t k = 0;
        for (size_t r = 0; r < nrun; r += 2, k++) {
            if (r + 1 < nrun)
                cp_order_merge(o + run[r], run[r + 1] - run[r],
                               run[r + 2] - run[r], tmp);
            run[k] = run[r];
        }
        run[k] = n;
        nrun = k;
    }
    free(tmp);
    free(run);
}

/* After a sort that put the record at O[i].seq at i, the entries of the
 * held records follow them. */
static void cp_diags_seen_move(struct cp_diags *d, const struct cp_order *o,
                               size_t n)
{
    if (!d->nseen)
        return;
    size_t *to = cp_xmalloc(n * sizeof *to);
    for (size_t i = 0; i < n; i++)
        to[o[i].seq] = i;
    for (size_t i = 0; i < d->nseen; i++) {
        struct cp_diag_seen *e = &d->seen[i];
        if (e->gen == d->gen && e->v < n)
            e->v = to[e->v];
    }
    free(to);
}

/* Puts the record at O[i].seq at i in place, one cycle of the permutation
 * at a time (no copy of the records); spends O's seq fields. */
static void cp_diags_permute(struct cp_diag *items, struct cp_order *o,
                             size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (o[i].seq == CP_ORDER_DONE || o[i].seq == i)
            continue;
        struct cp_diag first = items[i];
        for (size_t j = i;;) {
            size_t k = o[j].seq;
            o[j].seq = CP_ORDER_DONE;
            if (k == i) {
                items[j] = first;
                break;
            }
            items[j] = items[k];
            j = k;
        }
    }
}

/* The sort keys of D's records; false when they are in order already. */
static bool cp_diags_order(const struct cp_diags *d, struct cp_order *o)
{
    size_t n = d->len, nsrcs = 0, cap = 8;
    const struct cp_source **srcs = cp_xmalloc(cap * sizeof *srcs);
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        const struct cp_loc *l = &d->items[i].loc;
        /* Runs of one source are the rule: try the previous one first. */
        size_t k = i && srcs[o[i - 1].src] == l->src ? o[i - 1].src : 0;
        while (k < nsrcs && srcs[k] != l->src)
            k++;
        if (k == nsrcs) {
            if (nsrcs == cap)
                srcs = cp_xrealloc(srcs, (cap *= 2) * sizeof *srcs);
            srcs[nsrcs++] = l->src;
        }
        o[i] = (struct cp_order){(uint32_t)k, l->line, l->col, (uint32_t)i};
        sorted = sorted && (!i || cp_order_cmp(&o[i - 1], &o[i]) < 0);
    }
    free(srcs);
    return !sorted;
}

void cp_diags_sort(struct cp_diags *d)
{
    size_t n = d->len;
    if (n < 2)
        return; /* in order already (and items may be NULL) */
    if (n >= CP_ORDER_DONE)
        cp_die_oom(); /* past what 16-byte keys can number */
    struct cp_order *o = cp_xmalloc(n * sizeof *o);
    if (cp_diags_order(d, o)) {
        cp_order_sort(o, n);
        cp_diags_seen_move(d, o, n);
        cp_diags_permute(d->items, o, n);
    }
    free(o);
}

/* ---- text renderer ----------------------------------------------------- */

#define CP_C_BOLD "\033[1m"
#define CP_C_RESET "\033[0m"

const char *cp_diag_sev_word(enum cp_severity s)
{
    switch (s) {
    case CP_SEV_NOTE:
        return "note";
    case CP_SEV_WARNING:
        return "warning";
    case CP_SEV_ERROR:
        return "error";
    }
    return "error";
}

static unsigned cp_ndigits(unsigned v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* The renderer builds the text in memory and writes it in blocks of 64 KiB:
 * stderr is unbuffered, and a byte-at-a-time write made long lines with
 * many errors take minutes (a write per diagnostic was the next cost). */
static void cp_buf_addc_(int c, struct cp_buf *b)
{
    cp_buf_addc(b, (char)c);
}

static void cp_buf_adds_(const char *s, struct cp_buf *b)
{
    cp_buf_adds(b, s);
}

/* Echoes one source line: control bytes other than tab are printed as '?'
 * so that the output stays text (one byte each, columns unchanged). */
static void cp_put_line(const char *s, size_t n, struct cp_buf *out)
{
    /* A plain loop: eight bytes at a time gained nothing measurable in
     * `make bench` (build --target all, median CPU ms, 10,000 / 100,000
     * rules: 60.7 / 566.9 with it, 48.6 / 616.0 without). */
    size_t run = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            cp_buf_add(out, s + run, i - run);
            cp_buf_addc_('?', out);
            run = i + 1;
        }
    }
    cp_buf_add(out, s + run, n - run);
}

/* The caret line for columns [from, to] (1-based bytes, inclusive) of the
 * source line `s`: tabs before the span are copied so that the caret lines
 * up in any tab setting; `first` puts '^' at the first column. */
static void cp_put_caret(const char *s, size_t n, unsigned from, unsigned to,
                         bool first, bool color, struct cp_buf *out)
{
    size_t lead = from - 1;                   /* columns before the span */
    size_t span = to >= from ? to - lead : 1; /* the callers keep to >= from */
    char *p = cp_buf_extend(out, lead + span);
    memset(p, ' ', lead);
    size_t m = lead < n ? lead : n;
    for (const char *t = memchr(s, '\t', m); t;
         t = memchr(t + 1, '\t', m - (size_t)(t + 1 - s)))
        p[t - s] = '\t';
    memset(p + lead, '~', span);
    if (first)
        p[lead] = '^';
    if (color) {
        /* The escapes go around the span, after the blank lead. */
        char *span_copy = cp_xmalloc(span);
        memcpy(span_copy, p + lead, span);
        out->len -= span;
        cp_buf_adds(out, "\033[1;32m");
        cp_buf_add(out, span_copy, span);
        cp_buf_adds(out, CP_C_RESET);
        free(span_copy);
    }
}

/* "00" to "99", for cp_put_uint. */
static const char cp_digit_pairs[] = "0001020304050607080910111213141516171819"
                                     "2021222324252627282930313233343536373839"
                                     "4041424344454647484950515253545556575859"
                                     "6061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* `v` in decimal, right-aligned in `w` columns (the "%*u" of printf). */
static void cp_put_uint(unsigned v, unsigned w, struct cp_buf *out)
{
    char tmp[16];
    size_t k = sizeof(tmp);
    while (v >= 100) { /* two digits per division */
        unsigned r = v % 100;
        v /= 100;
        k -= 2;
        memcpy(tmp + k, cp_digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        k -= 2;
        memcpy(tmp + k, cp_digit_pairs + 2 * v, 2);
    } else {
        tmp[--k] = (char)('0' + v);
    }
    while (sizeof(tmp) - k < w && k > 0)
        tmp[--k] = ' ';
    cp_buf_add(out, tmp + k, sizeof(tmp) - k);
}

/* The gutter of an excerpt line: " NNNN | ", or blank for a caret line. */
static void cp_put_gutter(unsigned ln, unsigned w, struct cp_buf *out)
{
    if (ln) {
        cp_buf_addc_(' ', out);
        cp_put_uint(ln, w, out);
        cp_buf_add(out, " | ", 3);
    } else {
        char *p = cp_buf_extend(out, (size_t)w + 4);
        memset(p, ' ', (size_t)w + 2);
        p[w + 2] = '|';
        p[w + 3] = ' ';
    }
}

/* Source excerpt for `loc`: every line of the span when it has at most three
 * lines, otherwise the first line, a "..." line and the last line. */
static void cp_render_excerpt(const struct cp_diags *d,
                              const struct cp_loc *loc, struct cp_buf *out)
{
    const struct cp_source *src = loc->src;
    if (!src || loc->line == 0)
        return;
    unsigned last = loc->end_line >= loc->line ? loc->end_line : loc->line;
    unsigned w = cp_ndigits(last);
    if (w < 4)
        w = 4;
    for (unsigned ln = loc->line; ln <= last; ln++) {
        if (last - loc->line + 1 > 3 && ln == loc->line + 1) {
            cp_buf_printf(out, " %*s |\n", (int)w, "...");
            ln = last - 1;
            continue;
        }
        size_t n;
        const char *s = cp_source_line(src, ln, &n);
        cp_put_gutter(ln, w, out);
        cp_put_line(s, n, out);
        cp_buf_addc_('\n', out);
        unsigned from, to;
        if (ln == loc->line) {
            from = loc->col ? loc->col : 1;
        } else {
            /* Continuation lines are underlined from their first non-blank
             * byte. */
            from = 1;
            while (from <= n && (s[from - 1] == ' ' || s[from - 1] == '\t'))
                from++;
        }
        if (ln == last && loc->end_line >= loc->line)
            to = loc->end_col;
        else
            to = (unsigned)n;
        if (to < from)
            to = from;
        cp_put_gutter(0, w, out);
        cp_put_caret(s, n, from, to, ln == loc->line, d->color, out);
        cp_buf_addc_('\n', out);
    }
}

static void cp_render_prefix(const struct cp_loc *loc, struct cp_buf *out)
{
    if (loc->src && loc->line) {
        cp_buf_adds_(loc->src->path, out);
        cp_buf_addc_(':', out);
        cp_put_uint(loc->line, 0, out);
        cp_buf_addc_(':', out);
        cp_put_uint(loc->col, 0, out);
        cp_buf_add(out, ": ", 2);
    } else if (loc->src)
        cp_buf_printf(out, "%s: ", loc->src->path);
    else
        cp_buf_adds_("confpol: ", out);
}

/* GCC's include context, innermost includer first, printed when a
 * diagnostic is in an included file other than the previous one's. */
static void cp_render_included_from(const struct cp_source *s,
                                    struct cp_buf *out)
{
    const char *lead = "In file included from";
    for (const struct cp_source *x = s; x && x->includer; x = x->includer) {
        cp_buf_printf(out, "%s %s:%u%s\n", lead, x->includer->path,
                      x->include_line, x->includer->includer ? "," : ":");
        lead = "                 from";
    }
}

/* Writes the buffer once it holds `min` bytes (stderr is unbuffered: one
 * write per block, not per diagnostic or byte). */
static void cp_flush(struct cp_buf *b, FILE *out, size_t min)
{
    if (b->len && b->len >= min) {
        fwrite(b->data, 1, b->len, out);
        cp_buf_reset(b);
    }
}

/* Colours as GCC's defaults (GCC_COLORS): bold locus, red errors,
 * magenta warnings, cyan notes, green carets. */
static const char *cp_sev_color(enum cp_severity s)
{
    switch (s) {
    case CP_SEV_NOTE:
        return "\033[1;36m";
    case CP_SEV_WARNING:
        return "\033[1;35m";
    case CP_SEV_ERROR:
        return "\033[1;31m";
    }
    return "\033[1;31m";
}

/* "LOCUS: SEVERITY: " in colour when asked. */
static void cp_render_head(const struct cp_diags *d, const struct cp_loc *loc,
                           enum cp_severity sev, struct cp_buf *out)
{
    if (d->color)
        cp_buf_adds_(CP_C_BOLD, out);
    cp_render_prefix(loc, out);
    if (d->color) {
        cp_buf_adds_(CP_C_RESET, out);
        cp_buf_adds_(cp_sev_color(sev), out);
    }
    cp_buf_adds_(cp_diag_sev_word(sev), out);
    cp_buf_addc_(':', out);
    if (d->color)
        cp_buf_adds_(CP_C_RESET, out);
    cp_buf_addc_(' ', out);
}

/* " [CP0759] [-Wclaude-net-prompt]": the code, then the option that
 * controls it as GCC names it ([-Werror=NAME] once -Werror made the
 * warning an error); an error has no option. */
static void cp_render_code(const struct cp_diags *d, const struct cp_diag *g,
                           struct cp_buf *out)
{
    cp_buf_add(out, " [", 2);
    cp_buf_adds_(cp_diag_code_id(g->code), out);
    cp_buf_addc_(']', out);
    const char *flag = cp_diag_code_flag(g->code);
    if (!flag)
        return;
    cp_buf_add(out, " [", 2);
    if (d->color)
        cp_buf_adds_(cp_sev_color(g->sev), out);
    cp_buf_adds_(g->sev == CP_SEV_ERROR ? "-Werror=" : "-W", out);
    cp_buf_adds_(flag, out);
    if (d->color)
        cp_buf_adds_(CP_C_RESET, out);
    cp_buf_addc_(']', out);
}

/* V with a comma every three digits: 9,999. */
static void cp_put_grouped(size_t v, struct cp_buf *out)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%zu", v);
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            cp_buf_addc_(',', out);
        cp_buf_addc_(tmp[i], out);
    }
}

/* Records of one cause are grouped when there are more than this many in
 * one batch: the first is printed with "and N more like this". */
enum { CP_GROUP_MIN = 10 };

/* The first quote at or after P, or the end of the string. */
static const char *cp_next_quote(const char *p)
{
    const char *q = strchr(p, '\'');
    return q ? q : p + strlen(p);
}

/* The cause of a warning or note: its code and its message with the quoted
 * parts ('...', the rule or path) left out, and whether it has a location. */
static uint64_t cp_cause(const struct cp_diag *g)
{
    struct cp_hasher hs;
    cp_hasher_init(&hs);
    cp_hasher_feed(&hs, &g->code, sizeof g->code);
    bool located = g->loc.src != NULL;
    cp_hasher_feed(&hs, &located, sizeof located);
    /* The unquoted spans: up to a quote, then past the closing one (an
     * unclosed quote runs to the end). */
    for (const char *p = g->msg; *p;) {
        size_t n = (size_t)(cp_next_quote(p) - p);
        cp_hasher_feed(&hs, p, n);
        if (!p[n])
            break;
        const char *close = strchr(p + n + 1, '\'');
        if (!close)
            break;
        p = close + 1;
    }
    return cp_hasher_end(&hs);
}

/* Whether the messages A and B have the same unquoted spans, span by span
 * (then cp_cause hashes them alike). */
static bool cp_same_cause(const char *a, const char *b)
{
    for (;;) {
        const char *qa = cp_next_quote(a), *qb = cp_next_quote(b);
        if (qa - a != qb - b || memcmp(a, b, (size_t)(qa - a)) != 0)
            return false;
        if (!*qa || !*qb)
            return !*qa && !*qb;
        const char *ca = strchr(qa + 1, '\''), *cb = strchr(qb + 1, '\'');
        if (!ca || !cb)
            return !ca && !cb;
        a = ca + 1;
        b = cb + 1;
    }
}

/* The last causes met per code: most records of a code share one cause, and
 * comparing a message with the last one of its code is a few memcmp where
 * hashing it is a multiplication per byte (cp_cause was 3% of a 10,000-rule
 * build). */
enum { CP_CAUSE_WAYS = 4 };

struct cp_cause_memo {
    const struct cp_diag *g[CP_CAUSE_WAYS];
    uint64_t key[CP_CAUSE_WAYS];
    unsigned next;
};

/* G's cause (cp_cause), from MEMO (one per code) when it has G's. */
static uint64_t cp_cause_memo(struct cp_cause_memo *memo,
                              const struct cp_diag *g)
{
    struct cp_cause_memo *m = &memo[(size_t)g->code < CP_DIAG__COUNT
                                        ? (size_t)g->code
                                        : CP_DIAG__COUNT];
    for (unsigned k = 0; k < CP_CAUSE_WAYS && m->g[k]; k++)
        if ((m->g[k]->loc.src != NULL) == (g->loc.src != NULL) &&
            m->g[k]->code == g->code && cp_same_cause(m->g[k]->msg, g->msg))
            return m->key[k];
    unsigned k = m->next++ % CP_CAUSE_WAYS;
    m->g[k] = g;
    m->key[k] = cp_cause(g);
    return m->key[k];
}

/* How many records of each cause a batch holds: an open-addressing table. */
struct cp_cause_count {
    uint64_t key;
    size_t n;
};

struct cp_causes {
    struct cp_cause_count *slot;
    size_t cap;
};

static size_t *cp_causes_slot(struct cp_causes *t, uint64_t k)
{
    size_t j = k & (t->cap - 1);
    while (t->slot[j].key && t->slot[j].key != k)
        j = (j + 1) & (t->cap - 1);
    t->slot[j].key = k;
    return &t->slot[j].n;
}

/* The diagnostics of D as text; returns the source of the last one. */
static const struct cp_source *cp_render_items(const struct cp_diags *d,
                                               struct cp_buf *out, FILE *fout)
{
    const struct cp_source *last = d->flushed_src;
    struct cp_causes t = {0};
    uint64_t *cause = NULL; /* each record's, hashed once for both passes */
    if (!d->all && d->len > CP_GROUP_MIN) {
        t.cap = 64;
        while (t.cap < 2 * d->len)
            t.cap *= 2;
        t.slot = cp_xcalloc(t.cap, sizeof *t.slot);
        cause = cp_xcalloc(d->len, sizeof *cause);
        struct cp_cause_memo *memo = cp_xcalloc(CP_DIAG__COUNT + 1,
                                                sizeof *memo);
        for (size_t i = 0; i < d->len; i++)
            if (d->items[i].sev != CP_SEV_ERROR) {
                cause[i] = cp_cause_memo(memo, &d->items[i]);
                ++*cp_causes_slot(&t, cause[i]);
            }
        free(memo);
    }
    for (size_t i = 0; i < d->len; i++) {
        const struct cp_diag *g = &d->items[i];
        size_t more = 0;
        if (t.cap && g->sev != CP_SEV_ERROR) {
            size_t *n = cp_causes_slot(&t, cause[i]);
            if (*n == SIZE_MAX)
                continue; /* grouped under the first one */
            if (*n > CP_GROUP_MIN) {
                more = *n - 1;
                *n = SIZE_MAX;
            }
        }
        if (g->loc.src && g->loc.src != last)
            cp_render_included_from(g->loc.src, out);
        last = g->loc.src;
        cp_render_head(d, &g->loc, g->sev, out);
        cp_buf_adds_(g->msg, out);
        cp_render_code(d, g, out);
        cp_buf_addc_('\n', out);
        cp_render_excerpt(d, &g->loc, out);
        for (size_t j = 0; j < g->nnotes; j++) {
            cp_render_head(d, &g->notes[j].loc, CP_SEV_NOTE, out);
            cp_buf_adds_(g->notes[j].msg, out);
            cp_buf_addc_('\n', out);
            cp_render_excerpt(d, &g->notes[j].loc, out);
        }
        if (g->suggestion) {
            cp_render_head(d, &g->loc, CP_SEV_NOTE, out);
            cp_buf_adds_(g->suggestion, out);
            cp_buf_addc_('\n', out);
        }
        if (more) {
            cp_render_head(d, &g->loc, CP_SEV_NOTE, out);
            cp_buf_adds_("and ", out);
            cp_put_grouped(more, out);
            cp_buf_adds_(" more like this; --all-diagnostics shows them\n",
                         out);
        }
        cp_flush(out, fout, 1 << 16);
    }
    free(t.slot);
    free(cause);
    return last;
}

void cp_diags_flush_text(struct cp_diags *d, FILE *fout)
{
    struct cp_buf buf = {0};
    d->flushed_src = cp_render_items(d, &buf, fout);
    cp_flush(&buf, fout, 0);
    cp_buf_free(&buf);
    cp_diags_release(d);
}

void cp_diags_render_summary(size_t nerrors, size_t nwarnings, FILE *fout)
{
    if (nerrors && nwarnings)
        fprintf(fout, "%zu error%s, %zu warning%s\n", nerrors,
                nerrors == 1 ? "" : "s", nwarnings, nwarnings == 1 ? "" : "s");
    else if (nerrors)
        fprintf(fout, "%zu error%s\n", nerrors, nerrors == 1 ? "" : "s");
    else if (nwarnings)
        fprintf(fout, "%zu warning%s\n", nwarnings, nwarnings == 1 ? "" : "s");
}

void cp_diags_render_text(const struct cp_diags *d, FILE *fout)
{
    struct cp_buf buf = {0}, *out = &buf;
    cp_render_items(d, out, fout);
    cp_flush(out, fout, 0);
    cp_buf_free(out);
    if (!d->no_summary)
        cp_diags_render_summary(d->nerrors, d->nwarnings, fout);
}

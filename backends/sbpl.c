/* SPDX-License-Identifier: MIT */
/* The SBPL backend: lowers the resolved rule list to a macOS Seatbelt
 * profile (spec/backends.md, "SBPL").
 *
 * Shape: `(version 1)`, the params used as `;; confpol-param` comments
 * (and a `net allow` list's rules as `;; confpol-net` ones, for the proxy
 * that confpol-run starts), then unfiltered rules ((allow default), (deny
 * file-write*), ...), then filtered allows, then filtered denies, and the
 * rename protection of protected paths last.  Between filtered rules the last match wins, so
 * every deny comes after every allow it restricts, and no unfiltered rule
 * ever follows a filtered one (sbpl.md §2.4).
 *
 * Paths: params stay `(param "NAME")` (bound by sandbox-exec -D at apply
 * time, never inlined), spelt through `confpol-dir` so that a value of /
 * does not make `//x`; the ancestors of a param's value that may lie in a
 * write root are pinned through `NAME:ancestors`, which the binder
 * computes.  Absolute paths are canonicalised for macOS (/tmp, /var, /etc
 * live under /private); literal subtrees become `literal`+`subpath`, globs
 * anchored `regex`es whose literal bytes are escaped and whose wildcard
 * runs are sound whether the regex engine counts bytes or characters.
 * Only `\\` and `\"` are ever emitted as string escapes; a path
 * with a control character or invalid UTF-8 is rejected (CP0701). */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_vocab.h"
#include "backend.h"
#include "fidelity.h"
#include "ospath.h"
#include "outbuf.h"
#include "utf8.h"

/* One lowered path rule: the rule and its path, canonical for macOS. */
struct sb_item {
    const struct cp_rule *r;
    struct cp_path path;
};

struct sb_list {
    struct sb_item *v;
    size_t n, cap;
};

struct sb {
    struct cp_analysis head; /* first: the driver reads it (fidelity.h) */
    const struct cp_policy *p;
    struct cp_arena *a;
    struct sb_list writes, execs, dwrites, dreads, dexecs;
    struct sb_list sockets; /* net socket: connect allowed */
    struct sb_list anc;     /* rename protection: unlink+create denied */
    struct sb_list selfunl; /* deny-read regions: unlink denied */
    struct cp_pathset wset; /* literal write roots, glob roots' prefixes */
    struct cp_fidtab ft;    /* per rule id */
    bool protects;          /* some deny overlaps a write root */
    bool links;             /* (deny file-link) is needed */
    const char **ancp;      /* params whose value's ancestors are pinned */
    size_t nancp;
    size_t nanc_rules; /* protected regions with ancestors pinned */
    int errors;
    /* fid_stricter's last join: reasons OLD and WHY, and the result (NULL:
     * WHY is in OLD already). */
    const char *join_old, *join_why, *join_out;
};

static void list_push(struct cp_arena *a, struct sb_list *l,
                      const struct cp_rule *r, struct cp_path path)
{
    l->v = cp_backend_grow(a, l->v, l->n, &l->cap, sizeof *l->v);
    l->v[l->n].r = r;
    l->v[l->n].path = path;
    l->n++;
}

/* Sorts and drops duplicate paths. */
static void list_sort(struct cp_arena *a, struct sb_list *l)
{
    if (l->n < 2)
        return;
    const struct cp_path **pv = cp_xmalloc(l->n * sizeof *pv);
    size_t *perm = cp_xmalloc(l->n * sizeof *perm);
    for (size_t i = 0; i < l->n; i++)
        pv[i] = &l->v[i].path;
    size_t k = cp_ospath_sort_uniq(pv, l->n, false, perm);
    struct sb_item *v = cp_arena_alloc(a, k * sizeof *v);
    for (size_t i = 0; i < k; i++)
        v[i] = l->v[perm[i]];
    free(perm);
    free(pv);
    l->v = v;
    l->n = k;
    l->cap = k;
}

/* /tmp, /var and /etc are symlinks into /private on macOS; the kernel
 * matches resolved paths (sbpl.md §7). */
static struct cp_path canonical(struct cp_arena *a, const struct cp_path *in)
{
    if (in->root || in->nsegs == 0 || in->segs[0].kind != CP_SEG_LIT)
        return *in;
    const struct cp_seg *s = &in->segs[0];
    static const char *const moved[] = {"tmp", "var", "etc"};
    bool hit = false;
    for (size_t i = 0; i < 3; i++)
        if (s->len == strlen(moved[i]) && memcmp(s->s, moved[i], s->len) == 0)
            hit = true;
    if (!hit)
        return *in;
    struct cp_path out = *in;
    out.segs = cp_arena_alloc(a, (in->nsegs + 1) * sizeof *out.segs);
    out.segs[0].kind = CP_SEG_LIT;
    out.segs[0].s = "private";
    out.segs[0].len = 7;
    memcpy(out.segs + 1, in->segs, in->nsegs * sizeof *in->segs);
    out.nsegs = in->nsegs + 1;
    return out;
}

/* ---- string and regex encoding ------------------------------------------ */

/* NULL if every byte of the path can be carried in an SBPL string; else a
 * description of the first offending byte. */
static const char *unencodable(struct cp_arena *a, const struct cp_path *p)
{
    for (size_t i = 0; i < p->nsegs; i++) {
        const unsigned char *s = (const unsigned char *)p->segs[i].s;
        size_t n = p->segs[i].len;
        for (size_t j = 0; j < n;) {
            if (s[j] < 0x20 || s[j] == 0x7f)
                return cp_arena_printf(a, "control character 0x%02x", s[j]);
            if (s[j] < 0x80) { /* no call per ASCII byte */
                j++;
                continue;
            }
            size_t l = cp_utf8_len(s + j, n - j);
            if (!l)
                return cp_arena_printf(a, "byte 0x%02x that is not valid UTF-8",
                                       s[j]);
            j += l;
        }
    }
    return NULL;
}

/* Appends bytes to an SBPL string body: only `\\` and `\"` are escaped. */
static void str_body(struct cp_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] != '\\' && s[j] != '"')
            j++;
        cp_ob_add(b, s + i, j - i);
        if (j < n) {
            char e[2] = {'\\', s[j]};
            cp_ob_add(b, e, 2);
            j++;
        }
        i = j;
    }
}

/* A regex metacharacter (sbpl.md §6): re_lit escapes it. */
static bool re_meta(char c)
{
    switch (c) {
    case '.':
    case '*':
    case '+':
    case '?':
    case '^':
    case '$':
    case '|':
    case '\\':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
        return true;
    default:
        return false;
    }
}

/* Regex-escapes one literal byte (sbpl.md §6), then string-escapes. */
static void re_lit(struct cp_buf *b, char c)
{
    if (strchr(".*+?^$|\\()[]{}", c) && c != '\0')
        str_body(b, "\\", 1);
    str_body(b, &c, 1);
}

/* One run of wildcards of a glob segment: `k` '?' and, when `star`, some
 * '*'.  The decision model counts bytes; the SBPL regex engine may count
 * characters (sbpl.md §6 says bytes, unverified).  Names on macOS are
 * valid UTF-8 and the pattern's literal bytes are whole characters, so a
 * run of '*' alone, or '*' with one '?' ("at least one"), means the same in
 * both readings and is exact.  Any other run is emitted so that it is exact
 * in the byte reading where possible and stricter in both: a deny matches
 * at least what the model matches (k bytes hold k/4 to k characters), an
 * allow at most (ASCII only where no '*' absorbs the difference). */
static bool run_exact(size_t k, bool star)
{
    return k == 0 || (star && k == 1);
}

static void re_run(struct cp_buf *b, size_t k, bool star, bool deny)
{
    size_t lo = (k + 3) / 4;
    if (star)
        cp_ob_adds(b, "[^/]*");
    for (size_t i = 0; i < k; i++) {
        if (star)
            cp_ob_adds(b, deny && i >= lo ? "" : "[^/]");
        else if (deny)
            cp_ob_adds(b, i < lo ? "[^/]" : "[^/]?");
        else
            cp_ob_adds(b, "[ -.0-~]");
    }
}

static bool is_wild(char c)
{
    return c == '*' || c == '?';
}

/* Does every wildcard run of p mean the same bytes in both readings? */
static bool glob_exact(const struct cp_path *p)
{
    for (size_t i = 0; i < p->nsegs; i++) {
        const struct cp_seg *g = &p->segs[i];
        if (g->kind != CP_SEG_GLOB)
            continue;
        for (size_t j = 0; j < g->len;) {
            if (g->s[j] == '\\') {
                j += 2;
                continue;
            }
            if (!is_wild(g->s[j])) {
                j++;
                continue;
            }
            size_t k = 0;
            bool star = false;
            for (; j < g->len && is_wild(g->s[j]); j++) {
                if (g->s[j] == '?')
                    k++;
                else
                    star = true;
            }
            if (!run_exact(k, star))
                return false;
        }
    }
    return true;
}

/* A glob segment of '*' alone (one or more): it matches every name, and
 * a name is never empty. */
static bool seg_only_stars(const struct cp_seg *g)
{
    for (size_t j = 0; j < g->len; j++)
        if (g->s[j] != '*')
            return false;
    return g->len > 0;
}

/* Appends the regex of the segments (not anchored, no suffix) into a
 * string body; `deny`: the regex restricts (see re_run). */
static void re_segs(struct cp_buf *b, const struct cp_path *p, bool deny)
{
    for (size_t i = 0; i < p->nsegs; i++) {
        const struct cp_seg *s = &p->segs[i];
        switch (s->kind) {
        case CP_SEG_ANY:
            cp_ob_adds(b, "(/[^/]+)*");
            break;
        case CP_SEG_LIT: {
            /* Written in place: a byte takes at most 4 (a regex-escaped
             * backslash, string-escaped: \\\\). */
            char *d0 = cp_ob_room(b, 1 + 4 * s->len), *d = d0;
            *d++ = '/';
            for (size_t j = 0; j < s->len; j++) {
                char c = s->s[j];
                if (re_meta(c)) {
                    *d++ = '\\';
                    *d++ = '\\';
                }
                if (c == '\\' || c == '"')
                    *d++ = '\\';
                *d++ = c;
            }
            b->len += (size_t)(d - d0);
            b->data[b->len] = '\0';
            break;
        }
        case CP_SEG_GLOB:
            cp_ob_addc(b, '/');
            if (seg_only_stars(s)) {
                /* `[^/]*` alone matches the empty name: the pattern of
                 * `write /` + `*` would match `/` itself. */
                cp_ob_adds(b, "[^/]+");
                break;
            }
            for (size_t j = 0; j < s->len;) {
                char c = s->s[j];
                if (c == '\\' && j + 1 < s->len) {
                    re_lit(b, s->s[j + 1]);
                    j += 2;
                } else if (is_wild(c)) {
                    size_t k = 0;
                    bool star = false;
                    for (; j < s->len && is_wild(s->s[j]); j++) {
                        if (s->s[j] == '?')
                            k++;
                        else
                            star = true;
                    }
                    re_run(b, k, star, deny);
                } else {
                    re_lit(b, c);
                    j++;
                }
            }
            break;
        }
    }
}

/* A string expression naming the literal path p. */
static void str_segs(struct cp_buf *b, const struct cp_path *p)
{
    /* Written in place: segments are short, a call per run costs more
     * than the bytes. */
    size_t bound = 0;
    for (size_t i = 0; i < p->nsegs; i++)
        bound += 1 + 2 * p->segs[i].len;
    char *d0 = cp_ob_room(b, bound), *d = d0;
    for (size_t i = 0; i < p->nsegs; i++) {
        *d++ = '/';
        const char *q = p->segs[i].s;
        for (size_t j = 0; j < p->segs[i].len; j++) {
            if (q[j] == '\\' || q[j] == '"')
                *d++ = '\\';
            *d++ = q[j];
        }
    }
    b->len += (size_t)(d - d0);
    b->data[b->len] = '\0';
}

static void str_expr(struct cp_buf *b, const struct cp_path *p)
{
    if (!p->root) {
        cp_ob_addc(b, '"');
        if (p->nsegs)
            str_segs(b, p);
        else
            cp_ob_addc(b, '/');
        cp_ob_addc(b, '"');
    } else if (!p->nsegs) {
        cp_ob_adds(b, "(param \"");
        str_body(b, p->root, strlen(p->root));
        cp_ob_adds(b, "\")");
    } else {
        /* (confpol-dir P) is "" when P is "/", so that a param bound to /
         * spells /x, not //x, which would never match. */
        cp_ob_adds(b, "(string-append (confpol-dir \"");
        str_body(b, p->root, strlen(p->root));
        cp_ob_adds(b, "\") \"");
        str_segs(b, p);
        cp_ob_adds(b, "\")");
    }
}

/* A regex expression for pattern p: anchored, and followed by (/.*)? when
 * `beneath` (a pattern covers everything beneath its matches). */
static void re_expr(struct cp_buf *b, const struct cp_path *p, bool beneath,
                    bool deny)
{
    const char *tail = beneath ? "(/.*)?$" : "$";
    if (!p->root) {
        cp_ob_adds(b, "\"^");
        re_segs(b, p, deny);
        if (p->nsegs == 0 && !beneath)
            cp_ob_addc(b, '/');
        cp_ob_adds(b, tail);
        cp_ob_addc(b, '"');
    } else {
        cp_ob_adds(b, "(string-append \"^\" (regex-quote (confpol-dir \"");
        str_body(b, p->root, strlen(p->root));
        cp_ob_adds(b, "\")) \"");
        re_segs(b, p, deny);
        cp_ob_adds(b, tail);
        cp_ob_adds(b, "\")");
    }
}

enum sb_form {
    SB_SUBTREE,      /* allow: the path and everything beneath */
    SB_SUBTREE_DENY, /* deny: literal + subpath (no creation gap) */
    SB_EXACT,        /* the path itself only (ancestors) */
};

static void filter(struct cp_buf *b, const struct cp_path *p, enum sb_form f)
{
    cp_ob_adds(b, "\n    ");
    if (p->has_glob) {
        cp_ob_adds(b, "(regex ");
        re_expr(b, p, f != SB_EXACT, f != SB_SUBTREE);
        cp_ob_addc(b, ')');
        return;
    }
    if (f == SB_SUBTREE_DENY || f == SB_EXACT) {
        cp_ob_adds(b, "(literal ");
        str_expr(b, p);
        cp_ob_addc(b, ')');
        if (f == SB_EXACT)
            return;
        cp_ob_adds(b, " ");
    }
    cp_ob_adds(b, "(subpath ");
    str_expr(b, p);
    cp_ob_addc(b, ')');
}

/* `(ACTION OPS filter...)` for a list; nothing when the list is empty. */
static void rule(struct cp_buf *b, const char *head, const struct sb_list *l,
                 enum sb_form f)
{
    if (!l->n)
        return;
    cp_buf_printf(b, "(%s", head);
    for (size_t i = 0; i < l->n; i++)
        filter(b, &l->v[i].path, f);
    cp_ob_adds(b, ")\n");
}

/* ---- analysis ------------------------------------------------------------ */

static struct cp_diag *warn(struct sb *s, enum cp_diag_code c,
                            const struct cp_rule *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static struct cp_diag *warn(struct sb *s, enum cp_diag_code c,
                            const struct cp_rule *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct cp_diag *g = cp_backend_vreport(cp_analysis_sink(&s->head, c), c, r,
                                           fmt, ap);
    va_end(ap);
    return g;
}

/* ---- network: a `net allow` list through confpol-run's proxy ------------ */

/* SBPL cannot filter by domain name (sbpl.md §4: the host of an `ip`
 * filter is `*` or `localhost`).  So a policy with a `net allow` list
 * keeps `(deny network*)` and allows one thing more: outbound IPv4 TCP to
 * the filtering proxy that confpol-run starts outside the sandbox on
 * 127.0.0.1, whose port the runtime binds as the param below.  The proxy
 * decides each connection with the rules the profile lists in its
 * `;; confpol-net PATTERN WHERE` lines (spec/backends.md, "SBPL",
 * Network). */
#define SB_PROXY_PARAM "confpol:proxy-port"
#define SB_NET_ALLOW_WHY                                                       \
    "exact for TCP through confpol-run's filtering proxy: outbound IPv4 "      \
    "TCP to the proxy's port on localhost only; UDP, direct connections "      \
    "and Unix sockets are closed"

static bool sb_net_proxied(const struct cp_policy *p)
{
    return p->net == CP_NET_LIST && p->profile != CP_PROFILE_COOPERATIVE;
}

/* Header lines: one `;; confpol-net PATTERN WHERE` per net rule, in source
 * order, as the bwrap artifact's `net` records (spec/artifacts.md).  WHERE
 * ends the line: a control byte of a file name becomes '?', so that it
 * cannot start a line of its own. */
static void sb_net_lines(const struct sb *sp, struct cp_buf *out)
{
    const struct cp_policy *p = sp->p;
    if (!sb_net_proxied(p))
        return;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_ALLOW)
            continue;
        const char *where = cp_backend_rule_where(sp->a, r);
        cp_ob_adds(out, CP_SB_NET_LINE);
        cp_ob_adds(out, cp_domain_format(sp->a, &r->u.dom));
        cp_ob_addc(out, ' ');
        for (const char *c = where; *c; c++)
            cp_ob_add(out, (unsigned char)*c < 0x20 || *c == 0x7f ? "?" : c, 1);
        cp_ob_adds(out, "\n");
    }
}

/* The helper that turns the port param into the filter's "localhost:PORT".
 * An unbound param is #f, and string->number of #f is an error; a value
 * that is not a port 1-65535 (`*` above all, which would open every
 * localhost port) reaches `error`: either way the profile does not load. */
static void sb_net_define(const struct sb *sp, struct cp_buf *out)
{
    if (!sb_net_proxied(sp->p))
        return;
    cp_ob_adds(out,
               "(define (confpol-proxy-port port)\n"
               "    (if (and (integer? port) (> port 0) (< port 65536))\n"
               "        (string-append \"localhost:\" (number->string port))\n"
               "        (error \"confpol: the proxy port is not a TCP "
               "port\")))\n");
}

/* The one network allow: a filtered rule after the unfiltered
 * `(deny network*)`, so that the last match gives it (sbpl.md §2). */
static void sb_net_allow(const struct sb *sp, struct cp_buf *out)
{
    if (!sb_net_proxied(sp->p))
        return;
    cp_ob_adds(out,
               "(allow network-outbound\n"
               "    (remote tcp4 (confpol-proxy-port\n"
               "        (string->number (param \"" SB_PROXY_PARAM "\")))))\n");
}

/* The policy-wide note: the profile needs the proxy's port bound. */
static void sb_net_note(struct sb *s)
{
    if (sb_net_proxied(s->p) && !s->errors)
        warn(s, CP0704, NULL,
             "sbpl: the net allow list is enforced by confpol-run's "
             "filtering proxy: the profile allows outbound TCP only to the "
             "proxy's port on localhost (param %s, bound by confpol-run); "
             "without it the profile does not load",
             SB_PROXY_PARAM);
}

/* Records a stricter finding, keeping the earlier reasons: every way a
 * rule is stricter is listed in the fidelity report. */
static void fid_stricter(struct sb *s, const struct cp_rule *r, const char *why)
{
    const char *old = s->ft.why[r->id];
    if (old && s->ft.fid[r->id] == CP_FID_STRICTER) {
        /* Rules of a kind share their reasons (literals and joins, never a
         * reused buffer): the last join is reused instead of a search and
         * a copy per rule. */
        if (old != s->join_old || why != s->join_why) {
            s->join_old = old;
            s->join_why = why;
            s->join_out = strstr(old, why) ? NULL
                                           : cp_arena_cat(s->a, old, "; ", why,
                                                          (char *)NULL);
        }
        if (!s->join_out)
            return;
        why = s->join_out;
        s->ft.why[r->id] = NULL; /* let the longer reason replace it */
    }
    cp_fidtab_set(&s->ft, r, CP_FID_STRICTER, why);
}

/* Number of leading literal segments of p. */
static size_t lit_prefix(const struct cp_path *p)
{
    size_t k = 0;
    while (k < p->nsegs && p->segs[k].kind == CP_SEG_LIT)
        k++;
    return k;
}

/* Can something beneath l be moved to a writable place outside l?  Only
 * when some write root may lie outside l (members sharing l's root are
 * sorted with l's subtree contiguous, so the first and the last decide). */
static bool can_leave(const struct sb *s, const struct cp_path *l)
{
    const struct cp_pathset *w = &s->wset;
    if (!w->n)
        return false;
    if (cp_pathset_other_root(w, l->root))
        return true;
    return !cp_ospath_is_prefix(l, w->v[0]) ||
           !cp_ospath_is_prefix(l, w->v[w->n - 1]);
}

static void anc_param(struct sb *s, const char *name)
{
    for (size_t i = 0; i < s->nancp; i++)
        if (strcmp(s->ancp[i], name) == 0)
            return;
    const char **v = cp_arena_alloc(s->a, (s->nancp + 1) * sizeof *v);
    if (s->nancp)
        memcpy(v, s->ancp, s->nancp * sizeof *v);
    v[s->nancp++] = name;
    s->ancp = v;
}

/* Rename protection for a protected region (sbpl.md §8): deny unlink and
 * create of each ancestor between the enclosing write root (or the path's
 * root when a param makes the enclosure unknown) and the region.  The
 * enclosing root itself is included when something could receive it (a
 * write root outside it).  A param-rooted region whose param's value may
 * lie in a write root also pins the value's own ancestors: the profile
 * cannot compute them, so it names a derived param that the binder
 * computes (`;; confpol-ancestors`).  A glob prefix ending in '**' needs no
 * protection unless a match can be moved out of the glob's literal
 * prefix: renaming beneath it keeps every match matching.  Returns
 * PIN_ANY when something is pinned, PIN_GLOB when some pinned ancestor is
 * a pattern. */
enum { PIN_ANY = 1, PIN_GLOB = 2 };

static int protect_ancestors(struct sb *s, const struct sb_item *it,
                             enum cp_ospath_rel rel)
{
    const struct cp_path *p = &it->path;
    size_t start = p->root ? 0 : 1;
    if (rel == CP_OSREL_YES && !cp_pathset_other_root(&s->wset, p->root)) {
        const struct cp_path *w = cp_pathset_outermost_strict_ancestor(&s->wset,
                                                                       p);
        if (w)
            start = w->nsegs + (can_leave(s, w) ? 0 : 1);
        if (start == 0 && !p->root)
            start = 1;
    }
    int pinned = 0;
    if (p->root && cp_pathset_other_root(&s->wset, p->root)) {
        anc_param(s, p->root);
        pinned = PIN_ANY;
    }
    struct cp_path lit = cp_ospath_prefix(p, lit_prefix(p));
    bool leave = p->has_glob && can_leave(s, &lit);
    for (size_t k = start; k < p->nsegs; k++) {
        struct cp_path q = cp_ospath_prefix(p, k);
        if (k && q.segs[k - 1].kind == CP_SEG_ANY && !leave)
            continue;
        pinned |= PIN_ANY | (q.has_glob ? PIN_GLOB : 0);
        list_push(s->a, &s->anc, it->r, q);
    }
    if (pinned)
        s->nanc_rules++;
    return pinned;
}

/* Rates a rule and returns the list its path goes to (NULL: none). */
static struct sb_list *rate_rule(struct sb *s, const struct cp_rule *r)
{
    struct sb_list *l = NULL;
    switch (r->kind) {
    case CP_R_WRITE:
        l = &s->writes;
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT, "(allow file-write* ...)");
        break;
    case CP_R_EXEC:
        l = &s->execs;
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                      "(allow process-exec* ...) after (deny process-exec*)");
        break;
    case CP_R_DENY_WRITE:
        l = &s->dwrites;
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                      "(deny file-write* ...), emitted last");
        break;
    case CP_R_DENY_READ:
        l = &s->dreads;
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                      "(deny file-read* ...) and (deny process-exec* ...)");
        break;
    case CP_R_DENY_EXEC:
        l = &s->dexecs;
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                      "(deny process-exec* ...), emitted last");
        break;
    case CP_R_GATE_ASK:
    case CP_R_GATE_DENY:
        cp_fidtab_set(&s->ft, r, CP_FID_NOT_ENFORCED,
                      "gates are enforced by the claude target's hook");
        break;
    case CP_R_NET_DENY:
        cp_fidtab_set(&s->ft, r, CP_FID_EXACT, "(deny network*)");
        break;
    case CP_R_NET_SOCKET:
        if (s->p->net == CP_NET_ALL) {
            cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                          "no rule: (allow default) leaves every socket "
                          "reachable");
            break;
        }
        l = &s->sockets;
        cp_fidtab_set(&s->ft, r, CP_FID_STRICTER,
                      "(allow network-outbound (remote unix-socket "
                      "(path-literal P))) after (deny network*): exact while "
                      "P is the socket itself; Seatbelt matches the resolved "
                      "path, so through a link at P no socket is reached");
        break;
    case CP_R_NET_ALLOW:
        cp_fidtab_set(&s->ft, r, CP_FID_STRICTER, SB_NET_ALLOW_WHY);
        break;
    }
    return l;
}

/* Lowers a path rule into list l: an error when SBPL cannot write the
 * path, stricter when a '?' may count differently. */
static void lower_path(struct sb *s, const struct cp_rule *r, struct sb_list *l)
{
    const char *bad = unencodable(s->a, &r->u.path);
    if (bad) {
        s->errors++;
        s->ft.fid[r->id] = CP_FID_NOT_ENFORCED;
        s->ft.why[r->id] = "the path cannot be written in an SBPL string";
        struct cp_diag *g = warn(
            s, CP0701, r,
            "sbpl: path '%s' holds a %s, which an SBPL string cannot carry",
            cp_backend_rule_text(s->a, r), bad);
        if (g)
            cp_diag_set_suggestion(
                g, "rename the file, or build only the other targets");
        return;
    }
    list_push(s->a, l, r, canonical(s->a, &r->u.path));
    if (r->u.path.has_glob && !glob_exact(&r->u.path)) {
        fid_stricter(s, r,
                     r->kind == CP_R_WRITE || r->kind == CP_R_EXEC
                         ? "a '?' counts bytes, SBPL's regex engine may "
                           "count characters: names that differ are not "
                           "granted"
                         : "a '?' counts bytes, SBPL's regex engine may "
                           "count characters: names of fewer bytes are "
                           "denied too");
        warn(s, CP0730, r,
             "sbpl: '%s': a '?' counts bytes, SBPL's regex engine may "
             "count characters; the regex %s",
             cp_backend_rule_text(s->a, r),
             r->kind == CP_R_WRITE || r->kind == CP_R_EXEC
                 ? "grants only names that match in both readings"
                 : "denies every name that matches in either reading");
    }
}

/* Write roots for the overlap questions: literal roots, and for a glob
 * root its literal prefix (everything the glob can write lies beneath it;
 * the prefix itself is not writable, so pinning it costs nothing). */
static void write_roots(struct sb *s)
{
    const struct cp_path **wv = cp_arena_alloc(s->a,
                                               (s->writes.n + 1) * sizeof *wv);
    size_t nw = 0;
    for (size_t i = 0; i < s->writes.n; i++) {
        const struct cp_path *w = &s->writes.v[i].path;
        if (w->has_glob) {
            struct cp_path *q = cp_arena_alloc(s->a, sizeof *q);
            *q = cp_ospath_prefix(w, lit_prefix(w));
            w = q;
        }
        wv[nw++] = w;
    }
    cp_pathset_init(s->a, &s->wset, wv, nw);
}

/* Rename protection of one protected region (deny_read: a deny-read one)
 * that a write root may reach. */
static void protect_region(struct sb *s, const struct sb_item *it,
                           bool deny_read)
{
    enum cp_ospath_rel rel = cp_pathset_overlaps(&s->wset, &it->path);
    if (rel == CP_OSREL_NO)
        return;
    s->protects = true;
    int pinned = protect_ancestors(s, it, rel);
    if (pinned & PIN_GLOB) {
        fid_stricter(s, it->r,
                     "rename protection of the directories its pattern's "
                     "prefixes match: none of them can be renamed, deleted "
                     "or created");
        warn(s, CP0711, it->r,
             "sbpl: to protect '%s' against renaming its parents, "
             "no directory that its pattern's prefixes match can be "
             "renamed, deleted or created",
             cp_backend_rule_text(s->a, it->r));
    } else if (pinned) {
        fid_stricter(s, it->r,
                     "rename protection: its ancestors inside write roots "
                     "cannot be renamed, deleted or created");
    }
    if (deny_read) {
        list_push(s->a, &s->selfunl, it->r, it->path);
        fid_stricter(s, it->r,
                     rel == CP_OSREL_YES
                         ? "inside a write root: deleting or renaming it "
                           "or anything beneath it is denied too"
                         : "where a binding puts it inside a write root: "
                           "deleting or renaming it or anything beneath "
                           "it is denied too");
        if (rel == CP_OSREL_YES)
            warn(s, CP0710, it->r,
                 "sbpl: '%s' lies inside a write root: deleting or "
                 "renaming it or anything beneath it is denied too",
                 cp_backend_rule_text(s->a, it->r));
    }
}

/* Protected regions that a write root may reach get rename protection;
 * deny-read regions there also lose unlink (moving a secret aside
 * would expose it under a name no rule denies). */
static void rename_protection(struct sb *s)
{
    struct sb_list *prot[2] = {&s->dwrites, &s->dreads};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < prot[k]->n; i++)
            protect_region(s, &prot[k]->v[i], k == 1);
}

/* Hard links (outside `(deny default)`, sbpl.md §3) would give a file
 * outside the write roots, or a protected one, a second name inside a
 * write root (or, if creating a link is not checked as a create, a
 * readable name for a deny-read file anywhere): they are refused when
 * some deny rule exists or the write roots are not the whole disk. */
static void hard_links(struct sb *s)
{
    bool all = false;
    for (size_t i = 0; i < s->writes.n; i++)
        if (!s->writes.v[i].path.root && !s->writes.v[i].path.nsegs)
            all = true;
    s->links = s->dwrites.n || s->dreads.n || s->dexecs.n ||
               (s->writes.n && !all);
    if (s->links)
        for (size_t i = 0; i < s->writes.n; i++)
            fid_stricter(s, s->writes.v[i].r,
                         "hard links cannot be created: (deny file-link)");
    if (s->dreads.n)
        for (size_t i = 0; i < s->writes.n; i++)
            fid_stricter(s, s->writes.v[i].r,
                         "files cannot be cloned (deny file-clone), since a "
                         "deny-read rule exists");
    if (s->links && s->writes.n && !s->errors)
        warn(s, CP0731, NULL,
             "sbpl: hard links cannot be created in the sandbox (deny "
             "file-link): a link would give a protected file a second name "
             "no rule denies%s",
             s->dreads.n ? "; nor can files be cloned (deny file-clone): a "
                           "clone of a deny-read file would be a readable "
                           "copy"
                         : "");
    if (s->nanc_rules && !s->errors)
        warn(s, CP0732, NULL,
             "sbpl: %zu protected path%s: the directories above %s inside "
             "write roots cannot be renamed, deleted or created "
             "(--fidelity lists the rules)",
             s->nanc_rules, s->nanc_rules == 1 ? "" : "s",
             s->nanc_rules == 1 ? "it" : "them");
}

static void analyse(struct sb *s)
{
    const struct cp_policy *p = s->p;
    cp_fidtab_init(&s->ft, s->a, p->nrules);
    bool coop = p->profile == CP_PROFILE_COOPERATIVE;

    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (coop) {
            cp_fidtab_set(&s->ft, r, CP_FID_NOT_ENFORCED,
                          "cooperative profile: no sandbox profile is emitted");
            continue;
        }
        struct sb_list *l = rate_rule(s, r);
        if (l)
            lower_path(s, r, l);
    }
    if (coop)
        return;
    write_roots(s);
    rename_protection(s);
    hard_links(s);
    sb_net_note(s);

    list_sort(s->a, &s->writes);
    list_sort(s->a, &s->execs);
    list_sort(s->a, &s->dwrites);
    list_sort(s->a, &s->dreads);
    list_sort(s->a, &s->dexecs);
    list_sort(s->a, &s->anc);
    list_sort(s->a, &s->selfunl);
}

/* The sockets `net socket` names, after (deny network*): connecting to
 * exactly these paths is allowed again (spec/backends.md, "SBPL"). */
static void socket_rules(const struct sb *s, struct cp_buf *out)
{
    if (!s->sockets.n)
        return;
    cp_ob_adds(out, "(allow network-outbound");
    for (size_t i = 0; i < s->sockets.n; i++) {
        cp_ob_adds(out, "\n    (remote unix-socket (path-literal ");
        str_expr(out, &s->sockets.v[i].path);
        cp_ob_adds(out, "))");
    }
    cp_ob_adds(out, ")\n");
}

/* ---- the backend --------------------------------------------------------- */

static struct cp_analysis *sb_analyse(const struct cp_policy *p,
                                      const struct cp_backend_opts *o,
                                      struct cp_arena *a, struct cp_diags *d,
                                      enum cp_report rep)
{
    struct sb *s = cp_arena_alloc(a, sizeof *s);
    cp_analysis_init(&s->head, &cp_backend_sbpl, p, o, a, d, rep);
    s->p = p;
    s->a = a;
    analyse(s);
    s->head.errors = s->errors;
    cp_fidtab_rate(&s->ft, &s->head);
    return &s->head;
}

static bool uses_param(const struct sb_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].path.root && strcmp(l->v[i].path.root, name) == 0)
            return true;
    return false;
}

/* The profile's header: its version, the params the binder passes (and
 * their ancestors' regexes), where it comes from, and the helper that
 * reads a directory param. */
static void sb_header(const struct sb *sp, struct cp_buf *out)
{
    const struct cp_policy *p = sp->p;
    cp_ob_adds(out, "(version 1)\n");
    const struct sb_list *all[] = {&sp->writes, &sp->execs,  &sp->dwrites,
                                   &sp->dreads, &sp->dexecs, &sp->sockets};
    bool any = false;
    for (size_t i = 0; i < p->nparams; i++) {
        bool used = false;
        for (size_t k = 0; k < 6 && !used; k++)
            used = uses_param(all[k], p->params[i].name);
        if (used)
            cp_buf_printf(out, CP_SB_PARAM_LINE "%s\n", p->params[i].name);
        any |= used;
    }
    /* The binder passes NAME:ancestors, an anchored regex of the ancestors
     * of NAME's value (spec/backends.md, "Params"); without it the profile
     * does not load. */
    for (size_t i = 0; i < p->nparams; i++)
        for (size_t k = 0; k < sp->nancp; k++)
            if (strcmp(sp->ancp[k], p->params[i].name) == 0)
                cp_buf_printf(out, CP_SB_ANCESTORS_LINE "%s\n", sp->ancp[k]);
    sb_net_lines(sp, out);
    cp_buf_printf(out, ";; generated by confpol from %s.confpol (profile %s)\n",
                  p->stem ? p->stem : "policy", cp_profile_text(p->profile));
    if (any)
        cp_ob_adds(
            out, "(define (confpol-dir name)\n"
                 "    (if (string=? (param name) \"/\") \"\" (param name)))\n");
    sb_net_define(sp, out);
}

/* Appends the profile of an analysed, error-free, non-cooperative policy. */
static void sb_profile(const struct sb *sp, struct cp_arena *a,
                       struct cp_buf *out)
{
    const struct cp_policy *p = sp->p;
    const struct sb s = *sp;
    sb_header(sp, out);

    /* Unfiltered rules first. */
    cp_ob_adds(out, "(allow default)\n(deny file-write*)\n");
    if (p->has_exec)
        cp_ob_adds(out, "(deny process-exec*)\n");
    if (p->net != CP_NET_ALL)
        cp_ob_adds(out, "(deny network*)\n");
    socket_rules(sp, out);
    if (s.links)
        cp_ob_adds(out, "(deny file-link)\n");
    /* clonefile (outside file*, sbpl.md §3) copies a file without a
     * file-read-data check that the reference can vouch for: with a
     * deny-read region, clones are refused (a clone of a secret would be a
     * readable copy). */
    if (s.dreads.n)
        cp_ob_adds(out, "(deny file-clone)\n");

    /* Filtered allows. */
    sb_net_allow(sp, out);
    rule(out, "allow file-write*", &s.writes, SB_SUBTREE);
    if (p->has_exec)
        rule(out, "allow process-exec*", &s.execs, SB_SUBTREE);

    /* Filtered denies: the last matching filtered rule wins. */
    rule(out, "deny file-write*", &s.dwrites, SB_SUBTREE_DENY);
    /* file-test-existence is outside file-read* (sbpl.md §3). */
    rule(out, "deny file-read* file-test-existence", &s.dreads,
         SB_SUBTREE_DENY);
    struct sb_list dx = {0};
    for (size_t i = 0; i < s.dreads.n; i++)
        list_push(a, &dx, s.dreads.v[i].r, s.dreads.v[i].path);
    for (size_t i = 0; i < s.dexecs.n; i++)
        list_push(a, &dx, s.dexecs.v[i].r, s.dexecs.v[i].path);
    list_sort(a, &dx);
    rule(out, "deny process-exec*", &dx, SB_SUBTREE_DENY);
    rule(out, "deny file-write-unlink", &s.selfunl, SB_SUBTREE_DENY);
    rule(out, "deny file-write-unlink file-write-create", &s.anc, SB_EXACT);
    if (s.nancp) {
        cp_ob_adds(out, "(deny file-write-unlink file-write-create");
        for (size_t i = 0; i < p->nparams; i++)
            for (size_t k = 0; k < s.nancp; k++)
                if (strcmp(s.ancp[k], p->params[i].name) == 0) {
                    cp_ob_adds(out, "\n    (regex (param \"");
                    str_body(out, s.ancp[k], strlen(s.ancp[k]));
                    cp_ob_adds(out, ":ancestors\"))");
                }
        cp_ob_adds(out, ")\n");
    }
}

/* Step 2: the profile, or for a cooperative policy the note that none is
 * written. */
static void sb_write(const struct cp_analysis *an, struct cp_diags *d,
                     struct cp_buf *out)
{
    const struct sb *s = (const struct sb *)an;
    if (an->p->profile == CP_PROFILE_COOPERATIVE) {
        if (d)
            cp_diag_report(d, CP0720, NULL,
                           "sbpl: policy '%s' is cooperative: no SBPL profile "
                           "is written",
                           an->p->stem ? an->p->stem : "");
        return;
    }
    sb_profile(s, an->a, out);
}

const struct cp_backend cp_backend_sbpl = {
    .name = "sbpl",
    .suffix = ".sb",
    .analyse = sb_analyse,
    .write = sb_write,
};

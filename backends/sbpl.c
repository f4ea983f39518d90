/* SPDX-License-Identifier: MIT */
/* The SBPL backend: lowers the resolved rule list to a macOS Seatbelt
 * profile (spec/backends.md, "SBPL").
 *
 * Shape: `(version 1)`, the params used as `;; confpol-param` comments,
 * then unfiltered rules ((allow default), (deny file-write*), ...), then
 * filtered allows, then filtered denies, and the rename protection of
 * protected paths last.  Between filtered rules the last match wins, so
 * every deny comes after every allow it restricts, and no unfiltered rule
 * ever follows a filtered one (sbpl.md §2.4).
 *
 * Paths: params stay `(param "NAME")` (bound by sandbox-exec -D at apply
 * time, never inlined); absolute paths are canonicalised for macOS
 * (/tmp, /var, /etc live under /private); literal subtrees become
 * `literal`+`subpath`, globs anchored `regex`es whose literal bytes are
 * escaped.  Only `\\` and `\"` are ever emitted as string escapes; a path
 * with a control character or invalid UTF-8 is rejected (CP0701). */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fidelity.h"
#include "ospath.h"
#include "outbuf.h"

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
    const struct cp_policy *p;
    struct cp_arena *a;
    struct cp_diags *d; /* NULL: analyse silently (fidelity queries) */
    struct sb_list writes, execs, dwrites, dreads, dexecs;
    struct sb_list anc;      /* rename protection: unlink+create denied */
    struct sb_list selfunl;  /* deny-read regions: unlink denied */
    struct cp_pathset wset;  /* literal write roots */
    struct cp_fidtab ft;     /* per rule id */
    bool protects;           /* some deny overlaps a write root */
    int errors;
};

static void list_push(struct cp_arena *a, struct sb_list *l,
                      const struct cp_rule *r, struct cp_path path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct sb_item *v = cp_arena_alloc(a, cap * sizeof *v);
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
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

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned min;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, min = 0x10000, cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

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
            size_t l = utf8_len(s + j, n - j);
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
    case '.': case '*': case '+': case '?': case '^': case '$': case '|':
    case '\\': case '(': case ')': case '[': case ']': case '{': case '}':
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

/* Appends the regex of the segments (not anchored, no suffix) into a
 * string body. */
static void re_segs(struct cp_buf *b, const struct cp_path *p)
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
            for (size_t j = 0; j < s->len; j++) {
                char c = s->s[j];
                if (c == '\\' && j + 1 < s->len)
                    re_lit(b, s->s[++j]);
                else if (c == '*')
                    cp_ob_adds(b, "[^/]*");
                else if (c == '?')
                    cp_ob_adds(b, "[^/]");
                else
                    re_lit(b, c);
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
        cp_ob_adds(b, "(string-append (param \"");
        str_body(b, p->root, strlen(p->root));
        cp_ob_adds(b, "\") \"");
        str_segs(b, p);
        cp_ob_adds(b, "\")");
    }
}

/* A regex expression for pattern p: anchored, and followed by (/.*)? when
 * `beneath` (a pattern covers everything beneath its matches). */
static void re_expr(struct cp_buf *b, const struct cp_path *p, bool beneath)
{
    const char *tail = beneath ? "(/.*)?$" : "$";
    if (!p->root) {
        cp_ob_adds(b, "\"^");
        re_segs(b, p);
        if (p->nsegs == 0 && !beneath)
            cp_ob_addc(b, '/');
        cp_ob_adds(b, tail);
        cp_ob_addc(b, '"');
    } else {
        cp_ob_adds(b, "(string-append \"^\" (regex-quote (param \"");
        str_body(b, p->root, strlen(p->root));
        cp_ob_adds(b, "\")) \"");
        re_segs(b, p);
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
        re_expr(b, p, f != SB_EXACT);
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
    struct cp_diag *g = cp_backend_vreport(s->d, c, r, fmt, ap);
    va_end(ap);
    return g;
}

/* Rename protection for a protected region (sbpl.md §8): deny unlink and
 * create of each ancestor between the enclosing write root (or the path's
 * root when a param makes the enclosure unknown) and the region. */
static void protect_ancestors(struct sb *s, const struct sb_item *it,
                              enum cp_ospath_rel rel, bool *any_glob)
{
    const struct cp_path *p = &it->path;
    size_t start = p->root ? 0 : 1;
    if (rel == CP_OSREL_YES && !cp_pathset_other_root(&s->wset, p->root)) {
        const struct cp_path *w =
            cp_pathset_outermost_strict_ancestor(&s->wset, p);
        if (w)
            start = w->nsegs + 1;
    }
    *any_glob = false;
    for (size_t k = start; k < p->nsegs; k++) {
        struct cp_path q = cp_ospath_prefix(p, k);
        for (size_t i = 0; i < k; i++)
            if (q.segs[i].kind == CP_SEG_ANY)
                *any_glob = true;
        list_push(s->a, &s->anc, it->r, q);
    }
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
            cp_fidtab_set(&s->ft, r, CP_FID_EXACT, "(deny file-write* ...), emitted last");
            break;
        case CP_R_DENY_READ:
            l = &s->dreads;
            cp_fidtab_set(&s->ft, r, CP_FID_EXACT,
                    "(deny file-read* ...) and (deny process-exec* ...)");
            break;
        case CP_R_DENY_EXEC:
            l = &s->dexecs;
            cp_fidtab_set(&s->ft, r, CP_FID_EXACT, "(deny process-exec* ...), emitted last");
            break;
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            cp_fidtab_set(&s->ft, r, CP_FID_NOT_ENFORCED,
                    "gates are enforced by the claude target's hook");
            break;
        case CP_R_NET_DENY:
            cp_fidtab_set(&s->ft, r, CP_FID_EXACT, "(deny network*)");
            break;
        case CP_R_NET_ALLOW:
            cp_fidtab_set(&s->ft, r, CP_FID_STRICTER,
                    "SBPL cannot filter by domain name: (deny network*)");
            warn(s, CP0704, r,
                 "sbpl: cannot allow network access to '%s' only: all network "
                 "access is denied",
                 cp_backend_rule_domain(s->a, r));
            break;
        }
        if (!l)
            continue;
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
            continue;
        }
        list_push(s->a, l, r, canonical(s->a, &r->u.path));
    }
    if (coop)
        return;

    /* Literal write roots, for the overlap questions. */
    const struct cp_path **wv =
        cp_arena_alloc(s->a, (s->writes.n + 1) * sizeof *wv);
    size_t nw = 0;
    for (size_t i = 0; i < s->writes.n; i++)
        if (!s->writes.v[i].path.has_glob)
            wv[nw++] = &s->writes.v[i].path;
    cp_pathset_init(s->a, &s->wset, wv, nw);

    /* Protected regions that a write root may reach get rename protection;
     * deny-read regions there also lose unlink (moving a secret aside
     * would expose it under a name no rule denies). */
    struct sb_list *prot[2] = {&s->dwrites, &s->dreads};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < prot[k]->n; i++) {
            const struct sb_item *it = &prot[k]->v[i];
            enum cp_ospath_rel rel = cp_pathset_overlaps(&s->wset, &it->path);
            if (rel == CP_OSREL_NO)
                continue;
            s->protects = true;
            bool any_glob;
            protect_ancestors(s, it, rel, &any_glob);
            if (any_glob && rel == CP_OSREL_YES) {
                cp_fidtab_set(&s->ft, it->r, CP_FID_STRICTER,
                        "rename protection of the directories a '**' can "
                        "match: nothing beneath the glob's prefix can be "
                        "renamed or deleted");
                warn(s, CP0711, it->r,
                     "sbpl: to protect '%s' against renaming its parents, "
                     "nothing beneath the glob's literal prefix can be "
                     "renamed or deleted",
                     cp_backend_rule_text(s->a, it->r));
            }
            if (k == 1) {
                list_push(s->a, &s->selfunl, it->r, it->path);
                if (rel == CP_OSREL_YES) {
                    cp_fidtab_set(&s->ft, it->r, CP_FID_STRICTER,
                            "inside a write root: deleting or renaming "
                            "beneath it is denied too");
                    warn(s, CP0710, it->r,
                         "sbpl: '%s' lies inside a write root: deleting or "
                         "renaming it or anything beneath it is denied too",
                         cp_backend_rule_text(s->a, it->r));
                }
            }
        }

    list_sort(s->a, &s->writes);
    list_sort(s->a, &s->execs);
    list_sort(s->a, &s->dwrites);
    list_sort(s->a, &s->dreads);
    list_sort(s->a, &s->dexecs);
    list_sort(s->a, &s->anc);
    list_sort(s->a, &s->selfunl);
}

static void sb_init(struct sb *s, const struct cp_policy *p,
                    struct cp_arena *a, struct cp_diags *d)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->a = a;
    s->d = d;
    analyse(s);
}

/* ---- the backend --------------------------------------------------------- */

static int cp_sbpl_check(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_diags *d)
{
    (void)o;
    struct cp_arena *a = cp_arena_new();
    struct sb s;
    sb_init(&s, p, a, d);
    int n = s.errors;
    cp_arena_free(a);
    return n;
}

static void cp_sbpl_fidelity_all(const struct cp_policy *p,
                                 const struct cp_backend_opts *o,
                                 struct cp_arena *a, enum cp_fidelity *fid,
                                 const char **why)
{
    (void)o;
    struct sb s;
    sb_init(&s, p, a, NULL);
    cp_fidtab_copy(&s.ft, p, fid, why);
}

static enum cp_fidelity cp_sbpl_fidelity(const struct cp_policy *p,
                                         const struct cp_rule *r,
                                         struct cp_arena *a, const char **why)
{
    struct sb s;
    sb_init(&s, p, a, NULL);
    return cp_fidtab_get(&s.ft, r, why);
}

static bool uses_param(const struct sb_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].path.root && strcmp(l->v[i].path.root, name) == 0)
            return true;
    return false;
}

/* Appends the profile of an analysed, error-free, non-cooperative policy. */
static void sb_write(const struct sb *sp, struct cp_arena *a,
                     struct cp_buf *out)
{
    const struct cp_policy *p = sp->p;
    const struct sb s = *sp;
    cp_ob_adds(out, "(version 1)\n");
    const struct sb_list *all[] = {&s.writes, &s.execs, &s.dwrites,
                                   &s.dreads, &s.dexecs};
    for (size_t i = 0; i < p->nparams; i++) {
        bool used = false;
        for (size_t k = 0; k < 5 && !used; k++)
            used = uses_param(all[k], p->params[i].name);
        if (used)
            cp_buf_printf(out, ";; confpol-param %s\n", p->params[i].name);
    }
    cp_buf_printf(out, ";; generated by confpol from %s.confpol (profile %s)\n",
                  p->stem ? p->stem : "policy", cp_profile_text(p->profile));

    /* Unfiltered rules first. */
    cp_ob_adds(out, "(allow default)\n(deny file-write*)\n");
    if (p->has_exec)
        cp_ob_adds(out, "(deny process-exec*)\n");
    if (p->net != CP_NET_ALL)
        cp_ob_adds(out, "(deny network*)\n");
    if (s.protects)
        cp_ob_adds(out, "(deny file-link)\n");

    /* Filtered allows. */
    rule(out, "allow file-write*", &s.writes, SB_SUBTREE);
    if (p->has_exec)
        rule(out, "allow process-exec*", &s.execs, SB_SUBTREE);

    /* Filtered denies: the last matching filtered rule wins. */
    rule(out, "deny file-write*", &s.dwrites, SB_SUBTREE_DENY);
    rule(out, "deny file-read*", &s.dreads, SB_SUBTREE_DENY);
    struct sb_list dx = {0};
    for (size_t i = 0; i < s.dreads.n; i++)
        list_push(a, &dx, s.dreads.v[i].r, s.dreads.v[i].path);
    for (size_t i = 0; i < s.dexecs.n; i++)
        list_push(a, &dx, s.dexecs.v[i].r, s.dexecs.v[i].path);
    list_sort(a, &dx);
    rule(out, "deny process-exec*", &dx, SB_SUBTREE_DENY);
    rule(out, "deny file-write-unlink", &s.selfunl, SB_SUBTREE_DENY);
    rule(out, "deny file-write-unlink file-write-create", &s.anc, SB_EXACT);
}

static void sb_note_coop(const struct cp_policy *p, struct cp_diags *d)
{
    if (d)
        cp_diag_report(d, CP0720, NULL,
                       "sbpl: policy '%s' is cooperative: no SBPL profile "
                       "is written",
                       p->stem ? p->stem : "");
}

static bool cp_sbpl_emit(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_arena *a,
                         struct cp_diags *d, struct cp_buf *out)
{
    (void)o;
    if (p->profile == CP_PROFILE_COOPERATIVE) {
        sb_note_coop(p, d);
        return true;
    }
    struct sb s;
    sb_init(&s, p, a, NULL);
    if (s.errors)
        return false;
    sb_write(&s, a, out);
    return true;
}

static int cp_sbpl_build(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_diags *d,
                         struct cp_buf *out)
{
    (void)o;
    struct cp_arena *a = cp_arena_new();
    size_t before = cp_diag_errors(d);
    struct sb s;
    sb_init(&s, p, a, d);
    int n = s.errors;
    if (!n && cp_diag_errors(d) == before) {
        if (p->profile == CP_PROFILE_COOPERATIVE)
            sb_note_coop(p, d);
        else
            sb_write(&s, a, out);
    }
    cp_arena_free(a);
    return n;
}

const struct cp_backend cp_backend_sbpl = {
    .name = "sbpl",
    .suffix = ".sb",
    .check = cp_sbpl_check,
    .fidelity = cp_sbpl_fidelity,
    .fidelity_all = cp_sbpl_fidelity_all,
    .emit = cp_sbpl_emit,
    .build = cp_sbpl_build,
};

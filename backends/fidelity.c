/* SPDX-License-Identifier: MIT */
/* Per-rule fidelity bookkeeping and rule-located diagnostics for the OS
 * backends (see fidelity.h). */
#include "fidelity.h"

#include <string.h>

#include "text.h"

void cp_fidtab_init(struct cp_fidtab *t, struct cp_arena *a, size_t nrules)
{
    t->fid = cp_arena_alloc(a, (nrules + 1) * sizeof *t->fid);
    t->why = cp_arena_alloc(a, (nrules + 1) * sizeof *t->why);
}

void cp_fidtab_set(struct cp_fidtab *t, const struct cp_rule *r,
                   enum cp_fidelity f, const char *why)
{
    if (t->why[r->id] && f <= t->fid[r->id])
        return;
    t->fid[r->id] = f;
    t->why[r->id] = why;
}

/* The rule's fidelity; *why is "" when nothing was recorded. */
static enum cp_fidelity cp_fidtab_get(const struct cp_fidtab *t,
                                      const struct cp_rule *r, const char **why)
{
    *why = t->why[r->id] ? t->why[r->id] : "";
    return t->fid[r->id];
}

void cp_fidtab_rate(const struct cp_fidtab *t, struct cp_analysis *h)
{
    const struct cp_policy *p = h->p;
    h->fid = cp_arena_alloc(h->a, (p->nrules + 1) * sizeof *h->fid);
    h->why = cp_arena_alloc(h->a, (p->nrules + 1) * sizeof *h->why);
    for (size_t i = 0; i < p->nrules; i++)
        h->fid[i] = cp_fidtab_get(t, p->rules[i], &h->why[i]);
}

void cp_analysis_init(struct cp_analysis *h, const struct cp_backend *be,
                      const struct cp_policy *p,
                      const struct cp_backend_opts *o, struct cp_arena *a,
                      struct cp_diags *d, enum cp_report rep)
{
    memset(h, 0, sizeof *h);
    h->be = be;
    h->p = p;
    if (o)
        h->o = *o;
    h->a = a;
    h->d = rep == CP_REPORT_NONE ? NULL : d;
    h->rep = rep;
}

struct cp_diags *cp_analysis_sink(const struct cp_analysis *h,
                                  enum cp_diag_code c)
{
    if (h->rep == CP_REPORT_ERRORS && cp_diag_code_default(c) != CP_SEV_ERROR)
        return NULL;
    return h->d;
}

const char *cp_backend_rule_text(struct cp_arena *a, const struct cp_rule *r)
{
    return r->text ? r->text : cp_path_format(a, &r->u.path);
}

const char *cp_backend_rule_where(struct cp_arena *a, const struct cp_rule *r)
{
    char num[CP_UTOA_LEN];
    if (!r->loc.src)
        return cp_arena_cat(a, "rule #", cp_utoa(num, r->id), (char *)NULL);
    return cp_arena_cat(a, r->loc.src->path, ":", cp_utoa(num, r->loc.line),
                        (char *)NULL);
}

const char *cp_backend_rule_domain(struct cp_arena *a, const struct cp_rule *r)
{
    return cp_domain_format(a, &r->u.dom); /* port and IPv6 brackets too */
}

struct cp_diag *cp_backend_vreport(struct cp_diags *d, enum cp_diag_code c,
                                   const struct cp_rule *r, const char *fmt,
                                   va_list ap)
{
    if (!d)
        return NULL;
    /* Formatted once, by the sink (without printf for the usual
     * conversions). */
    const struct cp_loc *loc = r && r->loc.src ? &r->loc : NULL;
    struct cp_diag *g = cp_diag_vreport(d, c, loc, fmt, ap);
    if (g && r && !r->loc.src && r->why)
        cp_diag_add_note(g, NULL, "implicit rule: %s", r->why);
    return g;
}

bool cp_backend_plain_word(const char *w)
{
    if (!*w)
        return false;
    for (const char *p = w; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_./=,@%+-:", *p)))
            return false;
    return true;
}

void *cp_backend_grow(struct cp_arena *a, void *v, size_t n, size_t *cap,
                      size_t size)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 16;
    void *w = cp_arena_alloc(a, *cap * size);
    if (n)
        memcpy(w, v, n * size);
    return w;
}

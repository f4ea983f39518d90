/* SPDX-License-Identifier: MIT */
/* Per-rule fidelity bookkeeping and rule-located diagnostics for the OS
 * backends (see fidelity.h). */
#include "fidelity.h"

#include <stdio.h>

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

enum cp_fidelity cp_fidtab_get(const struct cp_fidtab *t,
                               const struct cp_rule *r, const char **why)
{
    *why = t->why[r->id] ? t->why[r->id] : "";
    return t->fid[r->id];
}

void cp_fidtab_copy(const struct cp_fidtab *t, const struct cp_policy *p,
                    enum cp_fidelity *fid, const char **why)
{
    for (size_t i = 0; i < p->nrules; i++)
        fid[i] = cp_fidtab_get(t, p->rules[i], &why[i]);
}

const char *cp_backend_rule_text(struct cp_arena *a, const struct cp_rule *r)
{
    return r->text ? r->text : cp_path_format(a, &r->u.path);
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
    /* One formatting pass into the stack for the usual short message. */
    char tmp[512];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, aq);
    va_end(aq);
    struct cp_buf m = {0};
    const char *msg = tmp;
    if (n < 0 || (size_t)n >= sizeof tmp) {
        cp_buf_vprintf(&m, fmt, ap);
        msg = m.data ? m.data : "";
    }
    const struct cp_loc *loc = r && r->loc.src ? &r->loc : NULL;
    struct cp_diag *g = cp_diag_report(d, c, loc, "%s", msg);
    cp_buf_free(&m);
    if (g && r && !r->loc.src && r->why)
        cp_diag_add_note(g, NULL, "implicit rule: %s", r->why);
    return g;
}

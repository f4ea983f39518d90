/* SPDX-License-Identifier: MIT */
/* The table of backends, and what every target does the same way over its
 * two steps (analyse, write): check, emit, build and the fidelity table. */
#include "backend.h"
#include "fidelity.h"

#include <string.h>

const struct cp_backend *const cp_backends[] = {
    &cp_backend_sbpl,
    &cp_backend_bwrap,
    &cp_backend_claude,
    &cp_backend_codex,
    NULL,
};

const struct cp_backend *cp_backend_find(const char *name)
{
    for (size_t i = 0; cp_backends[i]; i++)
        if (strcmp(cp_backends[i]->name, name) == 0)
            return cp_backends[i];
    return NULL;
}

struct cp_analysis *cp_backend_analyse(const struct cp_backend *be,
                                       const struct cp_policy *p,
                                       const struct cp_backend_opts *o,
                                       struct cp_arena *a, struct cp_diags *d,
                                       enum cp_report rep)
{
    return be->analyse(p, o, a, d, rep);
}

int cp_analysis_errors(const struct cp_analysis *an)
{
    return an->errors;
}

/* A target rated only (no `write`) writes nothing. */
static void write_step(const struct cp_analysis *an, struct cp_diags *d,
                       struct cp_buf *out)
{
    if (an->be->write)
        an->be->write(an, d, out);
}

void cp_analysis_write(const struct cp_analysis *an, struct cp_diags *d,
                       struct cp_buf *out)
{
    write_step(an, d, out);
}

int cp_backend_check(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_diags *d)
{
    struct cp_arena *a = cp_arena_new();
    int n = be->analyse(p, o, a, d, CP_REPORT_ALL)->errors;
    cp_arena_free(a);
    return n;
}

bool cp_backend_emit(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_arena *a,
                     struct cp_diags *d, struct cp_buf *out)
{
    const struct cp_analysis *an = be->analyse(p, o, a, d, CP_REPORT_ERRORS);
    if (an->errors)
        return false;
    write_step(an, d, out);
    return true;
}

int cp_backend_build(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_diags *d,
                     struct cp_buf *out)
{
    struct cp_arena *a = cp_arena_new();
    size_t before = cp_diag_errors(d);
    const struct cp_analysis *an = be->analyse(p, o, a, d, CP_REPORT_ALL);
    int n = an->errors;
    /* A warning made an error (-Werror) stops the write as well. */
    if (!n && cp_diag_errors(d) == before)
        write_step(an, d, out);
    cp_arena_free(a);
    return n;
}

void cp_backend_fidelity(const struct cp_backend *be, const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_arena *a,
                         enum cp_fidelity *fid, const char **why)
{
    const struct cp_analysis *an = be->analyse(p, o, a, NULL, CP_REPORT_NONE);
    for (size_t i = 0; i < p->nrules; i++) {
        fid[i] = an->fid[i];
        why[i] = an->why[i];
    }
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: the claude backend. */
#include "backend.h"

static int cp_claude_check(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_diags *d)
{
    (void)p;
    (void)o;
    (void)d;
    return 1;
}

static enum cp_fidelity cp_claude_fidelity(const struct cp_policy *p,
                                         const struct cp_rule *r,
                                         struct cp_arena *a, const char **why)
{
    (void)p;
    (void)r;
    (void)a;
    *why = "not implemented";
    return CP_FID_NOT_ENFORCED;
}

static bool cp_claude_emit(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_arena *a,
                         struct cp_diags *d, struct cp_buf *out)
{
    (void)p;
    (void)o;
    (void)a;
    (void)d;
    (void)out;
    return false;
}

const struct cp_backend cp_backend_claude = {
    .name = "claude",
    .check = cp_claude_check,
    .fidelity = cp_claude_fidelity,
    .emit = cp_claude_emit,
};

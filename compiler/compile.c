/* SPDX-License-Identifier: MIT */
/* The compilation context and the driver: parse, resolve, check, stopping
 * between phases as soon as one reported an error. */
#include <string.h>

#include "confpol.h"

void cp_ctx_init(struct cp_ctx *cx)
{
    memset(cx, 0, sizeof(*cx));
    cx->arena = cp_arena_new();
    cp_diags_init(&cx->diags);
}

void cp_ctx_free(struct cp_ctx *cx)
{
    cp_policy_free(cx->policy); /* compiled regexes live outside the arena */
    cp_diags_free(&cx->diags);
    cp_arena_free(cx->arena);
    memset(cx, 0, sizeof(*cx));
}

int cp_compile(struct cp_ctx *cx)
{
    if (cp_parse(cx) || cp_diag_errors(&cx->diags))
        return (int)cp_diag_errors(&cx->diags);
    if (cp_resolve(cx) || cp_diag_errors(&cx->diags))
        return (int)cp_diag_errors(&cx->diags);
    cp_check(cx);
    return (int)cp_diag_errors(&cx->diags);
}

/* SPDX-License-Identifier: MIT */
/* The compilation context and the driver: parse, resolve, check, stopping
 * between phases as soon as one reported an error. */
#include <string.h>

#include "ast.h"
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
    cp_arena_free(cx->ast_arena);
    cp_arena_free(cx->arena);
    memset(cx, 0, sizeof(*cx));
}

/* The policy keeps nothing of the syntax tree (resolve copies what it
 * keeps into cx->arena; locations point at sources, which live there too),
 * so the tree, about half of the memory of a large policy, goes before the
 * analysis allocates its indexes. */
static void cp_ast_release(struct cp_ctx *cx)
{
    if (cx->ast) {
        struct cp_file *f = cp_arena_alloc(cx->arena, sizeof(*f));
        f->n = cx->ast->n;
        f->src = cx->ast->src;
        f->header = cx->ast->header;
        f->version = cx->ast->version;
        cx->ast = f;
    }
    cp_arena_free(cx->ast_arena);
    cx->ast_arena = NULL;
}

/* Whether an include chain is wrong (a cycle, CP0304, or too deep,
 * CP0305): its files are all there, each with the statements of a whole
 * policy (its profile, its params), so resolving them together would report
 * every repeat as a duplicate.  A file that cannot be read (CP0301-CP0303)
 * is only missing: the others' errors are still reported. */
static bool cp_chain_errors(const struct cp_diags *d)
{
    for (size_t i = 0; i < d->len; i++)
        if (d->items[i].sev == CP_SEV_ERROR &&
            (d->items[i].code == CP0304 || d->items[i].code == CP0305))
            return true;
    return false;
}

int cp_compile(struct cp_ctx *cx)
{
    if (cp_parse(cx) || cp_diag_errors(&cx->diags)) {
        /* A syntax error in one statement, or an include that cannot be
         * read, does not hide the errors of the others: the statements
         * that parsed are resolved too (names, paths, regexes, fixed
         * words; what a lost statement or file may declare is not
         * reported missing), then compilation stops. */
        if (cx->ast && cp_diag_errors(&cx->diags) < 100 &&
            !cp_chain_errors(&cx->diags)) {
            cx->opts.partial = true;
            cp_resolve(cx);
            cp_policy_free(cx->policy);
            cx->policy = NULL;
            cp_diags_sort(&cx->diags);
        }
        return (int)cp_diag_errors(&cx->diags);
    }
    if (cp_resolve(cx) || cp_diag_errors(&cx->diags))
        return (int)cp_diag_errors(&cx->diags);
    cp_ast_release(cx);
    cp_check(cx);
    return (int)cp_diag_errors(&cx->diags);
}

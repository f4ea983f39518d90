/* SPDX-License-Identifier: MIT */
/* The compilation context and the driver: parse, resolve, check, stopping
 * between phases as soon as one reported an error. */
#include <stdlib.h>
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

/* A record's place in source order: its source (in the order the sources
 * first occur in the sink), line, column, then the order it was reported. */
struct cp_order {
    size_t src, line, col, seq;
};

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

/* Puts the records in source order: resolution ran after the parser, and
 * its errors belong between the parser's. */
static void cp_diags_source_order(struct cp_diags *d)
{
    size_t n = d->len;
    struct cp_order *o = cp_xcalloc(n ? n : 1, sizeof *o);
    const struct cp_source **srcs = cp_xcalloc(n ? n : 1, sizeof *srcs);
    size_t nsrcs = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cp_loc *l = &d->items[i].loc;
        size_t k = 0;
        while (k < nsrcs && srcs[k] != l->src)
            k++;
        if (k == nsrcs)
            srcs[nsrcs++] = l->src;
        o[i] = (struct cp_order){k, l->line, l->col, i};
    }
    qsort(o, n, sizeof *o, cp_order_cmp);
    struct cp_diag *items = cp_xcalloc(n ? n : 1, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = d->items[o[i].seq];
    memcpy(d->items, items, n * sizeof *items);
    free(items);
    free(srcs);
    free(o);
}

/* Whether a file could not be read or included (CP03xx): a missing part
 * of the policy, whose absence would make the rest report noise. */
static bool cp_file_errors(const struct cp_diags *d)
{
    for (size_t i = 0; i < d->len; i++) {
        const char *id = cp_diag_code_id(d->items[i].code);
        if (d->items[i].sev == CP_SEV_ERROR && id[2] == '0' && id[3] == '3')
            return true;
    }
    return false;
}

int cp_compile(struct cp_ctx *cx)
{
    if (cp_parse(cx) || cp_diag_errors(&cx->diags)) {
        /* A syntax error in one statement does not hide the errors of the
         * others: the statements that parsed are resolved too (names,
         * paths, regexes, fixed words), then compilation stops. */
        if (cx->ast && cp_diag_errors(&cx->diags) < 100 &&
            !cp_file_errors(&cx->diags)) {
            cx->opts.partial = true;
            cp_resolve(cx);
            cp_policy_free(cx->policy);
            cx->policy = NULL;
            cp_diags_source_order(&cx->diags);
        }
        return (int)cp_diag_errors(&cx->diags);
    }
    if (cp_resolve(cx) || cp_diag_errors(&cx->diags))
        return (int)cp_diag_errors(&cx->diags);
    cp_ast_release(cx);
    cp_check(cx);
    return (int)cp_diag_errors(&cx->diags);
}

/* SPDX-License-Identifier: MIT */
/* Test helper: the decisions of `confpol explain` for many subjects in one
 * process (the same parse, resolve and cp_decide calls as cmd_explain.c).
 * usage: decide_batch POLICY [NAME=VALUE]... < "ACCESS SUBJECT" lines;
 * prints one verdict per line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.main_path = argv[1];
    size_t nd = (size_t)argc - 2;
    cx.opts.defines = cp_arena_alloc(cx.arena,
                                     (nd + 1) * sizeof *cx.opts.defines);
    for (size_t i = 0; i < nd; i++) {
        char *eq = strchr(argv[i + 2], '=');
        if (!eq)
            return 2;
        *eq = '\0';
        cx.opts.defines[i].name = argv[i + 2];
        cx.opts.defines[i].value = eq + 1;
    }
    cx.opts.ndefines = nd;
    if (cp_parse(&cx) || cp_diag_errors(&cx.diags) || !cx.ast ||
        cp_resolve(&cx) || cp_diag_errors(&cx.diags)) {
        cp_diags_render_text(&cx.diags, stderr);
        return 1;
    }
    char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            return 2;
        *sp = '\0';
        enum cp_access acc = strcmp(line, "read") == 0    ? CP_ACC_READ
                             : strcmp(line, "write") == 0 ? CP_ACC_WRITE
                             : strcmp(line, "exec") == 0  ? CP_ACC_EXEC
                                                          : CP_ACC_NET;
        struct cp_decision dc;
        if (cp_decide(cx.policy, acc, sp + 1, cx.arena, &dc) != 0)
            puts("error");
        else
            puts(cp_verdict_text(dc.verdict));
    }
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
    return 0;
}

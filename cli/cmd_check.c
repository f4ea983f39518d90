/* SPDX-License-Identifier: MIT */
/* confpol check: compile each policy (parse, resolve, check) and print its
 * diagnostics; --print-effective prints the resolved policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "cli.h"

static void cp_check_usage(FILE *out)
{
    fputs("usage: confpol check [OPTIONS] [--print-effective] FILE...\n"
          "\n"
          "Parses, type-checks and analyses each policy file and prints its\n"
          "diagnostics (text on stderr; json and sarif on stdout).\n"
          "\n"
          "options:\n"
          "  -D NAME=VALUE             bind a param\n"
          "  -Wname, -Wno-name         enable or disable a warning\n"
          "  -Werror                   make every warning an error\n"
          "  --diagnostics-format F    text (default), json or sarif\n"
          "  --print-effective         print the resolved policy, implicit\n"
          "                            rules marked with their origin\n"
          "  --dump=ast                parse only and print the syntax tree\n"
          "                            (includes expanded) as an S-expression\n"
          "  --help                    print this help\n"
          "\n"
          "exit status: 0 no errors, 1 the policy has errors, 2 usage or I/O "
          "error\n",
          out);
}

int cp_cmd_check(int argc, char **argv)
{
    struct cp_cli_common c = {0};
    bool effective = false, opts_done = false, dump_ast = false;
    const char **files = cp_xcalloc((size_t)argc, sizeof(*files));
    size_t nfiles = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            opts_done = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_check_usage(stdout);
            goto out;
        }
        if (strcmp(a, "--print-effective") == 0) {
            effective = true;
            continue;
        }
        if (strcmp(a, "--dump=ast") == 0) {
            dump_ast = true;
            continue;
        }
        int r = cp_cli_common_opt(&c, argc, argv, &i);
        if (r < 0) {
            rc = 2;
            goto out;
        }
        if (r == 0) {
            fprintf(stderr, "confpol check: unknown option '%s'\n", a);
            cp_check_usage(stderr);
            rc = 2;
            goto out;
        }
    }
    if (nfiles == 0) {
        fputs("confpol check: no policy file given\n", stderr);
        cp_check_usage(stderr);
        rc = 2;
        goto out;
    }
    for (size_t k = 0; k < nfiles; k++) {
        struct cp_ctx cx;
        cp_ctx_init(&cx);
        if (!cp_cli_apply(&c, &cx)) {
            cp_ctx_free(&cx);
            rc = 2;
            goto out;
        }
        cx.main_path = files[k];
        int errors;
        if (dump_ast) {
            errors = cp_parse(&cx) ? 1 : (int)cp_diag_errors(&cx.diags);
            if (cx.ast) {
                cp_ast_dump(cx.ast, stdout);
                fflush(stdout);
            }
        } else {
            errors = cp_compile(&cx);
        }
        cp_cli_print_diags(&c, &cx);
        if (!cx.ast) {
            rc = 2; /* the main file could not be read */
        } else if (errors) {
            if (rc < 1)
                rc = 1;
        } else if (effective && cx.policy && !dump_ast) {
            struct cp_buf b = {0};
            cp_print_effective(cx.policy, &b);
            if (b.len)
                fwrite(b.data, 1, b.len, stdout);
            cp_buf_free(&b);
        }
        cp_ctx_free(&cx);
    }
out:
    fflush(stdout);
    free(files);
    cp_cli_common_free(&c);
    return rc;
}

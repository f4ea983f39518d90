/* SPDX-License-Identifier: MIT */
/* confpol check: compile each policy (parse, resolve, check) and print its
 * diagnostics; --print-effective prints the resolved policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void cp_check_usage(FILE *out)
{
    fputs("usage: confpol check [OPTIONS] [--print-effective] [FILE...]\n"
          "\n"
          "Parses, type-checks and analyses each policy file and prints its\n"
          "diagnostics (text on stderr; json and sarif on stdout, one\n"
          "document for all the files).  FILE '-' is standard input; with\n"
          "no FILE, policy.confpol (as for 'confpol claude').\n"
          "\n"
          "options:\n"
          "  -D NAME=VALUE             bind a param\n"
          "  -Wname, -Wno-name         enable or disable a warning (a name\n"
          "                            or a code: -Wno-CP0502)\n"
          "  -Werror                   make every warning an error\n"
          "  -Werror=name              make one warning an error\n"
          "  --diagnostics-format F    text (default), json or sarif\n"
          "  --color[=WHEN]            colour the text: auto (default: on a\n"
          "                            terminal, unless NO_COLOR is set),\n"
          "                            always or never\n"
          "  --all-diagnostics         print every warning (many of one\n"
          "                            cause are grouped by default)\n"
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

static const char *const cp_check_opts[] = {"--print-effective", "--dump=ast",
                                            "--help", NULL};

/* Compiles one file into CX (initialised, options applied) and prints its
 * text diagnostics or the effective policy; returns its exit status. */
static int cp_check_one(const struct cp_cli_common *c, struct cp_ctx *cx,
                        const char *file, bool effective, bool dump_ast)
{
    cx->main_path = file;
    cx->diags.main_path = file;
    int errors;
    if (dump_ast) {
        errors = cp_parse(cx) ? 1 : (int)cp_diag_errors(&cx->diags);
        if (cx->ast) {
            cp_ast_dump(cx->ast, stdout);
            fflush(stdout);
        }
    } else {
        errors = cp_compile(cx);
    }
    if (c->dfmt == CP_DFMT_TEXT)
        cp_cli_print_diags(c, cx);
    if (!cx->ast)
        return 2; /* the main file could not be read */
    if (errors)
        return cp_cli_error_status(cx);
    if (effective && cx->policy && !dump_ast) {
        struct cp_buf b = {0};
        cp_print_effective(cx->policy, &b);
        if (b.len)
            fwrite(b.data, 1, b.len, stdout);
        cp_buf_free(&b);
    }
    return 0;
}

/* The command line of check. */
struct check_args {
    struct cp_cli_common c;
    bool effective, dump_ast;
    const char **files;
    size_t nfiles;
};

/* One option.  Returns -1 to go on, or the exit status. */
static int check_option(struct check_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        cp_check_usage(stdout);
        return 0;
    }
    if (strcmp(a, "--print-effective") == 0) {
        x->effective = true;
        return -1;
    }
    if (strcmp(a, "--dump=ast") == 0) {
        x->dump_ast = true;
        return -1;
    }
    int r = cp_cli_common_opt(&x->c, argc, argv, i);
    if (r < 0)
        return 2;
    if (r == 0)
        return cp_cli_unknown_option("check", a, cp_check_opts, true);
    return -1;
}

/* Reads the command line.  Returns -1 to go on, or the exit status. */
static int check_parse(struct check_args *x, int argc, char **argv)
{
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            x->files[x->nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else {
            int rc = check_option(x, argc, argv, &i);
            if (rc >= 0)
                return rc;
        }
    }
    /* As confpol claude: the policy of the directory, when none is named. */
    if (x->nfiles == 0)
        x->files[x->nfiles++] = "policy.confpol";
    return -1;
}

/* Prints the one JSON or SARIF document of every file's diagnostics. */
static void check_render_whole(const struct check_args *x, struct cp_ctx *cxs,
                               size_t done)
{
    const struct cp_diags **ds = cp_xcalloc(done, sizeof *ds);
    for (size_t k = 0; k < done; k++)
        ds[k] = &cxs[k].diags;
    if (x->c.dfmt == CP_DFMT_JSON)
        cp_diags_render_json_many(ds, done, stdout);
    else
        cp_diags_render_sarif_many(ds, done, stdout);
    free(ds);
}

/* Checks every file.  Text: each file's diagnostics in turn, one count at
 * the end.  JSON and SARIF: one document for all the files, so every
 * file's context is kept until it is printed.  Returns the exit status. */
static int check_files(const struct check_args *x)
{
    bool whole = x->c.dfmt != CP_DFMT_TEXT;
    struct cp_ctx *cxs = cp_xcalloc(x->nfiles, sizeof *cxs);
    size_t nerr = 0, nwarn = 0, done = 0;
    bool usage = false;
    int rc = 0;
    for (size_t k = 0; k < x->nfiles; k++) {
        struct cp_ctx *cx = &cxs[done++];
        cp_ctx_init(cx);
        if (!cp_cli_apply(&x->c, cx)) {
            rc = 2;
            usage = true;
            break;
        }
        cx->diags.no_summary = true;
        int r = cp_check_one(&x->c, cx, x->files[k], x->effective, x->dump_ast);
        if (r > rc)
            rc = r;
        nerr += cx->diags.nerrors;
        nwarn += cx->diags.nwarnings;
        if (!whole) {
            cp_ctx_free(cx);
            done--;
        }
    }
    /* After an unknown -W name nothing else is printed. */
    if (!usage && !whole)
        cp_diags_render_summary(nerr, nwarn, stderr);
    else if (!usage && done)
        check_render_whole(x, cxs, done);
    for (size_t k = 0; k < done; k++)
        cp_ctx_free(&cxs[k]);
    free(cxs);
    return rc;
}

int cp_cmd_check(int argc, char **argv)
{
    struct check_args x = {
        .c = {.cmd = "check"},
        .files = cp_xcalloc((size_t)argc, sizeof(*x.files)),
    };
    int rc = check_parse(&x, argc, argv);
    if (rc < 0)
        rc = check_files(&x);
    fflush(stdout);
    free(x.files);
    cp_cli_common_free(&x.c);
    return rc;
}

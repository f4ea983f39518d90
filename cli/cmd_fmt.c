/* SPDX-License-Identifier: MIT */
/* confpol fmt: print each policy in the canonical layout (spec/language.md);
 * --check prints nothing and lists the files that would change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void cp_fmt_usage(FILE *out)
{
    fputs("usage: confpol fmt [--check | --write] FILE...\n"
          "\n"
          "Prints each policy file in the canonical layout on stdout.\n"
          "Included files are not followed (format each file on its own).\n"
          "\n"
          "options:\n"
          "  --check   print nothing; list on stderr the files whose layout\n"
          "            would change and exit 1 if there is any\n"
          "  --write   rewrite each file that would change, in place\n"
          "  --help    print this help\n"
          "\n"
          "exit status: 0 ok, 1 a file has syntax errors (or would change\n"
          "with --check), 2 usage or I/O error\n",
          out);
}

int cp_cmd_fmt(int argc, char **argv)
{
    bool check = false, write = false, opts_done = false;
    const char **files = cp_xcalloc((size_t)argc, sizeof(*files));
    size_t nfiles = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-') {
            files[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_fmt_usage(stdout);
            goto out;
        } else if (strcmp(a, "--check") == 0) {
            check = true;
        } else if (strcmp(a, "--write") == 0 || strcmp(a, "-w") == 0) {
            write = true;
        } else {
            fprintf(stderr, "confpol fmt: unknown option '%s'\n", a);
            cp_fmt_usage(stderr);
            rc = 2;
            goto out;
        }
    }
    if (nfiles == 0 || (check && write)) {
        fputs(nfiles ? "confpol fmt: --check and --write exclude each other\n"
                     : "confpol fmt: no policy file given\n",
              stderr);
        cp_fmt_usage(stderr);
        rc = 2;
        goto out;
    }
    for (size_t k = 0; k < nfiles; k++) {
        struct cp_ctx cx;
        cp_ctx_init(&cx);
        cx.opts.no_includes = true;
        cx.main_path = files[k];
        cp_parse(&cx);
        if (cp_diag_errors(&cx.diags) || !cx.ast) {
            cp_diags_render_text(&cx.diags, stderr);
            if (!cx.ast)
                rc = 2;
            else if (rc < 1)
                rc = 1;
            cp_ctx_free(&cx);
            continue;
        }
        struct cp_buf b = {0};
        cp_fmt_file(cx.ast, &b);
        const struct cp_source *src = cx.main_src;
        bool same = b.len == src->len &&
                    (b.len == 0 || memcmp(b.data, src->text, b.len) == 0);
        if (check) {
            if (!same) {
                fprintf(stderr, "%s\n", files[k]);
                if (rc < 1)
                    rc = 1;
            }
        } else if (write) {
            if (!same && cp_cli_write_atomic(files[k], b.data, b.len) != 0) {
                fprintf(stderr, "confpol fmt: cannot write '%s': %m\n",
                        files[k]);
                rc = 2;
            }
        } else if (b.len) {
            fwrite(b.data, 1, b.len, stdout);
        }
        cp_buf_free(&b);
        cp_ctx_free(&cx);
    }
out:
    fflush(stdout);
    free(files);
    return rc;
}

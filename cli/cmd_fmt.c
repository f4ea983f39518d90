/* SPDX-License-Identifier: MIT */
/* confpol fmt: print each policy in the canonical layout (spec/language.md);
 * like gofmt, -l lists the files whose layout differs, -d prints a diff, -w
 * rewrites them in place; --check lists them on stderr and exits 1. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

static void cp_fmt_usage(FILE *out)
{
    fputs("usage: confpol fmt [-l] [-d] [-w | --check] FILE...\n"
          "\n"
          "Prints each policy file in the canonical layout on stdout.  FILE\n"
          "'-' is standard input.  Included files are not followed (format\n"
          "each file on its own).\n"
          "\n"
          "options:\n"
          "  -l, --list    print the name of each file whose layout differs\n"
          "                instead of the layout\n"
          "  -d, --diff    print a unified diff from each file to its layout\n"
          "                instead of the layout\n"
          "  -w, --write   rewrite each file whose layout differs, in place\n"
          "  --check       print nothing on stdout; list on stderr the files\n"
          "                whose layout differs and exit 1 if there is any\n"
          "  --color[=WHEN]\n"
          "                colour the diagnostics: auto (default), always\n"
          "                or never\n"
          "  --help        print this help\n"
          "\n"
          "-l, -d and -w combine (-l -w lists what it rewrites).\n"
          "\n"
          "exit status: 0 ok, 1 a file has syntax errors (or would change\n"
          "with --check), 2 usage or I/O error\n",
          out);
}

static const char *const cp_fmt_opts[] = {"--list", "--diff", "--write",
                                          "--check", "--color", "--help",
                                          NULL};

/* Writes LEN bytes of DATA to a new temporary file; returns its name (heap)
 * or NULL. */
static char *cp_fmt_tmpfile(const char *data, size_t len)
{
    const char *dir = getenv("TMPDIR");
    char *name = cp_xmalloc(strlen(dir && *dir ? dir : "/tmp") + 32);
    sprintf(name, "%s/confpol-fmt.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(name);
    if (fd < 0) {
        free(name);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        if (!f)
            close(fd);
        unlink(name);
        free(name);
        return NULL;
    }
    return name;
}

/* Prints "diff -u" from the source (named NAME) to its layout, as gofmt -d
 * does (through diff(1), labels "NAME.orig" and "NAME").  Returns 0 or 2. */
static int cp_fmt_diff(const char *name, const struct cp_source *src,
                       const struct cp_buf *b)
{
    char *old = cp_fmt_tmpfile(src->text, src->len);
    char *new = old ? cp_fmt_tmpfile(b->data ? b->data : "", b->len) : NULL;
    int rc = 2;
    if (new) {
        char *orig = cp_xmalloc(strlen(name) + 6);
        sprintf(orig, "%s.orig", name);
        char *args[] = {"diff", "-u", "--label", orig, "--label",
                        (char *)name, old, new, NULL};
        pid_t pid;
        fflush(stdout);
        int st;
        if (posix_spawnp(&pid, "diff", NULL, NULL, args, environ) == 0 &&
            waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
            WEXITSTATUS(st) <= 1)
            rc = 0;
        else
            fprintf(stderr, "confpol fmt: cannot run diff(1) for '%s'\n",
                    name);
        free(orig);
    }
    if (old) {
        unlink(old);
        free(old);
    }
    if (new) {
        unlink(new);
        free(new);
    }
    return rc;
}

int cp_cmd_fmt(int argc, char **argv)
{
    bool check = false, write = false, list = false, diff = false;
    bool opts_done = false;
    enum cp_color color = CP_COLOR_AUTO;
    int r;
    const char **files = cp_xcalloc((size_t)argc, sizeof(*files));
    size_t nfiles = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
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
        } else if (strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0) {
            list = true;
        } else if (strcmp(a, "--diff") == 0 || strcmp(a, "-d") == 0) {
            diff = true;
        } else if ((r = cp_cli_color_opt("fmt", a, &color)) != 0) {
            if (r < 0) {
                rc = 2;
                goto out;
            }
        } else {
            rc = cp_cli_unknown_option("fmt", a, cp_fmt_opts, false);
            goto out;
        }
    }
    if (nfiles == 0) {
        rc = cp_cli_usage_error("fmt", "no policy file given");
        goto out;
    }
    if (check && (write || list || diff)) {
        rc = cp_cli_usage_error("fmt", "--check excludes -l, -d and -w");
        goto out;
    }
    for (size_t k = 0; k < nfiles; k++) {
        if (write && strcmp(files[k], "-") == 0) {
            rc = cp_cli_usage_error("fmt", "-w cannot rewrite standard input");
            goto out;
        }
    }
    size_t nerr = 0;
    for (size_t k = 0; k < nfiles; k++) {
        struct cp_ctx cx;
        cp_ctx_init(&cx);
        cx.diags.color = cp_cli_color(color);
        cx.diags.no_summary = true; /* one count for all the files */
        cx.opts.no_includes = true;
        cx.main_path = files[k];
        cp_parse(&cx);
        if (cp_diag_errors(&cx.diags) || !cx.ast) {
            cp_diags_render_text(&cx.diags, stderr);
            nerr += cx.diags.nerrors;
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
        const char *name = src->path; /* "<stdin>" for "-" */
        bool same = b.len == src->len &&
                    (b.len == 0 || memcmp(b.data, src->text, b.len) == 0);
        if (check) {
            if (!same) {
                fprintf(stderr, "%s\n", name);
                if (rc < 1)
                    rc = 1;
            }
        } else if (!list && !diff && !write) {
            if (b.len)
                fwrite(b.data, 1, b.len, stdout);
        } else if (!same) {
            if (list)
                printf("%s\n", name);
            if (diff && cp_fmt_diff(name, src, &b) != 0)
                rc = 2;
            if (write && cp_cli_write_atomic(files[k], b.data, b.len) != 0) {
                fprintf(stderr, "confpol fmt: cannot write '%s': %m\n",
                        files[k]);
                rc = 2;
            }
        }
        cp_buf_free(&b);
        cp_ctx_free(&cx);
    }
    cp_diags_render_summary(nerr, 0, stderr);
out:
    fflush(stdout);
    free(files);
    return rc;
}

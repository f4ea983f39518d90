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

static const char *const cp_fmt_opts[] = {
    "--list", "--diff", "--write", "--check", "--color", "--help", NULL};

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
        char *args[] = {"diff",       "-u", "--label", orig, "--label",
                        (char *)name, old,  new,       NULL};
        pid_t pid;
        fflush(stdout);
        int st;
        if (posix_spawnp(&pid, "diff", NULL, NULL, args, environ) == 0 &&
            waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
            WEXITSTATUS(st) <= 1)
            rc = 0;
        else
            fprintf(stderr, "confpol fmt: cannot run diff(1) for '%s'\n", name);
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

/* The command line of fmt. */
struct fmt_args {
    bool check, write, list, diff;
    enum cp_color color;
    const char **files;
    size_t nfiles;
};

/* The flags of fmt: true when a is one of them. */
static bool fmt_flag(struct fmt_args *f, const char *a)
{
    bool *flag = strcmp(a, "--check") == 0                           ? &f->check
                 : strcmp(a, "--write") == 0 || strcmp(a, "-w") == 0 ? &f->write
                 : strcmp(a, "--list") == 0 || strcmp(a, "-l") == 0  ? &f->list
                 : strcmp(a, "--diff") == 0 || strcmp(a, "-d") == 0  ? &f->diff
                                                                     : NULL;
    if (flag)
        *flag = true;
    return flag != NULL;
}

/* Reads the command line.  Returns -1 to go on, or the exit status. */
static int fmt_parse(struct fmt_args *f, int argc, char **argv)
{
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            f->files[f->nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_fmt_usage(stdout);
            return 0;
        } else if (fmt_flag(f, a)) {
            continue;
        } else if ((r = cp_cli_color_opt("fmt", a, &f->color)) != 0) {
            if (r < 0)
                return 2;
        } else {
            return cp_cli_unknown_option("fmt", a, cp_fmt_opts, false);
        }
    }
    return -1;
}

/* Checks what the options need together.  Returns -1 to go on, or the
 * exit status. */
static int fmt_check_args(const struct fmt_args *f)
{
    if (f->nfiles == 0)
        return cp_cli_usage_error("fmt", "no policy file given");
    if (f->check && (f->write || f->list || f->diff))
        return cp_cli_usage_error("fmt", "--check excludes -l, -d and -w");
    for (size_t k = 0; k < f->nfiles; k++)
        if (f->write && strcmp(f->files[k], "-") == 0)
            return cp_cli_usage_error("fmt",
                                      "-w cannot rewrite standard input");
    return -1;
}

/* Does with one file's layout b what the options say; returns the status
 * so far (rc raised as needed). */
static int fmt_output(const struct fmt_args *f, const char *file,
                      const struct cp_source *src, const struct cp_buf *b,
                      int rc)
{
    const char *name = src->path; /* "<stdin>" for "-" */
    bool same = b->len == src->len &&
                (b->len == 0 || memcmp(b->data, src->text, b->len) == 0);
    if (f->check) {
        if (!same) {
            fprintf(stderr, "%s\n", name);
            if (rc < 1)
                rc = 1;
        }
    } else if (!f->list && !f->diff && !f->write) {
        if (b->len)
            fwrite(b->data, 1, b->len, stdout);
    } else if (!same) {
        if (f->list)
            printf("%s\n", name);
        if (f->diff && cp_fmt_diff(name, src, b) != 0)
            rc = 2;
        if (f->write && cp_cli_write_atomic(file, b->data, b->len) != 0) {
            fprintf(stderr, "confpol fmt: cannot write '%s': %m\n", file);
            rc = 2;
        }
    }
    return rc;
}

/* Formats one file; *nerr counts its syntax errors.  Returns the status so
 * far (rc raised as needed). */
static int fmt_one(const struct fmt_args *f, const char *file, size_t *nerr,
                   int rc)
{
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.diags.color = cp_cli_color(f->color);
    cx.diags.no_summary = true; /* one count for all the files */
    cx.opts.no_includes = true;
    cx.main_path = file;
    cp_parse(&cx);
    if (cp_diag_errors(&cx.diags) || !cx.ast) {
        cp_diags_render_text(&cx.diags, stderr);
        *nerr += cx.diags.nerrors;
        if (!cx.ast)
            rc = 2;
        else if (rc < 1)
            rc = 1;
        cp_ctx_free(&cx);
        return rc;
    }
    struct cp_buf b = {0};
    cp_fmt_file(cx.ast, &b);
    rc = fmt_output(f, file, cx.main_src, &b, rc);
    cp_buf_free(&b);
    cp_ctx_free(&cx);
    return rc;
}

int cp_cmd_fmt(int argc, char **argv)
{
    struct fmt_args f = {
        .color = CP_COLOR_AUTO,
        .files = cp_xcalloc((size_t)argc, sizeof(*f.files)),
    };
    int rc = fmt_parse(&f, argc, argv);
    if (rc < 0)
        rc = fmt_check_args(&f);
    if (rc < 0) {
        rc = 0;
        size_t nerr = 0;
        for (size_t k = 0; k < f.nfiles; k++)
            rc = fmt_one(&f, f.files[k], &nerr, rc);
        cp_diags_render_summary(nerr, 0, stderr);
    }
    fflush(stdout);
    free(f.files);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* Options shared by the compiling subcommands (-D, -W, --diagnostics-format),
 * diagnostics printing and atomic file writing. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int cp_cli_define(struct cp_cli_common *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "confpol: -D expects NAME=VALUE, got '%s'\n", arg);
        return -1;
    }
    c->defines = cp_xrealloc(c->defines,
                             (c->ndefines + 1) * sizeof(*c->defines));
    size_t n = (size_t)(eq - arg);
    char *name = cp_xmalloc(n + 1);
    memcpy(name, arg, n);
    name[n] = '\0';
    c->defines[c->ndefines].name = name;
    c->defines[c->ndefines].value = cp_xstrdup(eq + 1);
    c->ndefines++;
    return 1;
}

static int cp_cli_dfmt(struct cp_cli_common *c, const char *v)
{
    if (strcmp(v, "text") == 0)
        c->dfmt = CP_DFMT_TEXT;
    else if (strcmp(v, "json") == 0)
        c->dfmt = CP_DFMT_JSON;
    else if (strcmp(v, "sarif") == 0)
        c->dfmt = CP_DFMT_SARIF;
    else {
        fprintf(stderr,
                "confpol: --diagnostics-format expects text, json or sarif, "
                "got '%s'\n",
                v);
        return -1;
    }
    return 1;
}

int cp_cli_common_opt(struct cp_cli_common *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "-D") == 0) {
        if (*i + 1 >= argc) {
            fputs("confpol: -D expects NAME=VALUE\n", stderr);
            return -1;
        }
        return cp_cli_define(c, argv[++*i]);
    }
    if (strncmp(a, "-D", 2) == 0)
        return cp_cli_define(c, a + 2);
    if (strcmp(a, "-Werror") == 0) {
        c->werror = true;
        return 1;
    }
    if (strncmp(a, "-W", 2) == 0 && a[2]) {
        c->wopts = cp_xrealloc(c->wopts, (c->nwopts + 1) * sizeof(*c->wopts));
        c->wopts[c->nwopts++] = a + 2;
        return 1;
    }
    if (strcmp(a, "--diagnostics-format") == 0) {
        if (*i + 1 >= argc) {
            fputs("confpol: --diagnostics-format expects text, json or "
                  "sarif\n",
                  stderr);
            return -1;
        }
        return cp_cli_dfmt(c, argv[++*i]);
    }
    if (strncmp(a, "--diagnostics-format=", 21) == 0)
        return cp_cli_dfmt(c, a + 21);
    return 0;
}

bool cp_cli_apply(const struct cp_cli_common *c, struct cp_ctx *cx)
{
    if (c->ndefines) {
        cx->opts.defines = cp_arena_alloc(
            cx->arena, c->ndefines * sizeof(*cx->opts.defines));
        for (size_t i = 0; i < c->ndefines; i++) {
            cx->opts.defines[i].name =
                cp_arena_strdup(cx->arena, c->defines[i].name);
            cx->opts.defines[i].value =
                cp_arena_strdup(cx->arena, c->defines[i].value);
        }
        cx->opts.ndefines = c->ndefines;
    }
    cx->diags.werror = c->werror;
    for (size_t i = 0; i < c->nwopts; i++) {
        const char *w = c->wopts[i];
        bool on = strncmp(w, "no-", 3) != 0;
        if (!cp_diags_set_warning(&cx->diags, on ? w : w + 3, on)) {
            fprintf(stderr, "confpol: unknown warning option '-W%s'\n", w);
            return false;
        }
    }
    return true;
}

/* The diagnostics of CX as text on stderr: all of them and the summary,
 * or (FLUSH) those reported so far, which are then released. */
static void print_text(struct cp_ctx *cx, bool flush)
{
    /* stderr is unbuffered: the renderer's one write per diagnostic would
     * be one system call each (a million at scale).  Render through a fully
     * buffered stream on the same descriptor. */
    fflush(stderr);
    int fd = cx->diags.len > 1 ? dup(STDERR_FILENO) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (f)
        setvbuf(f, NULL, _IOFBF, 1 << 16);
    if (flush)
        cp_diags_flush_text(&cx->diags, f ? f : stderr);
    else
        cp_diags_render_text(&cx->diags, f ? f : stderr);
    if (f)
        fclose(f);
    else
        fflush(stderr);
}

void cp_cli_flush_diags(const struct cp_cli_common *c, struct cp_ctx *cx)
{
    if (c->dfmt == CP_DFMT_TEXT && cx->diags.len)
        print_text(cx, true);
}

void cp_cli_print_diags(const struct cp_cli_common *c, struct cp_ctx *cx)
{
    switch (c->dfmt) {
    case CP_DFMT_TEXT:
        print_text(cx, false);
        break;
    case CP_DFMT_JSON:
        cp_diags_render_json(&cx->diags, stdout);
        fflush(stdout);
        break;
    case CP_DFMT_SARIF:
        cp_diags_render_sarif(&cx->diags, stdout);
        fflush(stdout);
        break;
    }
}

void cp_cli_common_free(struct cp_cli_common *c)
{
    for (size_t i = 0; i < c->ndefines; i++) {
        free((char *)c->defines[i].name);
        free((char *)c->defines[i].value);
    }
    free(c->defines);
    free(c->wopts);
    memset(c, 0, sizeof(*c));
}

int cp_cli_write_atomic(const char *path, const char *data, size_t len)
{
    size_t n = strlen(path);
    char *tmp = cp_xmalloc(n + 16);
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    int err = 0;
    for (size_t off = 0; off < len && !err;) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
        } else {
            off += (size_t)w;
        }
    }
    /* Keep the mode of the file being replaced; new files get 0644. */
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644;
    if (!err && fchmod(fd, mode) != 0)
        err = errno;
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        free(tmp);
        errno = err;
        return -1;
    }
    free(tmp);
    /* Make the rename durable: fsync the directory. */
    char *dir = cp_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    return 0;
}

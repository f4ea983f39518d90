/* SPDX-License-Identifier: MIT */
/* Options shared by the compiling subcommands (-D, -W, --diagnostics-format),
 * diagnostics printing and atomic file writing. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "match.h"
#include "runtime.h"
#include "sha256.h"

static const char *cp_cli_cmd(const struct cp_cli_common *c)
{
    return c->cmd ? c->cmd : "";
}

int cp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "confpol%s%s: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nsee 'confpol%s%s --help'\n", *cmd ? " " : "", cmd);
    va_end(ap);
    return 2;
}

/* The options every compiling command accepts, for "did you mean". */
static const char *const cp_common_opts[] = {
    "-D",     "-Werror", "--diagnostics-format", "--color", "--all-diagnostics",
    "--help", NULL};

int cp_cli_unknown_option(const char *cmd, const char *opt,
                          const char *const *opts, bool common)
{
    /* Compare the option without its "=VALUE". */
    size_t n = strcspn(opt, "=");
    const char *near = opts ? cp_nearest(opt, n, opts, SIZE_MAX, sizeof *opts)
                            : NULL;
    if (!near && common)
        near = cp_nearest(opt, n, cp_common_opts, SIZE_MAX,
                          sizeof *cp_common_opts);
    /* '--format' of another tool (or of explain and build) means the
     * diagnostics' format here. */
    if (!near && common && n == 8 && strncmp(opt, "--format", 8) == 0)
        near = "--diagnostics-format";
    if (near)
        return cp_cli_usage_error(cmd,
                                  "unknown option '%s'; did you mean "
                                  "'%s'?",
                                  opt, near);
    return cp_cli_usage_error(cmd, "unknown option '%s'", opt);
}

static int cp_cli_define(struct cp_cli_common *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        cp_cli_usage_error(cp_cli_cmd(c), "-D expects NAME=VALUE, got '%s'",
                           arg);
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

/* The index of V in WORDS (NULL-terminated), or -1 after a usage error
 * naming OPT and the words. */
static int cp_cli_choice(const struct cp_cli_common *c, const char *opt,
                         const char *v, const char *const *words)
{
    for (int k = 0; words[k]; k++)
        if (strcmp(v, words[k]) == 0)
            return k;
    const char *near = cp_nearest_word(v, words);
    struct cp_buf b = {0};
    for (int k = 0; words[k]; k++)
        cp_buf_printf(&b, "%s%s",
                      k == 0         ? ""
                      : words[k + 1] ? ", "
                                     : " or ",
                      words[k]);
    if (near)
        cp_cli_usage_error(cp_cli_cmd(c),
                           "%s expects %s, got '%s'; did you mean '%s'?", opt,
                           b.data, v, near);
    else
        cp_cli_usage_error(cp_cli_cmd(c), "%s expects %s, got '%s'", opt,
                           b.data, v);
    cp_buf_free(&b);
    return -1;
}

static int cp_cli_dfmt(struct cp_cli_common *c, const char *v)
{
    static const char *const f[] = {"text", "json", "sarif", NULL};
    int k = cp_cli_choice(c, "--diagnostics-format", v, f);
    if (k < 0)
        return -1;
    c->dfmt = k == 0 ? CP_DFMT_TEXT : k == 1 ? CP_DFMT_JSON : CP_DFMT_SARIF;
    return 1;
}

static int cp_cli_colour(struct cp_cli_common *c, const char *v)
{
    static const char *const w[] = {"auto", "always", "never", NULL};
    int k = cp_cli_choice(c, "--color", v, w);
    if (k < 0)
        return -1;
    c->color = k == 0   ? CP_COLOR_AUTO
               : k == 1 ? CP_COLOR_ALWAYS
                        : CP_COLOR_NEVER;
    return 1;
}

int cp_cli_color_opt(const char *cmd, const char *a, enum cp_color *mode)
{
    struct cp_cli_common c = {.cmd = cmd, .color = *mode};
    int r;
    if (strcmp(a, "--color") == 0 || strcmp(a, "--colour") == 0) {
        c.color = CP_COLOR_ALWAYS;
        r = 1;
    } else if (strncmp(a, "--color=", 8) == 0) {
        r = cp_cli_colour(&c, a + 8);
    } else if (strncmp(a, "--colour=", 9) == 0) {
        r = cp_cli_colour(&c, a + 9);
    } else {
        r = 0;
    }
    *mode = c.color;
    return r;
}

int cp_cli_common_opt(struct cp_cli_common *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "-D") == 0) {
        if (*i + 1 >= argc) {
            cp_cli_usage_error(cp_cli_cmd(c), "-D expects NAME=VALUE");
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
            cp_cli_usage_error(cp_cli_cmd(c), "--diagnostics-format expects "
                                              "text, json or sarif");
            return -1;
        }
        return cp_cli_dfmt(c, argv[++*i]);
    }
    if (strncmp(a, "--diagnostics-format=", 21) == 0)
        return cp_cli_dfmt(c, a + 21);
    int r = cp_cli_color_opt(cp_cli_cmd(c), a, &c->color);
    if (r != 0)
        return r;
    if (strcmp(a, "--all-diagnostics") == 0) {
        c->all_diags = true;
        return 1;
    }
    return 0;
}

bool cp_cli_color(enum cp_color mode)
{
    if (mode != CP_COLOR_AUTO)
        return mode == CP_COLOR_ALWAYS;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    const char *term = getenv("TERM");
    if (!term || strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDERR_FILENO) == 1;
}

int cp_cli_error_status(const struct cp_ctx *cx)
{
    return cx->diags.nusage ? 2 : 1;
}

/* The -W option W (without "-W") for "did you mean": every warning and
 * note name. */
static const char *cp_cli_near_warning(const char *w)
{
    const char *names[CP_DIAG__COUNT + 1];
    size_t n = 0;
    for (size_t i = 0; i < CP_DIAG__COUNT; i++)
        if (cp_diag_code_flag((enum cp_diag_code)i))
            names[n++] = cp_diag_code_flag((enum cp_diag_code)i);
    names[n] = NULL;
    return cp_nearest_word(w, names);
}

bool cp_cli_apply(const struct cp_cli_common *c, struct cp_ctx *cx)
{
    if (c->ndefines) {
        cx->opts.defines = cp_arena_alloc(
            cx->arena, c->ndefines * sizeof(*cx->opts.defines));
        for (size_t i = 0; i < c->ndefines; i++) {
            cx->opts.defines[i].name = cp_arena_strdup(cx->arena,
                                                       c->defines[i].name);
            cx->opts.defines[i].value = cp_arena_strdup(cx->arena,
                                                        c->defines[i].value);
        }
        cx->opts.ndefines = c->ndefines;
    }
    cx->diags.werror = c->werror;
    cx->diags.all = c->all_diags;
    cx->diags.color = c->dfmt == CP_DFMT_TEXT && cp_cli_color(c->color);
    bool targets_quiet = !c->fidelity;
    for (size_t i = 0; i < c->nwopts; i++) {
        const char *w = c->wopts[i];
        bool ok;
        /* -Wtarget-notes: every note of a target (spec/diagnostics.md 3). */
        if (strcmp(w, "target-notes") == 0 ||
            strcmp(w, "no-target-notes") == 0) {
            targets_quiet = w[0] == 'n';
            continue;
        }
        const char *name;
        if (strncmp(w, "error=", 6) == 0) {
            name = w + 6;
            ok = cp_diags_set_werror(&cx->diags, name);
        } else {
            bool on = strncmp(w, "no-", 3) != 0;
            name = on ? w : w + 3;
            ok = cp_diags_set_warning(&cx->diags, name, on);
        }
        if (!ok) {
            int code = cp_diag_code_lookup(name);
            const char *near = cp_cli_near_warning(name);
            if (code >= 0)
                cp_cli_usage_error(cp_cli_cmd(c),
                                   "'-W%s': %s is an error, which no option "
                                   "can disable",
                                   w, cp_diag_code_id((enum cp_diag_code)code));
            else if (near)
                cp_cli_usage_error(cp_cli_cmd(c),
                                   "unknown warning option '-W%s'; did you "
                                   "mean '-W%.*s%s'?",
                                   w, (int)(name - w), w, near);
            else
                cp_cli_usage_error(cp_cli_cmd(c),
                                   "unknown warning option '-W%s'", w);
            return false;
        }
    }
    /* After the -W options, which may ask for a quiet note. */
    cp_diags_quiet(&cx->diags, targets_quiet);
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
    if (!cx->diags.main_path)
        cx->diags.main_path = cx->main_path;
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

/* The mode and owner the temporary file of cp_cli_write_atomic_like gets:
 * those of `like`, else those of the file being replaced, else a new
 * file's (0666 less the umask, the caller's owner). */
static int write_atomic_meta(int fd, const char *path, const struct stat *like)
{
    struct stat cur, mine;
    if (!like && stat(path, &cur) == 0)
        like = &cur;
    mode_t mode;
    if (like) {
        mode = like->st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    if (fchmod(fd, mode) != 0)
        return errno;
    /* root replacing a user's file keeps the user's owner and group */
    if (like && fstat(fd, &mine) == 0 &&
        (mine.st_uid != like->st_uid || mine.st_gid != like->st_gid) &&
        fchown(fd, like->st_uid, like->st_gid) != 0)
        return errno;
    return 0;
}

int cp_cli_write_atomic(const char *path, const char *data, size_t len)
{
    return cp_cli_write_atomic_like(path, data, len, NULL);
}

int cp_cli_write_atomic_like(const char *path, const char *data, size_t len,
                             const struct stat *like)
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
    if (!err)
        err = write_atomic_meta(fd, path, like);
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

/* Adds NAME=canonical(VALUE) unless NAME is bound already; a value that
 * cannot be canonicalised is left unbound (a rule that needs it then says
 * so: the runtime's message under run, the unbound-param note under
 * explain). */
static void cp_cli_bind1(struct cp_cli_common *c, const char *name,
                         const char *value)
{
    for (size_t k = 0; k < c->ndefines; k++)
        if (strcmp(c->defines[k].name, name) == 0)
            return;
    if (!value)
        return;
    struct cp_rt_err e = {0};
    char *canon = cp_rt_param_canon(name, value, true, &e);
    if (!canon)
        return;
    c->defines = cp_xrealloc(c->defines,
                             (c->ndefines + 1) * sizeof *c->defines);
    c->defines[c->ndefines].name = cp_xstrdup(name);
    c->defines[c->ndefines].value = canon;
    c->ndefines++;
}

void cp_cli_bind_project(struct cp_cli_common *c)
{
    if (!c->bound_run)
        c->nexplicit = c->ndefines;
    c->bound_run = true;
    char cwd[PATH_MAX];
    cp_cli_bind1(c, "PROJECT", getcwd(cwd, sizeof cwd));
}

void cp_cli_bind_run(struct cp_cli_common *c)
{
    if (!c->bound_run)
        c->nexplicit = c->ndefines;
    c->bound_run = true;
    cp_cli_bind1(c, "HOME", getenv("HOME"));
    cp_cli_bind_project(c);
}

const char *cp_cli_define_from(const struct cp_cli_common *c, size_t k)
{
    if (!c->bound_run || k < c->nexplicit)
        return "-D";
    return strcmp(c->defines[k].name, "HOME") == 0 ? "$HOME"
                                                   : "the current directory";
}

/* The value bound to NAME, or NULL. */
static const char *cp_cli_bound(const struct cp_cli_common *c, const char *name)
{
    for (size_t k = 0; k < c->ndefines; k++)
        if (strcmp(c->defines[k].name, name) == 0)
            return c->defines[k].value;
    return NULL;
}

/* An allow rule of P rooted at NAME that covers PATH once NAME is VALUE,
 * or NULL.  Only allow rules: a deny that covers more denies more. */
static const struct cp_rule *cp_cli_covering(const struct cp_policy *p,
                                             const char *name,
                                             const char *value,
                                             const char *path)
{
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if ((r->kind != CP_R_WRITE && r->kind != CP_R_EXEC) ||
            !r->u.path.root || strcmp(r->u.path.root, name) != 0)
            continue;
        if (cp_path_covers(&r->u.path, value, path, strlen(path)))
            return r;
    }
    return NULL;
}

/* Prints the refusal of the implicit binding NAME=VALUE for rule R. */
static void cp_cli_refuse(const struct cp_cli_common *c, struct cp_arena *a,
                          const struct cp_rule *r, const char *name,
                          const char *value, const char *what)
{
    fprintf(stderr,
            "confpol %s: error: %s is bound to %s '%s', under which '%s' "
            "(%s:%u:%u) covers %s\n",
            cp_cli_cmd(c), name,
            strcmp(name, "HOME") == 0 ? "the environment's HOME"
                                      : "the current directory",
            value, cp_sema_rule_text(a, r), r->loc.src ? r->loc.src->path : "?",
            r->loc.line, r->loc.col, what);
    /* confpol claude binds PROJECT itself: no -D to say it is meant. */
    if (strcmp(cp_cli_cmd(c), "claude") == 0)
        fputs("confpol claude: note: start it in the project's directory\n",
              stderr);
    else
        fprintf(stderr,
                "confpol %s: note: run it from the directory the policy is "
                "meant for, or pass -D %s=%s to mean it\n",
                cp_cli_cmd(c), name, value);
}

/* Whether an implicit value could make a rule cover too much: "/" for any
 * param, an ancestor of HOME (or HOME itself) for PROJECT. */
static bool cp_cli_risky(const char *name, const char *value, const char *home)
{
    if (strcmp(value, "/") == 0)
        return true;
    if (strcmp(name, "PROJECT") != 0 || !home)
        return false;
    size_t n = strlen(value);
    return strncmp(home, value, n) == 0 && (home[n] == '/' || !home[n]);
}

bool cp_cli_bindings_sane(const struct cp_cli_common *c, const char *file)
{
    const char *home = cp_cli_bound(c, "HOME");
    bool risky = false;
    for (size_t k = c->nexplicit; c->bound_run && k < c->ndefines; k++)
        risky |= cp_cli_risky(c->defines[k].name, c->defines[k].value, home);
    if (!risky)
        return true; /* the common case: no second pass over the policy */
    /* The rules before binding, with their roots: a symbolic resolve
     * whose diagnostics are dropped (the real compilation reports them). */
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.main_path = file;
    bool ok = true;
    if (!cp_parse(&cx) && !cp_diag_errors(&cx.diags) && cx.ast &&
        !cp_resolve(&cx) && cx.policy) {
        for (size_t k = c->nexplicit; k < c->ndefines && ok; k++) {
            const char *nm = c->defines[k].name, *v = c->defines[k].value;
            const struct cp_rule *r = cp_cli_covering(cx.policy, nm, v, "/");
            const char *what = "the whole file system";
            if (!r && strcmp(nm, "PROJECT") == 0 && home) {
                r = cp_cli_covering(cx.policy, nm, v, home);
                what = "HOME";
            }
            if (r) {
                cp_cli_refuse(c, cx.arena, r, nm, v, what);
                ok = false;
            }
        }
    }
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
    return ok;
}

bool cp_cli_project_sane(const char *cmd, const char *file, const char *project)
{
    struct cp_cli_common c = {.cmd = cmd, .bound_run = true};
    cp_cli_bind1(&c, "HOME", getenv("HOME"));
    cp_cli_bind1(&c, "PROJECT", project);
    bool ok = cp_cli_bindings_sane(&c, file);
    cp_cli_common_free(&c);
    return ok;
}

bool cp_cli_mkdirs(char *path, mode_t mode)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(path, mode) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, mode) == 0 || errno == EEXIST;
}

char *cp_cli_gate_program(const char *cmd)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr,
                "confpol %s: cannot find the confpol binary "
                "(/proc/self/exe): %s\n",
                cmd, strerror(errno));
        return NULL;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/'); /* absolute: a slash is there */
    static const char name[] = "/confpol-gate";
    if (!slash || (size_t)(slash - self) + sizeof name > sizeof self) {
        fprintf(stderr, "confpol %s: the path of confpol is too long\n", cmd);
        return NULL;
    }
    memcpy(slash, name, sizeof name);
    char *gate = cp_xstrdup(self);
    struct stat st;
    if (stat(gate, &st) != 0 || !S_ISREG(st.st_mode) ||
        access(gate, X_OK) != 0) {
        fprintf(stderr,
                "confpol %s: the hook program '%s' is missing or not "
                "executable (it is installed beside confpol; the hook "
                "would block every tool call)\n",
                cmd, gate);
        free(gate);
        return NULL;
    }
    return gate;
}

bool cp_cli_read_file(const char *path, struct cp_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cp_buf_add(out, chunk, n);
    bool ok = !ferror(f);
    fclose(f);
    if (!out->data)
        cp_buf_adds(out, "");
    return ok;
}

/* A -D of a param the client command binds itself: refused (said). */
static bool cp_cli_client_bound(const struct cp_cli_client *c, const char *def)
{
    for (const char *const *b = c->bound; b && *b; b++)
        if (strncmp(def, *b, strlen(*b)) == 0) {
            fprintf(stderr, "confpol %s: %s\n", c->cmd, c->bound_why);
            return true;
        }
    return false;
}

/* One option at argv[*i] (not --help nor '--').  Returns -1 when taken,
 * else the exit status (the message printed). */
static int cp_cli_client_opt(struct cp_cli_client *c, int argc, char **argv,
                             int *i)
{
    const char *s = argv[*i];
    if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) {
        c->quiet = true;
    } else if (c->flag && strcmp(s, c->flag) == 0) {
        c->flag_set = true;
    } else if (strcmp(s, "-D") == 0 || strcmp(s, "--diagnostics-format") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "confpol %s: %s expects a value\n", c->cmd, s);
            return 2;
        }
        if (strcmp(s, "-D") == 0 && cp_cli_client_bound(c, argv[*i + 1]))
            return 2;
        c->bargv[c->bargc++] = s;
        c->bargv[c->bargc++] = argv[++*i];
    } else if (s[0] == '-' && (s[1] == 'D' || s[1] == 'W')) {
        if (s[1] == 'D' && cp_cli_client_bound(c, s + 2))
            return 2;
        c->bargv[c->bargc++] = s;
    } else {
        fprintf(stderr,
                "confpol %s: unknown option '%s'\n"
                "see 'confpol %s --help'\n",
                c->cmd, s, c->cmd);
        return 2;
    }
    return -1;
}

int cp_cli_client_args(struct cp_cli_client *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int rc = -1;
        if (strcmp(s, "--") == 0) {
            c->rest = i + 1;
            break;
        } else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            c->usage(stdout);
            return 0;
        } else if (s[0] == '-' && s[1]) {
            rc = cp_cli_client_opt(c, argc, argv, &i);
        } else if (c->policy) {
            fprintf(stderr,
                    "confpol %s: one POLICY only (%s arguments go after "
                    "'--')\n",
                    c->cmd, c->whose);
            rc = 2;
        } else {
            c->policy = s;
        }
        if (rc >= 0)
            return rc;
    }
    return -1;
}

char *cp_cli_client_dir(const char *cmd, bool cache, const char *home,
                        const char *project)
{
    const char *xdg = getenv(cache ? "XDG_CACHE_HOME" : "XDG_CONFIG_HOME");
    struct cp_buf b = {0};
    if (xdg && xdg[0] == '/')
        cp_buf_printf(&b, "%s/confpol", xdg);
    else if (home && home[0] == '/')
        cp_buf_printf(&b, "%s/%s/confpol", home, cache ? ".cache" : ".config");
    else
        return NULL;
    unsigned char md[CP_SHA256_LEN];
    struct cp_sha256 h;
    cp_sha256_init(&h);
    cp_sha256_update(&h, project, strlen(project));
    cp_sha256_final(&h, md);
    const char *base = strrchr(project, '/');
    cp_buf_printf(&b, "/%s/%s-", cmd, base && base[1] ? base + 1 : "root");
    for (int i = 0; i < 8; i++)
        cp_buf_printf(&b, "%02x", md[i]);
    return b.data;
}

/* SPDX-License-Identifier: MIT */
/* confpol build: compile a policy, run each target's check and emit into
 * memory, and only when the whole run has no error write DIR/STEM.sb,
 * DIR/STEM.bwrap and DIR/STEM.claude.json: every temporary file first, then
 * the renames, with signals blocked across that phase, so that DIR either
 * gets every new file or stays unchanged (spec/backends.md, "Common"). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"

static void cp_build_usage(FILE *out)
{
    fputs(
        "usage: confpol build --target sbpl|bwrap|claude|codex|all [OPTIONS] "
        "-o DIR FILE\n"
        "       confpol build --target bwrap --format shell [OPTIONS] FILE\n"
        "\n"
        "Compiles the policy and writes DIR/STEM.sb, DIR/STEM.bwrap,\n"
        "DIR/STEM.claude.json and DIR/STEM.codex.toml (STEM = FILE's name\n"
        "without .confpol) for the chosen targets (all: every one but codex,\n"
        "which needs its params bound with -D).  Files are written only when\n"
        "the whole build has no\n"
        "error, atomically; on any error no file in DIR changes.\n"
        "\n"
        "options:\n"
        "  --target T                sbpl, bwrap, claude, codex or all\n"
        "                            (repeatable)\n"
        "  -o DIR                    output directory (must exist)\n"
        "  -D NAME=VALUE             bind a param (analysis, claude, codex)\n"
        "  -Wname, -Wno-name         enable or disable a warning (name\n"
        "                            or code); -Werror=name: one error\n"
        "  -Werror                   make every warning, fidelity losses\n"
        "                            included, an error\n"
        "  --expand-globs            bwrap: expand deny globs when the\n"
        "                            sandbox starts\n"
        "  --fsync                   make the written files durable (fsync\n"
        "                            them and DIR) before exiting\n"
        "  --fidelity                print per rule and target: exact,\n"
        "                            stricter or not enforced, and why\n"
        "  --format shell            with --target bwrap: print a readable\n"
        "                            bwrap command line instead of writing\n"
        "  -v, --verbose             report the mount count of bwrap\n"
        "  --diagnostics-format F    text (default), json or sarif\n"
        "  --color[=WHEN]            colour the text: auto, always, never\n"
        "  --all-diagnostics         print every warning (many of one\n"
        "                            cause are grouped by default)\n"
        "  --help                    print this help\n"
        "\n"
        "exit status: 0 written, 1 the policy has errors, 2 usage or I/O "
        "error\n",
        out);
}

/* At most this many targets (cp_backends[]); a set of targets is a bit
 * mask, bit i for cp_backends[i]. */
#define MAX_TARGETS 8

struct out_file {
    const struct cp_backend *be;
    struct cp_buf buf;
    char *path;      /* DIR/STEM.suffix */
    char *tmp;       /* temporary file, while it exists */
    bool sync;       /* fsync it before the rename */
    bool output;     /* the target wrote an artifact (buf may be freed) */
    bool same;       /* the destination holds exactly these bytes */
    int err;         /* staging failed with this errno */
    bool err_create; /* ... creating the temporary file (else writing) */
};

/* The command line of one build. */
struct build_args {
    struct cp_cli_common c;
    unsigned targets; /* bit i: cp_backends[i] */
    const char *outdir, *file;
    char *absdir; /* outdir resolved (heap) */
    bool fidelity, shell, verbose, expand, durable;
};

/* One build in progress: the targets, their outputs and the signals held
 * while outputs are staged. */
struct build_run {
    struct build_args *b;
    struct cp_ctx *cx;
    struct cp_backend_opts bo;
    const struct cp_backend *bes[MAX_TARGETS];
    size_t nbe;
    struct out_file files[MAX_TARGETS];
    size_t nfiles;
    bool staging, stage_failed;
    sigset_t block, old;
    int rc;
    int lockfd; /* DIR, flock'ed while this build writes there (or -1) */
};

/* The set of every target `all` names: those that need no binding. */
static unsigned all_targets(void)
{
    unsigned m = 0;
    for (size_t i = 0; cp_backends[i] && i < MAX_TARGETS; i++)
        if (!cp_backends[i]->bound_only)
            m |= 1u << i;
    return m;
}

/* Adds the target named v ("all": every one) to *mask. */
static int parse_target(const char *v, unsigned *mask)
{
    if (strcmp(v, "all") == 0) {
        *mask |= all_targets();
        return 0;
    }
    const struct cp_backend *be = cp_backend_find(v);
    for (size_t i = 0; be && cp_backends[i] && i < MAX_TARGETS; i++)
        if (cp_backends[i] == be) {
            *mask |= 1u << i;
            return 0;
        }
    return -1;
}

/* "sbpl, bwrap, claude or all", from the table (arena). */
static const char *target_words(struct cp_arena *a)
{
    const char *s = "";
    for (size_t i = 0; cp_backends[i] && i < MAX_TARGETS; i++)
        s = cp_arena_printf(a, "%s%s, ", s, cp_backends[i]->name);
    size_t n = strlen(s);
    return cp_arena_printf(a, "%.*s or all", (int)(n >= 2 ? n - 2 : 0), s);
}

/* The usage error of a missing or unknown --target value. */
static int bad_target(const char *v)
{
    const char *words[MAX_TARGETS + 2];
    size_t n = 0;
    for (size_t i = 0; cp_backends[i] && i < MAX_TARGETS; i++)
        words[n++] = cp_backends[i]->name;
    words[n++] = "all";
    words[n] = NULL;
    const char *near = v ? cp_nearest_word(v, words) : NULL;
    struct cp_arena *a = cp_arena_new();
    int rc = cp_cli_usage_error("build", "--target needs %s%s%s%s%s%s%s",
                                target_words(a), v ? " (got '" : "", v ? v : "",
                                v ? "')" : "", near ? "; did you mean '" : "",
                                near ? near : "", near ? "'?" : "");
    cp_arena_free(a);
    return rc;
}

static const char *fid_text(enum cp_fidelity f)
{
    switch (f) {
    case CP_FID_EXACT:
        return "exact";
    case CP_FID_STRICTER:
        return "stricter";
    case CP_FID_NOT_ENFORCED:
        return "not enforced by this target";
    }
    return "?";
}

static const char *origin_text(const struct cp_rule *r)
{
    switch (r->origin) {
    case CP_ORIGIN_SOURCE:
        return "source";
    case CP_ORIGIN_CONFINED:
        return "profile confined";
    case CP_ORIGIN_EXCLUSIVE:
        return "profile exclusive";
    }
    return "?";
}

/* The rule as the fidelity table shows it: its text, "" for a network
 * deny, or its domain or path formatted when it has no source text. */
static const char *fid_rule_text(struct cp_arena *a, const struct cp_rule *r)
{
    const char *text = r->text;
    if (r->kind == CP_R_NET_DENY)
        text = "";
    else if (r->kind == CP_R_NET_ALLOW && !text)
        text = cp_domain_format(a, &r->u.dom);
    else if (!text && r->kind != CP_R_GATE_ASK && r->kind != CP_R_GATE_DENY)
        text = cp_path_format(a, &r->u.path);
    return text;
}

/* The rows of one target. */
static void print_fidelity_rows(struct cp_ctx *cx, const struct cp_backend *be,
                                const struct cp_backend_opts *o,
                                enum cp_fidelity *fid, const char **why)
{
    const struct cp_policy *p = cx->policy;
    struct cp_arena *a = cx->arena;
    cp_backend_fidelity(be, p, o, a, fid, why);
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        const char *text = fid_rule_text(a, r);
        char where[PATH_MAX + 32];
        if (r->loc.src)
            snprintf(where, sizeof where, "%s:%u", r->loc.src->path,
                     r->loc.line);
        else
            snprintf(where, sizeof where, "(%s%s%s)", origin_text(r),
                     r->why ? ": " : "", r->why ? r->why : "");
        printf("%s: %s%s%s\t%s\t%s\t%s\n", where, cp_rule_kind_text(r->kind),
               text && *text ? " " : "", text ? text : "", be->name,
               fid_text(fid[i]), why[i] ? why[i] : "");
    }
}

/* Prints the fidelity table: one line per rule and target, each target
 * followed by the one rated beside it (the Landlock enforcer applies the
 * bwrap artifact). */
static void print_fidelity(struct cp_ctx *cx,
                           const struct cp_backend *const *bes, size_t nbe,
                           const struct cp_backend_opts *o)
{
    const struct cp_policy *p = cx->policy;
    struct cp_arena *a = cx->arena;
    enum cp_fidelity *fid = cp_arena_alloc(a, (p->nrules + 1) * sizeof *fid);
    const char **why = cp_arena_alloc(a, (p->nrules + 1) * sizeof *why);
    printf("# fidelity of %s (profile %s)\n", p->main_path ? p->main_path : "",
           cp_profile_text(p->profile));
    printf("# rule\ttarget\tfidelity\treason\n");
    for (size_t k = 0; k < nbe; k++) {
        print_fidelity_rows(cx, bes[k], o, fid, why);
        if (bes[k]->rated_beside)
            print_fidelity_rows(cx, bes[k]->rated_beside, o, fid, why);
    }
    fflush(stdout);
}

/* Is the file at `path` already a regular file of mode 0644 holding
 * exactly `len` bytes `data`?  Then the output is unchanged and is not
 * rewritten.  With `durable`, such a file is fsync'ed all the same (an
 * earlier build may have left it in the page cache only). */
static bool same_file(const char *path, const char *data, size_t len,
                      bool durable)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                (st.st_mode & 07777) == 0644 && (size_t)st.st_size == len;
    char chunk[1 << 16];
    for (size_t off = 0; same && off < len;) {
        size_t want = len - off < sizeof chunk ? len - off : sizeof chunk;
        ssize_t r = read(fd, chunk, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || memcmp(chunk, data + off, (size_t)r) != 0)
            same = false;
        else
            off += (size_t)r;
    }
    if (same && durable && fsync(fd) != 0)
        same = false;
    close(fd);
    return same;
}

/* How a destination was replaced, for the undo of a failed run. */
enum repl {
    R_NONE,      /* not (yet) replaced */
    R_CREATED,   /* there was no file: undo removes it */
    R_EXCHANGED, /* renameat2(RENAME_EXCHANGE): the old file is at tmp */
    R_LINKED,    /* the old file is kept as the hard link bak */
};

/* The signals that would end the process, held from the first temporary
 * file to the last rename. */
static void fatal_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGPIPE);
}

/* Has one of them arrived (and would it end the process)? */
static bool interrupted(const sigset_t *block, const sigset_t *old)
{
    sigset_t pend;
    sigemptyset(&pend);
    sigpending(&pend);
    for (int s = 1; s < NSIG; s++) {
        struct sigaction sa;
        if (sigismember(block, s) && sigismember(&pend, s) &&
            !sigismember(old, s) && sigaction(s, NULL, &sa) == 0 &&
            sa.sa_handler != SIG_IGN)
            return true;
    }
    return false;
}

/* Stages one output as soon as its target has emitted it, so that only
 * one artifact is ever held in memory: an unchanged destination is noted,
 * anything else goes to a temporary file in DIR (invisible until the
 * rename).  The buffer is freed.  A failure is recorded in f->err and
 * reported by commit_all, after the diagnostics, like every I/O error.
 * Signals must be held (fatal_signals) while temporary files exist. */
static void stage(struct out_file *f, bool durable)
{
    f->output = true;
    f->same = same_file(f->path, f->buf.data, f->buf.len, durable);
    if (!f->same) {
        size_t len = strlen(f->path);
        f->tmp = cp_xmalloc(len + 16);
        memcpy(f->tmp, f->path, len);
        memcpy(f->tmp + len, ".tmp.XXXXXX", 12);
        int fd = mkstemp(f->tmp);
        if (fd < 0) {
            f->err = errno;
            f->err_create = true;
            free(f->tmp);
            f->tmp = NULL;
        } else {
            int err = 0;
            for (size_t off = 0; off < f->buf.len && !err;) {
                ssize_t w = write(fd, f->buf.data + off, f->buf.len - off);
                if (w < 0 && errno != EINTR)
                    err = errno;
                else if (w > 0)
                    off += (size_t)w;
            }
            if (!err && fchmod(fd, 0644) != 0)
                err = errno;
            if (!err && (durable || f->sync) && fsync(fd) != 0)
                err = errno;
            if (close(fd) != 0 && !err)
                err = errno;
            f->err = err;
        }
    }
    cp_buf_free(&f->buf);
}

/* Removes the temporary files of staged outputs. */
static void unstage(struct out_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (f[i].tmp) {
            unlink(f[i].tmp);
            free(f[i].tmp);
            f[i].tmp = NULL;
        }
}

/* Reports the outputs whose staging failed; *nchanged: how many have a
 * temporary file.  Returns 0 or -1. */
static int staging_errors(const struct out_file *f, size_t n, size_t *nchanged)
{
    int rc = 0;
    *nchanged = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (f[i].err) {
            if (f[i].err_create)
                fprintf(stderr,
                        "confpol build: cannot create a file in the "
                        "output directory for '%s': %s\n",
                        f[i].path, strerror(f[i].err));
            else
                fprintf(stderr, "confpol build: cannot write '%s': %s\n",
                        f[i].path, strerror(f[i].err));
            rc = -1;
        }
        if (f[i].tmp)
            (*nchanged)++;
    }
    return rc;
}

/* Every destination must be absent or a regular file before the first
 * rename, so that a later rename cannot fail on it halfway through;
 * exists[i]: there is one.  Returns 0 or -1 (reported). */
static int check_destinations(const struct out_file *f, size_t n, bool *exists)
{
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!f[i].tmp)
            continue;
        if (lstat(f[i].path, &st) == 0) {
            exists[i] = true;
            if (!S_ISREG(st.st_mode)) {
                fprintf(stderr,
                        "confpol build: cannot replace '%s': not a "
                        "regular file\n",
                        f[i].path);
                return -1;
            }
        } else if (errno != ENOENT) {
            fprintf(stderr, "confpol build: cannot replace '%s': %s\n",
                    f[i].path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Exchanges the staged file with the existing destination.  Returns 1 when
 * exchanged, 0 when the file system cannot exchange, -1 on an error
 * (reported). */
static int exchange_into(const struct out_file *f)
{
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->path, RENAME_EXCHANGE) == 0)
        return 1;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP &&
        errno != ENOENT) {
        fprintf(stderr, "confpol build: cannot rename into '%s': %s\n", f->path,
                strerror(errno));
        return -1;
    }
#else
    (void)f;
#endif
    return 0;
}

/* No exchange on this file system: keeps the old file as a hard link
 * *bak until every rename has succeeded (*bak stays NULL when nothing was
 * there: undo is then an unlink).  Returns 0 or -1 (reported). */
static int keep_old(const struct out_file *f, char **bak)
{
    size_t len = strlen(f->path);
    *bak = cp_xmalloc(len + 16);
    memcpy(*bak, f->path, len);
    memcpy(*bak + len, ".bak.XXXXXX", 12);
    int bfd = mkstemp(*bak);
    if (bfd >= 0) {
        close(bfd);
        unlink(*bak);
    }
    if (bfd < 0 || (link(f->path, *bak) != 0 && errno != ENOENT)) {
        fprintf(stderr, "confpol build: cannot replace '%s': %s\n", f->path,
                strerror(errno));
        free(*bak);
        *bak = NULL;
        return -1;
    }
    if (access(*bak, F_OK) != 0) {
        free(*bak);
        *bak = NULL;
    }
    return 0;
}

/* Puts one staged output into place; *how and *bak say how, for the
 * undo.  Returns 0 or -1 (reported). */
static int replace_one(struct out_file *f, bool exists, enum repl *how,
                       char **bak)
{
    if (exists) {
        int x = exchange_into(f);
        if (x != 0) {
            if (x > 0)
                *how = R_EXCHANGED;
            return x > 0 ? 0 : -1;
        }
        if (keep_old(f, bak) != 0)
            return -1;
    }
    if (rename(f->tmp, f->path) != 0) {
        fprintf(stderr, "confpol build: cannot rename into '%s': %s\n", f->path,
                strerror(errno));
        if (*bak)
            unlink(*bak);
        return -1;
    }
    free(f->tmp);
    f->tmp = NULL;
    *how = *bak ? R_LINKED : R_CREATED;
    return 0;
}

/* Gives one destination its old state back after a failed run. */
static void undo_one(struct out_file *f, enum repl how, const char *bak)
{
    switch (how) {
    case R_NONE:
        break;
    case R_CREATED:
        (void)unlink(f->path);
        break;
    case R_EXCHANGED:
        if (rename(f->tmp, f->path) == 0) {
            free(f->tmp);
            f->tmp = NULL;
        }
        break;
    case R_LINKED:
        (void)rename(bak, f->path);
        break;
    }
}

/* Renames every staged output into place, undoing them all when one
 * fails.  Returns 0 or -1 (reported). */
static int rename_all(struct out_file *f, size_t n, const bool *exists)
{
    int rc = 0;
    enum repl *how = cp_xcalloc(n, sizeof *how);
    char **bak = cp_xcalloc(n, sizeof *bak);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (f[i].tmp)
            rc = replace_one(&f[i], exists[i], &how[i], &bak[i]);
    for (size_t i = 0; i < n; i++) {
        if (rc != 0)
            undo_one(&f[i], how[i], bak[i]);
        else if (bak[i])
            unlink(bak[i]);
        /* After an exchange the temporary name holds the old file,
         * which unstage removes. */
        free(bak[i]);
    }
    free(bak);
    free(how);
    return rc;
}

/* fsyncs the directory that holds path. */
static void fsync_dir_of(const char *path)
{
    char *dir = cp_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    int dfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
}

/* Renames the staged outputs into place.  A staging error or a signal that
 * arrived makes it remove the temporary files with DIR unchanged.
 * Replacing an existing file exchanges it with the temporary file
 * (renameat2 RENAME_EXCHANGE), so that the old file stays under the
 * temporary name until every rename has succeeded, and a failed rename
 * undoes the earlier ones; where the exchange is unsupported, the old file
 * is kept as a hard link instead.  Files were fsync'ed when staged if
 * `durable` (--fsync) or marked `sync` (an artifact whose readers cannot
 * tell it was cut short); DIR is fsync'ed only when `durable`
 * (spec/cli.md).  Returns 0, or -1 after printing an error (no file
 * changed), or -1 with a fatal signal pending (delivered when the caller
 * restores the signal mask). */
static int commit_all(struct out_file *f, size_t n, bool durable,
                      const sigset_t *block, const sigset_t *old)
{
    size_t nchanged;
    int rc = staging_errors(f, n, &nchanged);
    bool intr = interrupted(block, old);
    bool *exists = cp_xcalloc(n ? n : 1, sizeof *exists);
    if (rc == 0 && !intr)
        rc = check_destinations(f, n, exists);
    if (rc == 0 && !intr && nchanged)
        rc = rename_all(f, n, exists);
    unstage(f, n);
    if (rc == 0 && !intr && durable && n)
        fsync_dir_of(f[0].path);
    free(exists);
    return intr ? -1 : rc;
}

static const char *const cp_build_opts[] = {
    "--target", "--output",  "--format", "--fidelity", "--expand-globs",
    "--fsync",  "--verbose", "--help",   NULL};

/* The value of an option that takes one: `--opt=V` or the next argument;
 * NULL when there is none. */
static const char *opt_value(const char *a, size_t len, int argc, char **argv,
                             int *i)
{
    if (a[len] == '=')
        return a + len + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* Handles an option of build's own: 1 handled, 0 not one of them, or an
 * exit status + 3 (usage error, --help). */
static int own_option(struct build_args *b, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        cp_build_usage(stdout);
        return 3;
    }
    if (strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0) {
        const char *v = opt_value(a, 8, argc, argv, i);
        if (!v || parse_target(v, &b->targets) != 0)
            return bad_target(v) + 3;
        return 1;
    }
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
        if (*i + 1 >= argc)
            return cp_cli_usage_error("build", "-o needs a directory") + 3;
        b->outdir = argv[++*i];
        return 1;
    }
    if (strncmp(a, "-o", 2) == 0 && a[2]) {
        b->outdir = a + 2;
        return 1;
    }
    if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
        const char *v = opt_value(a, 8, argc, argv, i);
        if (!v || (strcmp(v, "shell") != 0 && strcmp(v, "artifact") != 0))
            return cp_cli_usage_error("build",
                                      "--format needs 'shell' or 'artifact'") +
                   3;
        b->shell = strcmp(v, "shell") == 0;
        return 1;
    }
    return 0;
}

/* The flags of build: true when a is one of them. */
static bool own_flag(struct build_args *b, const char *a)
{
    bool *flag = strcmp(a, "--fidelity") == 0       ? &b->fidelity
                 : strcmp(a, "--expand-globs") == 0 ? &b->expand
                 : strcmp(a, "--fsync") == 0        ? &b->durable
                 : strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0
                     ? &b->verbose
                     : NULL;
    if (flag)
        *flag = true;
    return flag != NULL;
}

/* One option.  Returns -1 to go on, or the exit status. */
static int parse_option(struct build_args *b, int argc, char **argv, int *i)
{
    int r = own_option(b, argc, argv, i);
    if (r >= 3)
        return r - 3;
    if (r == 1 || own_flag(b, argv[*i]))
        return -1;
    r = cp_cli_common_opt(&b->c, argc, argv, i);
    if (r < 0)
        return 2;
    if (r == 0)
        return cp_cli_unknown_option("build", argv[*i], cp_build_opts, true);
    return -1;
}

/* Reads the command line.  Returns -1 to go on, or the exit status. */
static int parse_args(struct build_args *b, int argc, char **argv)
{
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-') {
            if (b->file)
                return cp_cli_usage_error("build",
                                          "more than one policy file "
                                          "('%s' and '%s')",
                                          b->file, a);
            b->file = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else {
            int rc = parse_option(b, argc, argv, &i);
            if (rc >= 0)
                return rc;
        }
    }
    return -1;
}

/* The target that has a shell form, for --format shell. */
static const struct cp_backend *shell_target(void)
{
    for (size_t i = 0; cp_backends[i]; i++)
        if (cp_backends[i]->shell_format)
            return cp_backends[i];
    return NULL;
}

/* Is the set exactly one target with a shell form? */
static bool shell_alone(unsigned targets)
{
    for (size_t i = 0; cp_backends[i] && i < MAX_TARGETS; i++)
        if (targets == 1u << i)
            return cp_backends[i]->shell_format;
    return false;
}

/* Checks what the options need together and resolves DIR.  Returns -1
 * to go on, or the exit status. */
static int check_args(struct build_args *b)
{
    if (!b->file)
        return cp_cli_usage_error("build", "no policy file given");
    if (!b->targets) {
        struct cp_arena *a = cp_arena_new();
        int rc = cp_cli_usage_error("build", "no --target given (%s)",
                                    target_words(a));
        cp_arena_free(a);
        return rc;
    }
    if (b->shell && !shell_alone(b->targets)) {
        const struct cp_backend *sh = shell_target();
        return cp_cli_usage_error("build",
                                  "--format shell needs --target %s alone",
                                  sh ? sh->name : "?");
    }
    if (!b->outdir && !b->shell)
        return cp_cli_usage_error("build",
                                  "no output directory given (-o DIR)");
    if (b->outdir) {
        struct stat st;
        b->absdir = realpath(b->outdir, NULL);
        if (!b->absdir || stat(b->absdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "confpol build: output directory '%s': %s\n",
                    b->outdir, b->absdir ? "not a directory" : strerror(errno));
            return 2;
        }
    }
    return -1;
}

/* Compiles the policy.  Returns -1 to go on, or the exit status. */
static int compile(struct build_args *b, struct cp_ctx *cx)
{
    b->c.fidelity = b->fidelity;
    if (!cp_cli_apply(&b->c, cx))
        return 2;
    cx->main_path = b->file;
    cx->opts.outdir = b->absdir ? cp_arena_strdup(cx->arena, b->absdir) : NULL;
    cx->opts.expand_globs = b->expand;
    if (cp_compile(cx) || !cx->policy) {
        cp_cli_print_diags(&b->c, cx);
        return cp_diag_errors(&cx->diags) ? cp_cli_error_status(cx) : 2;
    }
    cp_cli_flush_diags(&b->c, cx);
    return -1;
}

/* A policy with gates built without a target that enforces them gets the
 * note CP0721, naming the targets built ("sbpl and bwrap targets"). */
static void note_gates(struct build_run *r)
{
    const struct cp_policy *p = r->cx->policy;
    bool has_gate = false, enforced = false;
    for (size_t i = 0; i < p->nrules; i++)
        if (p->rules[i]->kind == CP_R_GATE_ASK ||
            p->rules[i]->kind == CP_R_GATE_DENY)
            has_gate = true;
    for (size_t k = 0; k < r->nbe; k++)
        enforced |= r->bes[k]->enforces_gates;
    if (!has_gate || enforced || r->nbe == 0 ||
        p->profile == CP_PROFILE_COOPERATIVE)
        return;
    const char *names = r->bes[0]->name;
    for (size_t k = 1; k < r->nbe; k++)
        names = cp_arena_printf(r->cx->arena, "%s%s%s", names,
                                k + 1 == r->nbe ? " and " : ", ",
                                r->bes[k]->name);
    cp_diag_report(&r->cx->diags, CP0721, NULL,
                   "the policy's gates are not enforced by the %s "
                   "target%s; build --target claude for the gate hook",
                   names, r->nbe > 1 ? "s" : "");
}

/* Builds one target into a new output and stages it. */
static void build_target(struct build_run *r, const struct cp_backend *be)
{
    struct cp_ctx *cx = r->cx;
    const struct cp_policy *p = cx->policy;
    size_t before = cp_diag_errors(&cx->diags);
    struct out_file *f = &r->files[r->nfiles++];
    f->be = be;
    int nerr = cp_backend_build(be, p, &r->bo, &cx->diags, &f->buf);
    if (cp_diag_errors(&cx->diags) != before || nerr) {
        if (cp_diag_errors(&cx->diags) == before)
            fprintf(stderr, "confpol build: the %s target failed\n", be->name);
        cp_buf_free(&f->buf);
        r->rc = 1;
        return;
    }
    f->sync = !be->truncation_detected;
    if (!r->staging || !f->buf.len)
        return;
    f->path = cp_arena_printf(cx->arena, "%s/%s%s", r->b->absdir,
                              p->stem ? p->stem : "policy",
                              be->suffix ? be->suffix : "");
    if (r->stage_failed) {
        f->output = true;
        cp_buf_free(&f->buf);
    } else {
        stage(f, r->b->durable);
        r->stage_failed = f->err != 0;
    }
}

/* Whether NAME is a temporary file of a build of policy STEM: an output's
 * name (STEM and a target's suffix), ".tmp." or ".bak.", and the six
 * letters or digits of mkstemp (stage, keep_old). */
static bool stale_name(const char *name, const char *stem)
{
    size_t sl = strlen(stem);
    if (strncmp(name, stem, sl) != 0)
        return false;
    for (size_t i = 0; cp_backends[i]; i++) {
        const char *suf = cp_backends[i]->suffix ? cp_backends[i]->suffix : "";
        const char *t = name + sl;
        if (strncmp(t, suf, strlen(suf)) != 0)
            continue;
        t += strlen(suf);
        if (strncmp(t, ".tmp.", 5) != 0 && strncmp(t, ".bak.", 5) != 0)
            continue;
        bool ok = strlen(t + 5) == 6;
        for (size_t k = 5; ok && t[k]; k++)
            ok = isalnum((unsigned char)t[k]) != 0;
        if (ok)
            return true;
    }
    return false;
}

/* Takes DIR's lock (flock on the directory, held until the build ends:
 * two builds into one DIR take turns) and then removes the temporary
 * files that a build of this policy killed without a chance to clean up
 * (SIGKILL, a power loss) left in DIR: with the lock held, no running
 * build owns one.  Only regular files of this user named as stale_name
 * says; without the lock nothing is removed. */
static void lock_and_sweep(struct build_run *r)
{
    r->lockfd = open(r->b->absdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r->lockfd < 0)
        return;
    if (flock(r->lockfd, LOCK_EX) != 0) {
        close(r->lockfd);
        r->lockfd = -1;
        return;
    }
    const char *stem = r->cx->policy->stem ? r->cx->policy->stem : "policy";
    int dfd = dup(r->lockfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        struct stat st;
        if (stale_name(e->d_name, stem) &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_uid == geteuid())
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Builds every target in turn.  Outputs are staged as soon as each target
 * has emitted them (one artifact in memory at a time), so the signals that
 * would end the process are held from here to the last rename.  Returns
 * false when a signal arrived (the rest is not built). */
static bool build_targets(struct build_run *r)
{
    fatal_signals(&r->block);
    if (r->staging)
        sigprocmask(SIG_BLOCK, &r->block, &r->old);
    for (size_t k = 0; k < r->nbe; k++) {
        build_target(r, r->bes[k]);
        /* Held across targets, so that the same rule and cause under two
         * targets prints once ("sbpl, bwrap: ..."); released early only
         * when many are held. */
        if (r->cx->diags.len > 65536)
            cp_cli_flush_diags(&r->b->c, r->cx);
        if (r->staging && interrupted(&r->block, &r->old))
            return false;
    }
    return !(r->staging && interrupted(&r->block, &r->old));
}

/* Prints the shell form of the outputs on stdout.  Returns the status. */
static int print_shell(const struct build_run *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].buf.len)
            fwrite(r->files[i].buf.data, 1, r->files[i].buf.len, stdout);
    return fflush(stdout) != 0 ? 2 : 0;
}

/* Renames the staged outputs into place.  Returns the status. */
static int commit_outputs(struct build_run *r)
{
    struct out_file w[MAX_TARGETS];
    size_t nw = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].output)
            w[nw++] = r->files[i];
    if (commit_all(w, nw, r->b->durable, &r->block, &r->old) != 0) {
        /* A pending signal is delivered here and ends the process. */
        sigprocmask(SIG_SETMASK, &r->old, NULL);
        return 2;
    }
    /* Otherwise the renames are done and DIR holds every new output: the
     * signals stay held until the process exits (only cleanup is left),
     * so that one arriving now cannot end with a failure status a build
     * whose DIR was updated (spec/backends.md); exit discards them. */
    return 0;
}

/* Builds, reports and writes the chosen targets of a compiled policy. */
static int run_targets(struct build_run *r)
{
    struct build_args *b = r->b;
    for (size_t i = 0; cp_backends[i] && i < MAX_TARGETS; i++)
        if (b->targets & (1u << i))
            r->bes[r->nbe++] = cp_backends[i];
    note_gates(r);
    r->staging = b->outdir && !b->shell;
    if (r->staging)
        lock_and_sweep(r);
    if (!build_targets(r)) {
        unstage(r->files, r->nfiles);
        sigprocmask(SIG_SETMASK, &r->old, NULL); /* ends the process */
        return 2;
    }
    if (b->fidelity)
        print_fidelity(r->cx, r->bes, r->nbe, &r->bo);
    cp_diags_sort(
        &r->cx->diags); /* the targets' records by rule, not by target */
    cp_cli_print_diags(&b->c, r->cx);
    if (cp_diag_errors(&r->cx->diags) || r->rc) {
        if (r->staging) {
            unstage(r->files, r->nfiles);
            sigprocmask(SIG_SETMASK, &r->old, NULL);
        }
        return 1;
    }
    return b->shell ? print_shell(r) : commit_outputs(r);
}

int cp_cmd_build(int argc, char **argv)
{
    struct build_args b = {.c = {.cmd = "build"}};
    int rc = parse_args(&b, argc, argv);
    if (rc < 0)
        rc = check_args(&b);
    if (rc < 0) {
        struct cp_ctx cx;
        cp_ctx_init(&cx);
        rc = compile(&b, &cx);
        if (rc < 0) {
            struct build_run r = {
                .b = &b,
                .cx = &cx,
                .lockfd = -1,
                .bo = {.expand_globs = b.expand,
                       .shell_format = b.shell,
                       .verbose = b.verbose || b.fidelity},
            };
            rc = run_targets(&r);
            for (size_t i = 0; i < r.nfiles; i++)
                cp_buf_free(&r.files[i].buf);
            if (r.lockfd >= 0)
                close(r.lockfd);
        }
        cp_ctx_free(&cx);
    }
    free(b.absdir);
    cp_cli_common_free(&b.c);
    return rc;
}

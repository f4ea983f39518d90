/* SPDX-License-Identifier: MIT */
/* confpol build: compile a policy, run each target's check and emit into
 * memory, and only when the whole run has no error write DIR/STEM.sb,
 * DIR/STEM.bwrap and DIR/STEM.claude.json: every temporary file first, then
 * the renames, with signals blocked across that phase, so that DIR either
 * gets every new file or stays unchanged (spec/backends.md, "Common"). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"

static void cp_build_usage(FILE *out)
{
    fputs("usage: confpol build --target sbpl|bwrap|claude|all [OPTIONS] "
          "-o DIR FILE\n"
          "       confpol build --target bwrap --format shell [OPTIONS] FILE\n"
          "\n"
          "Compiles the policy and writes DIR/STEM.sb, DIR/STEM.bwrap and\n"
          "DIR/STEM.claude.json (STEM = FILE's name without .confpol) for the\n"
          "chosen targets.  Files are written only when the whole build has no\n"
          "error, atomically; on any error no file in DIR changes.\n"
          "\n"
          "options:\n"
          "  --target T                sbpl, bwrap, claude or all (repeatable)\n"
          "  -o DIR                    output directory (must exist)\n"
          "  -D NAME=VALUE             bind a param (analysis and claude)\n"
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

enum { T_SBPL = 1, T_BWRAP = 2, T_CLAUDE = 4, T_ALL = 7 };

struct out_file {
    const struct cp_backend *be;
    struct cp_buf buf;
    char *path;  /* DIR/STEM.suffix */
    char *tmp;   /* temporary file, while it exists */
    bool sync;   /* fsync it before the rename */
    bool output; /* the target wrote an artifact (buf may be freed) */
    bool same;   /* the destination holds exactly these bytes */
    int err;     /* staging failed with this errno */
    bool err_create; /* ... creating the temporary file (else writing) */
};

static int parse_target(const char *v, unsigned *mask)
{
    if (strcmp(v, "sbpl") == 0)
        *mask |= T_SBPL;
    else if (strcmp(v, "bwrap") == 0)
        *mask |= T_BWRAP;
    else if (strcmp(v, "claude") == 0)
        *mask |= T_CLAUDE;
    else if (strcmp(v, "all") == 0)
        *mask |= T_ALL;
    else
        return -1;
    return 0;
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

/* Prints the fidelity table: one line per rule and target. */
static void print_fidelity(struct cp_ctx *cx, const struct cp_backend *const *bes,
                           size_t nbe, const struct cp_backend_opts *o)
{
    const struct cp_policy *p = cx->policy;
    struct cp_arena *a = cx->arena;
    enum cp_fidelity *fid = cp_arena_alloc(a, (p->nrules + 1) * sizeof *fid);
    const char **why = cp_arena_alloc(a, (p->nrules + 1) * sizeof *why);
    printf("# fidelity of %s (profile %s)\n", p->main_path ? p->main_path : "",
           cp_profile_text(p->profile));
    printf("# rule\ttarget\tfidelity\treason\n");
    /* The Landlock enforcer applies the bwrap artifact: rated beside it. */
    const struct cp_backend *all[8];
    size_t nall = 0;
    for (size_t k = 0; k < nbe && nall < 7; k++) {
        all[nall++] = bes[k];
        if (bes[k] == &cp_backend_bwrap)
            all[nall++] = &cp_backend_landlock;
    }
    for (size_t k = 0; k < nall; k++) {
        const struct cp_backend *be = all[k];
        if (be->fidelity_all) {
            be->fidelity_all(p, o, a, fid, why);
        } else {
            for (size_t i = 0; i < p->nrules; i++)
                fid[i] = be->fidelity(p, p->rules[i], a, &why[i]);
        }
        for (size_t i = 0; i < p->nrules; i++) {
            const struct cp_rule *r = p->rules[i];
            const char *text = r->text;
            if (r->kind == CP_R_NET_DENY)
                text = "";
            else if (r->kind == CP_R_NET_ALLOW && !text)
                text = cp_domain_format(a, &r->u.dom);
            else if (!text && r->kind != CP_R_GATE_ASK &&
                     r->kind != CP_R_GATE_DENY)
                text = cp_path_format(a, &r->u.path);
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
    R_NONE,     /* not (yet) replaced */
    R_CREATED,  /* there was no file: undo removes it */
    R_EXCHANGED, /* renameat2(RENAME_EXCHANGE): the old file is at tmp */
    R_LINKED,   /* the old file is kept as the hard link bak */
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
    int rc = 0;
    size_t nchanged = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (f[i].err) {
            if (f[i].err_create)
                fprintf(stderr, "confpol build: cannot create a file in the "
                                "output directory for '%s': %s\n",
                        f[i].path, strerror(f[i].err));
            else
                fprintf(stderr, "confpol build: cannot write '%s': %s\n",
                        f[i].path, strerror(f[i].err));
            rc = -1;
        }
        if (f[i].tmp)
            nchanged++;
    }
    bool intr = interrupted(block, old);
    /* Every destination must be absent or a regular file before the first
     * rename, so that a later rename cannot fail on it halfway through. */
    bool *exists = cp_xcalloc(n ? n : 1, sizeof *exists);
    for (size_t i = 0; i < n && rc == 0 && !intr; i++) {
        struct stat st;
        if (!f[i].tmp)
            continue;
        if (lstat(f[i].path, &st) == 0) {
            exists[i] = true;
            if (!S_ISREG(st.st_mode)) {
                fprintf(stderr, "confpol build: cannot replace '%s': not a "
                                "regular file\n",
                        f[i].path);
                rc = -1;
            }
        } else if (errno != ENOENT) {
            fprintf(stderr, "confpol build: cannot replace '%s': %s\n",
                    f[i].path, strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0 && !intr && nchanged) {
        enum repl *how = cp_xcalloc(n, sizeof *how);
        char **bak = cp_xcalloc(n, sizeof *bak);
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (!f[i].tmp)
                continue;
            if (exists[i]) {
#ifdef RENAME_EXCHANGE
                if (renameat2(AT_FDCWD, f[i].tmp, AT_FDCWD, f[i].path,
                              RENAME_EXCHANGE) == 0) {
                    how[i] = R_EXCHANGED;
                    continue;
                }
                if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP &&
                    errno != ENOENT) {
                    fprintf(stderr, "confpol build: cannot rename into "
                                    "'%s': %s\n",
                            f[i].path, strerror(errno));
                    rc = -1;
                    break;
                }
#endif
                /* No exchange on this file system: keep the old file as
                 * a hard link until every rename has succeeded. */
                size_t len = strlen(f[i].path);
                bak[i] = cp_xmalloc(len + 16);
                memcpy(bak[i], f[i].path, len);
                memcpy(bak[i] + len, ".bak.XXXXXX", 12);
                int bfd = mkstemp(bak[i]);
                if (bfd >= 0) {
                    close(bfd);
                    unlink(bak[i]);
                }
                if (bfd < 0 ||
                    (link(f[i].path, bak[i]) != 0 && errno != ENOENT)) {
                    fprintf(stderr, "confpol build: cannot replace '%s': %s\n",
                            f[i].path, strerror(errno));
                    free(bak[i]);
                    bak[i] = NULL;
                    rc = -1;
                    break;
                }
                if (access(bak[i], F_OK) != 0) {
                    free(bak[i]); /* nothing was there: undo is an unlink */
                    bak[i] = NULL;
                }
            }
            if (rename(f[i].tmp, f[i].path) != 0) {
                fprintf(stderr, "confpol build: cannot rename into '%s': %s\n",
                        f[i].path, strerror(errno));
                if (bak[i])
                    unlink(bak[i]);
                rc = -1;
                break;
            }
            free(f[i].tmp);
            f[i].tmp = NULL;
            how[i] = bak[i] ? R_LINKED : R_CREATED;
        }
        for (size_t i = 0; i < n; i++) {
            if (rc != 0) {
                /* Undo: every destination gets its old state back. */
                switch (how[i]) {
                case R_NONE:
                    break;
                case R_CREATED:
                    (void)unlink(f[i].path);
                    break;
                case R_EXCHANGED:
                    if (rename(f[i].tmp, f[i].path) == 0) {
                        free(f[i].tmp);
                        f[i].tmp = NULL;
                    }
                    break;
                case R_LINKED:
                    (void)rename(bak[i], f[i].path);
                    break;
                }
            } else if (bak[i]) {
                unlink(bak[i]);
            }
            /* After an exchange the temporary name holds the old file,
             * which unstage removes. */
            free(bak[i]);
        }
        free(bak);
        free(how);
    }
    unstage(f, n);
    if (rc == 0 && !intr && durable && n) {
        char *dir = cp_xstrdup(f[0].path);
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
    free(exists);
    return intr ? -1 : rc;
}

static const char *const cp_build_opts[] = {
    "--target", "--output", "--format", "--fidelity", "--expand-globs",
    "--fsync", "--verbose", "--help", NULL};

int cp_cmd_build(int argc, char **argv)
{
    struct cp_cli_common c = {.cmd = "build"};
    unsigned targets = 0;
    const char *outdir = NULL, *file = NULL;
    bool fidelity = false, shell = false, verbose = false, expand = false;
    bool durable = false;
    bool opts_done = false;
    int rc = 0;
    struct cp_ctx cx;
    bool have_cx = false;
    struct out_file files[3];
    size_t nfiles = 0;
    char *absdir = NULL;
    memset(files, 0, sizeof files);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-') {
            if (file) {
                rc = cp_cli_usage_error("build", "more than one policy file "
                                                 "('%s' and '%s')",
                                        file, a);
                goto out;
            }
            file = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_build_usage(stdout);
            goto out;
        } else if (strcmp(a, "--target") == 0 || strncmp(a, "--target=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || parse_target(v, &targets) != 0) {
                static const char *const tw[] = {"sbpl", "bwrap", "claude",
                                                 "all", NULL};
                const char *near = v ? cp_nearest_word(v, tw) : NULL;
                rc = cp_cli_usage_error(
                    "build", "--target needs sbpl, bwrap, claude or all%s%s%s%s%s%s",
                    v ? " (got '" : "", v ? v : "", v ? "')" : "",
                    near ? "; did you mean '" : "", near ? near : "",
                    near ? "'?" : "");
                goto out;
            }
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc) {
                rc = cp_cli_usage_error("build", "-o needs a directory");
                goto out;
            }
            outdir = argv[++i];
        } else if (strncmp(a, "-o", 2) == 0 && a[2]) {
            outdir = a + 2;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || (strcmp(v, "shell") != 0 && strcmp(v, "artifact") != 0)) {
                rc = cp_cli_usage_error("build",
                                        "--format needs 'shell' or 'artifact'");
                goto out;
            }
            shell = strcmp(v, "shell") == 0;
        } else if (strcmp(a, "--fidelity") == 0) {
            fidelity = true;
        } else if (strcmp(a, "--expand-globs") == 0) {
            expand = true;
        } else if (strcmp(a, "--fsync") == 0) {
            durable = true;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else {
            int r = cp_cli_common_opt(&c, argc, argv, &i);
            if (r < 0) {
                rc = 2;
                goto out;
            }
            if (r == 0) {
                rc = cp_cli_unknown_option("build", a, cp_build_opts, true);
                goto out;
            }
        }
    }
    if (!file) {
        rc = cp_cli_usage_error("build", "no policy file given");
        goto out;
    }
    if (!targets) {
        rc = cp_cli_usage_error("build", "no --target given (sbpl, bwrap, "
                                         "claude or all)");
        goto out;
    }
    if (shell && targets != T_BWRAP) {
        rc = cp_cli_usage_error("build",
                                "--format shell needs --target bwrap alone");
        goto out;
    }
    if (!outdir && !shell) {
        rc = cp_cli_usage_error("build", "no output directory given (-o DIR)");
        goto out;
    }
    if (outdir) {
        struct stat st;
        absdir = realpath(outdir, NULL);
        if (!absdir || stat(absdir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "confpol build: output directory '%s': %s\n", outdir,
                    absdir ? "not a directory" : strerror(errno));
            rc = 2;
            goto out;
        }
    }

    cp_ctx_init(&cx);
    have_cx = true;
    if (!cp_cli_apply(&c, &cx)) {
        rc = 2;
        goto out;
    }
    cx.main_path = file;
    cx.opts.outdir = absdir ? cp_arena_strdup(cx.arena, absdir) : NULL;
    cx.opts.expand_globs = expand;
    if (cp_compile(&cx) || !cx.policy) {
        cp_cli_print_diags(&c, &cx);
        rc = cp_diag_errors(&cx.diags) ? cp_cli_error_status(&cx) : 2;
        goto out;
    }

    cp_cli_flush_diags(&c, &cx);
    struct cp_backend_opts bo = {.expand_globs = expand, .shell_format = shell};
    const struct cp_policy *p = cx.policy;
    const struct cp_backend *bes[3];
    size_t nbe = 0;
    for (size_t i = 0; cp_backends[i]; i++) {
        const char *n = cp_backends[i]->name;
        unsigned bit = strcmp(n, "sbpl") == 0    ? T_SBPL
                       : strcmp(n, "bwrap") == 0 ? T_BWRAP
                                                 : T_CLAUDE;
        if (targets & bit)
            bes[nbe++] = cp_backends[i];
    }

    bool has_gate = false;
    for (size_t i = 0; i < p->nrules; i++)
        if (p->rules[i]->kind == CP_R_GATE_ASK ||
            p->rules[i]->kind == CP_R_GATE_DENY)
            has_gate = true;
    if (has_gate && !(targets & T_CLAUDE) &&
        p->profile != CP_PROFILE_COOPERATIVE)
        cp_diag_report(&cx.diags, CP0721, NULL,
                       "the policy's gates are not enforced by the %s "
                       "target%s; build --target claude for the gate hook",
                       nbe == 2 ? "sbpl and bwrap" : bes[0]->name,
                       nbe == 2 ? "s" : "");

    /* Outputs are staged as soon as each target has emitted them (one
     * artifact in memory at a time), so the signals that would end the
     * process are held from here to the last rename. */
    bool staging = outdir && !shell, stage_failed = false;
    sigset_t block, old;
    fatal_signals(&block);
    if (staging)
        sigprocmask(SIG_BLOCK, &block, &old);
    for (size_t k = 0; k < nbe; k++) {
        const struct cp_backend *be = bes[k];
        size_t before = cp_diag_errors(&cx.diags);
        struct out_file *f = &files[nfiles++];
        f->be = be;
        int nerr = be->build(p, &bo, &cx.diags, &f->buf);
        if (cp_diag_errors(&cx.diags) != before || nerr) {
            if (cp_diag_errors(&cx.diags) == before)
                fprintf(stderr, "confpol build: the %s target failed\n",
                        be->name);
            cp_buf_free(&f->buf);
            rc = 1;
            continue;
        }
        if (f->buf.len && strcmp(be->name, "bwrap") == 0 && !shell &&
            (verbose || fidelity))
            cp_diag_report(&cx.diags, CP0722, NULL, "bwrap: %zu mounts",
                           cp_bwrap_count_mounts(f->buf.data, f->buf.len));
        f->sync = !be->truncation_detected;
        if (staging && f->buf.len) {
            f->path = cp_arena_printf(cx.arena, "%s/%s%s", absdir,
                                      p->stem ? p->stem : "policy",
                                      be->suffix ? be->suffix : "");
            if (stage_failed) {
                f->output = true;
                cp_buf_free(&f->buf);
            } else {
                stage(f, durable);
                stage_failed = f->err != 0;
            }
        }
        /* Held across targets, so that the same rule and cause under two
         * targets prints once ("sbpl, bwrap: ..."); released early only
         * when many are held. */
        if (cx.diags.len > 65536)
            cp_cli_flush_diags(&c, &cx);
        if (staging && interrupted(&block, &old))
            break; /* the rest is not built: see below */
    }
    if (staging && interrupted(&block, &old)) {
        unstage(files, nfiles);
        sigprocmask(SIG_SETMASK, &old, NULL); /* ends the process */
        rc = 2;
        goto out;
    }
    if (fidelity)
        print_fidelity(&cx, bes, nbe, &bo);
    cp_diags_sort(&cx.diags); /* the targets' records by rule, not by target */
    cp_cli_print_diags(&c, &cx);
    if (cp_diag_errors(&cx.diags) || rc) {
        if (staging) {
            unstage(files, nfiles);
            sigprocmask(SIG_SETMASK, &old, NULL);
        }
        rc = 1;
        goto out;
    }
    if (shell) {
        for (size_t i = 0; i < nfiles; i++)
            if (files[i].buf.len)
                fwrite(files[i].buf.data, 1, files[i].buf.len, stdout);
        if (fflush(stdout) != 0)
            rc = 2;
        goto out;
    }
    struct out_file w[3];
    size_t nw = 0;
    for (size_t i = 0; i < nfiles; i++)
        if (files[i].output)
            w[nw++] = files[i];
    if (commit_all(w, nw, durable, &block, &old) != 0) {
        rc = 2;
        /* A pending signal is delivered here and ends the process. */
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    /* Otherwise the renames are done and DIR holds every new output: the
     * signals stay held until the process exits (only cleanup is left),
     * so that one arriving now cannot end with a failure status a build
     * whose DIR was updated (spec/backends.md); exit discards them. */

out:
    for (size_t i = 0; i < nfiles; i++)
        cp_buf_free(&files[i].buf);
    if (have_cx)
        cp_ctx_free(&cx);
    free(absdir);
    cp_cli_common_free(&c);
    return rc;
}

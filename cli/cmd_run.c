/* SPDX-License-Identifier: MIT */
/* confpol run: compiles a policy in memory, lowers it with the bwrap
 * backend into a buffer, and applies that buffer through the same runtime
 * API as confpol-run (spec/runtime.md); the stage inside the sandbox is
 * confpol-stage, installed next to confpol. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "runtime.h"

static void run_usage(FILE *f)
{
    fputs("usage: confpol run [-D NAME=VALUE]... [--enforcer "
          "auto|bwrap|landlock] [-q]\n"
          "                   [--allow-unenforced] [--allow-partial] "
          "[--dry-run] [--explain-denials]\n"
          "                   [--keep-fd N]... FILE -- CMD [ARG]...\n"
          "\n"
          "Compiles FILE and runs CMD confined by it (bubblewrap and Landlock, "
          "or Landlock\n"
          "alone), exactly as confpol-run applies the .bwrap artifact `confpol "
          "build` would write.\n"
          "\n"
          "  -D NAME=VALUE       bind a param (absolute canonical directory); "
          "HOME comes\n"
          "                      from the environment and PROJECT from the "
          "current directory\n"
          "  --enforcer E        auto (default: bwrap when it can create its "
          "namespaces, else\n"
          "                      Landlock alone), bwrap, or landlock\n"
          "  -q                  no line saying that auto chose Landlock, no "
          "Landlock notes\n"
          "  --dry-run           print the plan (enforcer, Landlock ABI, "
          "grants, mounts); run nothing\n"
          "  --explain-denials   after CMD, explain the denials its error "
          "output reports: the\n"
          "                      rule that denies each path, or that the "
          "enforcer is stricter\n"
          "  --allow-unenforced  run even when the policy cannot be enforced "
          "(with a warning)\n"
          "  --allow-partial     run where a rule is only partly enforced "
          "(Landlock: a deny read\n"
          "                      hides contents, not metadata), with a "
          "warning\n"
          "  --keep-fd N         pass the caller's descriptor N into the "
          "sandbox (every other\n"
          "                      descriptor but 0, 1 and 2 is closed first)\n"
          "  -Wname, -Wno-name, -Werror, --diagnostics-format F   as for "
          "confpol check\n"
          "\n"
          "Exit status: CMD's own (128+N when killed by signal N); 125 the "
          "policy has errors\n"
          "or another runtime error, 126 cannot enforce, 127 CMD not found.\n",
          f);
}

/* The command line of run. */
struct run_args {
    struct cp_cli_common c;
    const char *file;
    bool allow_unenforced, allow_partial, quiet, dry_run, explain;
    enum cp_rt_enforcer enforcer;
    int keep[64]; /* --keep-fd */
    size_t nkeep;
    char **cmd; /* CMD [ARG]... (NULL-terminated) */
    size_t ncmd;
};

static const char *const run_opts[] = {
    "--allow-unenforced", "--allow-partial",   "--help",    "--enforcer",
    "--dry-run",          "--explain-denials", "--keep-fd", NULL};

/* The flags of run: true when a is one of them. */
static bool run_flag(struct run_args *r, const char *a)
{
    bool *flag = strcmp(a, "--allow-unenforced") == 0  ? &r->allow_unenforced
                 : strcmp(a, "--allow-partial") == 0   ? &r->allow_partial
                 : strcmp(a, "-q") == 0                ? &r->quiet
                 : strcmp(a, "--dry-run") == 0         ? &r->dry_run
                 : strcmp(a, "--explain-denials") == 0 ? &r->explain
                                                       : NULL;
    if (flag)
        *flag = true;
    return flag != NULL;
}

/* One option other than the flags.  Returns -1 to go on, or the exit
 * status. */
static int run_option(struct run_args *r, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        run_usage(stdout);
        return 0;
    }
    if (strcmp(a, "--enforcer") == 0 || strncmp(a, "--enforcer=", 11) == 0) {
        const char *v = a[10] == '=' ? a + 11
                                     : (*i + 1 < argc ? argv[++*i] : "");
        if (cp_rt_enforcer_parse(v, &r->enforcer)) {
            fprintf(
                stderr,
                "confpol run: --enforcer needs auto, bwrap or landlock, not "
                "'%s'\n",
                v);
            return CP_RT_EXIT_ERROR;
        }
        return -1;
    }
    if (strcmp(a, "--keep-fd") == 0) {
        struct cp_rt_err e = {0};
        if (r->nkeep == sizeof r->keep / sizeof r->keep[0] || *i + 1 >= argc)
            cp_rt_fail(&e, CP_RT_EXIT_ERROR,
                       "--keep-fd needs a descriptor (at most 64)");
        else if (cp_rt_keep_fd_parse(argv[++*i], &r->keep[r->nkeep], &e) == 0)
            r->nkeep++;
        if (e.status)
            fprintf(stderr, "confpol run: %s\n", e.msg);
        return e.status ? e.status : -1;
    }
    int k = cp_cli_common_opt(&r->c, argc, argv, i);
    if (k == 0)
        cp_cli_unknown_option("run", a, run_opts, true);
    return k <= 0 ? CP_RT_EXIT_ERROR : -1;
}

/* Reads the command line up to CMD.  Returns -1 to go on, or the exit
 * status. */
static int run_parse(struct run_args *r, int argc, char **argv)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (run_flag(r, a))
            continue;
        if (a[0] == '-' && a[1]) {
            int rc = run_option(r, argc, argv, &i);
            if (rc >= 0)
                return rc;
        } else if (!r->file) {
            r->file = a;
        } else {
            fprintf(stderr,
                    "confpol run: expected '--' before the command ('%s')\n",
                    a);
            return CP_RT_EXIT_ERROR;
        }
    }
    static char *no_cmd[] = {NULL};
    if (!r->file || (i >= argc && !r->dry_run)) {
        cp_cli_usage_error("run", "%s",
                           !r->file ? "no policy file given"
                                    : "no command given");
        return CP_RT_EXIT_ERROR;
    }
    r->cmd = i < argc ? argv + i : no_cmd; /* --dry-run needs no command */
    r->ncmd = i < argc ? (size_t)(argc - i) : 0;
    return -1;
}

/* Compiles the policy and lowers it for bwrap into art: one analysis,
 * reported in full, then the bytes.  Returns false (reported) when
 * nothing is to run. */
static bool run_lower(struct run_args *r, struct cp_ctx *cx, struct cp_buf *art)
{
    if (!cp_cli_apply(&r->c, cx))
        return false;
    cx->main_path = r->file;
    cx->opts.expand_globs = true; /* the runtime expands them at start-up */
    if (cp_compile(cx) || !cx->policy) {
        cp_cli_print_diags(&r->c, cx);
        fprintf(stderr, "confpol run: '%s' has errors; nothing was run\n",
                r->file);
        return false;
    }
    struct cp_backend_opts bo = {.expand_globs = true};
    const struct cp_analysis *an = cp_backend_analyse(
        &cp_backend_bwrap, cx->policy, &bo, cx->arena, &cx->diags,
        CP_REPORT_ALL);
    bool ok = !cp_analysis_errors(an) && !cp_diag_errors(&cx->diags);
    if (ok) {
        cp_analysis_write(an, &cx->diags, art);
        ok = !cp_diag_errors(&cx->diags);
    }
    cp_cli_print_diags(&r->c, cx); /* on success: warnings and notes */
    if (!ok)
        fprintf(
            stderr,
            "confpol run: '%s' cannot be lowered for bwrap; nothing was run\n",
            r->file);
    return ok;
}

/* The target wrote no artifact: a cooperative policy runs unconfined.
 * Returns the exit status. */
static int run_without_artifact(const struct run_args *r,
                                const struct cp_policy *p)
{
    if (p->profile == CP_PROFILE_COOPERATIVE && r->dry_run) {
        printf("enforcer: none (cooperative policy: no OS boundary is "
               "requested)\n");
        return 0;
    }
    if (p->profile == CP_PROFILE_COOPERATIVE) {
        fprintf(stderr,
                "confpol run: note: cooperative policy: no OS boundary is "
                "requested; running %s unconfined\n",
                r->cmd[0]);
        fflush(NULL);
        return cp_rt_exec_unconfined("confpol run", r->cmd);
    }
    fputs("confpol run: internal error: the bwrap backend emitted nothing\n",
          stderr);
    return CP_RT_EXIT_ERROR;
}

/* Launches CMD under the parsed artifact; frees the compiler (cx, the
 * options) before the command runs unless it explains the denials
 * afterwards.  Returns the exit status. */
static int run_launch(struct run_args *r, struct cp_ctx *cx,
                      struct cp_rt_artifact *a, struct cp_rt_params *params)
{
    if (!r->explain || r->dry_run) {
        cp_ctx_free(cx);
        cp_cli_common_free(&r->c);
    }
    struct cp_rt_launch l = {
        .prog = "confpol run",
        .cmd = r->cmd,
        .ncmd = r->ncmd,
        .allow_unenforced = r->allow_unenforced,
        .allow_partial = r->allow_partial,
        .enforcer = r->enforcer,
        .quiet = r->quiet,
        .dry_run = r->dry_run,
        .explain = r->explain,
        .keep = r->keep,
        .nkeep = r->nkeep,
    };
    int rc;
    if (r->explain && !r->dry_run) {
        rc = cp_run_explain(cx, a, params, &l);
        cp_ctx_free(cx);
        cp_cli_common_free(&r->c);
    } else {
        rc = cp_rt_run(a, params, &l);
    }
    return rc;
}

/* Frees what run holds when it returns without launching. */
static void run_free(struct run_args *r, struct cp_ctx *cx, struct cp_buf *art)
{
    cp_buf_free(art);
    cp_ctx_free(cx);
    cp_cli_common_free(&r->c);
}

/* Parses the artifact, binds its params and launches CMD; frees art, cx
 * and the options.  Returns the exit status. */
static int run_artifact(struct run_args *r, struct cp_ctx *cx,
                        struct cp_buf *art, const char *cwdp)
{
    struct cp_rt_err e = {0};
    struct cp_rt_artifact a;
    if (cp_rt_artifact_parse(&a, art->data, art->len, &e)) {
        fprintf(stderr, "confpol run: internal error: %s\n", e.msg);
        run_free(r, cx, art);
        return CP_RT_EXIT_ERROR;
    }
    /* Every -D was consumed by the compilation; what is left unbound (HOME
     * when it is not set) fails here with the runtime's message. */
    struct cp_rt_params params;
    if (cp_rt_params_bind(&params, a.needed, a.nneeded, a.params, a.nparams,
                          NULL, 0, getenv("HOME"), cwdp, &e)) {
        fprintf(stderr, "confpol run: %s\n", e.msg);
        cp_rt_artifact_free(&a);
        run_free(r, cx, art);
        return e.status;
    }
    /* The compiler is no longer needed (unless it explains the denials
     * afterwards): free it before the command runs. */
    cp_buf_free(art);
    int rc = run_launch(r, cx, &a, &params);
    cp_rt_params_free(&params);
    cp_rt_artifact_free(&a);
    return rc;
}

int cp_cmd_run(int argc, char **argv)
{
    struct run_args r = {.c = {.cmd = "run"}, .enforcer = CP_RT_ENF_AUTO};
    int rc = run_parse(&r, argc, argv);
    if (rc >= 0) {
        cp_cli_common_free(&r.c);
        return rc;
    }
    /* The binding model (spec/semantics.md, "Binding params"): run binds
     * HOME and PROJECT, unless given with -D, when it compiles, so the
     * analysis and the expect lines are checked under the bindings the
     * command really runs with, and the artifact is the -D build of them. */
    char cwd[PATH_MAX];
    const char *cwdp = getcwd(cwd, sizeof cwd);
    cp_cli_bind_run(&r.c);
    if (!cp_cli_bindings_sane(&r.c, r.file)) {
        cp_cli_common_free(&r.c);
        return CP_RT_EXIT_ERROR;
    }

    struct cp_ctx cx;
    cp_ctx_init(&cx);
    struct cp_buf art = {0};
    rc = CP_RT_EXIT_ERROR;
    if (run_lower(&r, &cx, &art)) {
        if (art.len == 0)
            rc = run_without_artifact(&r, cx.policy);
        else
            return run_artifact(&r, &cx, &art, cwdp);
    }
    run_free(&r, &cx, &art);
    return rc;
}

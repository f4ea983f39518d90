/* SPDX-License-Identifier: MIT */
/* confpol run: compiles a policy in memory, lowers it with the bwrap
 * backend into a buffer, and applies that buffer through the same runtime
 * API as confpol-run (spec/runtime.md).  Also hosts the sandbox-side
 * stage when re-executed as `confpol run --stage ...`. */
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
    fputs("usage: confpol run [-D NAME=VALUE]... [--enforcer auto|bwrap|landlock] [-q]\n"
          "                   [--allow-unenforced] [--dry-run] [--explain-denials] FILE -- CMD [ARG]...\n"
          "\n"
          "Compiles FILE and runs CMD confined by it (bubblewrap and Landlock, or Landlock\n"
          "alone), exactly as confpol-run applies the .bwrap artifact `confpol build` would write.\n"
          "\n"
          "  -D NAME=VALUE       bind a param (absolute canonical directory); HOME comes\n"
          "                      from the environment and PROJECT from the current directory\n"
          "  --enforcer E        auto (default: bwrap when it can create its namespaces, else\n"
          "                      Landlock alone), bwrap, or landlock\n"
          "  -q                  no line saying that auto chose Landlock, no Landlock notes\n"
          "  --dry-run           print the plan (enforcer, Landlock ABI, grants, mounts); run nothing\n"
          "  --explain-denials   after CMD, explain the denials its error output reports: the\n"
          "                      rule that denies each path, or that the enforcer is stricter\n"
          "  --allow-unenforced  run even when the policy cannot be enforced (with a warning)\n"
          "  -Wname, -Wno-name, -Werror, --diagnostics-format F   as for confpol check\n"
          "\n"
          "Exit status: CMD's own (128+N when killed by signal N); 125 the policy has errors\n"
          "or another runtime error, 126 cannot enforce, 127 CMD not found.\n",
          f);
}

/* Adds -D NAME=canonical(value) unless NAME is bound already; a value that
 * cannot be canonicalised is left unbound (the runtime then says why, if a
 * rule needs it). */
static void bind_implicit(struct cp_cli_common *c, const char *name, const char *value)
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
    c->defines = cp_xrealloc(c->defines, (c->ndefines + 1) * sizeof *c->defines);
    c->defines[c->ndefines].name = cp_xstrdup(name);
    c->defines[c->ndefines].value = canon;
    c->ndefines++;
}

int cp_cmd_run(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--stage") == 0)
        return cp_rt_stage_main(argc - 2, argv + 2);

    struct cp_cli_common c = {.cmd = "run"};
    const char *file = NULL;
    bool allow_unenforced = false, quiet = false, dry_run = false, explain = false;
    enum cp_rt_enforcer enforcer = CP_RT_ENF_AUTO;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            run_usage(stdout);
            cp_cli_common_free(&c);
            return 0;
        } else if (strcmp(a, "--allow-unenforced") == 0) {
            allow_unenforced = true;
        } else if (strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry_run = true;
        } else if (strcmp(a, "--explain-denials") == 0) {
            explain = true;
        } else if (strcmp(a, "--enforcer") == 0 || strncmp(a, "--enforcer=", 11) == 0) {
            const char *v = a[10] == '=' ? a + 11 : (i + 1 < argc ? argv[++i] : "");
            if (cp_rt_enforcer_parse(v, &enforcer)) {
                fprintf(stderr, "confpol run: --enforcer needs auto, bwrap or landlock, not "
                        "'%s'\n", v);
                cp_cli_common_free(&c);
                return CP_RT_EXIT_ERROR;
            }
        } else if (a[0] == '-' && a[1]) {
            int r = cp_cli_common_opt(&c, argc, argv, &i);
            if (r <= 0) {
                if (r == 0)
                    cp_cli_unknown_option(
                        "run", a,
                        (const char *const[]){"--allow-unenforced", "--help", "--enforcer",
                                              "--dry-run", "--explain-denials", NULL},
                        true);
                cp_cli_common_free(&c);
                return CP_RT_EXIT_ERROR;
            }
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "confpol run: expected '--' before the command ('%s')\n", a);
            cp_cli_common_free(&c);
            return CP_RT_EXIT_ERROR;
        }
    }
    static char *no_cmd[] = {NULL};
    if (!file || (i >= argc && !dry_run)) {
        cp_cli_usage_error("run", "%s", !file ? "no policy file given" : "no command given");
        cp_cli_common_free(&c);
        return CP_RT_EXIT_ERROR;
    }
    char **cmd = i < argc ? argv + i : no_cmd; /* --dry-run needs no command */
    size_t ncmd = i < argc ? (size_t)(argc - i) : 0;

    struct cp_rt_err e = {0};
    /* The binding model (spec/semantics.md, "Binding params"): run binds
     * HOME and PROJECT, unless given with -D, when it compiles, so the
     * analysis and the expect lines are checked under the bindings the
     * command really runs with, and the artifact is the -D build of them. */
    char cwd[PATH_MAX];
    const char *cwdp = getcwd(cwd, sizeof cwd);
    bind_implicit(&c, "HOME", getenv("HOME"));
    bind_implicit(&c, "PROJECT", cwdp);

    struct cp_ctx cx;
    cp_ctx_init(&cx);
    int rc = CP_RT_EXIT_ERROR;
    struct cp_buf art = {0};
    if (!cp_cli_apply(&c, &cx))
        goto out;
    cx.main_path = file;
    cx.opts.expand_globs = true; /* the runtime expands them at start-up */
    if (cp_compile(&cx) || !cx.policy) {
        cp_cli_print_diags(&c, &cx);
        fprintf(stderr, "confpol run: '%s' has errors; nothing was run\n", file);
        goto out;
    }
    const struct cp_policy *p = cx.policy;
    struct cp_backend_opts bo = {.expand_globs = true};
    /* One analysis, reported in full, then the bytes. */
    const struct cp_analysis *an =
        cp_backend_analyse(&cp_backend_bwrap, p, &bo, cx.arena, &cx.diags, CP_REPORT_ALL);
    if (cp_analysis_errors(an) || cp_diag_errors(&cx.diags) ||
        (cp_analysis_write(an, &cx.diags, &art), cp_diag_errors(&cx.diags))) {
        cp_cli_print_diags(&c, &cx);
        fprintf(stderr, "confpol run: '%s' cannot be lowered for bwrap; nothing was run\n", file);
        goto out;
    }
    cp_cli_print_diags(&c, &cx); /* warnings and notes */
    if (art.len == 0) {
        if (p->profile == CP_PROFILE_COOPERATIVE && dry_run) {
            printf("enforcer: none (cooperative policy: no OS boundary is requested)\n");
            rc = 0;
        } else if (p->profile == CP_PROFILE_COOPERATIVE) {
            fprintf(stderr, "confpol run: note: cooperative policy: no OS boundary is "
                            "requested; running %s unconfined\n", cmd[0]);
            fflush(NULL);
            rc = cp_rt_exec_unconfined("confpol run", cmd);
        } else {
            fputs("confpol run: internal error: the bwrap backend emitted nothing\n", stderr);
        }
        goto out;
    }

    struct cp_rt_artifact a;
    if (cp_rt_artifact_parse(&a, art.data, art.len, &e)) {
        fprintf(stderr, "confpol run: internal error: %s\n", e.msg);
        goto out;
    }
    /* Every -D was consumed by the compilation; what is left unbound (HOME
     * when it is not set) fails here with the runtime's message. */
    struct cp_rt_params params;
    if (cp_rt_params_bind(&params, a.needed, a.nneeded, a.params, a.nparams, NULL, 0,
                          getenv("HOME"), cwdp, &e)) {
        fprintf(stderr, "confpol run: %s\n", e.msg);
        rc = e.status;
        cp_rt_artifact_free(&a);
        goto out;
    }
    char *self = realpath("/proc/self/exe", NULL);
    if (!self) {
        perror("confpol run: /proc/self/exe");
        cp_rt_params_free(&params);
        cp_rt_artifact_free(&a);
        goto out;
    }
    /* The compiler is no longer needed (unless it explains the denials
     * afterwards): free it before the command runs. */
    cp_buf_free(&art);
    if (!explain || dry_run) {
        cp_ctx_free(&cx);
        cp_cli_common_free(&c);
    }
    static const char *const stage_argv[] = {"run", "--stage"};
    struct cp_rt_launch l = {
        .prog = "confpol run",
        .stage = {.exe = self, .argv = stage_argv, .nargv = 2},
        .cmd = cmd,
        .ncmd = ncmd,
        .allow_unenforced = allow_unenforced,
        .enforcer = enforcer,
        .quiet = quiet,
        .dry_run = dry_run,
        .explain = explain,
    };
    if (explain && !dry_run) {
        rc = cp_run_explain(&cx, &a, &params, &l);
        cp_ctx_free(&cx);
        cp_cli_common_free(&c);
    } else {
        rc = cp_rt_run(&a, &params, &l);
    }
    free(self);
    cp_rt_params_free(&params);
    cp_rt_artifact_free(&a);
    return rc;

out:
    cp_buf_free(&art);
    cp_ctx_free(&cx);
    cp_cli_common_free(&c);
    return rc;
}

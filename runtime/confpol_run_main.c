/* SPDX-License-Identifier: MIT */
/* confpol-run: applies a prebuilt artifact and runs a command confined.
 * Links only the runtime (no parser): see tests/sh/runtime-no-parser.sh. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "version.h"

static const char usage[] =
    "usage: confpol-run [-D NAME=VALUE]... [--enforcer auto|bwrap|landlock] "
    "[-q]\n"
    "                   [--allow-unenforced] [--allow-partial] [--dry-run] "
    "[--keep-fd N]...\n                   "
    "ARTIFACT.bwrap|ARTIFACT.sb -- CMD [ARG]...\n"
    "\n"
    "Runs CMD confined by a prebuilt confpol artifact: on Linux a .bwrap "
    "artifact through\n"
    "bubblewrap and Landlock, or Landlock alone, on macOS a .sb profile "
    "through sandbox-exec.\n"
    "\n"
    "  -D NAME=VALUE       bind a policy param (absolute canonical directory); "
    "HOME comes\n"
    "                      from the environment and PROJECT from the current "
    "directory\n"
    "  --enforcer E        auto (default: bwrap when it can create its "
    "namespaces, else\n"
    "                      Landlock alone), bwrap, or landlock\n"
    "  -q                  no line saying that auto chose Landlock, no "
    "Landlock notes\n"
    "  --dry-run           print the plan (enforcer, Landlock ABI, grants, "
    "mounts); run nothing\n"
    "  --allow-unenforced  run even when the policy cannot be enforced (with a "
    "warning)\n"
    "  --allow-partial     run where a rule is only partly enforced (Landlock: "
    "a "
    "deny read\n"
    "                      hides contents, not metadata), with a warning\n"
    "  --keep-fd N         pass the caller's descriptor N into the sandbox "
    "(every other\n"
    "                      descriptor but 0, 1 and 2 is closed first)\n"
    "  --check             report whether bwrap, user namespaces and Landlock "
    "are usable\n"
    "  --help, --version\n"
    "\n"
    "Exit status: CMD's own (128+N when killed by signal N); 125 runtime error "
    "(bad\n"
    "artifact, params or usage), 126 cannot enforce, 127 CMD not found.\n";

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* The command line, as parsed. */
struct opts {
    struct cp_rt_define defs[64];
    size_t ndefs;
    bool allow_unenforced, allow_partial, quiet, dry_run;
    enum cp_rt_enforcer enforcer;
    const char *artifact;
    int keep[64]; /* --keep-fd */
    size_t nkeep;
};

#define GO_ON (-1) /* the option parsers' "no exit status yet" */

/* -D NAME=VALUE or -DNAME=VALUE at argv[*i]. */
static int parse_define(struct opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *kv = a[2] ? a + 2 : (*i + 1 < argc ? argv[++*i] : NULL);
    struct cp_rt_err e = {0};
    if (!kv) {
        fputs("confpol-run: -D needs NAME=VALUE\n", stderr);
        return CP_RT_EXIT_ERROR;
    }
    if (o->ndefs == sizeof o->defs / sizeof o->defs[0]) {
        fputs("confpol-run: too many -D options\n", stderr);
        return CP_RT_EXIT_ERROR;
    }
    if (cp_rt_define_split(kv, &o->defs[o->ndefs], &e)) {
        cp_rt_eprintf("confpol-run: %s\n", e.msg);
        return e.status;
    }
    o->ndefs++;
    return GO_ON;
}

/* --enforcer E or --enforcer=E at argv[*i]. */
static int parse_enforcer(struct opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = a[10] == '=' ? a + 11 : (*i + 1 < argc ? argv[++*i] : "");
    if (cp_rt_enforcer_parse(v, &o->enforcer)) {
        fprintf(
            stderr,
            "confpol-run: --enforcer needs auto, bwrap or landlock, not '%s'\n",
            v);
        return CP_RT_EXIT_ERROR;
    }
    return GO_ON;
}

/* --keep-fd N at argv[*i]. */
static int parse_keep_fd(struct opts *o, int argc, char **argv, int *i)
{
    struct cp_rt_err e = {0};
    if (o->nkeep == sizeof o->keep / sizeof o->keep[0] || *i + 1 >= argc) {
        fputs("confpol-run: --keep-fd needs a descriptor (at most 64)\n",
              stderr);
        return CP_RT_EXIT_ERROR;
    }
    if (cp_rt_keep_fd_parse(argv[++*i], &o->keep[o->nkeep], &e)) {
        cp_rt_eprintf("confpol-run: %s\n", e.msg);
        return e.status;
    }
    o->nkeep++;
    return GO_ON;
}

/* One word of the command line (not "--"): GO_ON, or the exit status. */
static int parse_word(struct opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(a, "--version")) {
        printf("confpol-run %s\n", CP_VERSION);
        return 0;
    }
    if (!strcmp(a, "--check"))
        return cp_rt_check(stdout);
    if (!strcmp(a, "--allow-unenforced"))
        o->allow_unenforced = true;
    else if (!strcmp(a, "--allow-partial"))
        o->allow_partial = true;
    else if (!strcmp(a, "-q"))
        o->quiet = true;
    else if (!strcmp(a, "--dry-run"))
        o->dry_run = true;
    else if (!strcmp(a, "--keep-fd"))
        return parse_keep_fd(o, argc, argv, i);
    else if (!strcmp(a, "--enforcer") || !strncmp(a, "--enforcer=", 11))
        return parse_enforcer(o, argc, argv, i);
    else if (!strncmp(a, "-D", 2))
        return parse_define(o, argc, argv, i);
    else if (a[0] == '-' && a[1]) {
        cp_rt_eprintf("confpol-run: unknown option '%s'\n%s", a, usage);
        return CP_RT_EXIT_ERROR;
    } else if (!o->artifact)
        o->artifact = a;
    else {
        fprintf(stderr,
                "confpol-run: expected '--' before the command ('%s')\n", a);
        return CP_RT_EXIT_ERROR;
    }
    return GO_ON;
}

/* Loads the .bwrap artifact, binds its params and runs the command. */
static int run_bwrap_artifact(const struct opts *o, char **cmd, size_t ncmd)
{
    struct cp_rt_err e = {0};
    struct cp_rt_artifact art;
    if (cp_rt_artifact_load(&art, o->artifact, &e)) {
        cp_rt_eprintf("confpol-run: %s\n", e.msg);
        return e.status;
    }
    char cwd[PATH_MAX];
    const char *cwdp = getcwd(cwd, sizeof cwd);
    struct cp_rt_params params;
    struct cp_rt_bind_names names = {.needed = art.needed,
                                     .nneeded = art.nneeded,
                                     .known = art.params,
                                     .nknown = art.nparams,
                                     .sockets = art.sockparams,
                                     .nsockets = art.nsockparams};
    if (cp_rt_params_bind_names(&params, &names, o->defs, o->ndefs,
                                getenv("HOME"), cwdp, &e)) {
        cp_rt_eprintf("confpol-run: %s\n", e.msg);
        cp_rt_artifact_free(&art);
        return e.status;
    }
    if (cp_rt_params_sane(&art, &params, o->defs, o->ndefs, &e)) {
        cp_rt_eprintf("confpol-run: %s\n", e.msg);
        cp_rt_params_free(&params);
        cp_rt_artifact_free(&art);
        return e.status;
    }
    for (size_t k = 0; k < params.nignored; k++)
        fprintf(stderr,
                "confpol-run: note: -D %s: the artifact does not use param %s "
                "(bound "
                "when it was built, or used by no rule); ignored\n",
                params.ignored[k], params.ignored[k]);
    struct cp_rt_launch l = {
        .prog = "confpol-run",
        .cmd = cmd,
        .ncmd = ncmd,
        .allow_unenforced = o->allow_unenforced,
        .allow_partial = o->allow_partial,
        .enforcer = o->enforcer,
        .quiet = o->quiet,
        .dry_run = o->dry_run,
        .keep = o->keep,
        .nkeep = o->nkeep,
    };
    int rc = cp_rt_run(&art, &params, &l);
    cp_rt_params_free(&params);
    cp_rt_artifact_free(&art);
    return rc;
}

int main(int argc, char **argv)
{
    /* 0, 1 and 2 must be open so that no descriptor we create lands there. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return CP_RT_EXIT_ERROR;

    struct opts o = {.enforcer = CP_RT_ENF_AUTO};
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        int rc = parse_word(&o, argc, argv, &i);
        if (rc != GO_ON)
            return rc;
    }
    if (i < argc)
        i++; /* past "--" */
    static char *no_cmd[] = {NULL};
    if (!o.artifact || (i >= argc && !o.dry_run)) {
        cp_rt_eprintf("confpol-run: %s\n%s",
                      !o.artifact ? "no artifact given" : "no command given",
                      usage);
        return CP_RT_EXIT_ERROR;
    }
    char **cmd = i < argc ? argv + i : no_cmd; /* --dry-run needs no command */
    size_t ncmd = i < argc ? (size_t)(argc - i) : 0;
    if (has_suffix(o.artifact, ".sb"))
        return cp_rt_run_sbpl("confpol-run", o.artifact, o.defs, o.ndefs, cmd,
                              ncmd);
    return run_bwrap_artifact(&o, cmd, ncmd);
}

/* SPDX-License-Identifier: MIT */
/* confpol codex [POLICY] [-- ARGS]: Codex CLI in this project, confined by
 * the policy's permission profile.  Codex merges configuration layers (its
 * CODEX_HOME's config.toml, a trusted project's .codex/, the machine's
 * managed files, the command line) and any of them could redefine the
 * profile.  So: build the policy for the codex target with PROJECT and
 * HOME bound into a CODEX_HOME of confpol's own, write its config.toml
 * and exec-policy rules there, refuse when another layer Codex would read
 * (or an argument) could loosen it, and exec `codex ARGS...` with
 * CODEX_HOME set (`sandbox` gets `-P confpol`).  spec/settings-wiring.md,
 * "confpol codex". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "settings.h"

static void cp_codex_usage(FILE *out)
{
    fputs("usage: confpol codex [-q] [-D NAME=VALUE]... [-W...] [POLICY] [-- "
          "ARGS...]\n"
          "\n"
          "Starts Codex CLI in this directory confined by POLICY (default\n"
          "policy.confpol): builds it for the codex target with PROJECT bound\n"
          "to the current directory and HOME to $HOME, into a CODEX_HOME of\n"
          "confpol's own, $XDG_CACHE_HOME/confpol/codex/NAME-HASH (default\n"
          "~/.cache/...; the policy denies the agent writing it), writes its\n"
          "config.toml and rules/confpol.rules there, links the user's\n"
          "auth.json, and runs 'codex ARGS...' with CODEX_HOME set ('codex\n"
          "sandbox ...' gets '-P confpol').  Refuses to start when the policy\n"
          "has errors or is cooperative, when a project .codex/config.toml or\n"
          ".codex/hooks.json (here or above), a managed file of /etc/codex\n"
          "that names sandbox, permission, network, feature, hook, project or\n"
          "trust settings, or an argument that overrides the sandbox (-c, -p,\n"
          "-s, -P, --enable, --disable, --add-dir, --remote, --dangerously-*,\n"
          "...) could loosen it.  CONFPOL_CODEX names the codex binary\n"
          "(default: 'codex' on PATH).\n"
          "\n"
          "Exit status: that of codex; 1 the policy has errors or the start\n"
          "is refused; 2 usage or I/O; 127 codex not found.\n",
          out);
}

struct cp_codex_run {
    struct cp_cli_client cl; /* the command line */
    char *project, *home, *dir;
    char *defs[2]; /* PROJECT=..., HOME=... */
};

static void cp_codex_run_free(struct cp_codex_run *r)
{
    free(r->cl.bargv);
    free(r->project);
    free(r->home);
    free(r->dir);
    free(r->defs[0]);
    free(r->defs[1]);
}

/* The canonical current directory and $HOME; the directory made. */
static int cp_codex_where(struct cp_codex_run *r)
{
    char *cwd = getcwd(NULL, 0);
    const char *h = getenv("HOME");
    r->project = cwd ? realpath(cwd, NULL) : NULL;
    r->home = h && h[0] == '/' ? realpath(h, NULL) : NULL;
    free(cwd);
    if (!r->project || !r->home) {
        fprintf(stderr, "confpol codex: %s\n",
                r->project ? "HOME is not set to an existing directory"
                           : "cannot read the current directory");
        return 2;
    }
    /* Not under ~/.config/confpol, which a confined policy denies
     * reading, since the sandbox runs Codex's helper from CODEX_HOME/tmp. */
    r->dir = cp_cli_client_dir("codex", true, r->home, r->project);
    if (!cp_cli_mkdirs(r->dir, 0700)) {
        fprintf(stderr, "confpol codex: cannot make %s: %s\n", r->dir,
                strerror(errno));
        return 2;
    }
    return 0;
}

/* The artifact's path, DIR/STEM.codex.toml (heap). */
static char *cp_codex_artifact(const struct cp_codex_run *r)
{
    const char *base = strrchr(r->cl.policy, '/');
    base = base ? base + 1 : r->cl.policy;
    size_t bl = strlen(base);
    if (bl > 8 && strcmp(base + bl - 8, ".confpol") == 0)
        bl -= 8;
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%s/%.*s.codex.toml", r->dir, (int)bl, base);
    return b.data;
}

/* The build's summary line ("N warnings", "N errors, M warnings": a line
 * that starts with a digit and has no colon) in the text it printed: the
 * number of warnings, 0 without one. */
static unsigned long cp_codex_warnings(const char *text)
{
    unsigned long n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *w = memmem(line, len, " warning", 8);
        if (line[0] >= '0' && line[0] <= '9' && w && !memchr(line, ':', len)) {
            const char *d = w;
            while (d > line && d[-1] >= '0' && d[-1] <= '9')
                d--;
            n = strtoul(d, NULL, 10);
        }
        line = end ? end + 1 : NULL;
    }
    return n;
}

/* -q: the build's diagnostics are kept aside (a memfd in place of stderr)
 * and shown whole only when it fails; otherwise its warnings, each a rule
 * Codex enforces less than written, are one line that names their number
 * and the command that lists them: quiet, never silent. */
static int cp_codex_build_quiet(struct cp_codex_run *r)
{
    fflush(stderr);
    int mem = memfd_create("confpol-codex-build", MFD_CLOEXEC);
    int saved = mem < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved < 0 || dup2(mem, 2) < 0) {
        if (mem >= 0)
            close(mem);
        if (saved >= 0)
            close(saved);
        return cp_cmd_build(r->cl.bargc, (char **)r->cl.bargv);
    }
    int rc = cp_cmd_build(r->cl.bargc, (char **)r->cl.bargv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    struct cp_buf t = {0};
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", mem);
    bool got = cp_cli_read_file(path, &t);
    close(mem);
    if (rc != 0 && got)
        fputs(t.data, stderr);
    unsigned long n = got ? cp_codex_warnings(t.data) : 0;
    if (rc == 0 && n)
        fprintf(stderr,
                "confpol codex: %lu warning%s: Codex enforces %s less than "
                "written ('confpol build --target codex %s %s %s %s "
                "--fidelity %s' lists them)\n",
                n, n == 1 ? "" : "s", n == 1 ? "a rule" : "rules", "-D",
                r->defs[0], "-D", r->defs[1], r->cl.policy);
    cp_buf_free(&t);
    return rc;
}

static int cp_codex_build(struct cp_codex_run *r)
{
    int rc = cp_codex_where(r);
    if (rc)
        return rc;
    /* Started in / or above HOME, 'write ${PROJECT}' would open it all. */
    if (!cp_cli_project_sane("codex", r->cl.policy, r->project))
        return 1;
    struct cp_buf b = {0};
    cp_buf_printf(&b, "PROJECT=%s", r->project);
    r->defs[0] = b.data;
    struct cp_buf c = {0};
    cp_buf_printf(&c, "HOME=%s", r->home);
    r->defs[1] = c.data;
    r->cl.bargv[r->cl.bargc++] = "-D";
    r->cl.bargv[r->cl.bargc++] = r->defs[0];
    r->cl.bargv[r->cl.bargc++] = "-D";
    r->cl.bargv[r->cl.bargc++] = r->defs[1];
    r->cl.bargv[r->cl.bargc++] = "-o";
    r->cl.bargv[r->cl.bargc++] = r->dir;
    r->cl.bargv[r->cl.bargc++] = r->cl.policy;
    r->cl.bargv[r->cl.bargc] = NULL;
    if (r->cl.quiet)
        return cp_codex_build_quiet(r);
    return cp_cmd_build(r->cl.bargc, (char **)r->cl.bargv);
}

/* ---- the layers Codex merges ------------------------------------------- */

/* Words no key of a managed or system configuration file may hold (as
 * a part of its dotted path, in any TOML spelling): each names settings
 * that select, widen or bypass the sandbox, the network, hooks or project
 * trust. */
static const char *const cp_codex_managed_words[] = {
    "sandbox", "permission", "network", "features", "hook", "project", "trust",
};

/* One managed file: 1 when a key names a word or it cannot be read (as a
 * file or as TOML), reported; else 0. */
static int cp_codex_managed_file(const char *cmd, const char *path)
{
    struct cp_buf t = {0}, key = {0};
    const char *word = NULL;
    int k = 0;
    if (cp_cli_read_file(path, &t))
        k = cp_codex_toml_key(t.data, t.len, cp_codex_managed_words,
                              sizeof cp_codex_managed_words /
                                  sizeof cp_codex_managed_words[0],
                              &key, &word);
    else if (errno != ENOENT)
        k = -2;
    if (k == 1)
        fprintf(stderr,
                "confpol %s: %s: Codex merges this file with the "
                "policy's profile, and its key '%s' names '%s'\n",
                cmd, path, key.data, word);
    else if (k == -1)
        fprintf(stderr,
                "confpol %s: %s: Codex merges this file with the "
                "policy's profile, and it cannot be read as TOML "
                "(%s)\n",
                cmd, path, key.data);
    else if (k == -2)
        fprintf(stderr,
                "confpol %s: %s: Codex merges this file with the "
                "policy's profile, and it names '(unreadable)'\n",
                cmd, path);
    cp_buf_free(&t);
    cp_buf_free(&key);
    return k != 0;
}

/* The managed directory Codex reads.  No variable or option names
 * another: a check pointed elsewhere would pass a machine whose real
 * managed file loosens the profile (the tests write /etc/codex in a mount
 * namespace of their own). */
static const char *const cp_codex_managed_dir = "/etc/codex";

/* Managed and system files with a key that names a sandbox word, or that
 * cannot be read: the count, each reported. */
int cp_codex_managed(const char *cmd)
{
    static const char *const names[] = {"managed_config.toml",
                                        "requirements.toml", "config.toml"};
    int bad = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct cp_buf p = {0};
        cp_buf_printf(&p, "%s/%s", cp_codex_managed_dir, names[i]);
        bad += cp_codex_managed_file(cmd, p.data);
        cp_buf_free(&p);
    }
    return bad;
}

/* Project layers (.codex/config.toml, .codex/hooks.json) in PROJECT and
 * every directory above it: the count, each reported.  Codex merges them
 * once the project is trusted, which it may ask while it runs. */
int cp_codex_project_layers(const char *cmd, const char *project)
{
    static const char *const names[] = {".codex/config.toml",
                                        ".codex/hooks.json"};
    int bad = 0;
    char *d = cp_xstrdup(project);
    for (;;) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            struct cp_buf p = {0};
            cp_buf_printf(&p, "%s/%s", strcmp(d, "/") ? d : "", names[i]);
            struct stat st;
            if (lstat(p.data, &st) == 0) {
                fprintf(stderr,
                        "confpol %s: %s: Codex merges it with the "
                        "policy's profile once the project is trusted\n",
                        cmd, p.data);
                bad++;
            }
            cp_buf_free(&p);
        }
        char *slash = strrchr(d, '/');
        if (!slash || slash == d) {
            if (strcmp(d, "/") == 0)
                break;
            strcpy(d, "/");
            continue;
        }
        *slash = '\0';
    }
    free(d);
    return bad;
}

/* An argument of codex that selects another sandbox, profile or
 * configuration, or bypasses one. */
static bool cp_codex_loosening_arg(const char *a)
{
    static const char *const exact[] = {
        "-c", "-p", "-s", "-P", "--yolo", "--full-auto", "--approve-for-me"};
    static const char *const prefix[] = {
        "--config",  "--enable",       "--disable",
        "--profile", "--sandbox",      "--add-dir",
        "--remote",  "--dangerously-", "--permission-profile",
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(a, exact[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (strncmp(a, prefix[i], strlen(prefix[i])) == 0)
            return true;
    /* -cKEY=VALUE, -pNAME, -sMODE, -PNAME: short options with a value */
    return a[0] == '-' && a[1] && strchr("cpsP", a[1]) && a[2];
}

/* Codex's own arguments up to the command it runs ('--'): the count of
 * loosening ones, each reported. */
static int cp_codex_args_loosen(int argc, char **argv, int from)
{
    int bad = 0;
    for (int i = from; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (cp_codex_loosening_arg(argv[i])) {
            fprintf(stderr,
                    "confpol codex: '%s' would override or bypass the "
                    "policy's profile\n",
                    argv[i]);
            bad++;
        }
    return bad;
}

/* ---- writing CODEX_HOME ------------------------------------------------- */

/* The rules of the artifact's [confpol] table (its last value). */
bool cp_codex_rules(const struct cp_buf *art, struct cp_buf *out)
{
    const char *open = strstr(art->data, "\nrules = '''\n");
    if (!open)
        return false;
    open += strlen("\nrules = '''\n");
    const char *close = strstr(open, "'''\n");
    if (!close)
        return false;
    cp_buf_add(out, open, (size_t)(close - open));
    if (!out->data)
        cp_buf_adds(out, "");
    return true;
}

static int cp_codex_write_file(const char *dir, const char *name,
                               const struct cp_buf *b)
{
    struct cp_buf p = {0};
    cp_buf_printf(&p, "%s/%s", dir, name);
    int rc = cp_cli_write_atomic(p.data, b->data, b->len) == 0 ? 0 : 2;
    if (rc)
        fprintf(stderr, "confpol codex: %s: %s\n", p.data, strerror(errno));
    cp_buf_free(&p);
    return rc;
}

/* auth.json of the user's own CODEX_HOME (or ~/.codex), linked so that a
 * login holds; nothing else of it is read. */
static void cp_codex_auth(const struct cp_codex_run *r)
{
    const char *own = getenv("CODEX_HOME");
    struct cp_buf src = {0}, dst = {0};
    if (own && own[0] == '/')
        cp_buf_printf(&src, "%s/auth.json", own);
    else
        cp_buf_printf(&src, "%s/.codex/auth.json", r->home);
    cp_buf_printf(&dst, "%s/auth.json", r->dir);
    struct stat st;
    if (stat(src.data, &st) == 0 && lstat(dst.data, &st) != 0)
        (void)!symlink(src.data, dst.data);
    cp_buf_free(&src);
    cp_buf_free(&dst);
}

/* config.toml and rules/confpol.rules from the artifact; refuses a
 * hooks.json or another profile file left in the directory. */
static int cp_codex_home(const struct cp_codex_run *r)
{
    char *artifact = cp_codex_artifact(r);
    struct cp_buf art = {0}, rules = {0}, p = {0};
    int rc = 0;
    if (!cp_cli_read_file(artifact, &art)) {
        fprintf(stderr,
                "confpol codex: %s: no artifact (a cooperative policy "
                "leaves Codex nothing to enforce)\n",
                artifact);
        rc = 1;
    } else if (!cp_codex_rules(&art, &rules)) {
        fprintf(stderr, "confpol codex: %s: no rules table\n", artifact);
        rc = 2;
    }
    cp_buf_printf(&p, "%s/rules", r->dir);
    if (!rc && !cp_cli_mkdirs(p.data, 0700)) {
        fprintf(stderr, "confpol codex: %s: %s\n", p.data, strerror(errno));
        rc = 2;
    }
    if (!rc)
        rc = cp_codex_write_file(r->dir, "config.toml", &art);
    if (!rc)
        rc = cp_codex_write_file(r->dir, "rules/confpol.rules", &rules);
    if (!rc)
        cp_codex_auth(r);
    free(artifact);
    cp_buf_free(&art);
    cp_buf_free(&rules);
    cp_buf_free(&p);
    return rc;
}

/* A hooks.json in confpol's own CODEX_HOME, put there by someone else. */
static int cp_codex_own_hooks(const struct cp_codex_run *r)
{
    struct cp_buf p = {0};
    cp_buf_printf(&p, "%s/hooks.json", r->dir);
    struct stat st;
    int bad = lstat(p.data, &st) == 0;
    if (bad)
        fprintf(stderr, "confpol codex: %s: Codex would run these hooks\n",
                p.data);
    cp_buf_free(&p);
    return bad;
}

/* Runs codex with CODEX_HOME set (returns only on failure). */
static int cp_codex_exec(const struct cp_codex_run *r, int argc, char **argv)
{
    const char *bin = getenv("CONFPOL_CODEX");
    if (!bin || !*bin)
        bin = "codex";
    const char **cargv = cp_xmalloc((size_t)(argc - r->cl.rest + 4) *
                                    sizeof *cargv);
    int n = 0;
    cargv[n++] = bin;
    for (int i = r->cl.rest; i < argc; i++) {
        cargv[n++] = argv[i];
        /* codex sandbox needs the profile named; the agent reads
         * default_permissions. */
        if (i == r->cl.rest && strcmp(argv[i], "sandbox") == 0) {
            cargv[n++] = "-P";
            cargv[n++] = "confpol";
        }
    }
    cargv[n] = NULL;
    if (setenv("CODEX_HOME", r->dir, 1) != 0) {
        fprintf(stderr, "confpol codex: setenv: %s\n", strerror(errno));
        free(cargv);
        return 2;
    }
    if (!r->cl.quiet)
        fprintf(stderr,
                "confpol codex: CODEX_HOME=%s %s (policy %s, "
                "PROJECT=%s)\n",
                r->dir, bin, r->cl.policy, r->project);
    fflush(NULL);
    execvp(bin, (char **)cargv);
    int e = errno;
    fprintf(stderr, "confpol codex: %s: %s\n", bin, strerror(e));
    free(cargv);
    return e == ENOENT ? 127 : 126;
}

static int cp_codex_start(struct cp_codex_run *r, int argc, char **argv)
{
    int bad = cp_codex_args_loosen(argc, argv, r->cl.rest);
    if (bad) {
        fputs("confpol codex: refused: remove these arguments\n", stderr);
        return 1;
    }
    int rc = cp_codex_build(r);
    if (rc)
        return rc;
    rc = cp_codex_home(r);
    if (rc)
        return rc;
    bad = cp_codex_project_layers("codex", r->project) +
          cp_codex_managed("codex") + cp_codex_own_hooks(r);
    if (bad) {
        fputs("confpol codex: refused: Codex would merge these files with "
              "the policy's profile; remove them first\n",
              stderr);
        return 1;
    }
    return cp_codex_exec(r, argc, argv);
}

int cp_cmd_codex(int argc, char **argv)
{
    /* build's own options pass through: -D, -W..., --diagnostics-format */
    static const char *const bound[] = {"PROJECT=", "HOME=", NULL};
    struct cp_codex_run r = {
        .cl = {.cmd = "codex",
               .whose = "Codex's",
               .bound = bound,
               .bound_why = "PROJECT is the current directory and HOME is "
                            "$HOME: neither is bound with -D",
               .usage = cp_codex_usage,
               .rest = argc,
               .bargv = cp_xmalloc((size_t)(argc + 12) * sizeof(char *))},
    };
    r.cl.bargv[r.cl.bargc++] = "build";
    r.cl.bargv[r.cl.bargc++] = "--target";
    r.cl.bargv[r.cl.bargc++] = "codex";
    int rc = cp_cli_client_args(&r.cl, argc, argv);
    if (rc < 0) {
        if (!r.cl.policy)
            r.cl.policy = "policy.confpol";
        rc = cp_codex_start(&r, argc, argv);
    }
    cp_codex_run_free(&r);
    return rc;
}

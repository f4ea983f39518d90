/* SPDX-License-Identifier: MIT */
/* confpol claude [POLICY] [-- ARGS]: Claude Code for one project, with the
 * policy's network allow-list.  A project settings file cannot carry
 * strictAllowlist; a --settings file can, and a --settings file that
 * configures a sandbox makes Claude Code refuse to start when it is
 * invalid.  So: build the policy with PROJECT bound to this directory into
 * a directory of confpol's own, install the artifact into a fresh
 * settings file there (install verifies it), check the settings files that
 * Claude Code merges with it for entries that would loosen it, and exec
 * `claude --settings FILE ARGS...` (spec/settings-wiring.md, "confpol
 * claude"). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "settings.h"

static void cp_claude_usage(FILE *out)
{
    fputs(
        "usage: confpol claude [-q] [-D NAME=VALUE]... [-W...] [POLICY] [-- "
        "ARGS...]\n"
        "\n"
        "Starts Claude Code in this directory confined by POLICY (default\n"
        "policy.confpol): builds it for the claude target with PROJECT bound\n"
        "to the current directory, into $XDG_CONFIG_HOME/confpol/claude/ "
        "(default\n"
        "~/.config/confpol/claude/, which a confined policy denies to the\n"
        "agent), installs the artifact into a settings file there, and runs\n"
        "'claude --settings FILE ARGS...'.  Unlike a project settings file, a\n"
        "--settings file may carry the network allow-list (strictAllowlist).\n"
        "Refuses to start when the policy has errors, when the settings would\n"
        "not enforce it, or when a settings file Claude Code also reads\n"
        "(the managed settings in /etc/claude-code, ~/.claude/settings.json,\n"
        ".claude/settings.json, .claude/settings.local.json) would loosen\n"
        "it.  CONFPOL_CLAUDE names the claude binary (default: 'claude' on\n"
        "PATH).\n"
        "\n"
        "Exit status: that of claude; 1 the policy has errors or the settings\n"
        "are refused; 2 usage or I/O; 127 claude not found.\n",
        out);
}

static char *cp_claude_join(const char *dir, const char *name)
{
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%s/%s", dir, name);
    return b.data;
}

/* The settings for Claude Code inside the confinement: its own sandbox
 * off (bubblewrap cannot nest in the runtime's namespaces, and the
 * confinement around it is the stronger one), the artifact's permission
 * rules kept as a second layer for the file tools, and its gate hooks
 * wired with absolute paths. */
static bool cp_claude_whole_settings(const char *artifact, const char *settings)
{
    struct cp_arena *a = cp_arena_new();
    struct cp_buf text = {0}, out = {0}, rep = {0};
    struct cp_jnode *art = NULL;
    bool ok = false;
    char *gate = cp_cli_gate_program("claude");
    if (!gate || !cp_cli_read_file(artifact, &text) ||
        cp_json_parse(a, text.data, text.len, &art) || art->type != CP_J_OBJ)
        goto out;
    struct cp_jnode *doc = cp_json_new(a, CP_J_OBJ);
    struct cp_jnode *sb = cp_json_new(a, CP_J_OBJ);
    cp_json_set(a, sb, "enabled", cp_json_bool(a, false));
    cp_json_set(a, doc, "sandbox", sb);
    struct cp_jnode *perm = cp_json_get(art, "permissions", NULL);
    if (perm)
        cp_json_set(a, doc, "permissions", perm);
    struct cp_jnode *hooks = cp_json_get(art, "hooks", NULL);
    /* pinned to the artifact read here (spec/gate.md, "Integrity") */
    const char *cmd = cp_settings_hook_command(a, gate, artifact, text.data,
                                               text.len);
    for (size_t e = 0; hooks && hooks->type == CP_J_OBJ && e < hooks->n; e++) {
        struct cp_jnode *groups = hooks->members[e].val;
        for (size_t g = 0; groups->type == CP_J_ARR && g < groups->n; g++) {
            struct cp_jnode *hs = cp_json_get(groups->items[g], "hooks", NULL);
            for (size_t h = 0; hs && hs->type == CP_J_ARR && h < hs->n; h++)
                if (cp_json_get(hs->items[h], "command", NULL))
                    cp_json_set(a, hs->items[h], "command",
                                cp_json_str(a, cmd, strlen(cmd)));
        }
    }
    if (hooks)
        cp_json_set(a, doc, "hooks", hooks);
    cp_json_print(&out, doc, "", "  ", false);
    cp_buf_addc(&out, '\n');
    struct cp_jnode *back = NULL;
    if (cp_json_parse(a, out.data, out.len, &back) ||
        cp_settings_schema_check(a, back, out.len, &rep) != 0) {
        fprintf(stderr, "confpol claude: the settings would not load:\n%s",
                rep.data ? rep.data : "");
        goto out;
    }
    ok = cp_cli_write_atomic(settings, out.data, out.len) == 0;
    if (!ok)
        fprintf(stderr, "confpol claude: %s: %s\n", settings, strerror(errno));
out:
    free(gate);
    cp_buf_free(&text);
    cp_buf_free(&out);
    cp_buf_free(&rep);
    cp_arena_free(a);
    return ok;
}

/* Claude Code creates ~/.claude.json on its first start; a write root
 * that does not exist cannot be created inside the confinement. */
static void cp_claude_whole_state(bool quiet)
{
    const char *home = getenv("HOME");
    if (home && home[0] == '/') {
        char *cd = cp_claude_join(home, ".claude");
        if (mkdir(cd, 0700) == 0 && !quiet)
            fprintf(stderr,
                    "confpol claude: created %s (Claude Code's state "
                    "directory, which the policy lets it write)\n",
                    cd);
        free(cd);
        char *cj = cp_claude_join(home, ".claude.json");
        int fd = open(cj, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (write(fd, "{}\n", 3) != 3)
                fprintf(stderr, "confpol claude: %s: %s\n", cj,
                        strerror(errno));
            close(fd);
            if (!quiet)
                fprintf(stderr,
                        "confpol claude: created %s (Claude Code's "
                        "state file, which the policy lets it write)\n",
                        cj);
        }
        free(cj);
    }
}

/* --whole: `confpol run POLICY -- claude --settings FILE ARGS...`. */
static int cp_claude_whole(const char *policy, const char *project,
                           const char *artifact, const char *settings,
                           const char **opts, int nopts, int nargs, char **args,
                           bool quiet)
{
    /* The agent must not rewrite its own settings or the gate's artifact:
     * Claude Code reloads a settings file that changes. */
    char *v = cp_claude_explain(policy, project, "write", settings);
    bool writable = !v || strncmp(v, "deny", 4) != 0;
    free(v);
    if (writable) {
        fprintf(stderr,
                "confpol claude: the policy lets the agent write %s "
                "(or could not be asked): the settings and the "
                "gate's artifact must stay out of the write roots\n",
                settings);
        return 1;
    }
    /* What the client needs, and nothing planted for a later session. */
    if (cp_claude_whole_preflight(policy, project) != 0)
        return 1;
    if (!cp_claude_whole_settings(artifact, settings))
        return 1;
    cp_claude_whole_state(quiet);
    const char *bin = getenv("CONFPOL_CLAUDE");
    if (!bin || !*bin)
        bin = "claude";
    const char **rargv = cp_xmalloc((size_t)(nopts + nargs + 8) *
                                    sizeof *rargv);
    int n = 0;
    rargv[n++] = "run";
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i], "--target") != 0 &&
            strcmp(opts[i], "claude") != 0 && strcmp(opts[i], "build") != 0)
            rargv[n++] = opts[i];
    rargv[n++] = policy;
    rargv[n++] = "--";
    rargv[n++] = bin;
    rargv[n++] = "--settings";
    rargv[n++] = settings;
    for (int i = 0; i < nargs; i++)
        rargv[n++] = args[i];
    rargv[n] = NULL;
    if (!quiet)
        fprintf(stderr,
                "confpol claude: confpol run %s -- %s --settings %s "
                "(PROJECT=%s)\n",
                policy, bin, settings, project);
    /* The state file's keys a later session acts on: copied now, put
     * back after the session (cli/claude_state.c). */
    char *dir = cp_xstrdup(settings);
    *strrchr(dir, '/') = '\0';
    /* The automatic memory too (cli/claude_memory.c). */
    int rc = cp_claude_memory_begin(dir);
    if (rc == 0 && (rc = cp_claude_state_begin(dir, project)) != 0)
        cp_claude_memory_end(dir);
    if (rc == 0) {
        fflush(NULL);
        rc = cp_cmd_run(n, (char **)rargv);
        int state = cp_claude_state_end(dir, project);
        int memory = cp_claude_memory_end(dir);
        if ((state < 0 || memory < 0) && rc == 0)
            rc = 2;
    }
    free(dir);
    free(rargv);
    return rc;
}

/* One run of confpol claude: the command line, the build's arguments and
 * the paths it made.  cp_claude_run_free releases it. */
struct cp_claude_run {
    struct cp_cli_client cl; /* the command line; cl.flag_set: --whole */
    char *project, *dir, *artifact, *settings, *projdef;
};

static void cp_claude_run_free(struct cp_claude_run *r)
{
    free(r->cl.bargv);
    free(r->project);
    free(r->dir);
    free(r->artifact);
    free(r->settings);
    free(r->projdef);
}

/* Builds the claude artifact of the policy into the settings directory of
 * the current project; sets project, dir, artifact and settings.  Returns
 * the exit status of the build (2: the directory could not be made). */
static int cp_claude_build(struct cp_claude_run *r)
{
    r->project = getcwd(NULL, 0);
    char *rp = r->project ? realpath(r->project, NULL) : NULL;
    free(r->project);
    r->project = rp;
    r->dir = r->project ? cp_cli_client_dir("claude", r->cl.flag_set,
                                            getenv("HOME"), r->project)
                        : NULL;
    if (!r->dir || !cp_cli_mkdirs(r->dir, 0700)) {
        fprintf(stderr,
                "confpol claude: cannot make the directory for the "
                "settings%s%s: %s\n",
                r->dir ? " " : " (HOME is not set)", r->dir ? r->dir : "",
                strerror(errno));
        return 2;
    }
    /* Started in / or above HOME, 'write ${PROJECT}' would open it all. */
    if (!cp_cli_project_sane("claude", r->cl.policy, r->project))
        return 1;
    struct cp_buf b = {0};
    cp_buf_printf(&b, "PROJECT=%s", r->project);
    r->projdef = b.data;
    r->cl.bargv[r->cl.bargc++] = "-D";
    r->cl.bargv[r->cl.bargc++] = r->projdef;
    r->cl.bargv[r->cl.bargc++] = "-o";
    r->cl.bargv[r->cl.bargc++] = r->dir;
    r->cl.bargv[r->cl.bargc++] = r->cl.policy;
    r->cl.bargv[r->cl.bargc] = NULL;
    int rc = cp_cmd_build(r->cl.bargc, (char **)r->cl.bargv);
    if (rc != 0)
        return rc;
    /* The artifact is STEM.claude.json, STEM the policy's file name. */
    const char *base = strrchr(r->cl.policy, '/');
    base = base ? base + 1 : r->cl.policy;
    size_t bl = strlen(base);
    if (bl > 8 && strcmp(base + bl - 8, ".confpol") == 0)
        bl -= 8;
    struct cp_buf ab = {0};
    cp_buf_printf(&ab, "%s/%.*s.claude.json", r->dir, (int)bl, base);
    r->artifact = ab.data;
    r->settings = cp_claude_join(r->dir, "settings.json");
    return 0;
}

/* The number of entries in the settings files Claude Code merges with
 * the --settings file (managed, user, project, local: settings/loosen.c)
 * that loosen the artifact, each reported on stderr.  whole: only those
 * that turn the gate hook off (the rest is inside the confinement). */
static int cp_claude_loose_total(const char *project, const struct cp_buf *art,
                                 bool whole)
{
    const char *home = getenv("HOME"), *cfg = getenv("CLAUDE_CONFIG_DIR");
    char *files[3] = {
        cfg && *cfg ? cp_claude_join(cfg, "settings.json")
        : home      ? cp_claude_join(home, ".claude/settings.json")
                    : NULL,
        cp_claude_join(project, ".claude/settings.json"),
        cp_claude_join(project, ".claude/settings.local.json"),
    };
    static const enum cp_settings_source src[3] = {
        CP_SETTINGS_USER, CP_SETTINGS_PROJECT, CP_SETTINGS_LOCAL};
    const char *lead = "confpol claude: ";
    struct cp_buf out = {0};
    int loose = cp_cli_claude_managed(art->data, art->len, whole, lead, NULL,
                                      &out);
    for (size_t i = 0; i < 3; i++) {
        if (files[i])
            loose += cp_cli_claude_merged(files[i], src[i], whole, art->data,
                                          art->len, lead, &out);
        free(files[i]);
    }
    if (out.len)
        fwrite(out.data, 1, out.len, stderr);
    cp_buf_free(&out);
    return loose;
}

/* The artifact's text, then whether the merged files loosen it: -1 to go
 * on, else the exit status (printed). */
static int cp_claude_merged_ok(const char *project, const char *artifact,
                               bool whole)
{
    struct cp_buf text = {0};
    int rc = -1;
    if (!cp_cli_read_file(artifact, &text)) {
        fprintf(stderr, "confpol claude: %s: cannot read the artifact\n",
                artifact);
        rc = 2;
    } else if (cp_claude_loose_total(project, &text, whole)) {
        fprintf(stderr, "confpol claude: refused: Claude Code merges these "
                        "files with the policy's settings; remove the "
                        "entries above first\n");
        rc = 1;
    }
    cp_buf_free(&text);
    return rc;
}

/* Runs Claude Code with the settings file (returns only on failure). */
static int cp_claude_exec(const struct cp_claude_run *r, int argc, char **argv)
{
    const char *bin = getenv("CONFPOL_CLAUDE");
    if (!bin || !*bin)
        bin = "claude";
    const char **cargv = cp_xmalloc((size_t)(argc - r->cl.rest + 4) *
                                    sizeof *cargv);
    int n = 0;
    cargv[n++] = bin;
    cargv[n++] = "--settings";
    cargv[n++] = r->settings;
    for (int i = r->cl.rest; i < argc; i++)
        cargv[n++] = argv[i];
    cargv[n] = NULL;
    if (!r->cl.quiet)
        fprintf(stderr,
                "confpol claude: %s --settings %s (policy %s, "
                "PROJECT=%s)\n",
                bin, r->settings, r->cl.policy, r->project);
    fflush(NULL);
    execvp(bin, (char **)cargv);
    int e = errno;
    fprintf(stderr, "confpol claude: %s: %s\n", bin, strerror(e));
    free(cargv);
    return e == ENOENT ? 127 : 126;
}

/* Without --whole: a fresh settings file holding this artifact only,
 * refused when the user's or the project's settings loosen it, then
 * Claude Code. */
static int cp_claude_settings_only(const struct cp_claude_run *r, int argc,
                                   char **argv)
{
    if (unlink(r->settings) != 0 && errno != ENOENT) {
        fprintf(stderr, "confpol claude: %s: %s\n", r->settings,
                strerror(errno));
        return 2;
    }
    const char *iargv[] = {"install",   "--claude",  "-q",
                           r->settings, r->artifact, NULL};
    int rc = cp_cmd_install(5, (char **)iargv);
    if (rc != 0)
        return rc;
    rc = cp_claude_merged_ok(r->project, r->artifact, false);
    return rc >= 0 ? rc : cp_claude_exec(r, argc, argv);
}

int cp_cmd_claude(int argc, char **argv)
{
    /* build's own options pass through: -D, -W..., --diagnostics-format */
    static const char *const bound[] = {"PROJECT=", NULL};
    struct cp_claude_run r = {
        .cl = {.cmd = "claude",
               .whose = "Claude Code's",
               .flag = "--whole",
               .bound = bound,
               .bound_why = "PROJECT is the current directory: run confpol "
                            "claude there",
               .usage = cp_claude_usage,
               .rest = argc,
               .bargv = cp_xmalloc((size_t)(argc + 12) * sizeof(char *))},
    };
    r.cl.bargv[r.cl.bargc++] = "build";
    r.cl.bargv[r.cl.bargc++] = "--target";
    r.cl.bargv[r.cl.bargc++] = "claude";
    /* CP0759 is about project settings files; confpol claude writes a
     * --settings file, where strictAllowlist holds. */
    r.cl.bargv[r.cl.bargc++] = "-Wno-claude-net-prompt";
    int rc = cp_cli_client_args(&r.cl, argc, argv);
    if (rc >= 0) {
        cp_claude_run_free(&r);
        return rc;
    }
    if (!r.cl.policy)
        r.cl.policy = "policy.confpol";
    if (r.cl.flag_set) {
        /* Facts about Claude Code's own sandbox and file tools: with
         * --whole both are inside the confinement, so they do not apply. */
        r.cl.bargv[r.cl.bargc++] = "-Wno-claude-runtime-dirs";
        r.cl.bargv[r.cl.bargc++] = "-Wno-claude-file-tools";
    } else {
        /* Said at the start: without net rules the client asks per
         * domain, and a session under -p is refused each one. */
        r.cl.bargv[r.cl.bargc++] = "-Wclaude-net-asks";
    }
    rc = cp_claude_build(&r);
    /* --whole: the gate hook is what the merged files can still turn off */
    if (rc == 0 && r.cl.flag_set &&
        (rc = cp_claude_merged_ok(r.project, r.artifact, true)) < 0)
        rc = 0;
    if (rc == 0 && r.cl.flag_set)
        rc = cp_claude_whole(r.cl.policy, r.project, r.artifact, r.settings,
                             r.cl.bargv, r.cl.bargc - 5, argc - r.cl.rest,
                             argv + r.cl.rest, r.cl.quiet);
    else if (rc == 0)
        rc = cp_claude_settings_only(&r, argc, argv);
    cp_claude_run_free(&r);
    return rc;
}

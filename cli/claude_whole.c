/* SPDX-License-Identifier: MIT */
/* confpol claude --whole: what the policy must give the client, what it
 * must keep from the agent, and the keys of the client's state file that
 * a later session acts on (spec/settings-wiring.md, "--whole").  A session
 * confined as a whole can still leave behind what a later session, run
 * outside any confinement, loads: instructions, skills, hooks, MCP
 * servers.  The places the client reads them from are checked against the
 * policy before the start; the state file, which the client must write,
 * is watched around the session. */
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

/* The first line `confpol explain` prints for one access (heap), run as a
 * child so that its output is captured; NULL when it fails. */
char *cp_claude_explain(const char *policy, const char *project,
                        const char *access, const char *subject)
{
    int fd[2];
    if (pipe(fd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        char def[PATH_MAX + 16];
        snprintf(def, sizeof def, "PROJECT=%s", project);
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execl("/proc/self/exe", "confpol", "explain", "--ignore-expect", "-D",
              def, policy, access, subject, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char line[256] = "";
    FILE *f = fdopen(fd[0], "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        while (fgetc(f) != EOF)
            ;
        fclose(f);
    } else {
        close(fd[0]);
    }
    int st;
    waitpid(pid, &st, 0);
    line[strcspn(line, "\n")] = '\0';
    return line[0] ? cp_xstrdup(line) : NULL;
}

/* The policy's answer for one access is `verdict` ("allow", "deny"). */
static bool cp_whole_is(const char *policy, const char *project,
                        const char *access, const char *subject,
                        const char *verdict)
{
    char *v = cp_claude_explain(policy, project, access, subject);
    bool is = v && strcmp(v, verdict) == 0;
    free(v);
    return is;
}

/* The client's configuration directory: $CLAUDE_CONFIG_DIR, else
 * ~/.claude (heap; NULL without HOME). */
char *cp_claude_config_dir(void)
{
    const char *cfg = getenv("CLAUDE_CONFIG_DIR"), *home = getenv("HOME");
    struct cp_buf b = {0};
    if (cfg && cfg[0] == '/')
        cp_buf_adds(&b, cfg);
    else if (home && home[0] == '/')
        cp_buf_printf(&b, "%s/.claude", home);
    return b.data;
}

/* The client's state file: $CLAUDE_CONFIG_DIR/.claude.json, else
 * ~/.claude.json (heap; NULL without HOME). */
char *cp_claude_state_file(void)
{
    const char *cfg = getenv("CLAUDE_CONFIG_DIR"), *home = getenv("HOME");
    struct cp_buf b = {0};
    if (cfg && cfg[0] == '/')
        cp_buf_printf(&b, "%s/.claude.json", cfg);
    else if (home && home[0] == '/')
        cp_buf_printf(&b, "%s/.claude.json", home);
    return b.data;
}

/* The API host and port the client talks to: ANTHROPIC_BASE_URL's
 * authority, else api.anthropic.com:443.  Written as HOST:PORT. */
static void cp_whole_api_host(struct cp_buf *out)
{
    const char *u = getenv("ANTHROPIC_BASE_URL");
    const char *sep = u ? strstr(u, "://") : NULL;
    if (!sep) {
        cp_buf_adds(out, "api.anthropic.com:443");
        return;
    }
    bool http = strncmp(u, "http:", 5) == 0;
    const char *h = sep + 3;
    size_t n = strcspn(h, "/?#");
    const char *at = memchr(h, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - h);
        h = at + 1;
    }
    /* the port follows the host, or the ']' of an IPv6 literal */
    const char *end = h[0] == '[' ? memchr(h, ']', n) : h;
    const char *colon = end ? memchr(end, ':', n - (size_t)(end - h)) : NULL;
    if (colon)
        cp_buf_add(out, h, n);
    else
        cp_buf_printf(out, "%.*s:%s", (int)n, h, http ? "80" : "443");
}

/* What the client needs (each must be allowed): its state file, its
 * state directory, its API host.  Prints one line per missing rule. */
static int cp_whole_needs(const char *policy, const char *project)
{
    char *cfg = cp_claude_config_dir(), *state = cp_claude_state_file();
    struct cp_buf api = {0}, sub = {0};
    int missing = 0;
    if (!cfg || !state) {
        fputs("confpol claude: --whole: HOME is not set\n", stderr);
        missing = 1;
        goto out;
    }
    if (!cp_whole_is(policy, project, "write", state, "allow")) {
        fprintf(stderr,
                "confpol claude: --whole: the policy does not let Claude "
                "Code write %s, its state file (add 'write %s')\n",
                state, state);
        missing++;
    }
    cp_buf_printf(&sub, "%s/projects/x.jsonl", cfg);
    if (!cp_whole_is(policy, project, "write", sub.data, "allow")) {
        fprintf(stderr,
                "confpol claude: --whole: the policy does not let Claude "
                "Code write %s, its state directory (add 'write %s')\n",
                cfg, cfg);
        missing++;
    }
    cp_whole_api_host(&api);
    if (!cp_whole_is(policy, project, "net", api.data, "allow")) {
        size_t hl = strlen(api.data);
        const char *c = strrchr(api.data, ':');
        if (c && !strchr(c, ']'))
            hl = (size_t)(c - api.data);
        fprintf(stderr,
                "confpol claude: --whole: the policy does not let Claude "
                "Code reach its API host %s: the proxy would refuse every "
                "request (add 'net allow %.*s')\n",
                api.data, (int)hl, api.data);
        missing++;
    }
out:
    free(cfg);
    free(state);
    cp_buf_free(&api);
    cp_buf_free(&sub);
    return missing;
}

/* The places a later session loads instructions, settings, skills,
 * commands, agents, hooks, plugins, servers or shell code from, each as
 * an instance path below its root (from the client's own lists:
 * ~/.claude's commands, agents, output-styles, skills, workflows,
 * routines, rules; CLAUDE.md and CLAUDE.local.md from the working
 * directory up to /; .mcp.json; settings files).  One table per root. */
static const char *const cp_whole_user[] = {
    "settings.json",    "settings.local.json",
    "CLAUDE.md",        "CLAUDE.local.md",
    "hooks/x",          "commands/x.md",
    "agents/x.md",      "skills/x/SKILL.md",
    "plugins/x",        "output-styles/x.md",
    "rules/x.md",       "workflows/x",
    "routines/x",       "agent-memory/x/MEMORY.md",
    "keybindings.json",
};
static const char *const cp_whole_project[] = {
    ".mcp.json",
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/CLAUDE.md",
    ".claude/skills/x/SKILL.md",
    ".claude/commands/x.md",
    ".claude/agents/x.md",
    ".claude/hooks/x",
    ".claude/rules/x.md",
    ".claude/agent-memory/x/MEMORY.md",
    ".git/hooks/pre-commit",
    ".git/config",
};
/* In each directory above the project (the client reads CLAUDE.md files
 * up to the root). */
static const char *const cp_whole_above[] = {
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
    ".claude/rules/x.md",
};
/* The user's shell start-up files (HOME). */
static const char *const cp_whole_home[] = {
    ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".gitconfig",
};

struct cp_whole_probe {
    const char *policy, *project;
    int open; /* places the policy lets the agent write */
};

static void cp_whole_check(struct cp_whole_probe *p, const char *root,
                           const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct cp_buf b = {0};
        cp_buf_printf(&b, "%s%s%s", root,
                      root[0] && root[strlen(root) - 1] == '/' ? "" : "/",
                      names[i]);
        if (!cp_whole_is(p->policy, p->project, "write", b.data, "deny")) {
            fprintf(stderr,
                    "confpol claude: --whole: the policy lets the agent "
                    "write %s, which a later session outside the "
                    "confinement loads\n",
                    b.data);
            p->open++;
        }
        cp_buf_free(&b);
    }
}

#define CP_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Counts (and prints) the places the agent could plant something in. */
static int cp_whole_planted(const char *policy, const char *project)
{
    struct cp_whole_probe p = {policy, project, 0};
    char *cfg = cp_claude_config_dir();
    const char *home = getenv("HOME");
    if (cfg)
        cp_whole_check(&p, cfg, cp_whole_user, CP_NELEM(cp_whole_user));
    if (home && home[0] == '/')
        cp_whole_check(&p, home, cp_whole_home, CP_NELEM(cp_whole_home));
    cp_whole_check(&p, project, cp_whole_project, CP_NELEM(cp_whole_project));
    char *up = cp_xstrdup(project);
    for (char *s = strrchr(up, '/'); s; s = strrchr(up, '/')) {
        s[s == up ? 1 : 0] = '\0';
        cp_whole_check(&p, up, cp_whole_above, CP_NELEM(cp_whole_above));
        if (s == up)
            break;
    }
    free(up);
    free(cfg);
    return p.open;
}

int cp_claude_whole_preflight(const char *policy, const char *project)
{
    int missing = cp_whole_needs(policy, project);
    int open = cp_whole_planted(policy, project);
    if (missing)
        fprintf(stderr,
                "confpol claude: refused: under --whole the client runs "
                "inside the policy, which must give it the rules above "
                "(examples/claude-code-whole.confpol has them)\n");
    if (open)
        fprintf(stderr,
                "confpol claude: refused: add 'deny write' for the places "
                "above (examples/claude-code-whole.confpol denies them)\n");
    return missing || open ? 1 : 0;
}

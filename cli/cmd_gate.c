/* SPDX-License-Identifier: MIT */
/* confpol gate: Claude Code's PreToolUse hook, and --verify-log.
 *
 * Order of work: read and check stdin (bounded), load the policy (compile a
 * .confpol in memory, or read the gate table of a .claude.json artifact),
 * decide, answer, log.  Any failure is answered by the fail mode: deny (JSON
 * on stdout, reason on stderr, exit 2) when the policy is fail-closed or
 * could not be loaded at all, allow (no output, exit 0, warning on stderr)
 * when a loaded policy is fail-open.  See spec/gate.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gate.h"

static void cp_gate_usage(FILE *out)
{
    fputs("usage: confpol gate [-D NAME=VALUE]... POLICY.confpol|ARTIFACT.claude.json\n"
          "       confpol gate --verify-log FILE\n"
          "\n"
          "Answers one Claude Code PreToolUse hook call: reads the hook JSON on\n"
          "stdin and, for Bash, matches tool_input.command against the policy's\n"
          "gate patterns.  allow: no output; ask/deny: JSON on stdout; exit 0.\n"
          "On malformed input or an internal failure: deny (exit 2) when the\n"
          "policy fails closed, allow with a warning when it fails open.\n"
          "CONFPOL_GATE_LOG=/abs/file appends a hash-chained decision log;\n"
          "--verify-log checks it (exit 0 intact, 1 broken, 2 I/O error).\n",
          out);
}

static bool cp_gate_has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

struct cp_gate_run {
    struct cp_arena *arena;
    const char *tool;
    const char *command;
    bool loaded;      /* the policy or artifact was read and is valid */
    bool fail_closed; /* meaningful when loaded */
};

static void cp_gate_log(const struct cp_gate_run *g, enum cp_verdict v,
                        const char *rule)
{
    const char *path = getenv("CONFPOL_GATE_LOG");
    if (!path || !*path)
        return;
    if (path[0] != '/') {
        fprintf(stderr, "confpol gate: warning: CONFPOL_GATE_LOG='%s' is not "
                        "an absolute path; not logging\n", path);
        return;
    }
    struct cp_gatelog_rec r = {
        .time = time(NULL),
        .decision = cp_verdict_text(v),
        .rule = rule,
        .cmd = g->command,
        .cmdlen = g->command ? strlen(g->command) : 0,
        .tool = g->tool,
    };
    char err[512];
    if (cp_gatelog_append(path, &r, err, sizeof err) < 0)
        fprintf(stderr, "confpol gate: warning: decision log: %s\n", err);
}

static int cp_gate_answer(const struct cp_gate_run *g, enum cp_verdict v,
                          const char *rule, const char *reason)
{
    struct cp_buf b = {0};
    cp_gate_format_answer(&b, v, reason);
    if (b.len)
        fwrite(b.data, 1, b.len, stdout);
    cp_buf_free(&b);
    cp_gate_log(g, v, rule);
    return fflush(stdout) == 0 ? 0 : 2;
}

/* The failure path: the only place that picks deny or allow by fail mode. */
static int cp_gate_fail(const struct cp_gate_run *g, const char *why)
{
    if (g->loaded && !g->fail_closed) {
        fprintf(stderr, "confpol gate: warning: %s; allowing (the policy "
                        "fails open)\n", why);
        cp_gate_log(g, CP_ALLOW, NULL);
        return 0;
    }
    const char *reason = cp_arena_printf(
        g->arena, "confpol gate: %s; denying (%s)", why,
        g->loaded ? "the policy fails closed" : "no policy to decide with");
    fprintf(stderr, "%s\n", reason);
    struct cp_buf b = {0};
    cp_gate_format_answer(&b, CP_DENY, reason);
    fwrite(b.data, 1, b.len, stdout);
    fflush(stdout);
    cp_buf_free(&b);
    cp_gate_log(g, CP_DENY, NULL);
    return 2;
}

/* Fail-closed exactly when the profile was written as confined or
 * exclusive and the policy does not say `fail open` (spec/gate.md). */
static bool cp_gate_policy_fail_closed(const struct cp_policy *p)
{
    return !p->profile_defaulted && p->profile != CP_PROFILE_COOPERATIVE &&
           p->fail == CP_FAIL_CLOSED;
}

static int cp_gate_with_policy(struct cp_gate_run *g,
                               const struct cp_cli_common *common,
                               const char *path, const char *input_err)
{
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.main_path = path;
    int rc;
    struct stat st;
    /* A FIFO or device would block or never end: refuse before reading. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        rc = cp_gate_fail(g, cp_arena_printf(g->arena, "policy '%s' is not "
                                                       "a regular file", path));
        goto out;
    }
    if (!cp_cli_apply(common, &cx)) {
        rc = cp_gate_fail(g, "invalid command-line options");
        goto out;
    }
    if (cp_compile(&cx) != 0 || !cx.policy) {
        cp_diags_render_text(&cx.diags, stderr);
        rc = cp_gate_fail(g, cp_arena_printf(g->arena, "policy '%s' does "
                                                       "not compile", path));
        goto out;
    }
    const struct cp_policy *p = cx.policy;
    g->loaded = true;
    g->fail_closed = cp_gate_policy_fail_closed(p);
    if (input_err) {
        rc = cp_gate_fail(g, input_err);
        goto out;
    }
    if (!g->command) {
        rc = cp_gate_answer(g, CP_ALLOW, NULL, NULL);
        goto out;
    }
    struct cp_decision d;
    if (cp_decide(p, CP_ACC_GATE, g->command, cx.arena, &d) != 0) {
        rc = cp_gate_fail(g, "the decision model failed");
        goto out;
    }
    if (d.verdict == CP_ALLOW) {
        rc = cp_gate_answer(g, CP_ALLOW, NULL, NULL);
        goto out;
    }
    if (d.gate_unreadable) { /* denied by the reader, not by a rule */
        rc = cp_gate_answer(g, d.verdict, NULL, d.gate_why);
        goto out;
    }
    const struct cp_rule *r = NULL;
    for (size_t i = 0; i < d.nrules && !r; i++)
        if (d.rules[i]->kind == (d.verdict == CP_DENY ? CP_R_GATE_DENY
                                                       : CP_R_GATE_ASK))
            r = d.rules[i];
    if (!r) {
        rc = cp_gate_fail(g, "the decision names no gate rule");
        goto out;
    }
    const char *id = cp_gate_rule_id(cx.arena, p, r);
    /* As the Claude backend writes "where" into the artifact. */
    const char *where =
        r->loc.src ? cp_arena_printf(cx.arena, "%s:%u", r->loc.src->path,
                                     r->loc.line)
                   : "(implicit)";
    rc = cp_gate_answer(g, d.verdict, id,
                        cp_gate_reason(cx.arena, id, where, r->u.gate.kind,
                                       r->u.gate.kind == CP_GATE_UNKNOWN
                                           ? d.gate_why
                                           : r->u.gate.text));
out:
    cp_policy_free(cx.policy); /* compiled regexes: not in the arena */
    cp_ctx_free(&cx);
    return rc;
}

static int cp_gate_with_artifact(struct cp_gate_run *g, const char *path,
                                 const char *input_err)
{
    struct cp_gate_table t;
    const char *err = cp_gate_table_load(g->arena, path, &t);
    int rc;
    if (err) {
        rc = cp_gate_fail(g, err);
    } else {
        g->loaded = true;
        g->fail_closed = t.fail_closed;
        if (input_err) {
            rc = cp_gate_fail(g, input_err);
        } else if (!g->command) {
            rc = cp_gate_answer(g, CP_ALLOW, NULL, NULL);
        } else {
            struct cp_gate_answer ans;
            cp_gate_table_decide(&t, g->command, g->arena, &ans);
            if (ans.error) { /* a deferred regcomp failed: as at load */
                g->loaded = false;
                rc = cp_gate_fail(g, cp_arena_printf(g->arena, "'%s': %s",
                                                     path, ans.error));
            } else {
                rc = cp_gate_answer(g, ans.verdict, ans.rule, ans.reason);
            }
        }
    }
    cp_gate_table_free(&t);
    return rc;
}

int cp_cmd_gate(int argc, char **argv)
{
    struct cp_cli_common common = {0};
    const char *target = NULL, *verify = NULL;
    bool usage_err = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_gate_usage(stdout);
            cp_cli_common_free(&common);
            return 0;
        }
        if (strcmp(a, "--verify-log") == 0) {
            if (i + 1 >= argc) {
                fputs("confpol gate: --verify-log needs a FILE\n", stderr);
                cp_cli_common_free(&common);
                return 2;
            }
            verify = argv[++i];
            continue;
        }
        if (strncmp(a, "-D", 2) == 0) {
            int c = cp_cli_common_opt(&common, argc, argv, &i);
            if (c == 1)
                continue;
            usage_err = true;
            break;
        }
        if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "confpol gate: unknown option '%s'\n", a);
            usage_err = true;
            break;
        }
        if (target) {
            fprintf(stderr, "confpol gate: more than one policy given\n");
            usage_err = true;
            break;
        }
        target = a;
    }
    if (verify && !usage_err && !target && common.ndefines == 0) {
        cp_cli_common_free(&common);
        return cp_gatelog_verify(verify, stdout, stderr);
    }
    if (verify) { /* not a hook call: a plain usage error */
        if (!usage_err)
            fputs("confpol gate: --verify-log takes only FILE\n", stderr);
        cp_cli_common_free(&common);
        return 2;
    }

    struct cp_gate_run g = {.arena = cp_arena_new()};
    int rc;
    if (usage_err || !target) {
        if (!usage_err)
            fputs("confpol gate: no policy given\n", stderr);
        cp_gate_usage(stderr);
        /* A miswired hook must not let calls through. */
        rc = cp_gate_fail(&g, "usage error in the hook command");
        goto out;
    }

    struct cp_buf in = {0};
    enum cp_gate_rd rd = cp_gate_read_input(STDIN_FILENO, CP_GATE_MAX_INPUT,
                                            CP_GATE_READ_TIMEOUT_MS, &in);
    struct cp_gate_input hin = {0};
    const char *input_err = NULL;
    if (rd != CP_GATE_RD_OK)
        input_err = cp_gate_rd_text(rd);
    else
        input_err = cp_gate_parse_input(g.arena, in.data, in.len, &hin);
    cp_buf_free(&in);
    g.tool = hin.tool;
    g.command = hin.command;

    if (cp_gate_has_suffix(target, ".json"))
        rc = cp_gate_with_artifact(&g, target, input_err);
    else
        rc = cp_gate_with_policy(&g, &common, target, input_err);
out:
    cp_arena_free(g.arena);
    cp_cli_common_free(&common);
    return rc;
}

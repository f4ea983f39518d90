/* SPDX-License-Identifier: MIT */
/* confpol gate: Claude Code's PreToolUse hook on an artifact or a policy
 * source, and --verify-log.  The hook call itself is hook/gate_call.c,
 * shared with confpol-gate (the program the installed hook runs, which
 * decides with an artifact only); what is here is what needs the compiler:
 * -D and a policy source compiled in memory.  See spec/gate.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gate.h"

static void cp_gate_usage(FILE *out)
{
    fputs(
        "usage: confpol gate [-D NAME=VALUE]... POLICY.confpol\n"
        "       confpol gate [--sha256 HEX] ARTIFACT.claude.json\n"
        "       confpol gate --verify-log FILE\n"
        "\n"
        "Answers one Claude Code PreToolUse hook call: reads the hook JSON on\n"
        "stdin; for Bash (and PowerShell) matches tool_input.command against\n"
        "the policy's gate patterns; for Write, Edit, MultiEdit and\n"
        "NotebookEdit decides the path against the write and deny-write\n"
        "rules (PROJECT and HOME unbound: $CLAUDE_PROJECT_DIR, $HOME), then\n"
        "scans what would be written with the content rules.\n"
        "allow: no output; ask/deny: JSON on stdout; exit 0.\n"
        "On malformed input or an internal failure: deny (exit 2) when the\n"
        "policy fails closed, allow with a warning when it fails open.\n"
        "--sha256 HEX pins the artifact: if it no longer matches, every call\n"
        "is denied (fail-closed policy) or asked (otherwise).\n"
        "CONFPOL_GATE_LOG=/abs/file appends a hash-chained decision log;\n"
        "CONFPOL_GATE_LOG_KEY (or CONFPOL_GATE_LOG_KEY_FILE=/abs/file) adds\n"
        "a keyed input_hmac and line_hmac;\n"
        "--verify-log checks it (exit 0 intact, 1 broken, 2 I/O error),\n"
        "with the key when CONFPOL_GATE_LOG_KEY is set.\n",
        out);
}

/* Fail-closed exactly when the profile was written as confined or
 * exclusive and the policy does not say `fail open` (spec/gate.md). */
static bool cp_gate_policy_fail_closed(const struct cp_policy *p)
{
    return !p->profile_defaulted && p->profile != CP_PROFILE_COOPERATIVE &&
           p->fail == CP_FAIL_CLOSED;
}

/* Compiles the policy at path into cx.  Returns -1 when it compiled, else
 * the exit status of the failure answer given. */
static int cp_gate_policy_load(struct cp_gate_run *g,
                               const struct cp_cli_common *common,
                               const char *path, struct cp_ctx *cx)
{
    struct stat st;
    /* A FIFO or device would block or never end: refuse before reading. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return cp_gate_run_fail(
            g, cp_arena_printf(cp_gate_run_arena(g),
                               "policy '%s' is not a regular file", path));
    if (!cp_cli_apply(common, cx))
        return cp_gate_run_fail(g, "invalid command-line options");
    if (cp_compile(cx) != 0 || !cx->policy) {
        cp_diags_render_text(&cx->diags, stderr);
        return cp_gate_run_fail(
            g, cp_arena_printf(cp_gate_run_arena(g),
                               "policy '%s' does not compile", path));
    }
    return -1;
}

/* The decision of a hook call with a policy source (cp_gate_policy_fn). */
static int cp_gate_with_policy(struct cp_gate_run *g, const char *path,
                               const char *input_err, void *ud)
{
    const struct cp_cli_common *common = ud;
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.main_path = path;
    int rc = cp_gate_policy_load(g, common, path, &cx);
    if (rc < 0) {
        bool closed = cp_gate_policy_fail_closed(cx.policy);
        struct cp_gate_table t;
        cp_gate_table_from_policy(cx.arena, cx.policy, closed, &t);
        rc = cp_gate_run_decide(g, &t, path, closed, input_err);
    }
    cp_policy_free(cx.policy); /* compiled regexes: not in the arena */
    cp_ctx_free(&cx);
    return rc;
}

/* -D NAME=VALUE (cp_gate_opt_fn). */
static int cp_gate_define_opt(int argc, char **argv, int *i, void *ud)
{
    if (strncmp(argv[*i], "-D", 2) != 0)
        return 0;
    return cp_cli_common_opt(ud, argc, argv, i) == 1 ? 1 : -1;
}

int cp_cmd_gate(int argc, char **argv)
{
    struct cp_cli_common common = {0};
    struct cp_gate_args ga = {.prog = "confpol gate"};
    cp_gate_parse_args(&ga, argc, argv, cp_gate_define_opt, &common);
    int rc;
    if (ga.help) {
        cp_gate_usage(stdout);
        rc = 0;
    } else {
        rc = cp_gate_main(&ga, cp_gate_with_policy, &common);
    }
    cp_cli_common_free(&common);
    return rc;
}

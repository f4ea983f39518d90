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
#include "hmac.h"

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

static bool cp_gate_has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

struct cp_gate_run {
    struct cp_arena *arena;
    const char *tool;
    const char *command;
    const struct cp_gate_input *in;
    bool loaded;            /* the policy or artifact was read and is valid */
    bool fail_closed;       /* meaningful when loaded */
    const char *findings;   /* content findings (JSON) for the log, or NULL */
    const char *input_hmac; /* keyed HMAC of the input, or NULL */
    const char *key;        /* the log key, or NULL */
    size_t keylen;
    const char *pin;     /* --sha256 HEX, or NULL */
    struct cp_buf input; /* the hook input; its strings are read in place */
};

static void cp_gate_log(const struct cp_gate_run *g, enum cp_verdict v,
                        const char *rule)
{
    const char *path = getenv("CONFPOL_GATE_LOG");
    if (!path || !*path)
        return;
    if (path[0] != '/') {
        fprintf(stderr,
                "confpol gate: warning: CONFPOL_GATE_LOG='%s' is not "
                "an absolute path; not logging\n",
                path);
        return;
    }
    struct cp_gatelog_rec r = {
        .time = time(NULL),
        .decision = cp_verdict_text(v),
        .rule = rule,
        .cmd = g->command,
        .cmdlen = g->command ? strlen(g->command) : 0,
        .tool = g->tool,
        .findings = g->findings,
        .input_hmac = g->input_hmac,
        .key = g->key,
        .keylen = g->keylen,
    };
    const char *err = cp_gatelog_append(g->arena, path, &r);
    if (err)
        fprintf(stderr, "confpol gate: warning: decision log: %s\n", err);
}

static int cp_gate_answer(const struct cp_gate_run *g, enum cp_verdict v,
                          const char *rule, const char *reason)
{
    cp_gate_deadline_disarm();
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
    cp_gate_deadline_disarm();
    if (g->loaded && !g->fail_closed) {
        fprintf(stderr,
                "confpol gate: warning: %s; allowing (the policy "
                "fails open)\n",
                why);
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

/* A file tool's call: deny when the content rules find anything, naming
 * classes, rules and lines (never the content); else allow. */
static int cp_gate_content(struct cp_gate_run *g, unsigned classes,
                           const struct cp_content_rule *rules, size_t nrules)
{
    struct cp_content_scan s;
    if (!cp_gate_scan_texts(g->arena, g->in, classes, rules, nrules, &s))
        return cp_gate_answer(g, CP_ALLOW, NULL, NULL);
    struct cp_buf b = {0};
    cp_content_findings_json(&b, &s);
    g->findings = cp_arena_strdup(g->arena, b.data);
    cp_buf_free(&b);
    return cp_gate_answer(g, CP_DENY, NULL, cp_content_reason(g->arena, &s));
}

/* A file tool's call: its path against the write roots and deny-write
 * targets first (the client runs file tools outside its sandbox), then
 * what it writes against the content rules. */
static int cp_gate_file_tool(struct cp_gate_run *g,
                             const struct cp_gate_paths *paths,
                             unsigned classes,
                             const struct cp_content_rule *rules, size_t nrules)
{
    struct cp_gate_path_env env = {.home = getenv("HOME"),
                                   .project = getenv("CLAUDE_PROJECT_DIR"),
                                   .cwd = g->in->cwd};
    const char *why = cp_gate_path_decide(g->arena, paths, g->in->path, &env);
    if (why)
        return cp_gate_answer(
            g, CP_DENY, NULL,
            cp_arena_printf(g->arena, "confpol gate: %s of '%s' denied: %s",
                            g->tool, g->in->path, why));
    return cp_gate_content(g, classes, rules, nrules);
}

/* PowerShell: the gate reads command lines as POSIX shells do, which a
 * PowerShell line is not; a line no rule matches is asked about rather
 * than allowed, whenever the policy has gate rules to apply. */
#define CP_GATE_POWERSHELL_WHY                                                 \
    "confpol gate: a PowerShell command line is read as POSIX shell text, "    \
    "which it is not; no gate rule matched, asking rather than allowing"

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
        return cp_gate_fail(g, cp_arena_printf(g->arena,
                                               "policy '%s' is not "
                                               "a regular file",
                                               path));
    if (!cp_cli_apply(common, cx))
        return cp_gate_fail(g, "invalid command-line options");
    if (cp_compile(cx) != 0 || !cx->policy) {
        cp_diags_render_text(&cx->diags, stderr);
        return cp_gate_fail(g, cp_arena_printf(g->arena,
                                               "policy '%s' does "
                                               "not compile",
                                               path));
    }
    return -1;
}

/* The answer for a hook call decided with a gate table (the artifact's,
 * or the one made from a compiled policy); `path` names the table's file
 * in errors.  A regex or content rule whose deferred compilation fails
 * makes the table one that failed to load. */
static int cp_gate_table_answer(struct cp_gate_run *g, struct cp_gate_table *t,
                                const char *path)
{
    if (g->in->file_tool) {
        const char *cerr = cp_gate_content_compile(g->arena, t->content,
                                                   t->ncontent);
        if (cerr) { /* as a table that failed to load */
            g->loaded = false;
            return cp_gate_fail(
                g, cp_arena_printf(g->arena, "'%s': %s", path, cerr));
        }
        return cp_gate_file_tool(g, &t->paths, t->content_classes, t->content,
                                 t->ncontent);
    }
    if (!g->command)
        return cp_gate_answer(g, CP_ALLOW, NULL, NULL);
    struct cp_gate_answer ans;
    cp_gate_table_decide(t, g->command, g->arena, &ans);
    if (ans.error) { /* a deferred parse or regcomp failed: as at load */
        g->loaded = false;
        return cp_gate_fail(
            g, cp_arena_printf(g->arena, "'%s': %s", path, ans.error));
    }
    if (ans.verdict == CP_ALLOW && t->ngates &&
        strcmp(g->tool, "PowerShell") == 0)
        return cp_gate_answer(g, CP_ASK, NULL, CP_GATE_POWERSHELL_WHY);
    return cp_gate_answer(g, ans.verdict, ans.rule, ans.reason);
}

static int cp_gate_with_policy(struct cp_gate_run *g,
                               const struct cp_cli_common *common,
                               const char *path, const char *input_err)
{
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.main_path = path;
    int rc = cp_gate_policy_load(g, common, path, &cx);
    if (rc < 0) {
        g->loaded = true;
        g->fail_closed = cp_gate_policy_fail_closed(cx.policy);
        struct cp_gate_table t;
        cp_gate_table_from_policy(cx.arena, cx.policy, g->fail_closed, &t);
        rc = input_err ? cp_gate_fail(g, input_err)
                       : cp_gate_table_answer(g, &t, path);
    }
    cp_policy_free(cx.policy); /* compiled regexes: not in the arena */
    cp_ctx_free(&cx);
    return rc;
}

static int cp_gate_with_artifact(struct cp_gate_run *g, const char *path,
                                 const char *input_err)
{
    struct cp_gate_table t;
    char digest[CP_SHA256_HEX];
    const char *err = cp_gate_table_load_pinned(g->arena, path, &t,
                                                g->pin ? digest : NULL);
    int rc;
    if (g->pin && (!digest[0] || strcmp(digest, g->pin) != 0)) {
        /* Never decide with a table that is not the one built: deny when
         * the policy fails closed (as the table says, or when it cannot be
         * read at all), else ask on every call until it is rebuilt. */
        bool closed = err || t.fail_closed;
        const char *why = cp_arena_printf(
            g->arena,
            "confpol gate: the artifact '%s' does not match the "
            "SHA-256 pinned in the hook command (changed after it was "
            "built%s); %s",
            path, digest[0] ? "" : ", or unreadable",
            closed ? "denying (the policy fails closed)"
                   : "asking (the policy fails open)");
        fprintf(stderr, "%s\n", why);
        rc = cp_gate_answer(g, closed ? CP_DENY : CP_ASK, NULL, why);
        if (closed && rc == 0)
            rc = 2;
    } else if (err) {
        rc = cp_gate_fail(g, err);
    } else {
        g->loaded = true;
        g->fail_closed = t.fail_closed;
        rc = input_err ? cp_gate_fail(g, input_err)
                       : cp_gate_table_answer(g, &t, path);
    }
    cp_gate_table_free(&t);
    return rc;
}

/* The log key: CONFPOL_GATE_LOG_KEY's bytes, else the contents of the
 * file CONFPOL_GATE_LOG_KEY_FILE names (an absolute path; at most 4 KiB; a
 * final newline dropped), which a policy can keep the agent from reading
 * while the hook, outside the sandbox, reads it.  NULL: no key (a key file
 * that cannot be read is warned about; the lines are then unsealed, which
 * --verify-log with the key reports). */
static const char *cp_gate_log_key(struct cp_buf *b, size_t *len)
{
    const char *k = getenv("CONFPOL_GATE_LOG_KEY");
    if (k && *k) {
        *len = strlen(k);
        return k;
    }
    const char *path = getenv("CONFPOL_GATE_LOG_KEY_FILE");
    if (!path || !*path)
        return NULL;
    FILE *f = path[0] == '/' ? fopen(path, "rbe") : NULL;
    char chunk[4097];
    size_t n = f ? fread(chunk, 1, sizeof chunk, f) : 0;
    bool ok = f && !ferror(f) && n > 0 && n < sizeof chunk;
    if (f)
        fclose(f);
    if (ok && chunk[n - 1] == '\n')
        n--;
    if (!ok || n == 0) {
        fprintf(stderr,
                "confpol gate: warning: CONFPOL_GATE_LOG_KEY_FILE='%s' "
                "is not an absolute path to a readable file of 1 to "
                "4096 bytes; no key\n",
                path);
        return NULL;
    }
    cp_buf_add(b, chunk, n);
    *len = n;
    return b->data;
}

/* The command line of confpol gate. */
struct cp_gate_args {
    struct cp_cli_common common;
    const char *target, *verify, *pin;
    bool usage_err; /* a usage error was printed (a hook call still answers) */
};

/* --sha256 HEX at argv[*i]: false (printed) unless one pin of 64 lower-case
 * hex digits. */
static bool cp_gate_pin_arg(struct cp_gate_args *ga, int argc, char **argv,
                            int *i)
{
    const char *h = *i + 1 < argc ? argv[++*i] : "";
    bool ok = strlen(h) == 64 && !ga->pin;
    for (size_t k = 0; ok && k < 64; k++)
        ok = (h[k] >= '0' && h[k] <= '9') || (h[k] >= 'a' && h[k] <= 'f');
    if (!ok) {
        fprintf(stderr, "confpol gate: --sha256 needs one SHA-256 as "
                        "64 lower-case hex digits\n");
        return false;
    }
    ga->pin = h;
    return true;
}

/* One argument other than --help, --sha256 and --verify-log: false (printed)
 * on a usage error. */
static bool cp_gate_other_arg(struct cp_gate_args *ga, int argc, char **argv,
                              int *i)
{
    const char *a = argv[*i];
    if (strncmp(a, "-D", 2) == 0)
        return cp_cli_common_opt(&ga->common, argc, argv, i) == 1;
    if (a[0] == '-' && a[1] != '\0') {
        fprintf(stderr, "confpol gate: unknown option '%s'\n", a);
        return false;
    }
    if (ga->target) {
        fprintf(stderr, "confpol gate: more than one policy given\n");
        return false;
    }
    ga->target = a;
    return true;
}

/* Reads the command line.  Returns -1 to go on (ga->usage_err may be
 * set), else the exit status. */
static int cp_gate_args(struct cp_gate_args *ga, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool ok;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_gate_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--verify-log") == 0) {
            if (i + 1 >= argc) {
                fputs("confpol gate: --verify-log needs a FILE\n", stderr);
                return 2;
            }
            ga->verify = argv[++i];
            continue;
        }
        if (strcmp(a, "--sha256") == 0)
            ok = cp_gate_pin_arg(ga, argc, argv, &i);
        else
            ok = cp_gate_other_arg(ga, argc, argv, &i);
        if (!ok) {
            ga->usage_err = true;
            break;
        }
    }
    return -1;
}

/* --verify-log FILE: checks the log (and nothing else may be given). */
static int cp_gate_verify_log(const struct cp_gate_args *ga, const char *key,
                              size_t keylen)
{
    if (!ga->usage_err && !ga->target && !ga->pin && ga->common.ndefines == 0)
        return cp_gatelog_verify_keyed(ga->verify, key, keylen, stdout, stderr);
    /* not a hook call: a plain usage error */
    if (!ga->usage_err)
        fputs("confpol gate: --verify-log takes only FILE\n", stderr);
    fputs("see 'confpol gate --help'\n", stderr);
    return 2;
}

/* Reads and parses the hook's input into hin (the log's HMAC of the bytes
 * read into g); returns why it cannot be used, or NULL. */
static const char *cp_gate_read_hook(struct cp_gate_run *g,
                                     struct cp_gate_input *hin)
{
    struct cp_buf in = {0};
    enum cp_gate_rd rd = cp_gate_read_input(STDIN_FILENO, CP_GATE_MAX_INPUT,
                                            CP_GATE_READ_TIMEOUT_MS, &in);
    g->input = in; /* freed with the call: hin's strings point into it */
    const char *input_err = NULL;
    if (g->key) { /* of the bytes read, whatever they are */
        char mac[CP_SHA256_HEX];
        cp_hmac_sha256_hex(g->key, g->keylen, in.data ? in.data : "", in.len,
                           mac);
        g->input_hmac = cp_arena_strdup(g->arena, mac);
    }
    if (rd != CP_GATE_RD_OK)
        input_err = cp_gate_rd_text(rd);
    else
        input_err = cp_gate_parse_input_in_place(g->arena, in.data, in.len,
                                                 hin);
    g->tool = hin->tool;
    g->command = hin->command;
    return input_err;
}

/* A hook call: always answers on stdout, deny on a usage error. */
static int cp_gate_hook_call(struct cp_gate_args *ga, const char *key,
                             size_t keylen)
{
    struct cp_gate_input hin = {0};
    struct cp_gate_run g = {.arena = cp_arena_new(),
                            .in = &hin,
                            .key = key,
                            .keylen = keylen,
                            .pin = ga->pin};
    int rc;
    cp_gate_deadline_arm(
        cp_gate_deadline_ms(getenv("CONFPOL_GATE_DEADLINE_MS")));
    const char *target = ga->target;
    if (!ga->usage_err && target && ga->pin &&
        !cp_gate_has_suffix(target, ".json")) {
        fputs("confpol gate: --sha256 pins an artifact (.json), not a policy "
              "source\n",
              stderr);
        ga->usage_err = true;
    }
    if (ga->usage_err || !target) {
        if (!ga->usage_err)
            fputs("confpol gate: no policy given\n", stderr);
        fputs("see 'confpol gate --help'\n", stderr);
        /* A miswired hook must not let calls through. */
        rc = cp_gate_fail(&g, "usage error in the hook command");
    } else {
        const char *input_err = cp_gate_read_hook(&g, &hin);
        if (cp_gate_has_suffix(target, ".json"))
            rc = cp_gate_with_artifact(&g, target, input_err);
        else
            rc = cp_gate_with_policy(&g, &ga->common, target, input_err);
    }
    cp_arena_free(g.arena);
    cp_buf_free(&g.input);
    return rc;
}

int cp_cmd_gate(int argc, char **argv)
{
    struct cp_gate_args ga = {0};
    int rc = cp_gate_args(&ga, argc, argv);
    if (rc >= 0) {
        cp_cli_common_free(&ga.common);
        return rc;
    }
    struct cp_buf keybuf = {0};
    size_t keylen = 0;
    const char *key = cp_gate_log_key(&keybuf, &keylen);
    if (ga.verify)
        rc = cp_gate_verify_log(&ga, key, keylen);
    else
        rc = cp_gate_hook_call(&ga, key, keylen);
    cp_cli_common_free(&ga.common);
    cp_buf_free(&keybuf);
    return rc;
}

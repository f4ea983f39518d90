/* SPDX-License-Identifier: MIT */
/* One PreToolUse hook call, shared by `confpol gate` and confpol-gate.
 *
 * Order of work: read and check stdin (bounded), load the gate table (an
 * artifact's here; a policy's through the caller's cp_gate_policy_fn, which
 * confpol-gate does not have: it links no compiler), decide, answer, log.
 * Any failure is answered by the fail mode: deny (JSON on stdout, reason on
 * stderr, exit 2) when the policy is fail-closed or could not be loaded at
 * all, allow (no output, exit 0, warning on stderr) when a loaded policy is
 * fail-open.  See spec/gate.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "hmac.h"

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

int cp_gate_run_decide(struct cp_gate_run *g, struct cp_gate_table *t,
                       const char *path, bool fail_closed,
                       const char *input_err)
{
    g->loaded = true;
    g->fail_closed = fail_closed;
    return input_err ? cp_gate_fail(g, input_err)
                     : cp_gate_table_answer(g, t, path);
}

int cp_gate_run_fail(struct cp_gate_run *g, const char *why)
{
    return cp_gate_fail(g, why);
}

struct cp_arena *cp_gate_run_arena(struct cp_gate_run *g)
{
    return g->arena;
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
        rc = cp_gate_run_decide(g, &t, path, t.fail_closed, input_err);
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
                              int *i, cp_gate_opt_fn opt, void *ud)
{
    const char *a = argv[*i];
    if (a[0] == '-' && a[1] != '\0') {
        int r = opt ? opt(argc, argv, i, ud) : 0;
        if (r == 0)
            fprintf(stderr, "confpol gate: unknown option '%s'\n", a);
        ga->others |= r == 1;
        return r == 1;
    }
    if (ga->target) {
        fprintf(stderr, "confpol gate: more than one policy given\n");
        return false;
    }
    ga->target = a;
    return true;
}

void cp_gate_parse_args(struct cp_gate_args *ga, int argc, char **argv,
                        cp_gate_opt_fn opt, void *ud)
{
    for (int i = 1; i < argc && !ga->help; i++) {
        const char *a = argv[i];
        bool ok = true;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            ga->help = true;
        else if (strcmp(a, "--verify-log") == 0 && i + 1 < argc)
            ga->verify = argv[++i];
        else if (strcmp(a, "--verify-log") == 0) {
            fputs("confpol gate: --verify-log needs a FILE\n", stderr);
            ga->verify = "";
            ok = false;
        } else if (strcmp(a, "--sha256") == 0)
            ok = cp_gate_pin_arg(ga, argc, argv, &i);
        else
            ok = cp_gate_other_arg(ga, argc, argv, &i, opt, ud);
        if (!ok) {
            ga->usage_err = true;
            break;
        }
    }
}

/* --verify-log FILE: checks the log (and nothing else may be given). */
static int cp_gate_verify_log(const struct cp_gate_args *ga, const char *key,
                              size_t keylen)
{
    if (!ga->usage_err && !ga->target && !ga->pin && !ga->others)
        return cp_gatelog_verify_keyed(ga->verify, key, keylen, stdout, stderr);
    /* not a hook call: a plain usage error */
    if (!ga->usage_err)
        fputs("confpol gate: --verify-log takes only FILE\n", stderr);
    fprintf(stderr, "see '%s --help'\n", ga->prog);
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

/* Why the hook command cannot decide (printed), or false. */
static bool cp_gate_usage_err(const struct cp_gate_args *ga, bool policy)
{
    const char *target = ga->target;
    bool json = target && cp_gate_has_suffix(target, ".json");
    if (ga->usage_err)
        ;
    else if (!target)
        fputs("confpol gate: no policy given\n", stderr);
    else if (ga->pin && !json)
        fputs("confpol gate: --sha256 pins an artifact (.json), not a policy "
              "source\n",
              stderr);
    else if (!json && !policy)
        fprintf(stderr,
                "confpol gate: %s decides with an artifact (.json) only; "
                "'confpol gate' decides with a policy source\n",
                ga->prog);
    else
        return false;
    fprintf(stderr, "see '%s --help'\n", ga->prog);
    return true;
}

/* A hook call: always answers on stdout, deny on a usage error. */
static int cp_gate_hook_call(const struct cp_gate_args *ga, const char *key,
                             size_t keylen, cp_gate_policy_fn policy, void *ud)
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
    if (cp_gate_usage_err(ga, policy != NULL)) {
        /* A miswired hook must not let calls through. */
        rc = cp_gate_fail(&g, "usage error in the hook command");
    } else {
        const char *input_err = cp_gate_read_hook(&g, &hin);
        /* without a policy loader only an artifact gets here */
        if (!policy || cp_gate_has_suffix(target, ".json"))
            rc = cp_gate_with_artifact(&g, target, input_err);
        else
            rc = policy(&g, target, input_err, ud);
    }
    cp_arena_free(g.arena);
    cp_buf_free(&g.input);
    return rc;
}

int cp_gate_main(const struct cp_gate_args *ga, cp_gate_policy_fn policy,
                 void *ud)
{
    struct cp_buf keybuf = {0};
    size_t keylen = 0;
    const char *key = cp_gate_log_key(&keybuf, &keylen);
    int rc = ga->verify ? cp_gate_verify_log(ga, key, keylen)
                        : cp_gate_hook_call(ga, key, keylen, policy, ud);
    cp_buf_free(&keybuf);
    return rc;
}

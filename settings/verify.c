/* SPDX-License-Identifier: MIT */
/* Verify: does a live settings document enforce the artifact?  Each gap is
 * one line of the report (spec/settings-wiring.md). */
#include "settings_int.h"

#include "gate.h" /* the artifact pin */

#include <stdarg.h>
#include <string.h>

/* ======================================================================
 * Verify
 * ====================================================================== */

/* Reads one word at *sp (up to a blank or the end) into b, unquoting
 * '...', "..." and backslashes.  False on shell syntax install never
 * writes (expansions, operators, globs, an unterminated quote). */
static bool shell_word(const char **sp, struct cp_buf *b)
{
    const char *s = *sp;
    while (*s && *s != ' ' && *s != '\t') {
        if (*s == '\'') {
            const char *e = strchr(s + 1, '\'');
            if (!e)
                return false;
            cp_buf_add(b, s + 1, (size_t)(e - s - 1));
            s = e + 1;
        } else if (*s == '"') {
            for (s++; *s && *s != '"'; s++) {
                if (*s == '$' || *s == '`')
                    return false;
                if (*s == '\\' && s[1] && strchr("$`\"\\", s[1]))
                    s++;
                cp_buf_addc(b, *s);
            }
            if (*s != '"')
                return false;
            s++;
        } else if (*s == '\\' && s[1]) {
            cp_buf_addc(b, s[1]);
            s += 2;
        } else if (strchr("|&;<>()$`*?[#~{}\n", *s)) {
            return false;
        } else {
            cp_buf_addc(b, *s++);
        }
    }
    *sp = s;
    return true;
}

/* Splits a hook command written by install back into words: plain words,
 * '...' and "..." quoting and backslashes; any other shell syntax makes it
 * not one of ours (returns 0).  Returns the number of words (<= max). */
static size_t shell_split(struct cp_arena *a, const char *s, const char **w,
                          size_t max)
{
    size_t n = 0;
    struct cp_buf b = {0};
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        cp_buf_reset(&b);
        cp_buf_adds(&b, "");
        if (!shell_word(&s, &b) || n == max) {
            n = 0;
            break;
        }
        w[n++] = cp_arena_strndup(a, b.data, b.len);
    }
    cp_buf_free(&b);
    return n;
}

/* Is m a list of exact tool names separated by '|' or ','?  (Anything
 * else is a regular expression verify does not interpret.) */
static bool is_name_list(const char *m)
{
    for (const char *p = m; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_- ,|", *p)))
            return false;
    return true;
}

static bool matcher_covers(const struct cp_jnode *m, const char *tool)
{
    size_t tl = strlen(tool);
    if (!m || (m->type == CP_J_STR && (m->len == 0 || strcmp(m->s, "*") == 0)))
        return true;
    if (m->type != CP_J_STR || !is_name_list(m->s))
        return false;
    const char *p = m->s;
    while (*p) {
        size_t l = strcspn(p, "|,");
        const char *q = p, *e = p + l;
        while (q < e && *q == ' ')
            q++;
        while (e > q && e[-1] == ' ')
            e--;
        if ((size_t)(e - q) == tl && memcmp(q, tool, tl) == 0)
            return true;
        p += l;
        if (*p)
            p++;
    }
    return false;
}

/* The (verdict, kind, pattern) rows of two gate tables agree. */
static bool gates_equal(const struct art *x, const struct art *y)
{
    if (x->ngates != y->ngates)
        return false;
    for (size_t i = 0; i < x->ngates; i++) {
        const struct cp_cv_gate_row *a = &x->gates[i], *b = &y->gates[i];
        if (a->deny != b->deny || a->kind != b->kind ||
            a->pattern_len != b->pattern_len ||
            memcmp(a->pattern, b->pattern, a->pattern_len) != 0)
            return false;
    }
    return true;
}

struct vfy {
    const struct cp_settings_env *env;
    struct cp_arena *a;
    struct cp_buf *rep;
    int gaps;
};

static void gap(struct vfy *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void gap(struct vfy *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cp_buf_adds(v->rep, "gap: ");
    cp_buf_vprintf(v->rep, fmt, ap);
    cp_buf_addc(v->rep, '\n');
    va_end(ap);
    v->gaps++;
}

static bool live_true(const struct cp_jnode *x)
{
    return x && x->type == CP_J_TRUE;
}

static const char *jstr(struct cp_arena *a, const struct cp_jnode *s)
{
    struct cp_buf b = {0};
    cp_json_quote(&b, s->s, s->len);
    const char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

/* Every element of want is in have (as strings). */
static void need_all(struct vfy *v, const struct cp_jnode *have,
                     const struct cp_jnode *want, const char *where)
{
    struct cp_strset h = cp_strset_of(v->a, have);
    for (size_t i = 0; want && i < want->n; i++)
        if (!cp_strset_has(&h, want->items[i]->s, want->items[i]->len))
            gap(v, "%s lacks %s", where, jstr(v->a, want->items[i]));
}

/* Every string element of have is in allowed. */
static void only_these(struct vfy *v, const struct cp_jnode *have,
                       const struct cp_jnode *allowed, const char *where,
                       const char *why)
{
    struct cp_strset al = cp_strset_of(v->a, allowed);
    for (size_t i = 0; have && have->type == CP_J_ARR && i < have->n; i++) {
        const struct cp_jnode *x = have->items[i];
        if (x->type != CP_J_STR)
            gap(v, "%s holds a non-string", where);
        else if (!cp_strset_has(&al, x->s, x->len))
            gap(v, "%s holds %s, %s", where, jstr(v->a, x), why);
    }
}

/* The sandbox switches: enabled, the fallbacks that run Bash outside it. */
static void verify_switches(struct vfy *v, const struct cp_jnode *sb,
                            const struct art *t)
{
    const struct cp_jnode *x;
    if (!live_true(cp_json_get(sb, "enabled", NULL)))
        gap(v, "sandbox.enabled is not true");
    if (live_true(cp_json_get(t->sandbox, "failIfUnavailable", NULL)) &&
        !live_true(cp_json_get(sb, "failIfUnavailable", NULL)))
        gap(v, "sandbox.failIfUnavailable is not true: Claude Code would run "
               "Bash unsandboxed when the sandbox cannot start");
    x = cp_json_get(sb, "allowUnsandboxedCommands", NULL);
    if (cp_json_get(t->sandbox, "allowUnsandboxedCommands", NULL) &&
        !live_true(cp_json_get(t->sandbox, "allowUnsandboxedCommands", NULL)) &&
        !(x && x->type == CP_J_FALSE))
        gap(v, "sandbox.allowUnsandboxedCommands is not false: the model may "
               "retry a command outside the sandbox");
    if (live_true(cp_json_get(sb, "enableWeakerNestedSandbox", NULL)))
        gap(v, "sandbox.enableWeakerNestedSandbox is true");
    x = cp_json_get(sb, "excludedCommands", NULL);
    if (x && (x->type != CP_J_ARR || x->n))
        gap(v, "sandbox.excludedCommands is set: matching commands run "
               "outside the sandbox");
}

/* sandbox.filesystem: the deny lists hold the policy's, allowWrite and
 * allowRead open nothing more. */
static void verify_filesystem(struct vfy *v, const struct cp_jnode *sb,
                              const struct art *t)
{
    const struct cp_jnode *afs = cp_json_get(t->sandbox, "filesystem", NULL);
    const struct cp_jnode *fs = cp_json_get(sb, "filesystem", NULL);
    const struct cp_jnode *x;
    if (fs && fs->type != CP_J_OBJ)
        fs = NULL;
    if (live_true(cp_json_get(fs, "disabled", NULL)))
        gap(v, "sandbox.filesystem.disabled is true");
    need_all(v, cp_json_get(fs, "denyWrite", NULL),
             cp_json_get(afs, "denyWrite", NULL),
             "sandbox.filesystem.denyWrite");
    need_all(v, cp_json_get(fs, "denyRead", NULL),
             cp_json_get(afs, "denyRead", NULL), "sandbox.filesystem.denyRead");
    only_these(v, cp_json_get(fs, "allowWrite", NULL),
               cp_json_get(afs, "allowWrite", NULL),
               "sandbox.filesystem.allowWrite",
               "which the policy does not allow to write");
    const struct cp_jnode *ar = cp_json_get(afs, "denyRead", NULL);
    x = cp_json_get(fs, "allowRead", NULL);
    if (ar && ar->n && x && (x->type != CP_J_ARR || x->n))
        gap(v, "sandbox.filesystem.allowRead is set: it re-opens reads "
               "inside denyRead");
}

/* sandbox.network, when the artifact has one: the domain list, the strict
 * allowlist (and where the client honours it), unix sockets. */
static void verify_network(struct vfy *v, const struct cp_jnode *sb,
                           const struct art *t)
{
    const struct cp_jnode *anet = cp_json_get(t->sandbox, "network", NULL);
    const struct cp_jnode *net = cp_json_get(sb, "network", NULL);
    if (!anet)
        return;
    const struct cp_jnode *want = cp_json_get(anet, "allowedDomains", NULL);
    const struct cp_jnode *have = cp_json_get(net, "allowedDomains", NULL);
    if (want && !have)
        gap(v, "sandbox.network.allowedDomains is not set: any host may be "
               "allowed at a prompt");
    else if (want)
        only_these(v, have, want, "sandbox.network.allowedDomains",
                   "which the policy does not allow");
    if (live_true(cp_json_get(anet, "strictAllowlist", NULL)) &&
        !live_true(cp_json_get(net, "strictAllowlist", NULL)))
        gap(v, "sandbox.network.strictAllowlist is not true");
    if (live_true(cp_json_get(anet, "strictAllowlist", NULL)) &&
        cp_settings_is_project(v->env))
        gap(v, "sandbox.network.strictAllowlist is ignored in a project "
               "settings file: Claude Code asks about other hosts instead "
               "of denying them (build with -D PROJECT=/abs/path and use "
               "~/.claude/settings.json)");
    if (live_true(cp_json_get(net, "allowAllUnixSockets", NULL)))
        gap(v, "sandbox.network.allowAllUnixSockets is true");
    only_these(v, cp_json_get(net, "allowUnixSockets", NULL),
               cp_json_get(anet, "allowUnixSockets", NULL),
               "sandbox.network.allowUnixSockets",
               "a socket the policy does not name");
}

static void verify_sandbox(struct vfy *v, const struct cp_jnode *root,
                           const struct art *t)
{
    const struct cp_jnode *sb = cp_json_get(root, "sandbox", NULL);
    if (!sb || sb->type != CP_J_OBJ) {
        gap(v, "no \"sandbox\" object: the Bash tool runs unconfined");
        return;
    }
    verify_switches(v, sb, t);
    verify_filesystem(v, sb, t);
    verify_network(v, sb, t);
}

/* Is the program at path (its last component) confpol-gate? */
static bool is_gate_program(const char *path)
{
    const char *base = strrchr(path, '/');
    return strcmp(base ? base + 1 : path, "confpol-gate") == 0;
}

/* The words of hook h when it runs the gate as a plain command: 'GATE
 * [--sha256 PIN] ARTIFACT', GATE a program named confpol-gate (what install
 * writes), or 'BIN gate [--sha256 PIN] ARTIFACT' (confpol's own command, as
 * settings wired by hand have it): w[0] the binary, w[2] the artifact,
 * *pin the pinned digest or NULL.  False for any other hook. */
static bool gate_hook_words(struct vfy *v, const struct cp_jnode *h,
                            const char **w, const char **pin)
{
    const struct cp_jnode *c = cp_json_get(h, CP_CV_HOOK_COMMAND, NULL);
    if (!cp_json_str_is(cp_json_get(h, CP_CV_HOOK_TYPE, NULL),
                        CP_CV_HOOK_TYPE_COMMAND, 7) ||
        !c || c->type != CP_J_STR || strlen(c->s) != c->len ||
        cp_json_get(h, "args", NULL))
        return false;
    size_t nw = shell_split(v->a, c->s, w, 6);
    size_t at; /* the first word after the program (and `gate`) */
    if (nw >= 1 && is_gate_program(w[0]))
        at = 1;
    else if (nw >= 2 && strcmp(w[1], "gate") == 0)
        at = 2;
    else
        return false;
    *pin = NULL;
    if (nw == at + 3 && strcmp(w[at], "--sha256") == 0) {
        *pin = w[at + 1];
        w[2] = w[at + 2];
    } else if (nw == at + 1) {
        w[2] = w[at];
    } else {
        return false;
    }
    return true;
}

/* The first file tool the gate hook's matcher does not cover, as a
 * problem (what those tools write is not scanned), or NULL. */
static const char *gate_matcher_problem(struct vfy *v,
                                        const struct cp_jnode *matcher)
{
    static const char *const file_tools[] = {"Write", "Edit", "MultiEdit",
                                             "NotebookEdit", NULL};
    for (size_t k = 0; file_tools[k]; k++)
        if (!matcher_covers(matcher, file_tools[k]))
            return cp_arena_printf(v->a,
                                   "the gate hook's matcher does "
                                   "not cover the %s tool (what "
                                   "it writes is not scanned)",
                                   file_tools[k]);
    return NULL;
}

/* What is wrong with the artifact the gate hook reads (path, pinned
 * digest pin or NULL) for this policy, or NULL. */
static const char *gate_artifact_problem(struct vfy *v, const char *path,
                                         const char *pin, const struct art *t)
{
    const struct cp_settings_env *env = v->env;
    struct cp_buf ab = {0}, aerr = {0};
    struct art ht;
    bool ok = env->read_file && env->read_file(path, &ab, env->ud) &&
              cp_art_load(v->a, ab.data ? ab.data : "", ab.len, &ht, &aerr);
    char digest[CP_SHA256_HEX];
    cp_gate_pin_digest(ab.data ? ab.data : "", ab.len, digest);
    bool pinned = !pin || strcmp(pin, digest) == 0;
    cp_buf_free(&ab);
    cp_buf_free(&aerr);
    if (!ok)
        return cp_arena_printf(v->a,
                               "the gate hook reads '%s', "
                               "which is missing or not a "
                               "confpol artifact",
                               path);
    if (!pinned)
        return cp_arena_printf(v->a,
                               "the gate hook pins a SHA-256 "
                               "that '%s' no longer has (it "
                               "changed after install; the "
                               "hook denies or asks every "
                               "call)",
                               path);
    if (!gates_equal(&ht, t) || ht.fail_closed != t->fail_closed)
        return cp_arena_printf(v->a,
                               "the gate hook reads '%s', "
                               "whose gate table differs "
                               "from the policy's",
                               path);
    return NULL;
}

/* Why gate hook (words w, pin) of a group with this matcher does not
 * enforce the policy, or NULL when it does. */
static const char *gate_hook_problem(struct vfy *v,
                                     const struct cp_jnode *matcher,
                                     const char *const *w, const char *pin,
                                     const struct art *t)
{
    const struct cp_settings_env *env = v->env;
    const char *bad = gate_matcher_problem(v, matcher);
    if (bad)
        return bad;
    if (!env->is_exec || !env->is_exec(w[0], env->ud))
        return cp_arena_printf(v->a,
                               "the gate hook runs '%s', which "
                               "is not an executable file",
                               w[0]);
    return gate_artifact_problem(v, w[2], pin, t);
}

/* The hooks of a PreToolUse group that covers Bash, or NULL. */
static const struct cp_jnode *bash_group_hooks(const struct cp_jnode *g)
{
    const struct cp_jnode *hs = cp_json_get(g, CP_CV_HOOKS, NULL);
    if (g->type != CP_J_OBJ ||
        !matcher_covers(cp_json_get(g, CP_CV_MATCHER, NULL), "Bash") || !hs ||
        hs->type != CP_J_ARR)
        return NULL;
    return hs;
}

static void verify_hook(struct vfy *v, const struct cp_jnode *root,
                        const struct art *t)
{
    const struct cp_jnode *hooks = cp_json_get(root, CP_CV_HOOKS, NULL);
    const struct cp_jnode *pre = cp_json_get(hooks, CP_CV_PRE_TOOL_USE, NULL);
    const char *problem = NULL; /* of the first gate hook seen */
    if (live_true(cp_json_get(root, "disableAllHooks", NULL)))
        gap(v, "disableAllHooks is true: the gate hook never runs");
    for (size_t i = 0; pre && pre->type == CP_J_ARR && i < pre->n; i++) {
        const struct cp_jnode *g = pre->items[i];
        const struct cp_jnode *hs = bash_group_hooks(g);
        for (size_t j = 0; hs && j < hs->n; j++) {
            const char *w[6], *pin;
            if (!gate_hook_words(v, hs->items[j], w, &pin))
                continue;
            const char *bad = gate_hook_problem(
                v, cp_json_get(g, CP_CV_MATCHER, NULL), w, pin, t);
            if (!bad)
                return; /* wired */
            if (!problem)
                problem = bad;
        }
    }
    if (problem)
        gap(v, "%s", problem);
    else
        gap(v, "no PreToolUse hook for Bash runs the gate (confpol-gate) on "
               "this policy's artifact");
}

/* An allow rule for the Edit or Write tool ("Edit", "Edit(...)", ...). */
static bool is_edit_allow(const struct cp_jnode *r)
{
    if (r->type != CP_J_STR ||
        !(strncmp(r->s, "Edit", 4) == 0 || strncmp(r->s, "Write", 5) == 0))
        return false;
    char next = r->s[r->s[0] == 'E' ? 4 : 5];
    return next == '(' || next == '\0';
}

/* Does the policy ask about anything (ask rules or an ask gate)? */
static bool policy_asks(const struct art *t, const struct cp_jnode *aask)
{
    bool asks = aask && aask->n;
    for (size_t i = 0; !asks && i < t->ngates; i++)
        asks = !t->gates[i].deny;
    return asks;
}

/* permissions: the deny and ask rules are there, no allow rule widens the
 * sandbox, and the default mode does not skip the questions. */
static void verify_permissions(struct vfy *v, const struct cp_jnode *root,
                               const struct art *t)
{
    const struct cp_jnode *perm = cp_json_get(root, "permissions", NULL);
    if (perm && perm->type != CP_J_OBJ)
        perm = NULL;
    const struct cp_jnode *ldeny = cp_json_get(perm, "deny", NULL);
    const struct cp_jnode *lask = cp_json_get(perm, "ask", NULL);
    const struct cp_jnode *adeny = cp_json_get(t->perm, "deny", NULL);
    const struct cp_jnode *aask = cp_json_get(t->perm, "ask", NULL);
    need_all(v, ldeny, adeny, "permissions.deny");
    struct cp_strset sask = cp_strset_of(v->a, lask),
                     sdeny = cp_strset_of(v->a, ldeny);
    for (size_t i = 0; aask && i < aask->n; i++) {
        const struct cp_jnode *r = aask->items[i];
        if (!cp_strset_has(&sask, r->s, r->len) &&
            !cp_strset_has(&sdeny, r->s, r->len))
            gap(v, "permissions.ask lacks %s", jstr(v->a, r));
    }
    const struct cp_jnode *allow = cp_json_get(perm, "allow", NULL);
    for (size_t i = 0;
         t->sandbox && allow && allow->type == CP_J_ARR && i < allow->n; i++)
        if (is_edit_allow(allow->items[i]))
            gap(v,
                "permissions.allow holds %s: Claude Code adds Edit allow "
                "rules to the Bash sandbox's writable paths",
                jstr(v->a, allow->items[i]));
    if (policy_asks(t, aask) &&
        cp_json_str_is(cp_json_get(perm, "defaultMode", NULL),
                       "bypassPermissions", 17))
        gap(v, "permissions.defaultMode is \"bypassPermissions\": ask rules "
               "are not asked");
}

/* Reads the live document; false (reason in report) when it is missing or
 * not a JSON object. */
static bool live_open(struct cp_arena *a, const char *live, size_t llen,
                      struct cp_jnode **root, struct cp_buf *report)
{
    if (!live) {
        cp_buf_adds(report, "settings file does not exist\n");
        return false;
    }
    const char *e = cp_json_parse(a, live, llen, root);
    if (e) {
        cp_buf_printf(report, "settings file is not valid JSON: %s\n", e);
        return false;
    }
    if ((*root)->type != CP_J_OBJ) {
        cp_buf_adds(report, "settings file: the top level is not an object\n");
        return false;
    }
    return true;
}

int cp_settings_verify(const struct cp_settings_env *env, const char *live,
                       size_t llen, const char *art, size_t alen,
                       struct cp_buf *report)
{
    struct cp_arena *a = cp_arena_new();
    struct vfy v = {.env = env, .a = a, .rep = report};
    struct art t;
    struct cp_jnode *root = NULL;
    int rc = -1;
    if (!cp_art_load(a, art, alen, &t, report) ||
        !live_open(a, live, llen, &root, report))
        goto out;
    /* A file the client skips enforces nothing, whatever it holds. */
    v.gaps += cp_settings_schema_check(a, root, llen, report);
    if (t.project_relative && !cp_settings_is_project(env))
        gap(&v,
            "the artifact's project-relative paths ('./x', '/x') do not "
            "mean the project in '%s' (not PROJECT/.claude/settings.json "
            "or settings.local.json)",
            env->settings_path);
    if (t.sandbox)
        verify_sandbox(&v, root, &t);
    verify_permissions(&v, root, &t);
    if (t.hooks)
        verify_hook(&v, root, &t);
    rc = v.gaps;
out:
    cp_arena_free(a);
    return rc;
}

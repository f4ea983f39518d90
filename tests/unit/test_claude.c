/* SPDX-License-Identifier: MIT */
/* The claude backend on hand-built policies: path spellings, gate lowering,
 * fidelity, profiles, and an adversarial path corpus read back with the project's strict JSON
 * reader. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gate.h"
#include "json.h"
#include "match.h"

static struct cp_arena *ar;
static struct cp_diags dg;
static struct cp_gate_pat *regexes[16]; /* compiled: freed in teardown */
static size_t nregexes;

/* Reading the artifact back with the project's strict reader. */
static struct cp_jnode *tj_parse(const char *text)
{
    static const struct cp_json_opts strict = {.no_dup_keys = true,
                                               .no_nul = true};
    struct cp_jnode *v = NULL;
    const char *err = cp_json_read(ar, text, strlen(text), &strict, &v, NULL);
    ck_assert_msg(err == NULL, "artifact: %s", err ? err : "");
    return v;
}

static struct cp_jnode *tj_get(const struct cp_jnode *o, const char *key)
{
    return cp_json_get(o, key, NULL);
}

static int tj_size(const struct cp_jnode *a)
{
    return a && a->type == CP_J_ARR ? (int)a->n : 0;
}

static struct cp_jnode *tj_item(const struct cp_jnode *a, int i)
{
    return i >= 0 && i < tj_size(a) ? a->items[i] : NULL;
}

static bool tj_true(const struct cp_jnode *v)
{
    return v && v->type == CP_J_TRUE;
}

static bool tj_false(const struct cp_jnode *v)
{
    return v && v->type == CP_J_FALSE;
}

static bool tj_str(const struct cp_jnode *v)
{
    return v && v->type == CP_J_STR;
}

/* Each element e of the array arr (none when arr is not an array). */
#define TJ_FOREACH(e, arr)                                                     \
    for (int e##_i = 0; e##_i < tj_size(arr) && ((e) = (arr)->items[e##_i]);   \
         e##_i++)

static void setup(void)
{
    ar = cp_arena_new();
    cp_diags_init(&dg);
}

static void teardown(void)
{
    while (nregexes)
        cp_gate_free(regexes[--nregexes]);
    cp_diags_free(&dg);
    cp_arena_free(ar);
}

#define MAXR 64

static struct cp_policy *pol(enum cp_profile prof, bool defaulted,
                             enum cp_fail fail)
{
    struct cp_policy *p = cp_arena_alloc(ar, sizeof *p);
    p->stem = "t";
    p->main_path = "t.confpol";
    p->profile = prof;
    p->profile_defaulted = defaulted;
    p->fail = fail;
    p->params = cp_arena_alloc(ar, 2 * sizeof *p->params);
    p->params[0].name = cp_arena_intern(ar, "HOME", 4);
    p->params[1].name = cp_arena_intern(ar, "PROJECT", 7);
    p->nparams = 2;
    p->rules = cp_arena_alloc(ar, MAXR * sizeof *p->rules);
    p->net = CP_NET_ALL;
    return p;
}

static struct cp_rule *rule(struct cp_policy *p, enum cp_rule_kind k,
                            const char *text)
{
    ck_assert_uint_lt(p->nrules, MAXR);
    struct cp_rule *r = cp_arena_alloc(ar, sizeof *r);
    r->id = (unsigned)p->nrules;
    r->kind = k;
    r->text = text;
    p->rules[p->nrules++] = r;
    return r;
}

/* quoted: the text is one literal path (no globs). */
static struct cp_rule *path_rule(struct cp_policy *p, enum cp_rule_kind k,
                                 const char *text, bool quoted)
{
    struct cp_rule *r = rule(p, k, text);
    size_t off;
    const char *e = cp_path_parse(ar, text, strlen(text), quoted, &r->u.path,
                                  &off);
    ck_assert_msg(e == NULL, "%s: %s", text, e ? e : "");
    return r;
}

static struct cp_rule *gate_rule(struct cp_policy *p, enum cp_rule_kind k,
                                 const char *text, bool regex)
{
    struct cp_rule *r = rule(p, k, text);
    const char *e = cp_gate_parse(ar, text, strlen(text), regex, &r->u.gate);
    ck_assert_msg(e == NULL, "%s: %s", text, e ? e : "");
    if (regex) {
        ck_assert_uint_lt(nregexes, 16);
        regexes[nregexes++] = &r->u.gate;
    }
    if (regex) {
        ck_assert_uint_lt(nregexes, 16);
        regexes[nregexes++] = &r->u.gate;
    }
    return r;
}

static char *emit(const struct cp_policy *p)
{
    struct cp_backend_opts o = {0};
    struct cp_buf b = {0};
    ck_assert(cp_backend_emit(&cp_backend_claude, p, &o, ar, &dg, &b));
    char *s = cp_arena_strdup(ar, b.data);
    cp_buf_free(&b);
    return s;
}

static struct cp_jnode *emit_json(const struct cp_policy *p)
{
    struct cp_jnode *j = tj_parse(emit(p));
    ck_assert_ptr_nonnull(j);
    return j;
}

static struct cp_jnode *at(struct cp_jnode *j, const char *a, const char *b,
                           const char *c)
{
    struct cp_jnode *x = tj_get(j, a);
    if (b)
        x = tj_get(x, b);
    if (c)
        x = tj_get(x, c);
    return x;
}

static bool has(struct cp_jnode *arr, const char *s)
{
    struct cp_jnode *e;
    TJ_FOREACH(e, arr)
    {
        if (tj_str(e) && strcmp(e->s, s) == 0)
            return true;
    }
    return false;
}

static int count_code(enum cp_diag_code c)
{
    int n = 0;
    for (size_t i = 0; i < dg.len; i++)
        n += dg.items[i].code == c;
    return n;
}

static const char *msg_of(enum cp_diag_code c)
{
    for (size_t i = 0; i < dg.len; i++)
        if (dg.items[i].code == c)
            return dg.items[i].msg;
    return "";
}

/* ---- path spellings --------------------------------------------------- */

START_TEST(path_forms)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    path_rule(p, CP_R_WRITE, "/srv/data", false);
    path_rule(p, CP_R_DENY_WRITE, "${PROJECT}/.claude", false);
    path_rule(p, CP_R_DENY_WRITE, "/etc/confpol/x.json", false);
    path_rule(p, CP_R_DENY_WRITE, "~/.config/confpol", false);
    path_rule(p, CP_R_DENY_READ, "~/.ssh/**", false);
    path_rule(p, CP_R_DENY_READ, "~", false);
    struct cp_jnode *j = emit_json(p);
    struct cp_jnode *fs = at(j, "sandbox", "filesystem", NULL);
    struct cp_jnode *aw = at(fs, "allowWrite", NULL, NULL);
    ck_assert_int_eq(tj_size(aw), 2);
    ck_assert(has(aw, "."));
    ck_assert(has(aw, "//srv/data"));
    struct cp_jnode *dw = at(fs, "denyWrite", NULL, NULL);
    ck_assert(has(dw, "./.claude"));
    ck_assert(has(dw, "//etc/confpol/x.json"));
    ck_assert(has(dw, "~/.config/confpol"));
    struct cp_jnode *dr = at(fs, "denyRead", NULL, NULL);
    ck_assert(has(dr, "~/.ssh")); /* a trailing '**' adds nothing */
    ck_assert(has(dr, "~"));
    struct cp_jnode *deny = at(j, "permissions", "deny", NULL);
    ck_assert(has(deny, "Edit(/.claude)"));
    ck_assert(has(deny, "Edit(/.claude/**)"));
    ck_assert(has(deny, "Edit(//etc/confpol/x.json)"));
    ck_assert(has(deny, "Edit(//etc/confpol/x.json/**)"));
    ck_assert(has(deny, "Edit(~/.config/confpol/**)"));
    ck_assert(has(deny, "Read(~/.ssh)"));
    ck_assert(has(deny, "Read(~/.ssh/**)"));
    ck_assert(has(deny, "Read(~)"));
    ck_assert(has(deny, "Read(~/**)"));
    /* Never a single leading '/' for an absolute path. */
    struct cp_jnode *e;
    TJ_FOREACH(e, dw)
    {
        ck_assert_msg(e->s[0] != '/' || e->s[1] == '/', "%s", e->s);
    }
    ck_assert(tj_true(at(j, "confpol", "projectRelative", NULL)));
    ck_assert_int_eq(strtol(at(j, "confpol", "version", NULL)->s, NULL, 10), 1);
}
END_TEST

START_TEST(path_roots)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "/", false);
    path_rule(p, CP_R_DENY_WRITE, "/", false);
    struct cp_jnode *j = emit_json(p);
    ck_assert(has(at(j, "sandbox", "filesystem", "allowWrite"), "/"));
    ck_assert(has(at(j, "sandbox", "filesystem", "denyWrite"), "/"));
    struct cp_jnode *deny = at(j, "permissions", "deny", NULL);
    ck_assert(has(deny, "Edit(//**)"));
    ck_assert_int_eq(tj_size(deny), 1);
    /* No PROJECT path: the artifact works in any settings file. */
    ck_assert(tj_false(at(j, "confpol", "projectRelative", NULL)));
}
END_TEST

START_TEST(project_not_writable)
{
    /* Claude Code's sandbox always lets Bash write the working directory;
     * a policy that writes nothing there gets an explicit deny. */
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "/tmp/build", false);
    struct cp_jnode *j = emit_json(p);
    ck_assert(has(at(j, "sandbox", "filesystem", "denyWrite"), "."));
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(/**)"));

    /* Writing part of the project: loud. */
    p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}/build", false);
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 0);
    ck_assert_int_eq(count_code(CP0757), 1);
    ck_assert_str_eq(msg_of(CP0757),
                     "claude: Bash may write anywhere in the working directory "
                     "(Claude Code's sandbox always allows it), but the policy "
                     "allows only parts of the project");
}
END_TEST

START_TEST(unbound_param)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    struct cp_rule *r = path_rule(p, CP_R_DENY_WRITE, "${CACHE}/x", false);
    struct cp_source *src = cp_source_from_memory(
        ar, "t.confpol", "confpol 1\ndeny write ${CACHE}/x\n", 33);
    r->loc = (struct cp_loc){src, 2, 12, 2, 21};
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 1);
    ck_assert_int_eq(count_code(CP0750), 1);
    ck_assert_str_eq(msg_of(CP0750),
                     "param 'CACHE' is not bound: the claude target needs its "
                     "value (-D CACHE=/abs/path)");
    struct cp_buf b = {0};
    cp_diags_free(&dg);
    cp_diags_init(&dg);
    ck_assert(!cp_backend_emit(&cp_backend_claude, p, &o, ar, &dg, &b));
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(cp_diag_errors(&dg), 1);
}
END_TEST

/* ---- gates ------------------------------------------------------------- */

START_TEST(gate_lowering)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    gate_rule(p, CP_R_GATE_DENY, "git push --force *", false);
    gate_rule(p, CP_R_GATE_ASK, "npm test", false);
    gate_rule(p, CP_R_GATE_ASK, "git * main", false); /* '*' = one word */
    gate_rule(p, CP_R_GATE_ASK, "rm x*", false);      /* glob in a word */
    gate_rule(p, CP_R_GATE_ASK, "ls ~", false);       /* '~' */
    gate_rule(p, CP_R_GATE_DENY, "curl[^|]*[|]sh", true);
    struct cp_jnode *j = emit_json(p);
    struct cp_jnode *deny = at(j, "permissions", "deny", NULL);
    struct cp_jnode *ask = at(j, "permissions", "ask", NULL);
    ck_assert(has(deny, "Bash(git push --force)"));
    ck_assert(has(deny, "Bash(git push --force *)"));
    ck_assert_int_eq(tj_size(ask), 1);
    ck_assert(has(ask, "Bash(npm test)"));
    /* The hook, and the gate table the hook reads. */
    struct cp_jnode *pre = at(j, "hooks", "PreToolUse", NULL);
    ck_assert_int_eq(tj_size(pre), 1);
    struct cp_jnode *g = tj_item(pre, 0);
    ck_assert_str_eq(
        at(g, "matcher", NULL, NULL)->s,
        "Bash|Monitor|PowerShell|Write|Edit|MultiEdit|NotebookEdit");
    struct cp_jnode *h = tj_item(at(g, "hooks", NULL, NULL), 0);
    ck_assert_str_eq(at(h, "type", NULL, NULL)->s, "command");
    /* The hook pins the artifact's own digest (its pin read as zeros). */
    const char *text = emit(p);
    char pin[CP_SHA256_HEX];
    cp_gate_pin_digest(text, strlen(text), pin);
    char want[160];
    snprintf(want, sizeof want, "confpol-gate --sha256 %s t.claude.json", pin);
    ck_assert_str_eq(at(h, "command", NULL, NULL)->s, want);
    struct cp_jnode *gates = at(j, "confpol", "gates", NULL);
    ck_assert_int_eq(tj_size(gates), 6);
    struct cp_jnode *g1 = tj_item(gates, 0), *g6 = tj_item(gates, 5);
    ck_assert_str_eq(at(g1, "id", NULL, NULL)->s, "gate#1");
    ck_assert_str_eq(at(g1, "verdict", NULL, NULL)->s, "deny");
    ck_assert_str_eq(at(g1, "kind", NULL, NULL)->s, "words");
    ck_assert_str_eq(at(g1, "pattern", NULL, NULL)->s, "git push --force *");
    ck_assert_str_eq(at(g1, "where", NULL, NULL)->s, "(implicit)");
    ck_assert_str_eq(at(g6, "kind", NULL, NULL)->s, "regex");
    ck_assert_str_eq(at(g6, "pattern", NULL, NULL)->s, "curl[^|]*[|]sh");
    ck_assert(tj_true(at(j, "confpol", "failClosed", NULL)));
    ck_assert_str_eq(at(j, "confpol", "stem", NULL)->s, "t");
}
END_TEST

/* Without gate rules the hook is still wired: it decides the file
 * tools' paths with the table's "paths". */
START_TEST(no_gate_no_hook)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    path_rule(p, CP_R_DENY_WRITE, "${PROJECT}/a*b/c\\*d", false);
    struct cp_jnode *j = emit_json(p);
    ck_assert_ptr_nonnull(at(j, "hooks", NULL, NULL));
    ck_assert_int_eq(tj_size(at(j, "confpol", "gates", NULL)), 0);
    struct cp_jnode *w = at(j, "confpol", "paths", "write");
    ck_assert_int_eq(tj_size(w), 1);
    ck_assert_str_eq(tj_item(w, 0)->s, "${PROJECT}");
    struct cp_jnode *d = at(j, "confpol", "paths", "denyWrite");
    ck_assert_int_eq(tj_size(d), 1);
    ck_assert_str_eq(tj_item(d, 0)->s, "${PROJECT}/a*b/c\\*d");
}
END_TEST

/* ---- profiles ------------------------------------------------------------ */

START_TEST(profiles)
{
    struct cp_policy *p = pol(CP_PROFILE_COOPERATIVE, false, CP_FAIL_OPEN);
    path_rule(p, CP_R_WRITE, "/", false);
    path_rule(p, CP_R_DENY_WRITE, "~/.config/confpol", false);
    gate_rule(p, CP_R_GATE_ASK, "sudo", true);
    struct cp_jnode *j = emit_json(p);
    ck_assert_ptr_null(at(j, "sandbox", NULL, NULL));
    ck_assert(
        has(at(j, "permissions", "deny", NULL), "Edit(~/.config/confpol)"));
    ck_assert_ptr_nonnull(at(j, "hooks", NULL, NULL));
    ck_assert(tj_false(at(j, "confpol", "failClosed", NULL)));
    ck_assert_str_eq(at(j, "confpol", "profile", NULL)->s, "cooperative");

    /* A defaulted profile keeps the hook fail-open, not the sandbox. */
    p = pol(CP_PROFILE_CONFINED, true, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    j = emit_json(p);
    ck_assert(tj_false(at(j, "confpol", "failClosed", NULL)));
    ck_assert(tj_true(at(j, "sandbox", "failIfUnavailable", NULL)));
    ck_assert(tj_true(at(j, "sandbox", "enabled", NULL)));
    ck_assert(tj_false(at(j, "sandbox", "allowUnsandboxedCommands", NULL)));
    ck_assert(tj_false(at(j, "sandbox", "autoAllowBashIfSandboxed", NULL)));

    p = pol(CP_PROFILE_EXCLUSIVE, false, CP_FAIL_OPEN);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    j = emit_json(p);
    ck_assert(tj_false(at(j, "confpol", "failClosed", NULL)));
    ck_assert(tj_false(at(j, "sandbox", "failIfUnavailable", NULL)));
}
END_TEST

START_TEST(network)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    rule(p, CP_R_NET_DENY, "");
    struct cp_jnode *j = emit_json(p);
    struct cp_jnode *net = at(j, "sandbox", "network", NULL);
    ck_assert_int_eq(tj_size(at(net, "allowedDomains", NULL, NULL)), 0);
    ck_assert(tj_true(at(net, "strictAllowlist", NULL, NULL)));
    ck_assert(has(at(j, "permissions", "deny", NULL), "WebFetch"));

    p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    struct cp_rule *r = rule(p, CP_R_NET_ALLOW, "*.example.com");
    ck_assert_ptr_null(cp_domain_parse(ar, "*.example.com", 13, &r->u.dom));
    r = rule(p, CP_R_NET_ALLOW, "pypi.org");
    ck_assert_ptr_null(cp_domain_parse(ar, "pypi.org", 8, &r->u.dom));
    j = emit_json(p);
    net = at(j, "sandbox", "network", "allowedDomains");
    ck_assert_int_eq(tj_size(net), 2);
    ck_assert(has(net, "*.example.com"));
    ck_assert(has(net, "pypi.org"));
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 0);
    ck_assert_int_eq(count_code(CP0759), 3); /* two rules + project-relative */
}
END_TEST

/* ---- fidelity -------------------------------------------------------------- */

/* The claude target's fidelity of rule r of p. */
static enum cp_fidelity rule_fid(const struct cp_policy *p,
                                 const struct cp_rule *r, struct cp_arena *a,
                                 const char **why)
{
    enum cp_fidelity *fid = cp_arena_alloc(a, (p->nrules + 1) * sizeof *fid);
    const char **whys = cp_arena_alloc(a, (p->nrules + 1) * sizeof *whys);
    cp_backend_fidelity(&cp_backend_claude, p, NULL, a, fid, whys);
    for (size_t i = 0; i < p->nrules; i++)
        if (p->rules[i] == r) {
            *why = whys[i];
            return fid[i];
        }
    ck_abort_msg("rule not in the policy");
    return CP_FID_EXACT;
}

/* net socket: allowUnixSockets, spelled as the sandbox runtime reads it
 * ("/abs", "~/x", "./x"), never allowAllUnixSockets; not enforced (a
 * subpath on macOS, closed on Linux), a name Claude Code would read as a
 * glob left out (stricter); nothing when the network is open. */
START_TEST(unix_sockets)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    rule(p, CP_R_NET_DENY, "");
    p->net = CP_NET_NONE;
    path_rule(p, CP_R_NET_SOCKET, "/var/run/docker.sock", true);
    path_rule(p, CP_R_NET_SOCKET, "~/.gnupg/S.gpg-agent", true);
    path_rule(p, CP_R_NET_SOCKET, "${PROJECT}/run/dev.sock", true);
    struct cp_rule *g = path_rule(p, CP_R_NET_SOCKET, "/run/a[1].sock", true);
    struct cp_jnode *j = emit_json(p);
    struct cp_jnode *net = at(j, "sandbox", "network", NULL);
    struct cp_jnode *l = at(net, "allowUnixSockets", NULL, NULL);
    ck_assert_int_eq(tj_size(l), 3);
    ck_assert_str_eq(l->items[0]->s, "/var/run/docker.sock");
    ck_assert_str_eq(l->items[1]->s, "~/.gnupg/S.gpg-agent");
    ck_assert_str_eq(l->items[2]->s, "./run/dev.sock");
    ck_assert_ptr_null(at(net, "allowAllUnixSockets", NULL, NULL));
    const char *why;
    ck_assert_int_eq(rule_fid(p, p->rules[1], ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_ptr_nonnull(strstr(why, "were P a directory"));
    ck_assert_ptr_nonnull(strstr(why, "on Linux"));
    ck_assert_int_eq(rule_fid(p, g, ar, &why), CP_FID_STRICTER);
    ck_assert_ptr_nonnull(strstr(why, "glob"));
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 0);
    ck_assert_int_eq(count_code(CP0764), 4);

    p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_NET_SOCKET, "/var/run/docker.sock", true);
    j = emit_json(p);
    ck_assert_ptr_null(at(j, "sandbox", "network", NULL));
    ck_assert_int_eq(rule_fid(p, p->rules[0], ar, &why), CP_FID_EXACT);
}
END_TEST

START_TEST(fidelity)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    struct cp_rule *w = path_rule(p, CP_R_WRITE, "${PROJECT}", false);
    struct cp_rule *wg = path_rule(p, CP_R_WRITE, "/srv/*/out", false);
    struct cp_rule *d = path_rule(p, CP_R_DENY_WRITE, "${PROJECT}/.git", false);
    struct cp_rule *dg_ = path_rule(p, CP_R_DENY_WRITE, "${PROJECT}/**/*.lock",
                                    false);
    struct cp_rule *rg = path_rule(p, CP_R_DENY_READ, "~/.config/*.pem", false);
    struct cp_rule *rt = path_rule(p, CP_R_DENY_WRITE, "/tmp/claude/x", false);
    struct cp_rule *ex = path_rule(p, CP_R_EXEC, "/usr/bin", false);
    struct cp_rule *dx = path_rule(p, CP_R_DENY_EXEC, "/usr/bin/curl", false);
    struct cp_rule *wd = path_rule(p, CP_R_DENY_WRITE, "/srv/a)b", true);
    struct cp_rule *g = gate_rule(p, CP_R_GATE_ASK, "sudo", true);
    const char *why;
    /* Claude Code's protected paths (.mcp.json, .claude/...) lie in it;
     * .git/hooks and .git/config are denied by the policy already, a
     * nested repository's are not.  The sandbox runtime's dangerous files
     * and directories in the working directory are named too. */
    ck_assert_int_eq(rule_fid(p, w, ar, &why), CP_FID_STRICTER);
    ck_assert_ptr_nonnull(strstr(why, "${PROJECT}/.mcp.json"));
    ck_assert_ptr_null(strstr(why, "${PROJECT}/.git/hooks"));
    ck_assert_ptr_nonnull(strstr(why, "${PROJECT}/**/.git/hooks"));
    ck_assert_ptr_nonnull(strstr(why, "${PROJECT}/**/.git/config"));
    static const char *const dangerous[] = {
        ".gitconfig", ".gitmodules", ".bashrc", ".profile",
        ".ripgreprc", ".vscode",     ".idea",
    };
    for (size_t i = 0; i < sizeof dangerous / sizeof *dangerous; i++) {
        char name[64];
        snprintf(name, sizeof name, "${PROJECT}/%s,", dangerous[i]);
        ck_assert_msg(strstr(why, name), "%s not named: %s", name, why);
    }
    ck_assert_int_eq(rule_fid(p, d, ar, &why), CP_FID_EXACT);
    ck_assert_int_eq(rule_fid(p, g, ar, &why), CP_FID_EXACT);
    ck_assert_int_eq(rule_fid(p, wg, ar, &why), CP_FID_STRICTER);
    ck_assert_int_eq(rule_fid(p, wd, ar, &why), CP_FID_STRICTER);
    ck_assert_int_eq(rule_fid(p, dg_, ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_ptr_nonnull(strstr(why, "skips globs in denyWrite"));
    ck_assert_int_eq(rule_fid(p, rg, ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_int_eq(rule_fid(p, rt, ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_ptr_nonnull(strstr(why, "/tmp/claude"));
    ck_assert_int_eq(rule_fid(p, ex, ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_int_eq(rule_fid(p, dx, ar, &why), CP_FID_NOT_ENFORCED);
    ck_assert_ptr_nonnull(strstr(why, "no exec control"));

    /* Each loss is loud: one warning per rule, plus the policy-wide ones. */
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 0);
    ck_assert_int_eq(count_code(CP0752), 1);
    ck_assert_int_eq(count_code(CP0753), 1);
    ck_assert_int_eq(count_code(CP0754), 1);
    ck_assert_int_eq(count_code(CP0755), 2);
    ck_assert_int_eq(count_code(CP0756), 1); /* the rule */
    ck_assert_int_eq(count_code(CP0763), 1); /* the policy: a note */
    ck_assert_int_eq(count_code(CP0758), 1);
    ck_assert_int_eq(count_code(CP0760), 1);
    ck_assert_int_eq(count_code(CP0762), 1);
    ck_assert_uint_eq(cp_diag_errors(&dg), 0);
    /* The write glob is not granted. */
    struct cp_jnode *j = emit_json(p);
    ck_assert_int_eq(tj_size(at(j, "sandbox", "filesystem", "allowWrite")), 1);
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(//srv/a?b)"));
    ck_assert(has(at(j, "sandbox", "filesystem", "denyWrite"), "//srv/a)b"));
}
END_TEST

/* ---- adversarial paths --------------------------------------------------- */

/* Every corpus path, as a deny write, reads back as the same sandbox
 * string, and its rule holds no byte the client would misparse. */
START_TEST(adversarial_corpus)
{
    static const char *const corpus[] = {
        "/a\"b", "/a\\b",        "/a\nb",
        "/a\tb", "/caf\xc3\xa9", "/\xf0\x9f\x94\x91key",
        "/-rf",  "/a(b)",        "/a)b",
        "/a;b",  "/a b",         "/trail ",
        "/[x]",  "/a*b",         "/q?",
        "/#x",   "/\x7f",        "/a\rb",
        "/\x01", "/!neg",
    };
    size_t n = sizeof corpus / sizeof corpus[0];
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_WRITE, "/", false);
    for (size_t i = 0; i < n; i++)
        path_rule(p, CP_R_DENY_WRITE, corpus[i], true);
    char *a = emit(p), *b = emit(p);
    ck_assert_str_eq(a, b); /* deterministic */
    for (const unsigned char *q = (const unsigned char *)a; *q; q++)
        ck_assert_msg(*q < 0x80 && (*q >= 0x20 || *q == '\n'),
                      "non-ASCII or control byte in output");
    struct cp_jnode *j = tj_parse(a);
    ck_assert_ptr_nonnull(j);
    struct cp_jnode *dw = at(j, "sandbox", "filesystem", "denyWrite");
    ck_assert_int_eq(tj_size(dw), (int)n);
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "/%s", corpus[i]);
        for (char *q = want; *q; q++)
            if (*q == '[' || *q == ']')
                *q = '?'; /* a class for Claude: '?' matches the byte */
        ck_assert_str_eq(tj_item(dw, (int)i)->s, want);
    }
    struct cp_jnode *e;
    TJ_FOREACH(e, at(j, "permissions", "deny", NULL))
    {
        const char *s = e->s;
        size_t l = strlen(s);
        ck_assert(strncmp(s, "Edit(//", 7) == 0);
        ck_assert_int_eq(s[l - 1], ')');
        for (size_t k = 5; k + 1 < l; k++) {
            unsigned char ch = (unsigned char)s[k];
            ck_assert_msg(ch != ')' && ch != '[' && ch != ']' && ch != '\\' &&
                              ch >= 0x20 && ch != 0x7f,
                          "rule %s", s);
        }
        ck_assert_msg(s[l - 2] != ' ', "rule %s ends in a blank", s);
    }
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(//a?b)"));
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(//trail?)"));
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(//-rf/**)"));
    ck_assert(has(at(j, "permissions", "deny", NULL), "Edit(//caf\xc3\xa9)"));
}
END_TEST

START_TEST(invalid_utf8)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, false, CP_FAIL_CLOSED);
    path_rule(p, CP_R_DENY_WRITE, "/a\xff", true);
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_claude, p, &o, &dg), 1);
    ck_assert_int_eq(count_code(CP0751), 1);
    struct cp_buf b = {0};
    ck_assert(!cp_backend_emit(&cp_backend_claude, p, &o, ar, &dg, &b));
    ck_assert_uint_eq(b.len, 0);
}
END_TEST

Suite *cp_test_claude_suite(void); /* collected by the Makefile */
Suite *cp_test_claude_suite(void)
{
    Suite *s = suite_create("claude");
    TCase *t = tcase_create("backend");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, path_forms);
    tcase_add_test(t, path_roots);
    tcase_add_test(t, project_not_writable);
    tcase_add_test(t, unbound_param);
    tcase_add_test(t, gate_lowering);
    tcase_add_test(t, no_gate_no_hook);
    tcase_add_test(t, profiles);
    tcase_add_test(t, network);
    tcase_add_test(t, unix_sockets);
    tcase_add_test(t, fidelity);
    tcase_add_test(t, adversarial_corpus);
    tcase_add_test(t, invalid_utf8);
    suite_add_tcase(s, t);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* What another settings file that Claude Code merges with the one holding
 * the artifact adds that would loosen it (spec/settings-wiring.md, "The
 * files Claude Code merges").  Lists are concatenated across the files,
 * so an extra entry anywhere widens the policy; a scalar comes from the
 * file of highest precedence that sets it, so a managed file overrides
 * every switch of the artifact, and a lower file decides the scalars the
 * artifact does not set. */
#include "settings_int.h"

#include <stdarg.h>
#include <string.h>

struct loose {
    struct cp_arena *a;
    const struct cp_jnode *root, *art;
    enum cp_settings_source src;
    struct cp_buf *rep;
    int n;
};

static void loose(struct loose *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void loose(struct loose *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cp_buf_vprintf(l->rep, fmt, ap);
    cp_buf_addc(l->rep, '\n');
    va_end(ap);
    l->n++;
}

static const struct cp_jnode *at(const struct cp_jnode *n,
                                 const char *const *path)
{
    for (; n && *path; path++)
        n = n->type == CP_J_OBJ ? cp_json_get(n, *path, NULL) : NULL;
    return n;
}

static bool is_true(const struct cp_jnode *x)
{
    return x && x->type == CP_J_TRUE;
}

static const char *quoted(struct cp_arena *a, const struct cp_jnode *s)
{
    struct cp_buf b = {0};
    cp_json_quote(&b, s->s, s->len);
    const char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

/* Switches that only loosen when true and that the artifact never sets:
 * from any file they apply (the key, then why). */
static void loose_flags(struct loose *l)
{
    static const struct {
        const char *path[4];
        const char *what;
    } flags[] = {
        {{"disableAllHooks", NULL},
         "disableAllHooks (the gate hook would "
         "never run)"},
        {{"sandbox", "filesystem", "disabled", NULL},
         "sandbox.filesystem.disabled (Bash's file accesses would not be "
         "confined)"},
        {{"sandbox", "enableWeakerNestedSandbox", NULL},
         "sandbox.enableWeakerNestedSandbox (the sandbox would reuse the "
         "host's /proc)"},
        {{"sandbox", "allowNestedUserNamespaces", NULL},
         "sandbox.allowNestedUserNamespaces (Bash could make user "
         "namespaces inside the sandbox)"},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (is_true(at(l->root, flags[i].path)) && !at(l->art, flags[i].path))
            loose(l, "%s is true", flags[i].what);
}

/* The network keys of any file, when the artifact limits the network. */
static void loose_network(struct loose *l)
{
    static const char *const net[] = {"sandbox", "network", NULL};
    if (!at(l->art, net))
        return;
    const struct cp_jnode *n = at(l->root, net);
    if (is_true(cp_json_get(n, "allowAllUnixSockets", NULL)))
        loose(l, "sandbox.network.allowAllUnixSockets is true (every Unix "
                 "socket would be reachable)");
    static const char *const ports[] = {"httpProxyPort", "socksProxyPort"};
    for (size_t i = 0; n && n->type == CP_J_OBJ && i < 2; i++)
        if (cp_json_get(n, ports[i], NULL))
            loose(l,
                  "sandbox.network.%s is set (the network would be filtered "
                  "by a proxy other than Claude Code's, which knows nothing "
                  "of this policy)",
                  ports[i]);
}

/* permissions.allow rules that widen the sandbox: Edit and Write allows
 * become writable paths, WebFetch domain allows allowed domains. */
static void loose_allow(struct loose *l)
{
    const struct cp_jnode *allow = at(
        l->root, (const char *const[]){"permissions", "allow", NULL});
    const struct cp_jnode *domains = at(
        l->art,
        (const char *const[]){"sandbox", "network", "allowedDomains", NULL});
    struct cp_strset dom = cp_strset_of(l->a, domains);
    for (size_t i = 0; allow && allow->type == CP_J_ARR && i < allow->n; i++) {
        const struct cp_jnode *r = allow->items[i];
        if (r->type != CP_J_STR)
            continue;
        if (strncmp(r->s, "Edit", 4) == 0 || strncmp(r->s, "Write", 5) == 0)
            loose(l,
                  "permissions.allow holds %s: Claude Code adds Edit allow "
                  "rules to the Bash sandbox's writable paths",
                  quoted(l->a, r));
        if (domains && r->len > 18 &&
            strncmp(r->s, "WebFetch(domain:", 16) == 0 &&
            r->s[r->len - 1] == ')' &&
            !cp_strset_has(&dom, r->s + 16, r->len - 17))
            loose(l,
                  "permissions.allow holds %s: Claude Code adds WebFetch "
                  "domain rules to the sandbox's allowed domains",
                  quoted(l->a, r));
    }
    const struct cp_jnode *dirs = at(
        l->root,
        (const char *const[]){"permissions", "additionalDirectories", NULL});
    for (size_t i = 0; dirs && dirs->type == CP_J_ARR && i < dirs->n; i++)
        if (dirs->items[i]->type == CP_J_STR)
            loose(l,
                  "permissions.additionalDirectories holds %s: Claude Code "
                  "adds it to the Bash sandbox's writable paths and the file "
                  "tools' working directories",
                  quoted(l->a, dirs->items[i]));
}

/* Entries of one list that the artifact's list does not hold. */
static void loose_extra(struct loose *l, const char *const *path)
{
    const struct cp_jnode *have = at(l->root, path);
    const struct cp_jnode *want = at(l->art, path);
    for (size_t i = 0; have && have->type == CP_J_ARR && i < have->n; i++) {
        const struct cp_jnode *x = have->items[i];
        bool ok = false;
        for (size_t j = 0; !ok && want && want->type == CP_J_ARR && j < want->n;
             j++)
            ok = cp_json_equal(x, want->items[j]);
        if (ok)
            continue;
        struct cp_buf key = {0};
        for (const char *const *p = path; *p; p++)
            cp_buf_printf(&key, "%s%s", p == path ? "" : ".", *p);
        if (x->type == CP_J_STR)
            loose(l,
                  "%s holds \"%s\", which Claude Code adds to this policy's "
                  "list",
                  key.data, x->s);
        else
            loose(l, "%s holds an entry this policy does not have", key.data);
        cp_buf_free(&key);
    }
}

/* The sandbox lists: the client ignores those of project and local files
 * once the file of the artifact sets allowUnsandboxedCommands: false
 * (reference §5), not those of the user's or the managed files. */
static void loose_lists(struct loose *l)
{
    static const char *const lists[][4] = {
        {"sandbox", "filesystem", "allowWrite", NULL},
        {"sandbox", "filesystem", "allowRead", NULL},
        {"sandbox", "excludedCommands", NULL, NULL},
        {"sandbox", "network", "allowedDomains", NULL},
        {"sandbox", "network", "allowUnixSockets", NULL},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        loose_extra(l, lists[i]);
}

/* The sandbox switches of the artifact, which a managed file overrides:
 * a value there that gives less protection than the artifact's. */
static void loose_switches(struct loose *l)
{
    const struct cp_jnode *sb = cp_json_get(l->root, "sandbox", NULL);
    const struct cp_jnode *asb = cp_json_get(l->art, "sandbox", NULL);
    if (!asb || !sb || sb->type != CP_J_OBJ)
        return;
    for (size_t i = 0; i < 4; i++) {
        const struct cp_jnode *v = cp_json_get(sb, cp_sandbox_bools[i], NULL);
        const struct cp_jnode *w = cp_json_get(asb, cp_sandbox_bools[i], NULL);
        bool looser = cp_sandbox_looser[i];
        if (v && (v->type == CP_J_TRUE || v->type == CP_J_FALSE) &&
            (v->type == CP_J_TRUE) == looser &&
            !(w && (w->type == CP_J_TRUE) == looser))
            loose(l,
                  "sandbox.%s is %s (managed settings override the policy's "
                  "value)",
                  cp_sandbox_bools[i], looser ? "true" : "false");
    }
    static const char *const strict[] = {"network", "strictAllowlist", NULL};
    const struct cp_jnode *v = at(sb, strict);
    if (v && v->type == CP_J_FALSE && is_true(at(asb, strict)))
        loose(l, "sandbox.network.strictAllowlist is false (managed settings "
                 "override the policy's value: other hosts are asked about)");
}

/* The platform Claude Code runs on here, as enabledPlatforms names it. */
static const char *this_platform(void)
{
#ifdef __APPLE__
    return "macos";
#else
    return "linux";
#endif
}

/* Keys that only managed settings honour, and that turn the artifact's
 * parts off: its hook, its rules, the sandbox on this platform. */
static void loose_managed(struct loose *l)
{
    if (is_true(cp_json_get(l->root, "allowManagedHooksOnly", NULL)) &&
        cp_json_get(l->art, CP_CV_HOOKS, NULL))
        loose(l, "allowManagedHooksOnly is true (only managed hooks run: the "
                 "gate hook would never run)");
    if (is_true(cp_json_get(l->root, "allowManagedPermissionRulesOnly", NULL)))
        loose(l, "allowManagedPermissionRulesOnly is true (the policy's deny "
                 "and ask rules would be ignored)");
    if (cp_json_get(l->root, "policyHelper", NULL))
        loose(l, "policyHelper is set (the managed settings come from a "
                 "program's output, which confpol cannot check)");
    const struct cp_jnode *pl = at(
        l->root, (const char *const[]){"sandbox", "enabledPlatforms", NULL});
    bool here = false;
    for (size_t i = 0; pl && pl->type == CP_J_ARR && i < pl->n; i++)
        here = here || cp_json_str_is(pl->items[i], this_platform(),
                                      strlen(this_platform()));
    if (pl && !here && cp_json_get(l->art, "sandbox", NULL))
        loose(l,
              "sandbox.enabledPlatforms does not name %s (the sandbox would "
              "be off here)",
              this_platform());
    loose_switches(l);
}

/* A scalar the artifact does not set comes from the file of highest
 * precedence: the permission mode that skips every question. */
static void loose_mode(struct loose *l)
{
    const struct cp_jnode *m = at(
        l->root, (const char *const[]){"permissions", "defaultMode", NULL});
    const struct cp_jnode *ask = at(
        l->art, (const char *const[]){"permissions", "ask", NULL});
    bool asks = (ask && ask->type == CP_J_ARR && ask->n) ||
                cp_json_get(l->art, CP_CV_HOOKS, NULL);
    if (asks && cp_json_str_is(m, "bypassPermissions", 17))
        loose(l, "permissions.defaultMode is \"bypassPermissions\" (ask rules "
                 "and the gate's questions would not be asked)");
}

/* Under --whole the client's sandbox and file tools are inside confpol's
 * confinement; what is left to it is the gate hook, which only the hook
 * switches turn off. */
static void loose_whole(struct loose *l)
{
    static const char *const off[] = {"disableAllHooks", NULL};
    if (is_true(at(l->root, off)))
        loose(l, "disableAllHooks (the gate hook would never run) is true");
    if (l->src != CP_SETTINGS_MANAGED)
        return;
    if (is_true(cp_json_get(l->root, "allowManagedHooksOnly", NULL)) &&
        cp_json_get(l->art, CP_CV_HOOKS, NULL))
        loose(l, "allowManagedHooksOnly is true (only managed hooks run: the "
                 "gate hook would never run)");
    if (cp_json_get(l->root, "policyHelper", NULL))
        loose(l, "policyHelper is set (the managed settings come from a "
                 "program's output, which confpol cannot check)");
}

/* Every check of a full merge (the source decides which lists count). */
static void loose_all(struct loose *l)
{
    loose_flags(l);
    loose_network(l);
    loose_allow(l);
    loose_mode(l);
    if (l->src == CP_SETTINGS_USER || l->src == CP_SETTINGS_MANAGED)
        loose_lists(l);
    if (l->src == CP_SETTINGS_MANAGED)
        loose_managed(l);
}

/* Parses the document and the artifact and runs `check` over them; the
 * number of entries reported.  A file the client cannot read adds
 * nothing; an artifact that cannot be read was refused before. */
static int loosening_run(const char *doc, size_t dlen,
                         enum cp_settings_source src, const char *art,
                         size_t alen, struct cp_buf *report,
                         void (*check)(struct loose *))
{
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *root = NULL, *ar = NULL;
    struct loose l = {.a = a, .src = src, .rep = report};
    if (!cp_json_parse(a, doc, dlen, &root) && root->type == CP_J_OBJ &&
        !cp_json_parse(a, art, alen, &ar) && ar->type == CP_J_OBJ) {
        l.root = root;
        l.art = ar;
        check(&l);
    }
    cp_arena_free(a);
    return l.n;
}

int cp_settings_loosening(const char *doc, size_t dlen,
                          enum cp_settings_source src, const char *art,
                          size_t alen, struct cp_buf *report)
{
    return loosening_run(doc, dlen, src, art, alen, report, loose_all);
}

int cp_settings_loosening_whole(const char *doc, size_t dlen,
                                enum cp_settings_source src, const char *art,
                                size_t alen, struct cp_buf *report)
{
    return loosening_run(doc, dlen, src, art, alen, report, loose_whole);
}

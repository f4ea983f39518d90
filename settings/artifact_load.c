/* SPDX-License-Identifier: MIT */
/* Loading a `.claude.json` artifact written by the claude backend, with
 * the checks install and verify rely on (spec/settings-wiring.md). */
#include "settings_int.h"

#include <string.h>

#include "claude_vocab.h"

/* ======================================================================
 * The artifact
 * ====================================================================== */

const char *const cp_sandbox_bools[4] = {
    "enabled",
    "failIfUnavailable",
    "allowUnsandboxedCommands",
    "autoAllowBashIfSandboxed",
};
/* The value of each boolean that gives less protection (ORDER: as above). */
const bool cp_sandbox_looser[4] = {false, false, true, true};
const char *const cp_fs_lists[3] = {"allowWrite", "denyWrite", "denyRead"};
const char *const cp_perm_lists[2] = {"deny", "ask"};

static bool art_strarr(const struct cp_jnode *x)
{
    if (!x || x->type != CP_J_ARR)
        return false;
    for (size_t i = 0; i < x->n; i++)
        if (x->items[i]->type != CP_J_STR)
            return false;
    return true;
}

static bool is_bool(const struct cp_jnode *x)
{
    return x && (x->type == CP_J_TRUE || x->type == CP_J_FALSE);
}

/* The "confpol" object: version, fail mode, project-relative flag, gate
 * table.  Returns the reason it is refused, NULL when it is sound. */
static const char *art_conf(struct art *t)
{
    struct cp_jnode *v;
    t->conf = cp_json_get(t->root, CP_CV_CONFPOL, NULL);
    if (!t->conf || t->conf->type != CP_J_OBJ)
        return "no \"confpol\" object (not built by confpol build --target "
               "claude)";
    v = cp_json_get(t->conf, CP_CV_VERSION, NULL);
    if (!v || v->type != CP_J_NUM || strcmp(v->s, "1") != 0)
        return "\"confpol.version\" is not 1";
    v = cp_json_get(t->conf, CP_CV_FAIL_CLOSED, NULL);
    if (!is_bool(v))
        return "\"confpol.failClosed\" is not a boolean";
    t->fail_closed = v->type == CP_J_TRUE;
    v = cp_json_get(t->conf, CP_CV_PROJECT_RELATIVE, NULL);
    if (v && !is_bool(v))
        return "\"confpol.projectRelative\" is not a boolean";
    t->project_relative = v && v->type == CP_J_TRUE;
    /* the gate hook's own reader of the rows: install and verify refuse
     * the table the hook would refuse */
    return cp_cv_gate_rows(t->a, t->conf, &t->gates, &t->ngates);
}

/* sandbox.network: an object whose allowedDomains and allowUnixSockets (if
 * any) are lists of strings and whose strictAllowlist (if any) is a
 * boolean. */
static bool art_network_ok(const struct cp_jnode *net)
{
    const struct cp_jnode *dom = cp_json_get(net, "allowedDomains", NULL);
    const struct cp_jnode *sock = cp_json_get(net, "allowUnixSockets", NULL);
    const struct cp_jnode *strict = cp_json_get(net, "strictAllowlist", NULL);
    return net->type == CP_J_OBJ && (!dom || art_strarr(dom)) &&
           (!sock || art_strarr(sock)) && (!strict || is_bool(strict));
}

/* The optional "sandbox" object: switches, filesystem lists, network. */
static const char *art_sandbox(struct art *t)
{
    struct cp_jnode *v;
    t->sandbox = cp_json_get(t->root, "sandbox", NULL);
    if (!t->sandbox)
        return NULL;
    if (t->sandbox->type != CP_J_OBJ)
        return "\"sandbox\" is not an object";
    for (size_t i = 0; i < 4; i++) {
        v = cp_json_get(t->sandbox, cp_sandbox_bools[i], NULL);
        if (v && !is_bool(v))
            return "a \"sandbox\" switch is not a boolean";
    }
    struct cp_jnode *fs = cp_json_get(t->sandbox, "filesystem", NULL);
    if (fs && fs->type != CP_J_OBJ)
        return "\"sandbox.filesystem\" is not an object";
    for (size_t i = 0; fs && i < 3; i++) {
        v = cp_json_get(fs, cp_fs_lists[i], NULL);
        if (v && !art_strarr(v))
            return "a \"sandbox.filesystem\" list is not an array of strings";
    }
    struct cp_jnode *net = cp_json_get(t->sandbox, "network", NULL);
    if (net && !art_network_ok(net))
        return "\"sandbox.network\" is malformed";
    return NULL;
}

/* The optional "permissions" object: its deny and ask lists. */
static const char *art_perm(struct art *t)
{
    t->perm = cp_json_get(t->root, "permissions", NULL);
    if (!t->perm)
        return NULL;
    if (t->perm->type != CP_J_OBJ)
        return "\"permissions\" is not an object";
    for (size_t i = 0; i < 2; i++) {
        struct cp_jnode *v = cp_json_get(t->perm, cp_perm_lists[i], NULL);
        if (v && !art_strarr(v))
            return "a \"permissions\" list is not an array of strings";
    }
    return NULL;
}

/* The optional "hooks" object, which must hold a PreToolUse entry. */
static const char *art_hooks(struct art *t)
{
    t->hooks = cp_json_get(t->root, CP_CV_HOOKS, NULL);
    if (t->hooks && (t->hooks->type != CP_J_OBJ ||
                     !cp_json_get(t->hooks, CP_CV_PRE_TOOL_USE, NULL)))
        return "\"hooks\" has no PreToolUse entry";
    return NULL;
}

/* Reads and checks an artifact written by the claude backend. */
bool cp_art_load(struct cp_arena *a, const char *text, size_t len,
                 struct art *t, struct cp_buf *err)
{
    memset(t, 0, sizeof *t);
    t->a = a;
    const char *e = cp_json_parse(a, text, len, &t->root);
    if (e) {
        cp_buf_printf(err, "artifact is not valid JSON: %s\n", e);
        return false;
    }
    const char *bad = NULL;
    if (t->root->type != CP_J_OBJ)
        bad = "the top level is not an object";
    if (!bad)
        bad = art_conf(t);
    if (!bad)
        bad = art_sandbox(t);
    if (!bad)
        bad = art_perm(t);
    if (!bad)
        bad = art_hooks(t);
    if (bad)
        cp_buf_printf(err, "artifact: %s\n", bad);
    return bad == NULL;
}

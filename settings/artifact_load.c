/* SPDX-License-Identifier: MIT */
/* Loading a `.claude.json` artifact written by the claude backend, with
 * the checks install and verify rely on (spec/settings-wiring.md). */
#include "settings_int.h"

#include <string.h>

/* ======================================================================
 * The artifact
 * ====================================================================== */

const char *const cp_sandbox_bools[4] = {
    "enabled", "failIfUnavailable", "allowUnsandboxedCommands",
    "autoAllowBashIfSandboxed",
};
/* The value of each boolean that gives less protection (ORDER: as above). */
const bool cp_sandbox_looser[4] = {false, false, true, true};
const char *const cp_fs_lists[3] = {"allowWrite", "denyWrite",
                                          "denyRead"};
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

/* Reads and checks an artifact written by the claude backend. */
bool art_load(struct cp_arena *a, const char *text, size_t len,
              struct art *t, struct cp_buf *err)
{
    memset(t, 0, sizeof *t);
    const char *e = cp_json_parse(a, text, len, &t->root);
    if (e) {
        cp_buf_printf(err, "artifact is not valid JSON: %s\n", e);
        return false;
    }
    const char *bad = NULL;
    struct cp_jnode *v;
    if (t->root->type != CP_J_OBJ) {
        bad = "the top level is not an object";
        goto out;
    }
    t->conf = cp_json_get(t->root, "confpol", NULL);
    if (!t->conf || t->conf->type != CP_J_OBJ) {
        bad = "no \"confpol\" object (not built by confpol build --target claude)";
        goto out;
    }
    v = cp_json_get(t->conf, "version", NULL);
    if (!v || v->type != CP_J_NUM || strcmp(v->s, "1") != 0) {
        bad = "\"confpol.version\" is not 1";
        goto out;
    }
    v = cp_json_get(t->conf, "failClosed", NULL);
    if (!is_bool(v)) {
        bad = "\"confpol.failClosed\" is not a boolean";
        goto out;
    }
    t->fail_closed = v->type == CP_J_TRUE;
    v = cp_json_get(t->conf, "projectRelative", NULL);
    if (v && !is_bool(v)) {
        bad = "\"confpol.projectRelative\" is not a boolean";
        goto out;
    }
    t->project_relative = v && v->type == CP_J_TRUE;
    t->gates = cp_json_get(t->conf, "gates", NULL);
    if (!t->gates || t->gates->type != CP_J_ARR) {
        bad = "\"confpol.gates\" is not an array";
        goto out;
    }
    for (size_t i = 0; i < t->gates->n; i++)
        if (t->gates->items[i]->type != CP_J_OBJ) {
            bad = "\"confpol.gates\" holds a non-object";
            goto out;
        }
    t->sandbox = cp_json_get(t->root, "sandbox", NULL);
    if (t->sandbox) {
        if (t->sandbox->type != CP_J_OBJ) {
            bad = "\"sandbox\" is not an object";
            goto out;
        }
        for (size_t i = 0; i < 4; i++) {
            v = cp_json_get(t->sandbox, cp_sandbox_bools[i], NULL);
            if (v && !is_bool(v)) {
                bad = "a \"sandbox\" switch is not a boolean";
                goto out;
            }
        }
        struct cp_jnode *fs = cp_json_get(t->sandbox, "filesystem", NULL);
        if (fs && fs->type != CP_J_OBJ) {
            bad = "\"sandbox.filesystem\" is not an object";
            goto out;
        }
        for (size_t i = 0; fs && i < 3; i++) {
            v = cp_json_get(fs, cp_fs_lists[i], NULL);
            if (v && !art_strarr(v)) {
                bad = "a \"sandbox.filesystem\" list is not an array of strings";
                goto out;
            }
        }
        struct cp_jnode *net = cp_json_get(t->sandbox, "network", NULL);
        if (net && (net->type != CP_J_OBJ ||
                    (cp_json_get(net, "allowedDomains", NULL) &&
                     !art_strarr(cp_json_get(net, "allowedDomains", NULL))) ||
                    (cp_json_get(net, "strictAllowlist", NULL) &&
                     !is_bool(cp_json_get(net, "strictAllowlist", NULL))))) {
            bad = "\"sandbox.network\" is malformed";
            goto out;
        }
    }
    t->perm = cp_json_get(t->root, "permissions", NULL);
    if (t->perm) {
        if (t->perm->type != CP_J_OBJ) {
            bad = "\"permissions\" is not an object";
            goto out;
        }
        for (size_t i = 0; i < 2; i++) {
            v = cp_json_get(t->perm, cp_perm_lists[i], NULL);
            if (v && !art_strarr(v)) {
                bad = "a \"permissions\" list is not an array of strings";
                goto out;
            }
        }
    }
    t->hooks = cp_json_get(t->root, "hooks", NULL);
    if (t->hooks && (t->hooks->type != CP_J_OBJ ||
                     !cp_json_get(t->hooks, "PreToolUse", NULL))) {
        bad = "\"hooks\" has no PreToolUse entry";
        goto out;
    }
out:
    if (bad)
        cp_buf_printf(err, "artifact: %s\n", bad);
    return bad == NULL;
}

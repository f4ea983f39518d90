/* SPDX-License-Identifier: MIT */
/* Install and uninstall of an artifact in a live settings document, and
 * the record of what install added, kept in the document itself under the
 * top-level key "confpolInstalled" (spec/settings-wiring.md). */
#include "settings_int.h"

#include "gate_pin.h" /* the hook matcher */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

/* ======================================================================
 * Install
 * ====================================================================== */

enum chg_op { CH_CREATE, CH_SET, CH_ADD, CH_HOOK };

static const char *const cp_chg_names[] = {"create", "set", "add", "hook"};

struct chg {
    enum chg_op op;
    const char *path[MAXPATH];
    size_t np;
    struct cp_jnode *value;  /* SET: the value written */
    struct cp_jnode *values; /* ADD: the strings appended, in order */
    struct cp_jnode *prev;   /* SET: the value replaced, or NULL */
    const char *command;     /* HOOK */
};

struct inst {
    struct doc d;
    struct cp_vec chgs; /* struct chg * */
    struct cp_buf *err;
};

static struct chg *chg_new(struct inst *in, enum chg_op op,
                           const char *const *path, size_t np)
{
    struct chg *c = cp_arena_alloc(in->d.a, sizeof *c);
    c->op = op;
    c->np = np;
    for (size_t i = 0; i < np; i++)
        c->path[i] = path[i];
    cp_vec_push(in->d.a, &in->chgs, c);
    return c;
}

/* The container at path, created (and recorded) when missing.  The
 * types on the way were checked beforehand. */
static struct cp_jnode *ensure(struct inst *in, const char *const *path,
                               size_t np, enum cp_jtype t)
{
    struct cp_jnode *x = cp_doc_at(&in->d, path, np);
    if (x)
        return x;
    struct cp_jnode *parent = cp_doc_at(&in->d, path, np - 1);
    if (!parent || !cp_doc_add_member(&in->d, parent, path[np - 1],
                                      cp_json_new(in->d.a, t)))
        return NULL;
    chg_new(in, CH_CREATE, path, np);
    return cp_doc_at(&in->d, path, np);
}

static bool do_union(struct inst *in, const char *const *path, size_t np,
                     const struct cp_jnode *want)
{
    struct cp_jnode *arr = ensure(in, path, np, CP_J_ARR);
    if (!arr)
        return false;
    struct cp_strset have = cp_strset_of(in->d.a, arr);
    struct cp_jnode *missing = cp_json_new(in->d.a, CP_J_ARR);
    for (size_t i = 0; i < want->n; i++) {
        const struct cp_jnode *w = want->items[i];
        if (cp_strset_add(in->d.a, &have, w))
            cp_json_push(in->d.a, missing, cp_json_str(in->d.a, w->s, w->len));
    }
    if (missing->n == 0)
        return true;
    chg_new(in, CH_ADD, path, np)->values = missing;
    return cp_doc_append_items(&in->d, arr, missing->items, missing->n);
}

static bool do_set(struct inst *in, const char *const *path, size_t np,
                   struct cp_jnode *val, bool looser)
{
    struct cp_jnode *cur = cp_doc_at(&in->d, path, np);
    if (cur && cp_json_equal(cur, val))
        return true;
    if (cur && val->type == (looser ? CP_J_TRUE : CP_J_FALSE))
        return true; /* never weaken what the user set */
    struct chg *c = chg_new(in, CH_SET, path, np);
    c->value = val;
    if (cur) {
        c->prev = cp_json_copy(in->d.a,
                               cur); /* the tree goes with the splice */
        return cp_doc_set_value(&in->d, cur, val);
    }
    struct cp_jnode *parent = cp_doc_at(&in->d, path, np - 1);
    return parent && cp_doc_add_member(&in->d, parent, path[np - 1], val);
}

static bool hook_present(const struct cp_jnode *pre, const char *cmd,
                         size_t *index)
{
    for (size_t i = 0; pre && pre->type == CP_J_ARR && i < pre->n; i++) {
        const struct cp_jnode *g = pre->items[i];
        const struct cp_jnode *m = cp_json_get(g, CP_CV_MATCHER, NULL);
        const struct cp_jnode *hs = cp_json_get(g, CP_CV_HOOKS, NULL);
        /* the matcher install writes, or the Bash-only one of earlier
         * versions (so that uninstall finds what they installed) */
        if ((!cp_json_str_is(m, CP_GATE_HOOK_MATCHER,
                             strlen(CP_GATE_HOOK_MATCHER)) &&
             !cp_json_str_is(m, "Bash", 4)) ||
            !hs || hs->type != CP_J_ARR)
            continue;
        for (size_t j = 0; j < hs->n; j++) {
            const struct cp_jnode *h = hs->items[j];
            const struct cp_jnode *c = cp_json_get(h, CP_CV_HOOK_COMMAND, NULL);
            if (cp_json_str_is(cp_json_get(h, CP_CV_HOOK_TYPE, NULL),
                               CP_CV_HOOK_TYPE_COMMAND, 7) &&
                cp_json_str_is(c, cmd, strlen(cmd))) {
                if (index)
                    *index = i;
                return true;
            }
        }
    }
    return false;
}

static struct cp_jnode *chg_node(struct cp_arena *a, const struct chg *c)
{
    struct cp_jnode *o = cp_json_new(a, CP_J_OBJ);
    struct cp_jnode *p = cp_json_new(a, CP_J_ARR);
    o->oneline = true;
    for (size_t i = 0; i < c->np; i++)
        cp_json_push(a, p, cp_json_str(a, c->path[i], strlen(c->path[i])));
    if (c->command)
        cp_json_set(a, o, CP_CV_HOOK_COMMAND,
                    cp_json_str(a, c->command, strlen(c->command)));
    cp_json_set(
        a, o, "op",
        cp_json_str(a, cp_chg_names[c->op], strlen(cp_chg_names[c->op])));
    cp_json_set(a, o, "path", p);
    if (c->prev)
        cp_json_set(a, o, "previous", c->prev);
    if (c->value)
        cp_json_set(a, o, "value", c->value);
    if (c->values)
        cp_json_set(a, o, "values", c->values);
    return o;
}

static bool install_sandbox(struct inst *in, const struct art *t)
{
    const char *path[MAXPATH] = {"sandbox"};
    if (!ensure(in, path, 1, CP_J_OBJ))
        return false;
    for (size_t i = 0; i < 4; i++) {
        struct cp_jnode *v = cp_json_get(t->sandbox, cp_sandbox_bools[i], NULL);
        path[1] = cp_sandbox_bools[i];
        if (v && !do_set(in, path, 2, v, cp_sandbox_looser[i]))
            return false;
    }
    struct cp_jnode *fs = cp_json_get(t->sandbox, "filesystem", NULL);
    if (fs) {
        path[1] = "filesystem";
        if (!ensure(in, path, 2, CP_J_OBJ))
            return false;
        for (size_t i = 0; i < 3; i++) {
            struct cp_jnode *v = cp_json_get(fs, cp_fs_lists[i], NULL);
            path[2] = cp_fs_lists[i];
            if (v && !do_union(in, path, 3, v))
                return false;
        }
    }
    struct cp_jnode *net = cp_json_get(t->sandbox, "network", NULL);
    if (net) {
        path[1] = "network";
        if (!ensure(in, path, 2, CP_J_OBJ))
            return false;
        struct cp_jnode *v = cp_json_get(net, "allowedDomains", NULL);
        path[2] = "allowedDomains";
        if (v && !do_union(in, path, 3, v))
            return false;
        v = cp_json_get(net, "allowUnixSockets", NULL);
        path[2] = "allowUnixSockets";
        if (v && !do_union(in, path, 3, v))
            return false;
        v = cp_json_get(net, "strictAllowlist", NULL);
        path[2] = "strictAllowlist";
        if (v && !do_set(in, path, 3, v, false))
            return false;
    }
    return true;
}

/* Every place install may write, checked before the first splice. */
static bool install_check(struct inst *in, const struct art *t)
{
    struct doc *d = &in->d;
    struct cp_buf *e = in->err;
    const char *path[MAXPATH] = {"sandbox"};
    bool ok = true;
    if (t->sandbox) {
        ok &= cp_doc_check_place(d, path, 1, W_OBJ, e);
        for (size_t i = 0; i < 4; i++) {
            path[1] = cp_sandbox_bools[i];
            ok &= cp_doc_check_place(d, path, 2, W_BOOL, e);
        }
        path[1] = "filesystem";
        ok &= cp_doc_check_place(d, path, 2, W_OBJ, e);
        for (size_t i = 0; i < 3; i++) {
            path[2] = cp_fs_lists[i];
            ok &= cp_doc_check_place(d, path, 3, W_STRARR, e);
        }
        path[1] = "network";
        ok &= cp_doc_check_place(d, path, 2, W_OBJ, e);
        path[2] = "allowedDomains";
        ok &= cp_doc_check_place(d, path, 3, W_STRARR, e);
        path[2] = "allowUnixSockets";
        ok &= cp_doc_check_place(d, path, 3, W_STRARR, e);
        path[2] = "strictAllowlist";
        ok &= cp_doc_check_place(d, path, 3, W_BOOL, e);
    }
    path[0] = "permissions";
    ok &= cp_doc_check_place(d, path, 1, W_OBJ, e);
    for (size_t i = 0; i < 2; i++) {
        path[1] = cp_perm_lists[i];
        ok &= cp_doc_check_place(d, path, 2, W_STRARR, e);
    }
    path[0] = CP_CV_HOOKS;
    path[1] = CP_CV_PRE_TOOL_USE;
    ok &= cp_doc_check_place(d, path, 1, W_OBJ, e);
    ok &= cp_doc_check_place(d, path, 2, W_OBJARR, e);
    path[0] = CP_SETTINGS_RECORD_KEY;
    ok &= cp_doc_check_place(d, path, 1, W_OBJARR, e);
    return ok;
}

/* What stood at the settings path before install created the file: nothing
 * ("absent") or a symbolic link to a missing file ({"symlink": TARGET}), so
 * that uninstall can put it back exactly. */
static struct cp_jnode *origin_node(struct cp_arena *a,
                                    const struct cp_settings_env *env)
{
    if (!env->dangling_link)
        return cp_json_str(a, "absent", 6);
    struct cp_jnode *o = cp_json_new(a, CP_J_OBJ);
    cp_json_set(a, o, "symlink",
                cp_json_str(a, env->dangling_link, strlen(env->dangling_link)));
    o->oneline = true;
    return o;
}

static struct cp_jnode *find_record(const struct cp_jnode *recs,
                                    const char *artifact, size_t *index)
{
    for (size_t i = 0; recs && recs->type == CP_J_ARR && i < recs->n; i++) {
        struct cp_jnode *r = recs->items[i];
        if (cp_json_str_is(cp_json_get(r, "artifact", NULL), artifact,
                           strlen(artifact))) {
            if (index)
                *index = i;
            return r;
        }
    }
    return NULL;
}

/* Refuses (err) paths a settings file cannot name and project-relative
 * paths in a settings file that is not a project's. */
static bool install_allowed(const struct cp_settings_env *env,
                            const struct art *t, struct cp_buf *err)
{
    if (!cp_utf8_valid(env->artifact_path, strlen(env->artifact_path)) ||
        !cp_utf8_valid(env->gate_path, strlen(env->gate_path))) {
        cp_buf_adds(err, "the artifact's or confpol-gate's path is not valid "
                         "UTF-8: a settings file cannot name it\n");
        return false;
    }
    if (t->project_relative && !cp_settings_is_project(env)) {
        cp_buf_printf(err,
                      "the artifact has project-relative paths ('./x', "
                      "'/x'), which mean the project only in a project "
                      "settings file (PROJECT/.claude/settings.json or "
                      "settings.local.json); '%s' is not one: rebuild with "
                      "-D PROJECT=/abs/dir\n",
                      env->settings_path);
        return false;
    }
    return true;
}

/* The artifact's permission lists, merged into permissions.deny / .ask. */
static bool install_perm(struct inst *in, const struct art *t)
{
    const char *path[MAXPATH] = {"permissions"};
    for (size_t i = 0; i < 2; i++) {
        struct cp_jnode *v = cp_json_get(t->perm, cp_perm_lists[i], NULL);
        path[1] = cp_perm_lists[i];
        if (!v)
            continue;
        if (!ensure(in, path, 1, CP_J_OBJ) || !do_union(in, path, 2, v))
            return false;
    }
    return true;
}

/* The PreToolUse group install adds: the gate hook running cmd. */
static struct cp_jnode *hook_group(struct cp_arena *a, const char *cmd)
{
    struct cp_jnode *h = cp_json_new(a, CP_J_OBJ);
    cp_json_set(a, h, CP_CV_HOOK_COMMAND, cp_json_str(a, cmd, strlen(cmd)));
    cp_json_set(a, h, CP_CV_ON_FAILURE,
                cp_json_str(a, CP_CV_ON_FAILURE_BLOCK, 5)); /* as built */
    cp_json_set(a, h, CP_CV_HOOK_TYPE,
                cp_json_str(a, CP_CV_HOOK_TYPE_COMMAND, 7));
    struct cp_jnode *hs = cp_json_new(a, CP_J_ARR);
    cp_json_push(a, hs, h);
    struct cp_jnode *g = cp_json_new(a, CP_J_OBJ);
    cp_json_set(a, g, CP_CV_HOOKS, hs);
    cp_json_set(
        a, g, CP_CV_MATCHER,
        cp_json_str(a, CP_GATE_HOOK_MATCHER, strlen(CP_GATE_HOOK_MATCHER)));
    return g;
}

/* The gate hook in hooks.PreToolUse, unless the same command is there. */
static bool install_hook(struct inst *in, const struct cp_settings_env *env,
                         const char *art, size_t alen)
{
    struct cp_arena *a = in->d.a;
    const char *path[MAXPATH] = {CP_CV_HOOKS, CP_CV_PRE_TOOL_USE};
    const char *cmd = cp_settings_hook_command(a, env->gate_path,
                                               env->artifact_path, art, alen);
    if (!ensure(in, path, 1, CP_J_OBJ))
        return false;
    struct cp_jnode *pre = ensure(in, path, 2, CP_J_ARR);
    if (!pre)
        return false;
    if (hook_present(pre, cmd, NULL))
        return true;
    struct cp_jnode *g = hook_group(a, cmd);
    if (!cp_doc_append_items(&in->d, pre, &g, 1))
        return false;
    chg_new(in, CH_HOOK, path, 2)->command = cmd;
    return true;
}

/* The record of what was added: appended to this artifact's record, or a
 * new record (with what stood at the path when install created the file:
 * `created`). */
static bool install_record(struct inst *in, const struct cp_settings_env *env,
                           bool created)
{
    struct cp_arena *a = in->d.a;
    const char *path[MAXPATH] = {CP_SETTINGS_RECORD_KEY, "changes"};
    struct cp_jnode *recs = cp_doc_at(&in->d, path, 1);
    if (!recs) {
        if (!cp_doc_add_member(&in->d, in->d.root, CP_SETTINGS_RECORD_KEY,
                               cp_json_new(a, CP_J_ARR)))
            return false;
        recs = cp_doc_at(&in->d, path, 1);
    }
    struct cp_jnode **nodes = cp_arena_alloc(a, in->chgs.len * sizeof *nodes);
    for (size_t i = 0; i < in->chgs.len; i++)
        nodes[i] = chg_node(a, in->chgs.items[i]);
    struct cp_jnode *rec = find_record(recs, env->artifact_path, NULL);
    struct cp_jnode *cl = rec ? cp_json_get(rec, "changes", NULL) : NULL;
    if (rec && cl && cl->type == CP_J_ARR)
        return cp_doc_append_items(&in->d, cl, nodes, in->chgs.len);
    struct cp_jnode *r = cp_json_new(a, CP_J_OBJ);
    struct cp_jnode *arr = cp_json_new(a, CP_J_ARR);
    for (size_t i = 0; i < in->chgs.len; i++)
        cp_json_push(a, arr, nodes[i]);
    cp_json_set(a, r, "artifact",
                cp_json_str(a, env->artifact_path, strlen(env->artifact_path)));
    cp_json_set(a, r, "changes", arr);
    if (created)
        cp_json_set(a, r, "origin", origin_node(a, env));
    return cp_doc_append_items(&in->d, recs, &r, 1);
}

/* Every splice of install, then its record.  False: an edit produced
 * invalid JSON. */
static bool install_edits(struct inst *in, const struct cp_settings_env *env,
                          const struct art *t, const char *art, size_t alen,
                          bool created)
{
    if (t->sandbox && !install_sandbox(in, t))
        return false;
    if (t->perm && !install_perm(in, t))
        return false;
    if (t->hooks && !install_hook(in, env, art, alen))
        return false;
    return !in->chgs.len || install_record(in, env, created);
}

/* Install promises that verify holds afterwards: whatever in the live
 * file still loosens the policy (and install does not remove user
 * entries) is a reason to refuse. */
static bool install_verified(const struct cp_settings_env *env,
                             const struct doc *d, const char *art, size_t alen,
                             struct cp_buf *err)
{
    struct cp_buf rep = {0};
    int gaps = cp_settings_verify(env, d->text.data, d->text.len, art, alen,
                                  &rep);
    if (gaps != 0) {
        cp_buf_adds(err, "the settings file would still not enforce the "
                         "policy after install:\n");
        cp_buf_add(err, rep.data, rep.len);
    }
    cp_buf_free(&rep);
    return gaps == 0;
}

int cp_settings_install(const struct cp_settings_env *env, const char *live,
                        size_t llen, const char *art, size_t alen,
                        struct cp_buf *out, struct cp_buf *err)
{
    struct cp_arena *a = cp_arena_new();
    struct inst in = {.err = err};
    struct art t;
    int rc = -1;
    size_t err0 = err->len;

    if (!cp_art_load(a, art, alen, &t, err) ||
        !cp_doc_open(&in.d, a, live, llen, err) ||
        !install_allowed(env, &t, err) || !install_check(&in, &t))
        goto out;
    if (!install_edits(&in, env, &t, art, alen, !live)) {
        cp_buf_adds(err, "internal error: an edit produced invalid JSON\n");
        goto out;
    }
    if (!install_verified(env, &in.d, art, alen, err))
        goto out;
    cp_buf_add(out, in.d.text.data, in.d.text.len);
    rc = 0;
out:
    if (rc != 0 && err->len == err0)
        cp_buf_adds(err, "install refused\n");
    if (in.d.ta)
        cp_arena_free(in.d.ta);
    cp_buf_free(&in.d.text);
    cp_arena_free(a);
    return rc;
}

/* ======================================================================
 * Uninstall
 * ====================================================================== */

/* The operation named by op (one of cp_chg_names), or 4 (CH_HOOK + 1)
 * when it names none. */
static size_t chg_op_of(const struct cp_jnode *op)
{
    size_t k;
    for (k = 0; k < 4; k++)
        if (op && op->type == CP_J_STR && strcmp(op->s, cp_chg_names[k]) == 0 &&
            op->len == strlen(cp_chg_names[k]))
            break;
    return k;
}

/* Are the fields the operation needs present and well-formed? */
static bool chg_complete(const struct chg *c)
{
    switch (c->op) {
    case CH_CREATE:
        return true;
    case CH_SET:
        return c->value != NULL;
    case CH_ADD:
        if (!c->values || c->values->type != CP_J_ARR)
            return false;
        for (size_t i = 0; i < c->values->n; i++)
            if (c->values->items[i]->type != CP_J_STR)
                return false;
        return true;
    case CH_HOOK:
        return c->command != NULL;
    }
    return false;
}

static bool chg_parse(const struct cp_jnode *n, struct chg *c)
{
    memset(c, 0, sizeof *c);
    const struct cp_jnode *op = cp_json_get(n, "op", NULL);
    const struct cp_jnode *p = cp_json_get(n, "path", NULL);
    size_t k = chg_op_of(op);
    if (k == 4 || !p || p->type != CP_J_ARR || p->n == 0 || p->n > MAXPATH)
        return false;
    c->op = (enum chg_op)k;
    c->np = p->n;
    for (size_t i = 0; i < p->n; i++) {
        if (p->items[i]->type != CP_J_STR ||
            strlen(p->items[i]->s) != p->items[i]->len)
            return false;
        c->path[i] = p->items[i]->s;
    }
    c->value = cp_json_get(n, "value", NULL);
    c->values = cp_json_get(n, "values", NULL);
    c->prev = cp_json_get(n, "previous", NULL);
    const struct cp_jnode *cmd = cp_json_get(n, CP_CV_HOOK_COMMAND, NULL);
    if (cmd && cmd->type == CP_J_STR)
        c->command = cmd->s;
    return chg_complete(c);
}

/* An add whose values are still the last elements of the array, in
 * order (the usual case: nobody touched it since install appended them),
 * goes in one splice.  Returns false, changing nothing, otherwise. */
static bool undo_tail(struct doc *d, const struct chg *c, size_t *removed)
{
    struct cp_jnode *x = cp_doc_at(d, c->path, c->np);
    size_t k = c->values->n;
    if (!x || x->type != CP_J_ARR || x->n < k || k == 0)
        return false;
    size_t base = x->n - k;
    for (size_t i = 0; i < k; i++)
        if (!cp_json_str_is(x->items[base + i], c->values->items[i]->s,
                            c->values->items[i]->len))
            return false;
    *removed += k;
    if (base == 0)
        cp_doc_splice(d, x->start, x->end, "[]", 2);
    else
        cp_doc_splice(d, x->items[base - 1]->end, x->items[x->n - 1]->end, "",
                      0);
    return true;
}

/* Undoes an add: in one splice when its values are still the tail of the
 * array, else each value, last first, by its last occurrence (someone
 * changed the array since). */
static bool undo_add(struct doc *d, const struct chg *c, size_t *removed)
{
    struct cp_jnode *x = cp_doc_at(d, c->path, c->np);
    if (!x || x->type != CP_J_ARR)
        return true;
    if (undo_tail(d, c, removed))
        return !d->broken;
    for (size_t k = c->values->n; k-- > 0;) {
        const struct cp_jnode *v = c->values->items[k];
        x = cp_doc_at(d, c->path, c->np);
        for (size_t i = x && x->type == CP_J_ARR ? x->n : 0; i-- > 0;)
            if (cp_json_str_is(x->items[i], v->s, v->len)) {
                ++*removed;
                if (!cp_doc_remove_item(d, x, i))
                    return false;
                break;
            }
    }
    return true;
}

/* Undoes one change when what it wrote is still there. */
static bool undo(struct doc *d, const struct chg *c, size_t *removed)
{
    struct cp_jnode *x = cp_doc_at(d, c->path, c->np);
    struct cp_jnode *parent = cp_doc_at(d, c->path, c->np - 1);
    size_t i;
    switch (c->op) {
    case CH_CREATE:
        if (!x || !(x->type == CP_J_OBJ || x->type == CP_J_ARR) || x->n ||
            !parent || parent->type != CP_J_OBJ)
            return true;
        i = cp_doc_member_index(parent, c->path[c->np - 1]);
        ++*removed;
        return cp_doc_remove_member(d, parent, i);
    case CH_SET:
        if (!x || !cp_json_equal(x, c->value))
            return true;
        ++*removed;
        if (c->prev)
            return cp_doc_set_value(d, x, c->prev);
        i = cp_doc_member_index(parent, c->path[c->np - 1]);
        return cp_doc_remove_member(d, parent, i);
    case CH_ADD:
        return undo_add(d, c, removed);
    case CH_HOOK:
        if (hook_present(x, c->command, &i)) {
            ++*removed;
            return cp_doc_remove_item(d, x, i);
        }
        return true;
    }
    return true;
}

int cp_settings_origin(struct cp_arena *a, const char *live, size_t llen,
                       const char *artifact_path, const char **link)
{
    struct cp_jnode *root = NULL;
    *link = NULL;
    if (!live || cp_json_parse(a, live, llen, &root) || root->type != CP_J_OBJ)
        return 0;
    const struct cp_jnode *rec = find_record(
        cp_json_get(root, CP_SETTINGS_RECORD_KEY, NULL), artifact_path, NULL);
    const struct cp_jnode *o = rec ? cp_json_get(rec, "origin", NULL) : NULL;
    if (cp_json_str_is(o, "absent", 6))
        return 1;
    const struct cp_jnode *l = o ? cp_json_get(o, "symlink", NULL) : NULL;
    if (!l || l->type != CP_J_STR || !l->len || strlen(l->s) != l->len)
        return 0;
    *link = l->s;
    return 2;
}

int cp_settings_uninstall(const struct cp_settings_env *env, const char *live,
                          size_t llen, struct cp_buf *out, size_t *removed,
                          struct cp_buf *err)
{
    struct cp_arena *a = cp_arena_new();
    struct doc d;
    int rc = -1;
    const char *rpath[MAXPATH] = {CP_SETTINGS_RECORD_KEY};
    memset(&d, 0, sizeof d);
    *removed = 0;
    if (!live) {
        cp_buf_adds(err, "settings file does not exist\n");
        goto out;
    }
    if (!cp_doc_open(&d, a, live, llen, err))
        goto out;
    if (!cp_doc_check_place(&d, rpath, 1, W_OBJARR, err))
        goto out;
    size_t ri;
    struct cp_jnode *rec = find_record(cp_doc_at(&d, rpath, 1),
                                       env->artifact_path, &ri);
    if (!rec) {
        cp_buf_add(out, d.text.data, d.text.len);
        rc = 0;
        goto out;
    }
    const struct cp_jnode *cl = cp_json_get(rec, "changes", NULL);
    if (!cl || cl->type != CP_J_ARR) {
        cp_buf_adds(err, "the install record has no \"changes\" array\n");
        goto out;
    }
    size_t n = cl->n;
    struct chg *cs = cp_arena_alloc(a, (n ? n : 1) * sizeof *cs);
    for (size_t i = 0; i < n; i++)
        if (!chg_parse(cl->items[i], &cs[i])) {
            cp_buf_printf(err, "the install record is damaged (change %zu)\n",
                          i + 1);
            goto out;
        }
    for (size_t i = n; i-- > 0;)
        if (!undo(&d, &cs[i], removed))
            goto broken;
    /* Drop the record, and the record list when it is empty. */
    struct cp_jnode *recs = cp_doc_at(&d, rpath, 1);
    if (!find_record(recs, env->artifact_path, &ri) ||
        !cp_doc_remove_item(&d, recs, ri))
        goto broken;
    recs = cp_doc_at(&d, rpath, 1);
    if (recs && recs->n == 0 &&
        !cp_doc_remove_member(&d, d.root,
                              cp_doc_member_index(d.root, rpath[0])))
        goto broken;
    cp_buf_add(out, d.text.data, d.text.len);
    rc = 0;
    goto out;
broken:
    cp_buf_adds(err, "internal error: an edit produced invalid JSON\n");
out:
    if (d.ta)
        cp_arena_free(d.ta);
    cp_buf_free(&d.text);
    cp_arena_free(a);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* Claude Code settings wiring (spec/settings-wiring.md).
 *
 * The live settings file belongs to the user: install must keep every key
 * it does not touch, byte for byte.  So the document is never re-printed
 * as a whole.  A small JSON reader records the byte span of every value
 * and key; each change is a text splice (insert a member after the last
 * one, append elements after the last element, replace one value) that
 * copies the indentation of its neighbours, and the document is re-read
 * after every splice.  Uninstall performs the inverse splices, so an
 * install followed by an uninstall gives back the original bytes in the
 * usual cases.  What install added is recorded in the document itself,
 * under the top-level key "confpolInstalled". */
#include "settings.h"

#include "gate.h" /* the hook matcher and the artifact pin */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Document editing by splices
 * ====================================================================== */

struct doc {
    struct cp_arena *a;  /* lives as long as the operation */
    struct cp_arena *ta; /* the current tree after a splice (NULL: the
                            first tree, which is in `a`) */
    struct cp_buf text;
    struct cp_jnode *root;
    char unit[64];
    bool compact;
    bool broken; /* a splice produced invalid JSON: internal error */
};

/* Each splice is followed by a new tree; the previous one is freed, so
 * nodes of a tree must not be kept across a splice (the first tree, in
 * d->a, stays: uninstall's record is read from it). */
static bool doc_reparse(struct doc *d)
{
    struct cp_arena *old = d->ta;
    d->ta = cp_arena_new();
    if (old)
        cp_arena_free(old);
    if (cp_json_parse(d->ta, d->text.data ? d->text.data : "", d->text.len,
                      &d->root) != NULL) {
        d->broken = true;
        return false;
    }
    return true;
}

static bool doc_splice(struct doc *d, size_t start, size_t end, const char *r,
                       size_t rl)
{
    struct cp_buf nb = {0};
    cp_buf_add(&nb, d->text.data, start);
    cp_buf_add(&nb, r, rl);
    cp_buf_add(&nb, d->text.data + end, d->text.len - end);
    cp_buf_free(&d->text);
    d->text = nb;
    return doc_reparse(d);
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t ws_back(const struct doc *d, size_t pos)
{
    while (pos > 0 && is_ws(d->text.data[pos - 1]))
        pos--;
    return pos;
}

/* The spaces and tabs that start the line holding byte pos. */
static char *line_indent(const struct doc *d, size_t pos)
{
    size_t ls = pos, e;
    while (ls > 0 && d->text.data[ls - 1] != '\n')
        ls--;
    for (e = ls; e < pos && (d->text.data[e] == ' ' || d->text.data[e] == '\t');)
        e++;
    return cp_arena_strndup(d->a, d->text.data + ls, e - ls);
}

/* The layout of the neighbour that ends before `pos`: the whitespace run
 * before it (copied as the separator), its indentation, and whether the
 * place is on one line. */
struct place {
    const char *sep;
    size_t seplen;
    const char *indent;
    bool compact;
};

static struct place place_before(const struct doc *d, size_t pos)
{
    struct place pl;
    size_t ws = ws_back(d, pos);
    pl.sep = d->text.data + ws;
    pl.seplen = pos - ws;
    const char *nl = NULL;
    for (size_t i = 0; i < pl.seplen; i++)
        if (pl.sep[i] == '\n')
            nl = pl.sep + i;
    pl.compact = nl == NULL;
    pl.indent = nl ? cp_arena_strndup(d->a, nl + 1,
                                      (size_t)(pl.sep + pl.seplen - nl - 1))
                   : "";
    return pl;
}

static void doc_init_layout(struct doc *d)
{
    strcpy(d->unit, "  ");
    d->compact = false;
    if (d->root->type != CP_J_OBJ || d->root->n == 0)
        return;
    struct place pl = place_before(d, d->root->members[0].kstart);
    if (pl.compact) {
        d->compact = true;
    } else if (pl.indent[0] && strlen(pl.indent) < sizeof d->unit) {
        char *top = line_indent(d, d->root->start);
        size_t tl = strlen(top), il = strlen(pl.indent);
        if (il > tl && strncmp(pl.indent, top, tl) == 0)
            strcpy(d->unit, pl.indent + tl);
    }
}

static bool add_member(struct doc *d, struct cp_jnode *obj, const char *key,
                       struct cp_jnode *val)
{
    struct cp_buf r = {0};
    bool ok;
    if (obj->n == 0) {
        struct cp_jnode tmp = {.type = CP_J_OBJ};
        cp_json_set(d->a, &tmp, key, val);
        cp_json_print(&r, &tmp, line_indent(d, obj->start), d->unit,
                      d->compact);
        ok = doc_splice(d, obj->start, obj->end, r.data, r.len);
    } else {
        struct cp_jmember *last = &obj->members[obj->n - 1];
        struct place pl = place_before(d, last->kstart);
        cp_buf_addc(&r, ',');
        cp_buf_add(&r, pl.sep, pl.seplen);
        cp_json_quote(&r, key, strlen(key));
        cp_buf_adds(&r, ": ");
        cp_json_print(&r, val, pl.indent, d->unit, pl.compact);
        ok = doc_splice(d, last->val->end, last->val->end, r.data, r.len);
    }
    cp_buf_free(&r);
    return ok;
}

static bool append_items(struct doc *d, struct cp_jnode *arr,
                         struct cp_jnode **vals, size_t nv)
{
    struct cp_buf r = {0};
    bool ok;
    if (nv == 0)
        return true;
    if (arr->n == 0) {
        struct cp_jnode tmp = {.type = CP_J_ARR};
        for (size_t i = 0; i < nv; i++)
            cp_json_push(d->a, &tmp, vals[i]);
        cp_json_print(&r, &tmp, line_indent(d, arr->start), d->unit,
                      d->compact);
        ok = doc_splice(d, arr->start, arr->end, r.data, r.len);
    } else {
        struct cp_jnode *last = arr->items[arr->n - 1];
        struct place pl = place_before(d, last->start);
        for (size_t i = 0; i < nv; i++) {
            cp_buf_addc(&r, ',');
            cp_buf_add(&r, pl.sep, pl.seplen);
            cp_json_print(&r, vals[i], pl.indent, d->unit, pl.compact);
        }
        ok = doc_splice(d, last->end, last->end, r.data, r.len);
    }
    cp_buf_free(&r);
    return ok;
}

static bool set_value(struct doc *d, struct cp_jnode *node,
                      const struct cp_jnode *val)
{
    struct cp_buf r = {0};
    cp_json_print(&r, val, line_indent(d, node->start), d->unit, d->compact);
    bool ok = doc_splice(d, node->start, node->end, r.data, r.len);
    cp_buf_free(&r);
    return ok;
}

static bool remove_item(struct doc *d, struct cp_jnode *arr, size_t i)
{
    if (arr->n == 1)
        return doc_splice(d, arr->start, arr->end, "[]", 2);
    if (i > 0)
        return doc_splice(d, arr->items[i - 1]->end, arr->items[i]->end, "", 0);
    return doc_splice(d, arr->items[0]->start, arr->items[1]->start, "", 0);
}

static bool remove_member(struct doc *d, struct cp_jnode *obj, size_t i)
{
    if (obj->n == 1)
        return doc_splice(d, obj->start, obj->end, "{}", 2);
    if (i > 0)
        return doc_splice(d, obj->members[i - 1].val->end,
                          obj->members[i].val->end, "", 0);
    return doc_splice(d, obj->members[0].kstart, obj->members[1].kstart, "",
                      0);
}

static size_t member_index(const struct cp_jnode *obj, const char *key)
{
    size_t kl = strlen(key), r = SIZE_MAX;
    for (size_t i = 0; obj && obj->type == CP_J_OBJ && i < obj->n; i++)
        if (obj->members[i].klen == kl &&
            memcmp(obj->members[i].key, key, kl) == 0)
            r = i;
    return r;
}

#define MAXPATH 4

static struct cp_jnode *doc_at(const struct doc *d, const char *const *path,
                               size_t n)
{
    struct cp_jnode *x = d->root;
    for (size_t i = 0; i < n && x; i++)
        x = x->type == CP_J_OBJ ? cp_json_get(x, path[i], NULL) : NULL;
    return x;
}

static const char *path_text(struct cp_arena *a, const char *const *path,
                             size_t n)
{
    struct cp_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            cp_buf_addc(&b, '.');
        cp_buf_adds(&b, path[i]);
    }
    const char *r = cp_arena_strdup(a, b.data ? b.data : "(top level)");
    cp_buf_free(&b);
    return r;
}

static const char *jtype_name(enum cp_jtype t)
{
    switch (t) {
    case CP_J_NULL: return "null";
    case CP_J_FALSE:
    case CP_J_TRUE: return "a boolean";
    case CP_J_NUM: return "a number";
    case CP_J_STR: return "a string";
    case CP_J_ARR: return "an array";
    case CP_J_OBJ: return "an object";
    }
    return "?";
}

/* Kinds of place install writes to. */
enum want { W_OBJ, W_BOOL, W_STRARR, W_OBJARR };

/* Checks the place at path and every object on the way: right type when
 * present, no duplicate keys.  Appends a reason to err and returns false
 * otherwise. */
static bool check_place1(const struct doc *d, const char *const *path,
                         size_t n, enum want w, struct cp_buf *err);

/* As check_place1, but a reason already given is not repeated. */
static bool check_place(const struct doc *d, const char *const *path,
                        size_t n, enum want w, struct cp_buf *err)
{
    struct cp_buf one = {0};
    bool ok = check_place1(d, path, n, w, &one);
    if (!ok && !(err->data && strstr(err->data, one.data)))
        cp_buf_add(err, one.data, one.len);
    cp_buf_free(&one);
    return ok;
}

static bool check_place1(const struct doc *d, const char *const *path,
                         size_t n, enum want w, struct cp_buf *err)
{
    const struct cp_jnode *x = d->root;
    for (size_t i = 0; i < n; i++) {
        bool dup;
        const struct cp_jnode *y = cp_json_get(x, path[i], &dup);
        if (dup) {
            cp_buf_printf(err, "key '%s' occurs more than once\n",
                          path_text(d->a, path, i + 1));
            return false;
        }
        if (!y)
            return true;
        if (i + 1 < n && y->type != CP_J_OBJ) {
            cp_buf_printf(err, "'%s' is %s, expected an object\n",
                          path_text(d->a, path, i + 1), jtype_name(y->type));
            return false;
        }
        x = y;
    }
    bool ok = true;
    const char *exp = "";
    switch (w) {
    case W_OBJ:
        ok = x->type == CP_J_OBJ;
        exp = "an object";
        break;
    case W_BOOL:
        ok = x->type == CP_J_TRUE || x->type == CP_J_FALSE;
        exp = "a boolean";
        break;
    case W_STRARR:
    case W_OBJARR:
        exp = w == W_STRARR ? "an array of strings" : "an array of objects";
        ok = x->type == CP_J_ARR;
        for (size_t i = 0; ok && i < x->n; i++)
            ok = x->items[i]->type == (w == W_STRARR ? CP_J_STR : CP_J_OBJ);
        break;
    }
    if (!ok)
        cp_buf_printf(err, "'%s' is %s, expected %s\n",
                      path_text(d->a, path, n),
                      x->type == CP_J_ARR ? "an array with other elements"
                                          : jtype_name(x->type),
                      exp);
    return ok;
}

/* ======================================================================
 * The artifact
 * ====================================================================== */

struct art {
    struct cp_jnode *root, *conf, *sandbox, *perm, *hooks, *gates;
    bool project_relative, fail_closed;
};

static const char *const cp_sandbox_bools[] = {
    "enabled", "failIfUnavailable", "allowUnsandboxedCommands",
    "autoAllowBashIfSandboxed",
};
/* The value of each boolean that gives less protection (ORDER: as above). */
static const bool cp_sandbox_looser[] = {false, false, true, true};
static const char *const cp_fs_lists[] = {"allowWrite", "denyWrite",
                                          "denyRead"};
static const char *const cp_perm_lists[] = {"deny", "ask"};

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
static bool art_load(struct cp_arena *a, const char *text, size_t len,
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

/* A project settings file: DIR/.claude/settings.json or
 * DIR/.claude/settings.local.json with DIR not $HOME (whose .claude holds
 * the user settings, where "./x" means ~/.claude/x). */
static bool is_project_settings1(const char *path, const char *home);

/* Nor a file directly in $CLAUDE_CONFIG_DIR, the user settings then. */
static bool is_project_settings(const struct cp_settings_env *env)
{
    const char *path = env->settings_path, *cd = env->config_dir;
    if (cd && *cd) {
        size_t cl = strlen(cd);
        while (cl > 1 && cd[cl - 1] == '/')
            cl--;
        const char *slash = strrchr(path, '/');
        if (slash && (size_t)(slash - path) == cl && strncmp(path, cd, cl) == 0)
            return false;
    }
    return is_project_settings1(path, env->home);
}

static bool is_project_settings1(const char *path, const char *home)
{
    static const char *const tails[] = {"/.claude/settings.json",
                                        "/.claude/settings.local.json"};
    size_t pl = strlen(path);
    for (size_t i = 0; i < 2; i++) {
        size_t tl = strlen(tails[i]);
        if (pl <= tl || strcmp(path + pl - tl, tails[i]) != 0)
            continue;
        size_t dl = pl - tl;
        if (home) {
            size_t hl = strlen(home);
            while (hl > 1 && home[hl - 1] == '/')
                hl--;
            if (hl == dl && strncmp(home, path, dl) == 0)
                return false;
        }
        return true;
    }
    return false;
}

void cp_settings_shell_quote(struct cp_buf *b, const char *s)
{
    bool plain = *s != '\0' && *s != '-';
    for (const char *p = s; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./:=+@%,-", *p);
    if (plain) {
        cp_buf_adds(b, s);
        return;
    }
    cp_buf_addc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            cp_buf_adds(b, "'\\''");
        else
            cp_buf_addc(b, *p);
    }
    cp_buf_addc(b, '\'');
}

char *cp_settings_hook_command(struct cp_arena *a, const char *confpol_path,
                               const char *artifact_path, const char *art,
                               size_t alen)
{
    struct cp_buf b = {0};
    cp_settings_shell_quote(&b, confpol_path);
    cp_buf_adds(&b, " gate ");
    if (art) {
        char pin[CP_SHA256_HEX];
        cp_gate_pin_digest(art, alen, pin);
        cp_buf_printf(&b, "--sha256 %s ", pin);
    }
    cp_settings_shell_quote(&b, artifact_path);
    char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

/* ======================================================================
 * Install
 * ====================================================================== */

enum chg_op { CH_CREATE, CH_SET, CH_ADD, CH_HOOK };

static const char *const cp_chg_names[] = {"create", "set", "add", "hook"};

struct chg {
    enum chg_op op;
    const char *path[MAXPATH];
    size_t np;
    struct cp_jnode *value; /* SET: the value written */
    struct cp_jnode *values; /* ADD: the strings appended, in order */
    struct cp_jnode *prev;  /* SET: the value replaced, or NULL */
    const char *command;    /* HOOK */
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
    struct cp_jnode *x = doc_at(&in->d, path, np);
    if (x)
        return x;
    struct cp_jnode *parent = doc_at(&in->d, path, np - 1);
    if (!parent || !add_member(&in->d, parent, path[np - 1],
                               cp_json_new(in->d.a, t)))
        return NULL;
    chg_new(in, CH_CREATE, path, np);
    return doc_at(&in->d, path, np);
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
    return append_items(&in->d, arr, missing->items, missing->n);
}

static bool do_set(struct inst *in, const char *const *path, size_t np,
                   struct cp_jnode *val, bool looser)
{
    struct cp_jnode *cur = doc_at(&in->d, path, np);
    if (cur && cp_json_equal(cur, val))
        return true;
    if (cur && val->type == (looser ? CP_J_TRUE : CP_J_FALSE))
        return true; /* never weaken what the user set */
    struct chg *c = chg_new(in, CH_SET, path, np);
    c->value = val;
    if (cur) {
        c->prev = cp_json_copy(in->d.a, cur); /* the tree goes with the splice */
        return set_value(&in->d, cur, val);
    }
    struct cp_jnode *parent = doc_at(&in->d, path, np - 1);
    return parent && add_member(&in->d, parent, path[np - 1], val);
}

static bool hook_present(const struct cp_jnode *pre, const char *cmd,
                         size_t *index)
{
    for (size_t i = 0; pre && pre->type == CP_J_ARR && i < pre->n; i++) {
        const struct cp_jnode *g = pre->items[i];
        const struct cp_jnode *m = cp_json_get(g, "matcher", NULL);
        const struct cp_jnode *hs = cp_json_get(g, "hooks", NULL);
        /* the matcher install writes, or the Bash-only one of earlier
         * versions (so that uninstall finds what they installed) */
        if ((!cp_json_str_is(m, CP_GATE_HOOK_MATCHER, strlen(CP_GATE_HOOK_MATCHER)) &&
             !cp_json_str_is(m, "Bash", 4)) ||
            !hs || hs->type != CP_J_ARR)
            continue;
        for (size_t j = 0; j < hs->n; j++) {
            const struct cp_jnode *h = hs->items[j];
            const struct cp_jnode *c = cp_json_get(h, "command", NULL);
            if (cp_json_str_is(cp_json_get(h, "type", NULL), "command", 7) &&
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
        cp_json_set(a, o, "command",
                    cp_json_str(a, c->command, strlen(c->command)));
    cp_json_set(a, o, "op", cp_json_str(a, cp_chg_names[c->op],
                                        strlen(cp_chg_names[c->op])));
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
        ok &= check_place(d, path, 1, W_OBJ, e);
        for (size_t i = 0; i < 4; i++) {
            path[1] = cp_sandbox_bools[i];
            ok &= check_place(d, path, 2, W_BOOL, e);
        }
        path[1] = "filesystem";
        ok &= check_place(d, path, 2, W_OBJ, e);
        for (size_t i = 0; i < 3; i++) {
            path[2] = cp_fs_lists[i];
            ok &= check_place(d, path, 3, W_STRARR, e);
        }
        path[1] = "network";
        ok &= check_place(d, path, 2, W_OBJ, e);
        path[2] = "allowedDomains";
        ok &= check_place(d, path, 3, W_STRARR, e);
        path[2] = "strictAllowlist";
        ok &= check_place(d, path, 3, W_BOOL, e);
    }
    path[0] = "permissions";
    ok &= check_place(d, path, 1, W_OBJ, e);
    for (size_t i = 0; i < 2; i++) {
        path[1] = cp_perm_lists[i];
        ok &= check_place(d, path, 2, W_STRARR, e);
    }
    path[0] = "hooks";
    path[1] = "PreToolUse";
    ok &= check_place(d, path, 1, W_OBJ, e);
    ok &= check_place(d, path, 2, W_OBJARR, e);
    path[0] = CP_SETTINGS_RECORD_KEY;
    ok &= check_place(d, path, 1, W_OBJARR, e);
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

static bool doc_open(struct doc *d, struct cp_arena *a, const char *live,
                     size_t llen, struct cp_buf *err)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    if (live)
        cp_buf_add(&d->text, live, llen);
    else
        cp_buf_adds(&d->text, "{}\n");
    const char *e = cp_json_parse(a, d->text.data ? d->text.data : "",
                                  d->text.len, &d->root);
    if (e) {
        cp_buf_printf(err, "settings file is not valid JSON: %s\n", e);
        return false;
    }
    if (d->root->type != CP_J_OBJ) {
        cp_buf_printf(err, "settings file: the top level is %s, expected an "
                           "object\n",
                      jtype_name(d->root->type));
        return false;
    }
    doc_init_layout(d);
    return true;
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

    if (!art_load(a, art, alen, &t, err) ||
        !doc_open(&in.d, a, live, llen, err))
        goto out;
    if (!cp_json_utf8_valid(env->artifact_path, strlen(env->artifact_path)) ||
        !cp_json_utf8_valid(env->confpol_path, strlen(env->confpol_path))) {
        cp_buf_adds(err, "the artifact's or confpol's path is not valid UTF-8: "
                         "a settings file cannot name it\n");
        goto out;
    }
    if (t.project_relative &&
        !is_project_settings(env)) {
        cp_buf_printf(err,
                      "the artifact has project-relative paths ('./x', "
                      "'/x'), which mean the project only in a project "
                      "settings file (PROJECT/.claude/settings.json or "
                      "settings.local.json); '%s' is not one: rebuild with "
                      "-D PROJECT=/abs/dir\n",
                      env->settings_path);
        goto out;
    }
    if (!install_check(&in, &t))
        goto out;

    if (t.sandbox && !install_sandbox(&in, &t))
        goto broken;
    if (t.perm) {
        const char *path[MAXPATH] = {"permissions"};
        for (size_t i = 0; i < 2; i++) {
            struct cp_jnode *v = cp_json_get(t.perm, cp_perm_lists[i], NULL);
            path[1] = cp_perm_lists[i];
            if (!v)
                continue;
            if (!ensure(&in, path, 1, CP_J_OBJ) || !do_union(&in, path, 2, v))
                goto broken;
        }
    }
    if (t.hooks) {
        const char *path[MAXPATH] = {"hooks", "PreToolUse"};
        const char *cmd = cp_settings_hook_command(a, env->confpol_path,
                                                   env->artifact_path, art,
                                                   alen);
        if (!ensure(&in, path, 1, CP_J_OBJ))
            goto broken;
        struct cp_jnode *pre = ensure(&in, path, 2, CP_J_ARR);
        if (!pre)
            goto broken;
        if (!hook_present(pre, cmd, NULL)) {
            struct cp_jnode *h = cp_json_new(a, CP_J_OBJ);
            cp_json_set(a, h, "command", cp_json_str(a, cmd, strlen(cmd)));
            cp_json_set(a, h, "type", cp_json_str(a, "command", 7));
            struct cp_jnode *hs = cp_json_new(a, CP_J_ARR);
            cp_json_push(a, hs, h);
            struct cp_jnode *g = cp_json_new(a, CP_J_OBJ);
            cp_json_set(a, g, "hooks", hs);
            cp_json_set(a, g, "matcher",
                        cp_json_str(a, CP_GATE_HOOK_MATCHER,
                                    strlen(CP_GATE_HOOK_MATCHER)));
            if (!append_items(&in.d, pre, &g, 1))
                goto broken;
            chg_new(&in, CH_HOOK, path, 2)->command = cmd;
        }
    }

    /* The record of what was added. */
    if (in.chgs.len) {
        const char *path[MAXPATH] = {CP_SETTINGS_RECORD_KEY, "changes"};
        struct cp_jnode *recs = doc_at(&in.d, path, 1);
        if (!recs) {
            if (!add_member(&in.d, in.d.root, CP_SETTINGS_RECORD_KEY,
                            cp_json_new(a, CP_J_ARR)))
                goto broken;
            recs = doc_at(&in.d, path, 1);
        }
        struct cp_jnode **nodes =
            cp_arena_alloc(a, in.chgs.len * sizeof *nodes);
        for (size_t i = 0; i < in.chgs.len; i++)
            nodes[i] = chg_node(a, in.chgs.items[i]);
        struct cp_jnode *rec = find_record(recs, env->artifact_path, NULL);
        struct cp_jnode *cl = rec ? cp_json_get(rec, "changes", NULL) : NULL;
        if (rec && cl && cl->type == CP_J_ARR) {
            if (!append_items(&in.d, cl, nodes, in.chgs.len))
                goto broken;
        } else {
            struct cp_jnode *r = cp_json_new(a, CP_J_OBJ);
            struct cp_jnode *arr = cp_json_new(a, CP_J_ARR);
            for (size_t i = 0; i < in.chgs.len; i++)
                cp_json_push(a, arr, nodes[i]);
            cp_json_set(a, r, "artifact",
                        cp_json_str(a, env->artifact_path,
                                    strlen(env->artifact_path)));
            cp_json_set(a, r, "changes", arr);
            if (!live)
                cp_json_set(a, r, "origin", origin_node(a, env));
            if (!append_items(&in.d, recs, &r, 1))
                goto broken;
        }
    }

    /* Install promises that verify holds afterwards: whatever in the live
     * file still loosens the policy (and install does not remove user
     * entries) is a reason to refuse. */
    {
        struct cp_buf rep = {0};
        int gaps = cp_settings_verify(env, in.d.text.data, in.d.text.len, art,
                                      alen, &rep);
        if (gaps != 0) {
            cp_buf_adds(err, "the settings file would still not enforce the "
                             "policy after install:\n");
            cp_buf_add(err, rep.data, rep.len);
            cp_buf_free(&rep);
            goto out;
        }
        cp_buf_free(&rep);
    }
    cp_buf_add(out, in.d.text.data, in.d.text.len);
    rc = 0;
    goto out;
broken:
    cp_buf_adds(err, "internal error: an edit produced invalid JSON\n");
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

static bool chg_parse(struct cp_arena *a, const struct cp_jnode *n,
                      struct chg *c)
{
    memset(c, 0, sizeof *c);
    const struct cp_jnode *op = cp_json_get(n, "op", NULL);
    const struct cp_jnode *p = cp_json_get(n, "path", NULL);
    size_t k;
    for (k = 0; k < 4; k++)
        if (op && op->type == CP_J_STR &&
            strcmp(op->s, cp_chg_names[k]) == 0 &&
            op->len == strlen(cp_chg_names[k]))
            break;
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
    const struct cp_jnode *cmd = cp_json_get(n, "command", NULL);
    if (cmd && cmd->type == CP_J_STR)
        c->command = cmd->s;
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
    (void)a;
    return false;
}

/* An add whose values are still the last elements of the array, in
 * order (the usual case: nobody touched it since install appended them),
 * goes in one splice.  Returns false, changing nothing, otherwise. */
static bool undo_tail(struct doc *d, const struct chg *c, size_t *removed)
{
    struct cp_jnode *x = doc_at(d, c->path, c->np);
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
        doc_splice(d, x->start, x->end, "[]", 2);
    else
        doc_splice(d, x->items[base - 1]->end, x->items[x->n - 1]->end, "", 0);
    return true;
}

/* Undoes one change when what it wrote is still there. */
static bool undo(struct doc *d, const struct chg *c, size_t *removed)
{
    struct cp_jnode *x = doc_at(d, c->path, c->np);
    struct cp_jnode *parent = doc_at(d, c->path, c->np - 1);
    size_t i;
    switch (c->op) {
    case CH_CREATE:
        if (!x || !(x->type == CP_J_OBJ || x->type == CP_J_ARR) || x->n ||
            !parent || parent->type != CP_J_OBJ)
            return true;
        i = member_index(parent, c->path[c->np - 1]);
        ++*removed;
        return remove_member(d, parent, i);
    case CH_SET:
        if (!x || !cp_json_equal(x, c->value))
            return true;
        ++*removed;
        if (c->prev)
            return set_value(d, x, c->prev);
        i = member_index(parent, c->path[c->np - 1]);
        return remove_member(d, parent, i);
    case CH_ADD:
        if (!x || x->type != CP_J_ARR)
            return true;
        if (undo_tail(d, c, removed))
            return !d->broken;
        /* Someone changed the array since: each value, last first, by its
         * last occurrence. */
        for (size_t k = c->values->n; k-- > 0;) {
            const struct cp_jnode *v = c->values->items[k];
            x = doc_at(d, c->path, c->np);
            for (i = x && x->type == CP_J_ARR ? x->n : 0; i-- > 0;)
                if (cp_json_str_is(x->items[i], v->s, v->len)) {
                    ++*removed;
                    if (!remove_item(d, x, i))
                        return false;
                    break;
                }
        }
        return true;
    case CH_HOOK:
        if (hook_present(x, c->command, &i)) {
            ++*removed;
            return remove_item(d, x, i);
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
    if (!doc_open(&d, a, live, llen, err))
        goto out;
    if (!check_place(&d, rpath, 1, W_OBJARR, err))
        goto out;
    size_t ri;
    struct cp_jnode *rec =
        find_record(doc_at(&d, rpath, 1), env->artifact_path, &ri);
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
        if (!chg_parse(a, cl->items[i], &cs[i])) {
            cp_buf_printf(err, "the install record is damaged (change %zu)\n",
                          i + 1);
            goto out;
        }
    for (size_t i = n; i-- > 0;)
        if (!undo(&d, &cs[i], removed))
            goto broken;
    /* Drop the record, and the record list when it is empty. */
    struct cp_jnode *recs = doc_at(&d, rpath, 1);
    if (!find_record(recs, env->artifact_path, &ri) ||
        !remove_item(&d, recs, ri))
        goto broken;
    recs = doc_at(&d, rpath, 1);
    if (recs && recs->n == 0 &&
        !remove_member(&d, d.root, member_index(d.root, rpath[0])))
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

/* ======================================================================
 * Verify
 * ====================================================================== */

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
        while (*s && *s != ' ' && *s != '\t') {
            if (*s == '\'') {
                const char *e = strchr(s + 1, '\'');
                if (!e)
                    goto bad;
                cp_buf_add(&b, s + 1, (size_t)(e - s - 1));
                s = e + 1;
            } else if (*s == '"') {
                for (s++; *s && *s != '"'; s++) {
                    if (*s == '$' || *s == '`')
                        goto bad;
                    if (*s == '\\' && s[1] && strchr("$`\"\\", s[1]))
                        s++;
                    cp_buf_addc(&b, *s);
                }
                if (*s != '"')
                    goto bad;
                s++;
            } else if (*s == '\\' && s[1]) {
                cp_buf_addc(&b, s[1]);
                s += 2;
            } else if (strchr("|&;<>()$`*?[#~{}\n", *s)) {
                goto bad;
            } else {
                cp_buf_addc(&b, *s++);
            }
        }
        if (n == max)
            goto bad;
        w[n++] = cp_arena_strndup(a, b.data, b.len);
    }
    cp_buf_free(&b);
    return n;
bad:
    cp_buf_free(&b);
    return 0;
}

static bool matcher_covers(const struct cp_jnode *m, const char *tool)
{
    size_t tl = strlen(tool);
    if (!m || (m->type == CP_J_STR && (m->len == 0 || strcmp(m->s, "*") == 0)))
        return true;
    if (m->type != CP_J_STR)
        return false;
    /* A list of exact names separated by '|' or ','. */
    for (const char *p = m->s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_- ,|", *p)))
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
static bool gates_equal(const struct cp_jnode *x, const struct cp_jnode *y)
{
    static const char *const keys[] = {"verdict", "kind", "pattern"};
    if (!x || !y || x->type != CP_J_ARR || y->type != CP_J_ARR || x->n != y->n)
        return false;
    for (size_t i = 0; i < x->n; i++)
        for (size_t k = 0; k < 3; k++)
            if (!cp_json_equal(cp_json_get(x->items[i], keys[k], NULL),
                               cp_json_get(y->items[i], keys[k], NULL)))
                return false;
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

static void verify_sandbox(struct vfy *v, const struct cp_jnode *root,
                           const struct art *t)
{
    const struct cp_jnode *sb = cp_json_get(root, "sandbox", NULL);
    const struct cp_jnode *x;
    if (!sb || sb->type != CP_J_OBJ) {
        gap(v, "no \"sandbox\" object: the Bash tool runs unconfined");
        return;
    }
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

    const struct cp_jnode *afs = cp_json_get(t->sandbox, "filesystem", NULL);
    const struct cp_jnode *fs = cp_json_get(sb, "filesystem", NULL);
    if (fs && fs->type != CP_J_OBJ)
        fs = NULL;
    if (live_true(cp_json_get(fs, "disabled", NULL)))
        gap(v, "sandbox.filesystem.disabled is true");
    need_all(v, cp_json_get(fs, "denyWrite", NULL),
             cp_json_get(afs, "denyWrite", NULL), "sandbox.filesystem.denyWrite");
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

    const struct cp_jnode *anet = cp_json_get(t->sandbox, "network", NULL);
    const struct cp_jnode *net = cp_json_get(sb, "network", NULL);
    if (anet) {
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
            is_project_settings(v->env))
            gap(v, "sandbox.network.strictAllowlist is ignored in a project "
                   "settings file: Claude Code asks about other hosts instead "
                   "of denying them (build with -D PROJECT=/abs/path and use "
                   "~/.claude/settings.json)");
        x = cp_json_get(net, "allowAllUnixSockets", NULL);
        if (live_true(x))
            gap(v, "sandbox.network.allowAllUnixSockets is true");
    }
}

static void verify_hook(struct vfy *v, const struct cp_settings_env *env,
                        const struct cp_jnode *root, const struct art *t)
{
    const struct cp_jnode *hooks = cp_json_get(root, "hooks", NULL);
    const struct cp_jnode *pre = cp_json_get(hooks, "PreToolUse", NULL);
    const char *problem = NULL; /* of the first 'confpol gate' hook seen */
    if (live_true(cp_json_get(root, "disableAllHooks", NULL)))
        gap(v, "disableAllHooks is true: the gate hook never runs");
    for (size_t i = 0; pre && pre->type == CP_J_ARR && i < pre->n; i++) {
        const struct cp_jnode *g = pre->items[i];
        const struct cp_jnode *hs = cp_json_get(g, "hooks", NULL);
        if (g->type != CP_J_OBJ ||
            !matcher_covers(cp_json_get(g, "matcher", NULL), "Bash") || !hs ||
            hs->type != CP_J_ARR)
            continue;
        for (size_t j = 0; j < hs->n; j++) {
            const struct cp_jnode *h = hs->items[j];
            const struct cp_jnode *c = cp_json_get(h, "command", NULL);
            const char *w[6];
            const char *bad = NULL, *pin = NULL;
            if (!cp_json_str_is(cp_json_get(h, "type", NULL), "command", 7) || !c ||
                c->type != CP_J_STR || strlen(c->s) != c->len ||
                cp_json_get(h, "args", NULL))
                continue;
            size_t nw = shell_split(v->a, c->s, w, 6);
            if (nw == 5 && strcmp(w[2], "--sha256") == 0) {
                pin = w[3]; /* BIN gate --sha256 PIN ARTIFACT */
                w[2] = w[4];
            } else if (nw != 3) {
                continue;
            }
            if (strcmp(w[1], "gate"))
                continue;
            static const char *const file_tools[] = {
                "Write", "Edit", "MultiEdit", "NotebookEdit", NULL};
            for (size_t k = 0; file_tools[k] && !bad; k++)
                if (!matcher_covers(cp_json_get(g, "matcher", NULL),
                                    file_tools[k]))
                    bad = cp_arena_printf(v->a, "the gate hook's matcher does "
                                                "not cover the %s tool (what "
                                                "it writes is not scanned)",
                                          file_tools[k]);
            if (bad) {
                /* reported below */
            } else if (!env->is_exec || !env->is_exec(w[0], env->ud)) {
                bad = cp_arena_printf(v->a, "the gate hook runs '%s', which "
                                            "is not an executable file",
                                      w[0]);
            } else {
                struct cp_buf ab = {0}, aerr = {0};
                struct art ht;
                bool ok = env->read_file &&
                          env->read_file(w[2], &ab, env->ud) &&
                          art_load(v->a, ab.data ? ab.data : "", ab.len, &ht,
                                   &aerr);
                char digest[CP_SHA256_HEX];
                cp_gate_pin_digest(ab.data ? ab.data : "", ab.len, digest);
                bool pinned = !pin || strcmp(pin, digest) == 0;
                cp_buf_free(&ab);
                cp_buf_free(&aerr);
                if (!ok)
                    bad = cp_arena_printf(v->a, "the gate hook reads '%s', "
                                                "which is missing or not a "
                                                "confpol artifact",
                                          w[2]);
                else if (!pinned)
                    bad = cp_arena_printf(v->a, "the gate hook pins a SHA-256 "
                                                "that '%s' no longer has (it "
                                                "changed after install; the "
                                                "hook denies or asks every "
                                                "call)",
                                          w[2]);
                else if (!gates_equal(ht.gates, t->gates) ||
                         ht.fail_closed != t->fail_closed)
                    bad = cp_arena_printf(v->a, "the gate hook reads '%s', "
                                                "whose gate table differs "
                                                "from the policy's",
                                          w[2]);
            }
            if (!bad)
                return; /* wired */
            if (!problem)
                problem = bad;
        }
    }
    if (problem)
        gap(v, "%s", problem);
    else
        gap(v, "no PreToolUse hook for Bash runs 'confpol gate' on this "
               "policy's artifact");
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
    if (!art_load(a, art, alen, &t, report))
        goto out;
    if (!live) {
        cp_buf_adds(report, "settings file does not exist\n");
        goto out;
    }
    const char *e = cp_json_parse(a, live, llen, &root);
    if (e) {
        cp_buf_printf(report, "settings file is not valid JSON: %s\n", e);
        goto out;
    }
    if (root->type != CP_J_OBJ) {
        cp_buf_adds(report, "settings file: the top level is not an object\n");
        goto out;
    }
    /* A file the client skips enforces nothing, whatever it holds. */
    v.gaps += cp_settings_schema_check(a, root, llen, report);
    if (t.project_relative &&
        !is_project_settings(env))
        gap(&v, "the artifact's project-relative paths ('./x', '/x') do not "
                "mean the project in '%s' (not PROJECT/.claude/settings.json "
                "or settings.local.json)",
            env->settings_path);
    if (t.sandbox)
        verify_sandbox(&v, root, &t);

    const struct cp_jnode *perm = cp_json_get(root, "permissions", NULL);
    if (perm && perm->type != CP_J_OBJ)
        perm = NULL;
    const struct cp_jnode *ldeny = cp_json_get(perm, "deny", NULL);
    const struct cp_jnode *lask = cp_json_get(perm, "ask", NULL);
    const struct cp_jnode *adeny = cp_json_get(t.perm, "deny", NULL);
    const struct cp_jnode *aask = cp_json_get(t.perm, "ask", NULL);
    need_all(&v, ldeny, adeny, "permissions.deny");
    struct cp_strset sask = cp_strset_of(a, lask), sdeny = cp_strset_of(a, ldeny);
    for (size_t i = 0; aask && i < aask->n; i++) {
        const struct cp_jnode *r = aask->items[i];
        if (!cp_strset_has(&sask, r->s, r->len) && !cp_strset_has(&sdeny, r->s, r->len))
            gap(&v, "permissions.ask lacks %s", jstr(a, r));
    }
    const struct cp_jnode *allow = cp_json_get(perm, "allow", NULL);
    for (size_t i = 0; t.sandbox && allow && allow->type == CP_J_ARR &&
                       i < allow->n; i++) {
        const struct cp_jnode *r = allow->items[i];
        if (r->type == CP_J_STR &&
            (strncmp(r->s, "Edit", 4) == 0 || strncmp(r->s, "Write", 5) == 0) &&
            (r->s[r->s[0] == 'E' ? 4 : 5] == '(' ||
             r->s[r->s[0] == 'E' ? 4 : 5] == '\0'))
            gap(&v, "permissions.allow holds %s: Claude Code adds Edit allow "
                    "rules to the Bash sandbox's writable paths",
                jstr(a, r));
    }
    bool asks = aask && aask->n;
    for (size_t i = 0; !asks && i < t.gates->n; i++)
        asks = cp_json_str_is(cp_json_get(t.gates->items[i], "verdict", NULL), "ask", 3);
    if (asks && cp_json_str_is(cp_json_get(perm, "defaultMode", NULL),
                       "bypassPermissions", 17))
        gap(&v, "permissions.defaultMode is \"bypassPermissions\": ask rules "
                "are not asked");
    if (t.hooks)
        verify_hook(&v, env, root, &t);
    rc = v.gaps;
out:
    cp_arena_free(a);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* Document splicing (spec/settings-wiring.md).
 *
 * The live settings file belongs to the user: install must keep every key
 * it does not touch, byte for byte.  So the document is never re-printed
 * as a whole.  The JSON reader records the byte span of every value and
 * key; each change is a text splice (insert a member after the last one,
 * append elements after the last element, replace one value) that copies
 * the indentation of its neighbours, and the document is re-read after
 * every splice.  Uninstall performs the inverse splices, so an install
 * followed by an uninstall gives back the original bytes in the usual
 * cases. */
#include "settings_int.h"

#include <stdint.h>
#include <string.h>

/* ======================================================================
 * Document editing by splices
 * ====================================================================== */

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

bool cp_doc_splice(struct doc *d, size_t start, size_t end, const char *r,
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
    for (e = ls;
         e < pos && (d->text.data[e] == ' ' || d->text.data[e] == '\t');)
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

bool cp_doc_add_member(struct doc *d, struct cp_jnode *obj, const char *key,
                       struct cp_jnode *val)
{
    struct cp_buf r = {0};
    bool ok;
    if (obj->n == 0) {
        struct cp_jnode tmp = {.type = CP_J_OBJ};
        cp_json_set(d->a, &tmp, key, val);
        cp_json_print(&r, &tmp, line_indent(d, obj->start), d->unit,
                      d->compact);
        ok = cp_doc_splice(d, obj->start, obj->end, r.data, r.len);
    } else {
        struct cp_jmember *last = &obj->members[obj->n - 1];
        struct place pl = place_before(d, last->kstart);
        cp_buf_addc(&r, ',');
        cp_buf_add(&r, pl.sep, pl.seplen);
        cp_json_quote(&r, key, strlen(key));
        cp_buf_adds(&r, ": ");
        cp_json_print(&r, val, pl.indent, d->unit, pl.compact);
        ok = cp_doc_splice(d, last->val->end, last->val->end, r.data, r.len);
    }
    cp_buf_free(&r);
    return ok;
}

bool cp_doc_append_items(struct doc *d, struct cp_jnode *arr,
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
        ok = cp_doc_splice(d, arr->start, arr->end, r.data, r.len);
    } else {
        struct cp_jnode *last = arr->items[arr->n - 1];
        struct place pl = place_before(d, last->start);
        for (size_t i = 0; i < nv; i++) {
            cp_buf_addc(&r, ',');
            cp_buf_add(&r, pl.sep, pl.seplen);
            cp_json_print(&r, vals[i], pl.indent, d->unit, pl.compact);
        }
        ok = cp_doc_splice(d, last->end, last->end, r.data, r.len);
    }
    cp_buf_free(&r);
    return ok;
}

bool cp_doc_set_value(struct doc *d, struct cp_jnode *node,
                      const struct cp_jnode *val)
{
    struct cp_buf r = {0};
    cp_json_print(&r, val, line_indent(d, node->start), d->unit, d->compact);
    bool ok = cp_doc_splice(d, node->start, node->end, r.data, r.len);
    cp_buf_free(&r);
    return ok;
}

bool cp_doc_remove_item(struct doc *d, struct cp_jnode *arr, size_t i)
{
    if (arr->n == 1)
        return cp_doc_splice(d, arr->start, arr->end, "[]", 2);
    if (i > 0)
        return cp_doc_splice(d, arr->items[i - 1]->end, arr->items[i]->end, "",
                             0);
    return cp_doc_splice(d, arr->items[0]->start, arr->items[1]->start, "", 0);
}

bool cp_doc_remove_member(struct doc *d, struct cp_jnode *obj, size_t i)
{
    if (obj->n == 1)
        return cp_doc_splice(d, obj->start, obj->end, "{}", 2);
    if (i > 0)
        return cp_doc_splice(d, obj->members[i - 1].val->end,
                             obj->members[i].val->end, "", 0);
    return cp_doc_splice(d, obj->members[0].kstart, obj->members[1].kstart, "",
                         0);
}

size_t cp_doc_member_index(const struct cp_jnode *obj, const char *key)
{
    size_t kl = strlen(key), r = SIZE_MAX;
    for (size_t i = 0; obj && obj->type == CP_J_OBJ && i < obj->n; i++)
        if (obj->members[i].klen == kl &&
            memcmp(obj->members[i].key, key, kl) == 0)
            r = i;
    return r;
}

struct cp_jnode *cp_doc_at(const struct doc *d, const char *const *path,
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

/* Checks the place at path and every object on the way: right type when
 * present, no duplicate keys.  Appends a reason to err and returns false
 * otherwise. */
static bool check_place1(const struct doc *d, const char *const *path, size_t n,
                         enum want w, struct cp_buf *err);

/* As check_place1, but a reason already given is not repeated. */
bool cp_doc_check_place(const struct doc *d, const char *const *path, size_t n,
                        enum want w, struct cp_buf *err)
{
    struct cp_buf one = {0};
    bool ok = check_place1(d, path, n, w, &one);
    if (!ok && !(err->data && strstr(err->data, one.data)))
        cp_buf_add(err, one.data, one.len);
    cp_buf_free(&one);
    return ok;
}

static bool check_place1(const struct doc *d, const char *const *path, size_t n,
                         enum want w, struct cp_buf *err)
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
                          path_text(d->a, path, i + 1),
                          cp_json_type_name(y->type));
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
                                          : cp_json_type_name(x->type),
                      exp);
    return ok;
}

bool cp_doc_open(struct doc *d, struct cp_arena *a, const char *live,
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
        cp_buf_printf(err,
                      "settings file: the top level is %s, expected an "
                      "object\n",
                      cp_json_type_name(d->root->type));
        return false;
    }
    doc_init_layout(d);
    return true;
}

/* SPDX-License-Identifier: MIT */
/* Does Claude Code load this settings document at all?  A validator over
 * the subset of JSON Schema (draft-07) that the Claude Code settings schema
 * uses, run on the schema compiled into the binary (build/gen, from
 * tests/claude/claude-code-settings.schema.json), with the places where
 * the real client differs from the schema written down in client_rules[]
 * (spec/settings-wiring.md, "What Claude Code loads"). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

/* The schema text, generated at build time (Makefile: build/gen). */
extern const unsigned char cp_claude_schema[];
extern const size_t cp_claude_schema_len;

/* A path into the instance, for messages: /permissions/defaultMode. */
struct sv_path {
    const char *seg[CP_JSON_MAX_DEPTH + 1];
    size_t n;
};

struct sv {
    struct cp_arena *a;
    const struct cp_jnode *schema; /* root, for $ref */
    struct cp_buf *rep;
    struct sv_path path;
    int problems;
    bool quiet; /* inside anyOf/not: count, do not report */
};

static void sv_report(struct sv *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sv_report(struct sv *v, const char *fmt, ...)
{
    v->problems++;
    if (v->quiet)
        return;
    cp_buf_adds(v->rep, "gap: Claude Code skips this whole file: ");
    if (v->path.n == 0)
        cp_buf_adds(v->rep, "the top level");
    for (size_t i = 0; i < v->path.n; i++) {
        if (i)
            cp_buf_addc(v->rep, '.');
        cp_buf_adds(v->rep, v->path.seg[i]);
    }
    cp_buf_addc(v->rep, ' ');
    va_list ap;
    va_start(ap, fmt);
    cp_buf_vprintf(v->rep, fmt, ap);
    va_end(ap);
    cp_buf_addc(v->rep, '\n');
}

/* ---- where the client differs from the schema ----------------------------
 * Measured against the client (claude doctor, 2.1.197; reference sheet for
 * 2.1.332).  A path is the instance path with '*' for any array index or
 * any member name. */

/* Keys whose values the client filters element by element (a bad element
 * is dropped with a warning, the file still loads): not checked here. */
static const char *const sv_lenient[] = {
    "permissions.allow",
    "permissions.ask",
    "permissions.deny",
};

/* Enumerations the client narrows: defaultMode "delegate" makes the
 * whole file skipped although the schema lists it. */
struct sv_enum {
    const char *path;
    const char *const *values;
};
static const char *const sv_modes[] = {
    "acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual",
    "plan",        NULL,
};
static const char *const sv_on_failure[] = {"continue", "block", NULL};
static const struct sv_enum sv_enums[] = {
    {"permissions.defaultMode", sv_modes},
    /* The client knows onFailure; the schema does not. */
    {"hooks.*.*.hooks.*.onFailure", sv_on_failure},
};

static bool sv_seg_match(const char *pat, size_t plen, const char *seg)
{
    return (plen == 1 && pat[0] == '*') ||
           (strlen(seg) == plen && memcmp(pat, seg, plen) == 0);
}

static bool sv_path_is(const struct sv *v, const char *pat)
{
    size_t i = 0;
    const char *p = pat;
    while (*p) {
        size_t l = strcspn(p, ".");
        if (i >= v->path.n || !sv_seg_match(p, l, v->path.seg[i]))
            return false;
        i++;
        p += l;
        if (*p)
            p++;
    }
    return i == v->path.n;
}

/* ---- the validator ------------------------------------------------------- */

static void sv_check(struct sv *v, const struct cp_jnode *s,
                     const struct cp_jnode *x);

static const struct cp_jnode *sv_kw(const struct cp_jnode *s, const char *k)
{
    return s && s->type == CP_J_OBJ ? cp_json_get(s, k, NULL) : NULL;
}

static bool sv_is_type(const struct cp_jnode *x, const char *t, size_t tl)
{
#define SV_T(lit) (tl == sizeof lit - 1 && memcmp(t, lit, tl) == 0)
    switch (x->type) {
    case CP_J_NULL:
        return SV_T("null");
    case CP_J_FALSE:
    case CP_J_TRUE:
        return SV_T("boolean");
    case CP_J_STR:
        return SV_T("string");
    case CP_J_ARR:
        return SV_T("array");
    case CP_J_OBJ:
        return SV_T("object");
    case CP_J_NUM:
        if (SV_T("number"))
            return true;
        /* integer: no fraction and no exponent in the text */
        return SV_T("integer") && !memchr(x->s, '.', x->len) &&
               !memchr(x->s, 'e', x->len) && !memchr(x->s, 'E', x->len);
    }
    return false;
#undef SV_T
}

static void sv_type(struct sv *v, const struct cp_jnode *t,
                    const struct cp_jnode *x)
{
    if (t->type == CP_J_STR) {
        if (!sv_is_type(x, t->s, t->len))
            sv_report(v, "is %s, expected %s %s", cp_json_type_name(x->type),
                      strchr("aeiou", t->s[0]) ? "an" : "a", t->s);
        return;
    }
    for (size_t i = 0; t->type == CP_J_ARR && i < t->n; i++)
        if (t->items[i]->type == CP_J_STR &&
            sv_is_type(x, t->items[i]->s, t->items[i]->len))
            return;
    if (t->type == CP_J_ARR)
        sv_report(v, "is %s, not of an allowed type",
                  cp_json_type_name(x->type));
}

static void sv_enum_list(struct sv *v, const char *const *vals,
                         const struct cp_jnode *x)
{
    if (x->type == CP_J_STR)
        for (size_t i = 0; vals[i]; i++)
            if (strlen(vals[i]) == x->len && memcmp(vals[i], x->s, x->len) == 0)
                return;
    struct cp_buf b = {0};
    for (size_t i = 0; vals[i]; i++)
        cp_buf_printf(&b, "%s\"%s\"", i ? ", " : "", vals[i]);
    if (x->type == CP_J_STR)
        sv_report(v, "is \"%.*s\", expected one of %s", (int)x->len, x->s,
                  b.data);
    else
        sv_report(v, "is %s, expected one of %s", cp_json_type_name(x->type),
                  b.data);
    cp_buf_free(&b);
}

/* A key the schema does not describe but the client checks. */
static void sv_client_enum(struct sv *v, const struct cp_jnode *x)
{
    for (size_t i = 0; i < sizeof sv_enums / sizeof sv_enums[0]; i++)
        if (sv_path_is(v, sv_enums[i].path))
            sv_enum_list(v, sv_enums[i].values, x);
}

static void sv_enum(struct sv *v, const struct cp_jnode *e,
                    const struct cp_jnode *x)
{
    for (size_t i = 0; i < sizeof sv_enums / sizeof sv_enums[0]; i++)
        if (sv_path_is(v, sv_enums[i].path)) {
            sv_enum_list(v, sv_enums[i].values, x);
            return;
        }
    for (size_t i = 0; e->type == CP_J_ARR && i < e->n; i++)
        if (cp_json_equal(e->items[i], x))
            return;
    if (x->type == CP_J_STR)
        sv_report(v, "is \"%.*s\", not one of the values Claude Code knows",
                  (int)x->len, x->s);
    else
        sv_report(v, "is %s, not one of the values Claude Code knows",
                  cp_json_type_name(x->type));
}

static double sv_num(const struct cp_jnode *x)
{
    return strtod(x->s, NULL);
}

static void sv_bounds(struct sv *v, const struct cp_jnode *s,
                      const struct cp_jnode *x)
{
    const struct cp_jnode *k;
    if (x->type != CP_J_NUM)
        return;
    double n = sv_num(x);
    if ((k = sv_kw(s, "minimum")) && k->type == CP_J_NUM && n < sv_num(k))
        sv_report(v, "is %.*s, below the minimum %.*s", (int)x->len, x->s,
                  (int)k->len, k->s);
    if ((k = sv_kw(s, "maximum")) && k->type == CP_J_NUM && n > sv_num(k))
        sv_report(v, "is %.*s, above the maximum %.*s", (int)x->len, x->s,
                  (int)k->len, k->s);
    if ((k = sv_kw(s, "exclusiveMinimum")) && k->type == CP_J_NUM &&
        !(n > sv_num(k)))
        sv_report(v, "is %.*s, expected more than %.*s", (int)x->len, x->s,
                  (int)k->len, k->s);
}

static void sv_push(struct sv *v, const char *seg)
{
    v->path.seg[v->path.n++] = seg;
}

static const char *sv_index(struct sv *v, size_t i)
{
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%zu", i);
    char *s = cp_arena_alloc(v->a, b.len + 1);
    memcpy(s, b.data, b.len + 1);
    cp_buf_free(&b);
    return s;
}

static void sv_object(struct sv *v, const struct cp_jnode *s,
                      const struct cp_jnode *x)
{
    const struct cp_jnode *props = sv_kw(s, "properties");
    const struct cp_jnode *addl = sv_kw(s, "additionalProperties");
    const struct cp_jnode *req = sv_kw(s, "required");
    for (size_t i = 0; req && req->type == CP_J_ARR && i < req->n; i++) {
        const struct cp_jnode *r = req->items[i];
        if (r->type == CP_J_STR && !cp_json_get(x, r->s, NULL))
            sv_report(v, "lacks the required key \"%s\"", r->s);
    }
    for (size_t i = 0; i < x->n; i++) {
        const struct cp_jmember *m = &x->members[i];
        if (strlen(m->key) != m->klen)
            continue; /* a key with NUL is no key the client reads */
        const struct cp_jnode *ps = props && props->type == CP_J_OBJ
                                        ? cp_json_get(props, m->key, NULL)
                                        : NULL;
        /* additionalProperties: false is not applied: the client keeps or
         * strips unknown keys silently and loads the file. */
        if (!ps && addl && addl->type == CP_J_OBJ)
            ps = addl;
        sv_push(v, m->key);
        if (ps)
            sv_check(v, ps, m->val);
        else if (props)
            sv_client_enum(v, m->val); /* once: where keys are described */
        v->path.n--;
    }
}

static void sv_array(struct sv *v, const struct cp_jnode *s,
                     const struct cp_jnode *x)
{
    const struct cp_jnode *k;
    if ((k = sv_kw(s, "minItems")) && k->type == CP_J_NUM &&
        (double)x->n < sv_num(k))
        sv_report(v, "has %zu elements, expected at least %.*s", x->n,
                  (int)k->len, k->s);
    if ((k = sv_kw(s, "maxItems")) && k->type == CP_J_NUM &&
        (double)x->n > sv_num(k))
        sv_report(v, "has %zu elements, expected at most %.*s", x->n,
                  (int)k->len, k->s);
    const struct cp_jnode *items = sv_kw(s, "items");
    if (!items || items->type != CP_J_OBJ)
        return;
    for (size_t i = 0; i < x->n; i++) {
        sv_push(v, sv_index(v, i));
        sv_check(v, items, x->items[i]);
        v->path.n--;
    }
}

/* Quietly: does x satisfy s? */
static bool sv_ok(struct sv *v, const struct cp_jnode *s,
                  const struct cp_jnode *x)
{
    bool q = v->quiet;
    int p = v->problems;
    v->quiet = true;
    sv_check(v, s, x);
    bool ok = v->problems == p;
    v->problems = p;
    v->quiet = q;
    return ok;
}

/* The branch of an anyOf whose discriminating constant ("type" of a hook,
 * "source" of a marketplace) the instance names, to explain the failure
 * by that branch's own rules. */
static const struct cp_jnode *sv_branch(const struct cp_jnode *alts,
                                        const struct cp_jnode *x)
{
    if (x->type != CP_J_OBJ)
        return NULL;
    for (size_t i = 0; i < alts->n; i++) {
        const struct cp_jnode *props = sv_kw(alts->items[i], "properties");
        for (size_t j = 0; props && props->type == CP_J_OBJ && j < props->n;
             j++) {
            const struct cp_jnode *c = sv_kw(props->members[j].val, "const");
            const struct cp_jnode *have = cp_json_get(x, props->members[j].key,
                                                      NULL);
            if (c && have && cp_json_equal(c, have))
                return alts->items[i];
        }
    }
    return NULL;
}

/* anyOf and oneOf alike: the client's schema unions are not exclusive. */
static void sv_any(struct sv *v, const struct cp_jnode *alts,
                   const struct cp_jnode *x)
{
    if (alts->type != CP_J_ARR)
        return;
    for (size_t i = 0; i < alts->n; i++)
        if (sv_ok(v, alts->items[i], x))
            return;
    const struct cp_jnode *b = sv_branch(alts, x);
    if (b)
        sv_check(v, b, x);
    else
        sv_report(v, "is %s of none of the shapes Claude Code accepts",
                  cp_json_type_name(x->type));
}

static const struct cp_jnode *sv_ref(const struct sv *v,
                                     const struct cp_jnode *r)
{
    static const char pre[] = "#/$defs/";
    if (r->type != CP_J_STR || strncmp(r->s, pre, sizeof pre - 1) != 0)
        return NULL;
    return cp_json_get(sv_kw(v->schema, "$defs"), r->s + sizeof pre - 1, NULL);
}

static void sv_check(struct sv *v, const struct cp_jnode *s,
                     const struct cp_jnode *x)
{
    const struct cp_jnode *k;
    if (!s || s->type != CP_J_OBJ)
        return;
    for (size_t i = 0; i < sizeof sv_lenient / sizeof sv_lenient[0]; i++)
        if (sv_path_is(v, sv_lenient[i]) && x->type == CP_J_ARR)
            return;
    if ((k = sv_kw(s, "$ref")) && (k = sv_ref(v, k)))
        sv_check(v, k, x);
    int before = v->problems;
    if ((k = sv_kw(s, "type")))
        sv_type(v, k, x);
    if (v->problems != before)
        return; /* one message per value: the type says it all */
    if ((k = sv_kw(s, "const")) && !cp_json_equal(k, x))
        sv_report(v, "is not the value Claude Code expects here");
    if ((k = sv_kw(s, "enum")))
        sv_enum(v, k, x);
    sv_bounds(v, s, x);
    if ((k = sv_kw(s, "anyOf")))
        sv_any(v, k, x);
    if ((k = sv_kw(s, "oneOf")))
        sv_any(v, k, x);
    if ((k = sv_kw(s, "not")) && sv_ok(v, k, x))
        sv_report(v, "is %s, which Claude Code does not accept here",
                  cp_json_type_name(x->type));
    if (x->type == CP_J_OBJ)
        sv_object(v, s, x);
    else if (x->type == CP_J_ARR)
        sv_array(v, s, x);
    /* Not applied (the client does not either, measured): pattern,
     * minLength, format, uniqueItems, propertyNames. */
}

/* The parsed schema, read once per process from the compiled-in text. */
static const struct cp_jnode *sv_schema(void)
{
    static struct cp_arena *sa;
    static struct cp_jnode *root;
    if (!sa) {
        sa = cp_arena_new();
        const char *e = cp_json_parse(sa, (const char *)cp_claude_schema,
                                      cp_claude_schema_len, &root);
        if (e || !root || root->type != CP_J_OBJ)
            root = NULL; /* the build checks it: tests/unit */
    }
    return root;
}

int cp_settings_schema_check(struct cp_arena *a, const struct cp_jnode *doc,
                             size_t len, struct cp_buf *report)
{
    struct sv v = {.a = a, .rep = report};
    if (len > CP_SETTINGS_MAX_BYTES) {
        cp_buf_printf(report,
                      "gap: Claude Code skips this whole file: it is %zu "
                      "bytes, over the client's limit of %u\n",
                      len, (unsigned)CP_SETTINGS_MAX_BYTES);
        v.problems++;
    }
    v.schema = sv_schema();
    if (!v.schema) {
        cp_buf_adds(report, "gap: the compiled-in settings schema is not "
                            "readable: the file cannot be checked\n");
        return v.problems + 1;
    }
    sv_check(&v, v.schema, doc);
    return v.problems;
}

/* SPDX-License-Identifier: MIT */
/* The one reader of a `.claude.json` artifact's gate rows
 * (util/claude_vocab.h): the gate hook decides with them, install and
 * verify compare them with the policy's. */
#include "claude_vocab.h"

#include <string.h>

#include "json.h"

static const char *cv_str(const struct cp_jnode *o, const char *key,
                          size_t *len)
{
    const struct cp_jnode *v = cp_json_get(o, key, NULL);
    if (!v || v->type != CP_J_STR)
        return NULL;
    if (len)
        *len = v->len;
    return v->s;
}

/* The optional "programs" of row r (a words row) into r. */
static const char *cv_programs(struct cp_arena *a, const struct cp_jnode *g,
                               struct cp_cv_gate_row *r)
{
    const struct cp_jnode *v = cp_json_get(g, CP_CV_PROGRAMS, NULL);
    r->programs = NULL;
    r->nprograms = 0;
    if (!v)
        return NULL;
    bool ok = r->kind == CP_CV_WORDS && v->type == CP_J_ARR && v->n;
    for (size_t i = 0; ok && i < v->n; i++)
        ok = v->items[i]->type == CP_J_STR && v->items[i]->len;
    if (!ok)
        return cp_arena_printf(a,
                               "%s: programs is not a non-empty array of "
                               "names of a words row",
                               r->id);
    r->programs = cp_arena_alloc(a, v->n * sizeof *r->programs);
    for (size_t i = 0; i < v->n; i++)
        r->programs[i] = v->items[i]->s;
    r->nprograms = v->n;
    return NULL;
}

/* Row i (0-based) of "gates" into r. */
static const char *cv_gate_row(struct cp_arena *a, const struct cp_jnode *g,
                               size_t i, struct cp_cv_gate_row *r)
{
    const char *verdict = cv_str(g, CP_CV_VERDICT, NULL);
    const char *kind = cv_str(g, CP_CV_KIND, NULL);
    r->id = cv_str(g, CP_CV_ID, NULL);
    r->pattern = cv_str(g, CP_CV_PATTERN, &r->pattern_len);
    r->where = cv_str(g, CP_CV_WHERE, NULL);
    if (g->type != CP_J_OBJ || !r->id || !verdict || !kind || !r->pattern ||
        !r->where)
        return cp_arena_printf(a,
                               "gate table entry %zu is not an object "
                               "with string id, verdict, kind, pattern "
                               "and where",
                               i + 1);
    if (strcmp(verdict, CP_CV_VERDICT_ASK) == 0)
        r->deny = false;
    else if (strcmp(verdict, CP_CV_VERDICT_DENY) == 0)
        r->deny = true;
    else
        return cp_arena_printf(a, "%s: verdict is not \"ask\" or \"deny\"",
                               r->id);
    if (strcmp(kind, CP_CV_KIND_REGEX) == 0)
        r->kind = CP_CV_REGEX;
    else if (strcmp(kind, CP_CV_KIND_WORDS) == 0)
        r->kind = CP_CV_WORDS;
    else if (strcmp(kind, CP_CV_KIND_UNKNOWN) == 0)
        r->kind = CP_CV_UNKNOWN;
    else
        return cp_arena_printf(a,
                               "%s: kind is not \"words\", \"regex\" "
                               "or \"unknown\"",
                               r->id);
    if (r->kind == CP_CV_UNKNOWN && strcmp(r->pattern, "unknown") != 0)
        return cp_arena_printf(a,
                               "%s: invalid pattern: the pattern of kind "
                               "\"unknown\" is not \"unknown\"",
                               r->id);
    return cv_programs(a, g, r);
}

const char *cp_cv_gate_rows(struct cp_arena *a, const struct cp_jnode *conf,
                            struct cp_cv_gate_row **rows, size_t *n)
{
    const struct cp_jnode *gates = cp_json_get(conf, CP_CV_GATES, NULL);
    *rows = NULL;
    *n = 0;
    if (!gates || gates->type != CP_J_ARR)
        return "gate table has no \"gates\" array";
    *rows = cp_arena_alloc(a, (gates->n ? gates->n : 1) * sizeof **rows);
    for (size_t i = 0; i < gates->n; i++) {
        const char *err = cv_gate_row(a, gates->items[i], i, &(*rows)[i]);
        if (err)
            return err;
        *n = i + 1;
    }
    return NULL;
}

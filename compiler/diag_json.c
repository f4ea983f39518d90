/* SPDX-License-Identifier: MIT */
/* Machine-readable diagnostics: confpol's own JSON schema and SARIF 2.1.0
 * (spec/cli.md, "Diagnostics formats").  Both are printed with
 * cJSON_PrintUnformatted (one line, keys in a fixed order) plus a newline,
 * so the output is deterministic. */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"
#include "diag.h"

static const char *dj_level(enum cp_severity s)
{
    switch (s) {
    case CP_SEV_NOTE:
        return "note";
    case CP_SEV_WARNING:
        return "warning";
    case CP_SEV_ERROR:
        return "error";
    }
    return "error";
}

static void dj_print(cJSON *root, FILE *out)
{
    char *s = cJSON_PrintUnformatted(root);
    if (!s)
        cp_die_oom();
    fputs(s, out);
    fputc('\n', out);
    free(s);
    cJSON_Delete(root);
}

/* file, line, column, endLine, endColumn (inclusive byte columns); null and
 * zeros without a location. */
static void dj_loc(cJSON *o, const struct cp_loc *l)
{
    if (l->src) {
        cJSON_AddStringToObject(o, "file", l->src->path);
    } else {
        cJSON_AddNullToObject(o, "file");
    }
    cJSON_AddNumberToObject(o, "line", l->src ? l->line : 0);
    cJSON_AddNumberToObject(o, "column", l->src ? l->col : 0);
    cJSON_AddNumberToObject(o, "endLine", l->src ? l->end_line : 0);
    cJSON_AddNumberToObject(o, "endColumn", l->src ? l->end_col : 0);
}

/* Appends the records of D to the JSON array ARR. */
static void dj_items(const struct cp_diags *d, cJSON *arr)
{
    for (size_t i = 0; i < d->len; i++) {
        const struct cp_diag *g = &d->items[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "severity", dj_level(g->sev));
        cJSON_AddStringToObject(o, "code", cp_diag_code_id(g->code));
        cJSON_AddStringToObject(o, "name", cp_diag_code_name(g->code));
        cJSON_AddStringToObject(o, "message", g->msg);
        dj_loc(o, &g->loc);
        cJSON *notes = cJSON_AddArrayToObject(o, "notes");
        for (size_t j = 0; j < g->nnotes; j++) {
            cJSON *n = cJSON_CreateObject();
            cJSON_AddStringToObject(n, "message", g->notes[j].msg);
            dj_loc(n, &g->notes[j].loc);
            cJSON_AddItemToArray(notes, n);
        }
        if (g->suggestion)
            cJSON_AddStringToObject(o, "suggestion", g->suggestion);
        else
            cJSON_AddNullToObject(o, "suggestion");
        const char *flag = cp_diag_code_flag(g->code);
        if (flag)
            cJSON_AddStringToObject(o, "flag", flag);
        else
            cJSON_AddNullToObject(o, "flag");
        cJSON_AddItemToArray(arr, o);
    }
}

void cp_diags_render_json_many(const struct cp_diags *const *d, size_t n,
                               FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON *arr = cJSON_AddArrayToObject(root, "diagnostics");
    size_t nerr = 0, nwarn = 0;
    for (size_t k = 0; k < n; k++) {
        dj_items(d[k], arr);
        nerr += d[k]->nerrors;
        nwarn += d[k]->nwarnings;
    }
    cJSON_AddNumberToObject(root, "errors", (double)nerr);
    cJSON_AddNumberToObject(root, "warnings", (double)nwarn);
    dj_print(root, out);
}

void cp_diags_render_json(const struct cp_diags *d, FILE *out)
{
    cp_diags_render_json_many(&d, 1, out);
}

/* The help text of a code for SARIF's rules[].help. */
static const char *cp_diag_code_help(enum cp_diag_code c, char *buf,
                                     size_t size)
{
    const char *flag = cp_diag_code_flag(c);
    const char *id = cp_diag_code_id(c);
    if (flag)
        snprintf(buf, size,
                 "%s (%s). Default severity %s; -Wno-%s or -Wno-%s disables "
                 "it, -Werror=%s makes it an error. spec/diagnostics.md lists "
                 "every code and the spec file that documents it.",
                 cp_diag_code_summary(c), id,
                 dj_level(cp_diag_code_default(c)), flag, id, flag);
    else
        snprintf(buf, size,
                 "%s (%s). An error: the policy is rejected and no artifact "
                 "is written. spec/diagnostics.md lists every code and the "
                 "spec file that documents it.",
                 cp_diag_code_summary(c), id);
    return buf;
}

/* SARIF regions: 1-based lines and columns, endColumn exclusive. */
static cJSON *dj_physical(const struct cp_loc *l)
{
    cJSON *pl = cJSON_CreateObject();
    cJSON *al = cJSON_AddObjectToObject(pl, "artifactLocation");
    cJSON_AddStringToObject(al, "uri", l->src->path);
    if (l->line) {
        cJSON *rg = cJSON_AddObjectToObject(pl, "region");
        cJSON_AddNumberToObject(rg, "startLine", l->line);
        cJSON_AddNumberToObject(rg, "startColumn", l->col ? l->col : 1);
        cJSON_AddNumberToObject(rg, "endLine",
                                l->end_line >= l->line ? l->end_line : l->line);
        cJSON_AddNumberToObject(rg, "endColumn",
                                (l->end_col ? l->end_col : l->col) + 1);
    }
    return pl;
}

/* One SARIF result for G; INDEX maps codes to their rules[] index. */
static cJSON *dj_sarif_result(const struct cp_diag *g, const int *index)
{
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "ruleId", cp_diag_code_id(g->code));
    cJSON_AddNumberToObject(res, "ruleIndex", index[g->code]);
    cJSON_AddStringToObject(res, "level", dj_level(g->sev));
    cJSON *msg = cJSON_AddObjectToObject(res, "message");
    if (g->suggestion) {
        size_t len = strlen(g->msg) + strlen(g->suggestion) + 16;
        char *t = cp_xmalloc(len);
        snprintf(t, len, "%s\nsuggestion: %s", g->msg, g->suggestion);
        cJSON_AddStringToObject(msg, "text", t);
        free(t);
    } else {
        cJSON_AddStringToObject(msg, "text", g->msg);
    }
    cJSON *locs = cJSON_AddArrayToObject(res, "locations");
    if (g->loc.src) {
        cJSON *l = cJSON_CreateObject();
        cJSON_AddItemToObject(l, "physicalLocation", dj_physical(&g->loc));
        cJSON_AddItemToArray(locs, l);
    }
    if (g->nnotes) {
        cJSON *rel = cJSON_AddArrayToObject(res, "relatedLocations");
        for (size_t j = 0; j < g->nnotes; j++) {
            cJSON *l = cJSON_CreateObject();
            cJSON_AddNumberToObject(l, "id", (double)j);
            if (g->notes[j].loc.src)
                cJSON_AddItemToObject(l, "physicalLocation",
                                      dj_physical(&g->notes[j].loc));
            cJSON *m = cJSON_AddObjectToObject(l, "message");
            cJSON_AddStringToObject(m, "text", g->notes[j].msg);
            cJSON_AddItemToArray(rel, l);
        }
    }
    return res;
}

void cp_diags_render_sarif(const struct cp_diags *d, FILE *out)
{
    cp_diags_render_sarif_many(&d, 1, out);
}

void cp_diags_render_sarif_many(const struct cp_diags *const *ds, size_t nd,
                                FILE *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "$schema",
                            "https://json.schemastore.org/sarif-2.1.0.json");
    cJSON_AddStringToObject(root, "version", "2.1.0");
    cJSON *runs = cJSON_AddArrayToObject(root, "runs");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(runs, run);
    cJSON *tool = cJSON_AddObjectToObject(run, "tool");
    cJSON *drv = cJSON_AddObjectToObject(tool, "driver");
    cJSON_AddStringToObject(drv, "name", "confpol");
    cJSON_AddStringToObject(drv, "version", CP_VERSION);
    cJSON *rules = cJSON_AddArrayToObject(drv, "rules");

    /* rules[]: every code that occurs, in code order; results refer to them
     * by id and index. */
    int index[CP_DIAG__COUNT];
    for (size_t c = 0; c < CP_DIAG__COUNT; c++)
        index[c] = -1;
    for (size_t k = 0; k < nd; k++)
        for (size_t i = 0; i < ds[k]->len; i++)
            index[ds[k]->items[i].code] = 0;
    int n = 0;
    for (size_t c = 0; c < CP_DIAG__COUNT; c++) {
        if (index[c] < 0)
            continue;
        index[c] = n++;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "id", cp_diag_code_id((enum cp_diag_code)c));
        cJSON_AddStringToObject(r, "name",
                                cp_diag_code_name((enum cp_diag_code)c));
        cJSON *sd = cJSON_AddObjectToObject(r, "shortDescription");
        cJSON_AddStringToObject(sd, "text",
                                cp_diag_code_summary((enum cp_diag_code)c));
        char help[1024];
        cJSON *fd = cJSON_AddObjectToObject(r, "fullDescription");
        cJSON_AddStringToObject(
            fd, "text", cp_diag_code_help((enum cp_diag_code)c, help, sizeof help));
        cJSON *hp = cJSON_AddObjectToObject(r, "help");
        cJSON_AddStringToObject(hp, "text", help);
        cJSON *dc = cJSON_AddObjectToObject(r, "defaultConfiguration");
        cJSON_AddStringToObject(
            dc, "level", dj_level(cp_diag_code_default((enum cp_diag_code)c)));
        cJSON_AddItemToArray(rules, r);
    }

    cJSON *results = cJSON_AddArrayToObject(run, "results");
    for (size_t k = 0; k < nd; k++)
        for (size_t i = 0; i < ds[k]->len; i++)
            cJSON_AddItemToArray(results,
                                 dj_sarif_result(&ds[k]->items[i], index));
    dj_print(root, out);
}

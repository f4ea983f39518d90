/* SPDX-License-Identifier: MIT */
/* Machine-readable diagnostics: confpol's own JSON schema and SARIF 2.1.0
 * (spec/cli.md, "Diagnostics formats").  Both are written with the compact
 * writer of util/json.h (one line, keys in a fixed order) plus a newline,
 * so the output is deterministic. */
#include <stdlib.h>
#include <string.h>

#include "confpol.h"
#include "source.h"
#include "diag.h"
#include "json.h"

/* Prints the document in b, a newline, and frees b. */
static void dj_print(struct cp_buf *b, FILE *out)
{
    fwrite(b->data, 1, b->len, out);
    fputc('\n', out);
    cp_buf_free(b);
}

/* file, line, column, endLine, endColumn (inclusive byte columns); null and
 * zeros without a location. */
static void dj_loc(struct cp_jw *w, const struct cp_loc *l)
{
    cp_jw_kstr(w, "file", l->src ? l->src->path : NULL);
    cp_jw_kint(w, "line", l->src ? l->line : 0);
    cp_jw_kint(w, "column", l->src ? l->col : 0);
    cp_jw_kint(w, "endLine", l->src ? l->end_line : 0);
    cp_jw_kint(w, "endColumn", l->src ? l->end_col : 0);
}

/* The record of one diagnostic. */
static void dj_item(struct cp_jw *w, const struct cp_diag *g)
{
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "severity", cp_diag_sev_word(g->sev));
    cp_jw_kstr(w, "code", cp_diag_code_id(g->code));
    cp_jw_kstr(w, "name", cp_diag_code_name(g->code));
    cp_jw_kstr(w, "message", g->msg);
    dj_loc(w, &g->loc);
    cp_jw_key(w, "notes");
    cp_jw_open(w, '[');
    for (size_t j = 0; j < g->nnotes; j++) {
        cp_jw_open(w, '{');
        cp_jw_kstr(w, "message", g->notes[j].msg);
        dj_loc(w, &g->notes[j].loc);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, ']');
    cp_jw_kstr(w, "suggestion", g->suggestion);
    cp_jw_kstr(w, "flag", cp_diag_code_flag(g->code));
    cp_jw_close(w, '}');
}

void cp_diags_render_json_many(const struct cp_diags *const *d, size_t n,
                               FILE *out)
{
    struct cp_buf b = {0};
    struct cp_jw w = {.b = &b};
    cp_jw_open(&w, '{');
    cp_jw_kint(&w, "version", 1);
    cp_jw_key(&w, "diagnostics");
    cp_jw_open(&w, '[');
    size_t nerr = 0, nwarn = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < d[k]->len; i++)
            dj_item(&w, &d[k]->items[i]);
        nerr += d[k]->nerrors;
        nwarn += d[k]->nwarnings;
    }
    cp_jw_close(&w, ']');
    cp_jw_kint(&w, "errors", (long long)nerr);
    cp_jw_kint(&w, "warnings", (long long)nwarn);
    cp_jw_close(&w, '}');
    dj_print(&b, out);
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
                 "it, -Werror=%s makes it an error. 'confpol help %s' says "
                 "what it means offline; %s documents it.",
                 cp_diag_code_summary(c), id,
                 cp_diag_sev_word(cp_diag_code_default(c)), flag, id, flag, id,
                 cp_diag_code_doc(c));
    else
        snprintf(buf, size,
                 "%s (%s). An error: the policy is rejected and no artifact "
                 "is written. 'confpol help %s' says what it means offline; "
                 "%s documents it.",
                 cp_diag_code_summary(c), id, id, cp_diag_code_doc(c));
    return buf;
}

/* A file name as a SARIF URI: an absolute path as a file:// URI, a
 * relative one relative to %SRCROOT% (the directory confpol ran in);
 * every byte outside the unreserved set and '/' is percent-encoded, so
 * that a name that is not UTF-8 still gives valid JSON and a valid URI. */
static void dj_uri(struct cp_jw *w, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    struct cp_buf u = {0};
    cp_buf_adds(&u, path[0] == '/' ? "file://" : "");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
            cp_buf_addc(&u, (char)*p);
        } else {
            cp_buf_addc(&u, '%');
            cp_buf_addc(&u, hex[*p >> 4]);
            cp_buf_addc(&u, hex[*p & 15]);
        }
    }
    cp_jw_kstr(w, "uri", u.data);
    if (path[0] != '/')
        cp_jw_kstr(w, "uriBaseId", "%SRCROOT%");
    cp_buf_free(&u);
}

/* Byte column COL (1-based) of LINE as a column in Unicode code points
 * (SARIF's columnKind unicodeCodePoints): the bytes before it that start
 * a character, plus one. */
static unsigned dj_col(const struct cp_source *src, unsigned line, unsigned col)
{
    if (!src->text || line == 0 || line > src->nlines)
        return col;
    const unsigned char *t = (const unsigned char *)src->text +
                             src->line_start[line - 1];
    size_t avail = src->len - src->line_start[line - 1];
    unsigned n = 1;
    for (unsigned i = 0; i + 1 < col && i < avail; i++)
        if ((t[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* SARIF regions: 1-based lines and columns in code points, endColumn
 * exclusive.  PATH is the file of a location without a region. */
static void dj_physical(struct cp_jw *w, const struct cp_loc *l,
                        const char *path)
{
    cp_jw_key(w, "physicalLocation");
    cp_jw_open(w, '{');
    cp_jw_key(w, "artifactLocation");
    cp_jw_open(w, '{');
    dj_uri(w, l->src ? l->src->path : path);
    cp_jw_close(w, '}');
    if (l->src && l->line) {
        unsigned el = l->end_line >= l->line ? l->end_line : l->line;
        unsigned ec = l->end_col ? l->end_col : l->col;
        cp_jw_key(w, "region");
        cp_jw_open(w, '{');
        cp_jw_kint(w, "startLine", l->line);
        cp_jw_kint(w, "startColumn",
                   dj_col(l->src, l->line, l->col ? l->col : 1));
        cp_jw_kint(w, "endLine", el);
        cp_jw_kint(w, "endColumn", dj_col(l->src, el, ec + 1));
        cp_jw_close(w, '}');
    } else if (!l->src) {
        /* A policy-wide fact: the file's first line, its 'confpol 1'
         * header (code scanning wants a region on every location). */
        cp_jw_key(w, "region");
        cp_jw_open(w, '{');
        cp_jw_kint(w, "startLine", 1);
        cp_jw_kint(w, "endLine", 1);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, '}');
}

/* {"text": s} under key. */
static void dj_text(struct cp_jw *w, const char *key, const char *s)
{
    cp_jw_key(w, key);
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "text", s);
    cp_jw_close(w, '}');
}

/* relatedLocations: one per note. */
static void dj_related(struct cp_jw *w, const struct cp_diag *g)
{
    cp_jw_key(w, "relatedLocations");
    cp_jw_open(w, '[');
    for (size_t j = 0; j < g->nnotes; j++) {
        cp_jw_open(w, '{');
        cp_jw_kint(w, "id", (long long)j);
        if (g->notes[j].loc.src)
            dj_physical(w, &g->notes[j].loc, NULL);
        dj_text(w, "message", g->notes[j].msg);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, ']');
}

/* One SARIF result for G; INDEX maps codes to their rules[] index. */
static void dj_sarif_result(struct cp_jw *w, const struct cp_diag *g,
                            const int *index, const char *main_path)
{
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "ruleId", cp_diag_code_id(g->code));
    cp_jw_kint(w, "ruleIndex", index[g->code]);
    cp_jw_kstr(w, "level", cp_diag_sev_word(g->sev));
    if (g->suggestion) {
        size_t len = strlen(g->msg) + strlen(g->suggestion) + 16;
        char *t = cp_xmalloc(len);
        snprintf(t, len, "%s\nsuggestion: %s", g->msg, g->suggestion);
        dj_text(w, "message", t);
        free(t);
    } else {
        dj_text(w, "message", g->msg);
    }
    /* Every result has a location: a policy-wide fact, or a problem of
     * the command line about the policy, sits on the policy file. */
    cp_jw_key(w, "locations");
    cp_jw_open(w, '[');
    if (g->loc.src || main_path) {
        cp_jw_open(w, '{');
        dj_physical(w, &g->loc, main_path);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, ']');
    if (g->nnotes)
        dj_related(w, g);
    cp_jw_close(w, '}');
}

/* GitHub's security-severity of a code, or NULL: a target that lets
 * through what the policy denies (spec/diagnostics.md 3, "looser"), and
 * an expect the policy breaks, are security findings (high); the rest are
 * quality findings. */
static const char *dj_security_severity(enum cp_diag_code c)
{
    static const enum cp_diag_code looser[] = {
        CP0601, CP0706, CP0714, CP0730, CP0753, CP0754,
        CP0755, CP0756, CP0757, CP0764, CP0773,
    };
    for (size_t i = 0; i < sizeof looser / sizeof looser[0]; i++)
        if (looser[i] == c)
            return "7.5";
    return NULL;
}

/* One entry of rules[]. */
static void dj_sarif_rule(struct cp_jw *w, enum cp_diag_code c)
{
    char help[1024];
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "id", cp_diag_code_id(c));
    cp_jw_kstr(w, "name", cp_diag_code_name(c));
    dj_text(w, "shortDescription", cp_diag_code_summary(c));
    dj_text(w, "fullDescription", cp_diag_code_help(c, help, sizeof help));
    dj_text(w, "help", help);
    cp_jw_key(w, "defaultConfiguration");
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "level", cp_diag_sev_word(cp_diag_code_default(c)));
    cp_jw_close(w, '}');
    const char *sev = dj_security_severity(c);
    if (sev) {
        cp_jw_key(w, "properties");
        cp_jw_open(w, '{');
        cp_jw_key(w, "tags");
        cp_jw_open(w, '[');
        cp_jw_str(w, "security");
        cp_jw_close(w, ']');
        cp_jw_kstr(w, "security-severity", sev);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, '}');
}

void cp_diags_render_sarif(const struct cp_diags *d, FILE *out)
{
    cp_diags_render_sarif_many(&d, 1, out);
}

void cp_diags_render_sarif_many(const struct cp_diags *const *ds, size_t nd,
                                FILE *out)
{
    struct cp_buf b = {0};
    struct cp_jw w = {.b = &b};
    cp_jw_open(&w, '{');
    cp_jw_kstr(&w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    cp_jw_kstr(&w, "version", "2.1.0");
    cp_jw_key(&w, "runs");
    cp_jw_open(&w, '[');
    cp_jw_open(&w, '{');
    cp_jw_key(&w, "tool");
    cp_jw_open(&w, '{');
    cp_jw_key(&w, "driver");
    cp_jw_open(&w, '{');
    cp_jw_kstr(&w, "name", "confpol");
    cp_jw_kstr(&w, "version", CP_VERSION);
    cp_jw_key(&w, "rules");
    cp_jw_open(&w, '[');

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
        dj_sarif_rule(&w, (enum cp_diag_code)c);
    }
    cp_jw_close(&w, ']'); /* rules */
    cp_jw_close(&w, '}'); /* driver */
    cp_jw_close(&w, '}'); /* tool */

    cp_jw_kstr(&w, "columnKind", "unicodeCodePoints");
    cp_jw_key(&w, "results");
    cp_jw_open(&w, '[');
    for (size_t k = 0; k < nd; k++)
        for (size_t i = 0; i < ds[k]->len; i++)
            dj_sarif_result(&w, &ds[k]->items[i], index, ds[k]->main_path);
    cp_jw_close(&w, ']');
    cp_jw_close(&w, '}'); /* the run */
    cp_jw_close(&w, ']'); /* runs */
    cp_jw_close(&w, '}');
    dj_print(&b, out);
}

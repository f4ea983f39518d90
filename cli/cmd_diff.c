/* SPDX-License-Identifier: MIT */
/* confpol diff: what a new policy grants that an old one refused, and
 * what it refuses that the old one granted, each with a witness explain
 * decides differently under the two (spec/cli.md, "diff"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "diff.h"
#include "json.h"
#include "text.h"

static void cp_diff_usage(FILE *out)
{
    fputs("usage: confpol diff [OPTIONS] OLD NEW\n"
          "\n"
          "Compares two policies by what they decide, not by their text: for\n"
          "read, write, exec, socket, net, gate and content, every access\n"
          "NEW allows that OLD denies (widened; for gate deny < ask < allow)\n"
          "and every access NEW denies that OLD allows (narrowed), each with\n"
          "a witness subject that 'confpol explain' decides differently\n"
          "under the two and the rules that decide it on each side.  OLD or\n"
          "NEW may be '-' (standard input).\n"
          "\n"
          "options:\n"
          "  -D NAME=VALUE             bind a param (on each side that\n"
          "                            declares it)\n"
          "  --target T                compare what target T enforces: the\n"
          "                            rules T rates not enforced left out\n"
          "                            (sbpl, bwrap, claude, codex; codex\n"
          "                            rates under the -D bindings)\n"
          "  --no-bindings             compare with unbound params opaque\n"
          "                            only (default: also under the binding\n"
          "                            classes that can change a verdict)\n"
          "  --format text|json|sarif  output format (default text)\n"
          "  --fail-on WHAT            exit 1 when something changed: widen,\n"
          "                            narrow or change (either); never (the\n"
          "                            default)\n"
          "  --diagnostics-format F    text (default), json or sarif, for the\n"
          "                            policies' errors\n"
          "  --help                    print this help\n"
          "\n"
          "exit status: 0 done (and nothing --fail-on names changed), 1 a\n"
          "change --fail-on names, a search that reached a limit under\n"
          "--fail-on, or a policy with errors, 2 usage or I/O error\n",
          out);
}

enum diff_fail { DIFF_NEVER, DIFF_WIDEN, DIFF_NARROW, DIFF_CHANGE };
enum diff_fmt { DIFF_TEXT, DIFF_JSON, DIFF_SARIF };

struct diff_args {
    struct cp_cli_common c;
    const char *pos[2]; /* OLD NEW */
    size_t npos;
    enum diff_fmt fmt;
    enum diff_fail fail;
    bool no_bindings;
    const struct cp_backend *target; /* --target, or NULL */
};

/* --format and --fail-on: their value.  Returns -1 to go on, or 2. */
static int diff_value(struct diff_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool fmt = strncmp(a, "--format", 8) == 0;
    size_t kl = fmt ? 8 : 9;
    const char *v = a[kl] == '=' ? a + kl + 1
                                 : (*i + 1 < argc ? argv[++*i] : "");
    static const char *const fmts[] = {"text", "json", "sarif", NULL};
    static const char *const fails[] = {"never", "widen", "narrow", "change",
                                        NULL};
    const char *const *tab = fmt ? fmts : fails;
    for (int k = 0; tab[k]; k++)
        if (strcmp(v, tab[k]) == 0) {
            if (fmt)
                x->fmt = (enum diff_fmt)k;
            else
                x->fail = (enum diff_fail)k;
            return -1;
        }
    return cp_cli_usage_error("diff",
                              fmt ? "--format expects text, json or sarif, "
                                    "got '%s'"
                                  : "--fail-on expects widen, narrow, change "
                                    "or never, got '%s'",
                              v);
}

static bool diff_is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

/* One option.  Returns -1 to go on, or the exit status. */
static int diff_option(struct diff_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        cp_diff_usage(stdout);
        return 0;
    }
    if (strcmp(a, "--no-bindings") == 0) {
        x->no_bindings = true;
        return -1;
    }
    if (diff_is_opt(a, "--format") || diff_is_opt(a, "--fail-on"))
        return diff_value(x, argc, argv, i);
    if (diff_is_opt(a, "--target")) {
        const char *v = a[8] == '=' ? a + 9 : (*i + 1 < argc ? argv[++*i] : "");
        x->target = cp_backend_find(v);
        if (!x->target || strcmp(v, "all") == 0)
            return cp_cli_usage_error("diff",
                                      "--target expects sbpl, bwrap, claude "
                                      "or codex, got '%s'",
                                      v);
        return -1;
    }
    int r = cp_cli_common_opt(&x->c, argc, argv, i);
    if (r < 0)
        return 2;
    if (r == 0) {
        static const char *const opts[] = {"--format", "--fail-on",
                                           "--target", "--no-bindings",
                                           "--help",   NULL};
        return cp_cli_unknown_option("diff", a, opts, true);
    }
    return -1;
}

static int diff_parse(struct diff_args *x, int argc, char **argv)
{
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            if (x->npos == 2)
                return cp_cli_usage_error("diff", "unexpected argument '%s'",
                                          a);
            x->pos[x->npos++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else {
            int rc = diff_option(x, argc, argv, &i);
            if (rc >= 0)
                return rc;
        }
    }
    if (x->npos != 2)
        return cp_cli_usage_error("diff", "expected OLD and NEW");
    if (strcmp(x->pos[0], "-") == 0 && strcmp(x->pos[1], "-") == 0)
        return cp_cli_usage_error("diff",
                                  "OLD and NEW cannot both be standard input");
    return -1;
}

/* ---- loading ------------------------------------------------------------ */

/* Standard input, whole (a policy is at most 64 MiB). */
static bool diff_read_stdin(struct cp_buf *b)
{
    char chunk[65536];
    size_t n;
    cp_buf_add(b, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        if (b->len + n > 64u * 1024 * 1024) {
            fprintf(stderr, "confpol diff: standard input is larger than 64 "
                            "MiB\n");
            return false;
        }
        cp_buf_add(b, chunk, n);
    }
    if (ferror(stdin)) {
        fprintf(stderr, "confpol diff: cannot read standard input: %m\n");
        return false;
    }
    return true;
}

/* Parses and resolves one side with DEFS.  Returns 0, or the exit status
 * after printing the diagnostics. */
static int diff_load_one(const struct diff_args *x, struct cp_ctx *cx,
                         const char *file, const struct cp_buf *in,
                         const struct cp_define *defs, size_t ndefs)
{
    if (!cp_cli_apply(&x->c, cx))
        return 2;
    cx->opts.defines = (struct cp_define *)defs;
    cx->opts.ndefines = ndefs;
    int perr = in ? cp_parse_memory(cx, "<stdin>", in->data, in->len)
                  : (cx->main_path = file, cp_parse(cx));
    if (perr || cp_diag_errors(&cx->diags) || !cx->ast || cp_resolve(cx) ||
        cp_diag_errors(&cx->diags)) {
        cp_cli_print_diags(&x->c, cx);
        return cx->ast ? cp_cli_error_status(cx) : 2;
    }
    return 0;
}

/* Does the policy declare the param NAME? */
static bool diff_declares(const struct cp_policy *p, const char *name)
{
    for (size_t i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i].name, name) == 0)
            return true;
    return false;
}

/* Loads both sides.  A -D binds the param on each side that declares it
 * (a param one side adds is still compared); one that neither declares is
 * a usage error.  Without -D each side is loaded once. */
static int diff_load(const struct diff_args *x, struct cp_ctx cx[2],
                     const struct cp_buf in[2])
{
    const struct cp_define *defs = x->c.defines;
    size_t nd = x->c.ndefines;
    for (int k = 0; k < 2; k++) {
        const struct cp_buf *b = in[k].data ? &in[k] : NULL;
        int rc = diff_load_one(x, &cx[k], x->pos[k], b, NULL, 0);
        if (rc || !nd)
            continue;
        struct cp_define *mine = cp_xmalloc(nd * sizeof *mine);
        size_t nm = 0;
        for (size_t i = 0; i < nd; i++)
            if (diff_declares(cx[k].policy, defs[i].name))
                mine[nm++] = defs[i];
        cp_policy_free(cx[k].policy);
        cp_ctx_free(&cx[k]);
        cp_ctx_init(&cx[k]);
        rc = diff_load_one(x, &cx[k], x->pos[k], b, mine, nm);
        /* the context copies what it keeps of the defines */
        cx[k].opts.defines = NULL;
        cx[k].opts.ndefines = 0;
        free(mine);
        if (rc)
            return rc;
    }
    for (int k = 0; k < 2; k++)
        if (!cx[k].policy || cp_diag_errors(&cx[k].diags))
            return cx[k].ast ? cp_cli_error_status(&cx[k]) : 2;
    for (size_t i = 0; i < nd; i++)
        if (!diff_declares(cx[0].policy, defs[i].name) &&
            !diff_declares(cx[1].policy, defs[i].name))
            return cp_cli_usage_error("diff",
                                      "-D %s=%s: '%s' is not a param of "
                                      "either policy",
                                      defs[i].name, defs[i].value,
                                      defs[i].name);
    return 0;
}

/* ---- output ------------------------------------------------------------- */

/* "file:line:col", or "profile confined (why)" for an implicit rule. */
static const char *diff_where(struct cp_arena *a, const struct cp_rule *r)
{
    if (r->origin == CP_ORIGIN_SOURCE && r->loc.src)
        return cp_arena_printf(a, "%s:%u:%u", r->loc.src->path, r->loc.line,
                               r->loc.col);
    return cp_arena_printf(a, "%s (%s)", cp_sema_origin_text(r->origin),
                           r->why ? r->why : "");
}

static void diff_text_side(struct cp_arena *a, const char *label,
                           enum cp_access acc, const struct cp_policy *p,
                           const struct cp_diff_side *s)
{
    printf("  %s: %s\n", label, cp_verdict_text(s->verdict));
    if (!s->nrules)
        printf("    by default: %s\n",
               s->by_default ? cp_sema_default_why(acc, s->verdict, p)
                             : "the command line cannot be read");
    for (size_t i = 0; i < s->nrules; i++)
        printf("    by '%s' at %s\n", cp_sema_rule_text(a, s->rules[i]),
               diff_where(a, s->rules[i]));
    if (s->unbound_param)
        printf("    note: the answer may differ with another value of %s\n",
               s->unbound_param);
}

/* The subject as a shell word when it is not one already (gate lines,
 * content texts). */
static const char *diff_subject_text(struct cp_arena *a,
                                     const struct cp_diff_item *it)
{
    if (cp_access_is_path(it->access) || it->access == CP_ACC_NET)
        return it->subject;
    struct cp_buf b = {0};
    cp_shell_quote(&b, it->subject);
    const char *t = cp_arena_strndup(a, b.data, b.len);
    cp_buf_free(&b);
    return t;
}

static void diff_text(struct cp_arena *a, const struct cp_policy *p[2],
                      const struct cp_diff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct cp_diff_item *it = &d->items[i];
        printf("%s %s %s\n", it->widened ? "widened" : "narrowed",
               cp_access_text(it->access), diff_subject_text(a, it));
        diff_text_side(a, "old", it->access, p[0], &it->old);
        diff_text_side(a, "new", it->access, p[1], &it->new);
        if (it->region)
            printf("  region: '%s'\n", it->region);
        for (size_t k = 0; k < it->nbind; k++)
            printf("  with: -D %s=%s\n", it->bind_names[k], it->bind_values[k]);
    }
    printf("%zu widened, %zu narrowed\n", d->nwidened, d->nnarrowed);
}

static void diff_json_side(struct cp_jw *w, struct cp_arena *a,
                           enum cp_access acc, const struct cp_policy *p,
                           const struct cp_diff_side *s)
{
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "decision", cp_verdict_text(s->verdict));
    cp_jw_kstr(w, "rule", s->nrules ? cp_sema_rule_text(a, s->rules[0]) : NULL);
    cp_jw_kstr(w, "location", s->nrules ? diff_where(a, s->rules[0]) : NULL);
    cp_jw_key(w, "byDefault");
    cp_jw_bool(w, s->by_default);
    cp_jw_kstr(w, "reason",
               s->by_default ? cp_sema_default_why(acc, s->verdict, p) : NULL);
    cp_jw_key(w, "rules");
    cp_jw_open(w, '[');
    for (size_t i = 0; i < s->nrules; i++) {
        const struct cp_rule *r = s->rules[i];
        bool src = r->origin == CP_ORIGIN_SOURCE && r->loc.src;
        cp_jw_open(w, '{');
        cp_jw_kstr(w, "rule", cp_sema_rule_text(a, r));
        cp_jw_kstr(w, "origin",
                   src ? "source" : cp_sema_origin_text(r->origin));
        cp_jw_kstr(w, "file", src ? r->loc.src->path : NULL);
        cp_jw_kint(w, "line", src ? r->loc.line : 0);
        cp_jw_kint(w, "column", src ? r->loc.col : 0);
        cp_jw_close(w, '}');
    }
    cp_jw_close(w, ']');
    cp_jw_kstr(w, "unboundParam", s->unbound_param);
    cp_jw_close(w, '}');
}

static void diff_json_item(struct cp_jw *w, struct cp_arena *a,
                           const struct cp_policy *p[2],
                           const struct cp_diff_item *it)
{
    cp_jw_open(w, '{');
    cp_jw_kstr(w, "access", cp_access_text(it->access));
    cp_jw_kstr(w, "subject", it->subject);
    cp_jw_key(w, "binding");
    if (it->nbind) {
        cp_jw_open(w, '{');
        for (size_t k = 0; k < it->nbind; k++)
            cp_jw_kstr(w, it->bind_names[k], it->bind_values[k]);
        cp_jw_close(w, '}');
    } else {
        cp_jw_null(w);
    }
    cp_jw_kstr(w, "region", it->region);
    cp_jw_key(w, "old");
    diff_json_side(w, a, it->access, p[0], &it->old);
    cp_jw_key(w, "new");
    diff_json_side(w, a, it->access, p[1], &it->new);
    cp_jw_close(w, '}');
}

static void diff_json(struct cp_arena *a, const struct cp_policy *p[2],
                      const struct cp_diff *d)
{
    struct cp_buf b = {0};
    struct cp_jw w = {.b = &b};
    cp_jw_open(&w, '{');
    for (int widened = 1; widened >= 0; widened--) {
        cp_jw_key(&w, widened ? "widened" : "narrowed");
        cp_jw_open(&w, '[');
        for (size_t i = 0; i < d->n; i++)
            if (d->items[i].widened == (bool)widened)
                diff_json_item(&w, a, p, &d->items[i]);
        cp_jw_close(&w, ']');
    }
    cp_jw_key(&w, "complete");
    cp_jw_bool(&w, !d->incomplete);
    cp_jw_kstr(&w, "incomplete", d->incomplete);
    cp_jw_kint(&w, "probes", (long long)d->nprobes);
    cp_jw_close(&w, '}');
    puts(b.data);
    cp_buf_free(&b);
}

/* The first rule of S written in a file (SARIF puts a result there). */
static const struct cp_rule *diff_src_rule(const struct cp_diff_side *s)
{
    for (size_t i = 0; i < s->nrules; i++)
        if (s->rules[i]->origin == CP_ORIGIN_SOURCE && s->rules[i]->loc.src)
            return s->rules[i];
    return NULL;
}

/* Where a result about the NEW file goes when no rule of it decides: the
 * first line of its main file (the rule that decided before is gone). */
static struct cp_loc diff_new_file_loc(const struct cp_policy *p)
{
    struct cp_loc l = {0};
    if (p->profile_loc.src)
        l.src = p->profile_loc.src;
    for (size_t i = 0; i < p->nrules && !l.src; i++)
        if (p->rules[i]->loc.src && !p->rules[i]->loc.src->includer)
            l.src = p->rules[i]->loc.src;
    if (l.src)
        l.line = l.col = l.end_line = l.end_col = 1;
    return l;
}

/* SARIF: one result per region, at the NEW file's deciding rule (CP0810
 * widened, CP0811 narrowed), the OLD side's rule as a related location;
 * written by the diagnostics' SARIF writer. */
static void diff_sarif(struct cp_arena *a, const struct cp_policy *p[2],
                       const struct cp_diff *d)
{
    struct cp_diags ds;
    cp_diags_init(&ds);
    for (size_t i = 0; i < d->n; i++) {
        const struct cp_diff_item *it = &d->items[i];
        const struct cp_rule *nr = diff_src_rule(&it->new);
        const struct cp_rule *orr = diff_src_rule(&it->old);
        struct cp_loc at = nr ? nr->loc : diff_new_file_loc(p[1]);
        struct cp_diag *g = cp_diag_report(
            &ds, it->widened ? CP0810 : CP0811, at.src ? &at : NULL,
            "%s %s %s: the old policy answers %s, the new one %s%s%s",
            it->widened ? "widened" : "narrowed", cp_access_text(it->access),
            diff_subject_text(a, it), cp_verdict_text(it->old.verdict),
            cp_verdict_text(it->new.verdict), nr ? " by " : " by default",
            nr ? cp_sema_rule_text(a, nr) : "");
        for (size_t k = 0; g && k < it->nbind; k++)
            cp_diag_add_note(g, NULL, "with -D %s=%s", it->bind_names[k],
                             it->bind_values[k]);
        if (g && orr)
            cp_diag_add_note(g, &orr->loc, "the old policy decided it by '%s'",
                             cp_sema_rule_text(a, orr));
    }
    cp_diags_render_sarif(&ds, stdout);
    cp_diags_free(&ds);
}

static int diff_status(const struct diff_args *x, const struct cp_diff *d)
{
    if (d->incomplete)
        fprintf(stderr,
                "confpol diff: error: the comparison is incomplete (%s); a "
                "change may be missing [CP0812]\n",
                d->incomplete);
    if (x->fail == DIFF_NEVER)
        return 0;
    if (d->incomplete)
        return 1;
    bool w = d->nwidened > 0, n = d->nnarrowed > 0;
    return (x->fail == DIFF_WIDEN && w) || (x->fail == DIFF_NARROW && n) ||
                   (x->fail == DIFF_CHANGE && (w || n))
               ? 1
               : 0;
}

/* What target BE enforces of P: P without the rules BE rates not enforced
 * (a deny it does not enforce denies nothing there; an allow it does not
 * grant allows nothing), its rules renumbered, its flags recomputed; the
 * rules it enforces stricter are kept as written (spec/cli.md, "diff"). */
static const struct cp_policy *diff_target_view(const struct cp_backend *be,
                                                const struct cp_policy *p,
                                                struct cp_arena *a)
{
    if (!p)
        return p;
    enum cp_fidelity *fid = cp_arena_alloc(a, (p->nrules + 1) * sizeof *fid);
    const char **why = cp_arena_alloc(a, (p->nrules + 1) * sizeof *why);
    struct cp_backend_opts o = {0};
    cp_backend_fidelity(be, p, &o, a, fid, why);
    struct cp_policy *q = cp_arena_alloc(a, sizeof *q);
    *q = *p;
    q->rules = cp_arena_alloc(a, (p->nrules + 1) * sizeof *q->rules);
    q->nrules = 0;
    q->has_exec = false;
    bool deny = false, allow = false;
    for (size_t i = 0; i < p->nrules; i++) {
        if (fid[i] == CP_FID_NOT_ENFORCED)
            continue;
        struct cp_rule *c = cp_arena_alloc(a, sizeof *c);
        *c = *p->rules[i];
        c->id = (unsigned)q->nrules;
        q->rules[q->nrules++] = c;
        q->has_exec |= c->kind == CP_R_EXEC;
        deny |= c->kind == CP_R_NET_DENY;
        allow |= c->kind == CP_R_NET_ALLOW;
    }
    q->net = deny ? CP_NET_NONE : allow ? CP_NET_LIST : CP_NET_ALL;
    return q;
}

static int diff_run(const struct diff_args *x)
{
    struct cp_buf in[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++)
        if (x->pos[k] && strcmp(x->pos[k], "-") == 0 &&
            !diff_read_stdin(&in[k])) {
            cp_buf_free(&in[k]);
            return 2;
        }
    struct cp_ctx cx[2];
    cp_ctx_init(&cx[0]);
    cp_ctx_init(&cx[1]);
    int rc = diff_load(x, cx, in);
    if (rc == 0) {
        const struct cp_policy *p[2] = {cx[0].policy, cx[1].policy};
        for (int k = 0; k < 2 && x->target; k++)
            p[k] = diff_target_view(x->target, p[k], cx[1].arena);
        struct cp_diff_opts o = {.bindings = !x->no_bindings};
        struct cp_diff d;
        cp_diff_policies(p[0], p[1], &o, cx[1].arena, &d);
        if (x->fmt == DIFF_JSON)
            diff_json(cx[1].arena, p, &d);
        else if (x->fmt == DIFF_SARIF)
            diff_sarif(cx[1].arena, p, &d);
        else
            diff_text(cx[1].arena, p, &d);
        fflush(stdout);
        rc = diff_status(x, &d);
    }
    for (int k = 0; k < 2; k++) {
        cp_policy_free(cx[k].policy);
        cp_ctx_free(&cx[k]);
        cp_buf_free(&in[k]);
    }
    return rc;
}

int cp_cmd_diff(int argc, char **argv)
{
    struct diff_args x = {.c = {.cmd = "diff"}};
    int rc = diff_parse(&x, argc, argv);
    if (rc < 0)
        rc = diff_run(&x);
    fflush(stdout);
    cp_cli_common_free(&x.c);
    return rc;
}

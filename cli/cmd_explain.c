/* SPDX-License-Identifier: MIT */
/* confpol explain: decide one access with the decision model and show the
 * rules that decided it (spec/cli.md, "explain"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"

static void cp_explain_usage(FILE *out)
{
    fputs("usage: confpol explain [OPTIONS] FILE ACCESS SUBJECT\n"
          "\n"
          "Decides one access with the policy's decision model and prints\n"
          "the verdict (allow, deny or ask) on the first line, then the\n"
          "rules that decided it, then the bindings it used.  Like run, it\n"
          "binds HOME from the environment and PROJECT from the current\n"
          "directory unless -D binds them.  ACCESS is read, write or exec\n"
          "(SUBJECT a\n"
          "path: /abs, ~/x or ${NAME}/x), net (SUBJECT a host name), gate\n"
          "(SUBJECT a command line), content (SUBJECT text a file tool\n"
          "would write, or @FILE to read it from FILE, @- from stdin) or\n"
          "socket (SUBJECT the path of a filesystem Unix socket).\n"
          "\n"
          "options:\n"
          "  -D NAME=VALUE             bind a param\n"
          "  --format text|json        output format (default text)\n"
          "  --symbolic                bind only what -D binds: the answer\n"
          "                            for every value of the other params\n"
          "  --ignore-expect           with -D: answer even when an expect\n"
          "                            line fails under the bindings\n"
          "  --diagnostics-format F    text (default), json or sarif\n"
          "  --help                    print this help\n"
          "\n"
          "exit status: 0 the decision was printed, 1 the policy has errors,\n"
          "2 usage or I/O error\n",
          out);
}

static bool cp_explain_access(const char *s, enum cp_access *out)
{
    static const struct {
        const char *name;
        enum cp_access acc;
    } tab[] = {{"read", CP_ACC_READ},    {"write", CP_ACC_WRITE},
               {"exec", CP_ACC_EXEC},    {"net", CP_ACC_NET},
               {"gate", CP_ACC_GATE},    {"content", CP_ACC_CONTENT},
               {"socket", CP_ACC_SOCKET}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].name) == 0) {
            *out = tab[i].acc;
            return true;
        }
    return false;
}

static void cp_explain_text(struct cp_ctx *cx, enum cp_access acc,
                            const struct cp_decision *dc)
{
    const struct cp_policy *p = cx->policy;
    printf("%s\n", cp_verdict_text(dc->verdict));
    for (size_t i = 0; i < dc->nrules; i++) {
        const struct cp_rule *r = dc->rules[i];
        const char *rt = cp_sema_rule_text(cx->arena, r);
        if (r->origin == CP_ORIGIN_SOURCE && r->loc.src)
            printf("  by '%s' at %s:%u:%u\n", rt, r->loc.src->path, r->loc.line,
                   r->loc.col);
        else
            printf("  by '%s', added by %s (%s)\n", rt,
                   cp_sema_origin_text(r->origin), r->why ? r->why : "");
    }
    if (dc->by_default)
        printf("  by default: %s\n", cp_sema_default_why(acc, dc->verdict, p));
    if (dc->gate_unreadable)
        printf("  by the shell reader: %s\n", dc->gate_why);
    else if (dc->gate_why && dc->verdict != CP_ALLOW)
        printf("  known only when it runs: %s\n", dc->gate_why);
    if (dc->unbound_param)
        printf("  note: the answer may differ with another value of %s: "
               "bind it with -D %s=DIR to decide\n",
               dc->unbound_param, dc->unbound_param);
}

/* The last line of the text answer: the values the decision used. */
static void cp_explain_bindings_text(const struct cp_cli_common *c)
{
    if (!c->ndefines) {
        printf("  with no param bound\n");
        return;
    }
    for (size_t k = 0; k < c->ndefines; k++)
        printf("%s%s=%s (%s)", k ? ", " : "  with ", c->defines[k].name,
               c->defines[k].value, cp_cli_define_from(c, k));
    putchar('\n');
}

static void cp_explain_json(struct cp_ctx *cx, const struct cp_cli_common *c,
                            enum cp_access acc, const char *subject,
                            const struct cp_decision *dc)
{
    const struct cp_policy *p = cx->policy;
    struct cp_buf b = {0};
    struct cp_jw w = {.b = &b};
    cp_jw_open(&w, '{');
    cp_jw_kstr(&w, "decision", cp_verdict_text(dc->verdict));
    cp_jw_kstr(&w, "access", cp_access_text(acc));
    cp_jw_kstr(&w, "subject", subject);
    cp_jw_key(&w, "byDefault");
    cp_jw_bool(&w, dc->by_default);
    if (dc->by_default)
        cp_jw_kstr(&w, "reason", cp_sema_default_why(acc, dc->verdict, p));
    else if (dc->gate_unreadable)
        cp_jw_kstr(&w, "reason", dc->gate_why);
    else
        cp_jw_kstr(&w, "reason", NULL);
    cp_jw_key(&w, "rules");
    cp_jw_open(&w, '[');
    for (size_t i = 0; i < dc->nrules; i++) {
        const struct cp_rule *r = dc->rules[i];
        cp_jw_open(&w, '{');
        cp_jw_kstr(&w, "rule", cp_sema_rule_text(cx->arena, r));
        cp_jw_kstr(&w, "kind", cp_rule_kind_text(r->kind));
        cp_jw_kstr(&w, "origin",
                   r->origin == CP_ORIGIN_SOURCE
                       ? "source"
                       : cp_sema_origin_text(r->origin));
        cp_jw_kstr(&w, "why", r->why);
        cp_jw_kstr(&w, "file", r->loc.src ? r->loc.src->path : NULL);
        cp_jw_kint(&w, "line", r->loc.src ? r->loc.line : 0);
        cp_jw_kint(&w, "column", r->loc.src ? r->loc.col : 0);
        cp_jw_close(&w, '}');
    }
    cp_jw_close(&w, ']');
    cp_jw_kstr(&w, "unboundParam", dc->unbound_param);
    cp_jw_key(&w, "bindings");
    cp_jw_open(&w, '[');
    for (size_t k = 0; k < c->ndefines; k++) {
        cp_jw_open(&w, '{');
        cp_jw_kstr(&w, "name", c->defines[k].name);
        cp_jw_kstr(&w, "value", c->defines[k].value);
        cp_jw_kstr(&w, "from", cp_cli_define_from(c, k));
        cp_jw_close(&w, '}');
    }
    cp_jw_close(&w, ']');
    cp_jw_close(&w, '}');
    puts(b.data);
    cp_buf_free(&b);
}

/* Reads SUBJECT of a content probe: "@FILE" (a regular file, at most
 * 1 MiB as the gate reads), "@-" (stdin), else the text itself. */
static bool cp_explain_content_text(const char *subj, struct cp_buf *out)
{
    if (subj[0] != '@') {
        cp_buf_adds(out, subj);
        return true;
    }
    FILE *f = strcmp(subj, "@-") == 0 ? stdin : fopen(subj + 1, "rbe");
    if (!f) {
        fprintf(stderr, "confpol explain: cannot open '%s': %m\n", subj + 1);
        return false;
    }
    char chunk[65536];
    size_t n;
    bool ok = true;
    cp_buf_add(out, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + n > 1024u * 1024u) {
            fprintf(stderr,
                    "confpol explain: '%s' is larger than 1 MiB (the "
                    "gate refuses such input)\n",
                    subj + 1);
            ok = false;
            break;
        }
        cp_buf_add(out, chunk, n);
    }
    if (ok && ferror(f)) {
        fprintf(stderr, "confpol explain: cannot read '%s'\n", subj + 1);
        ok = false;
    }
    if (f != stdin)
        fclose(f);
    return ok;
}

/* The content probe: the same scan as the gate's for a Write's content;
 * the findings name classes, rules and lines, never the text. */
static int cp_explain_content(struct cp_ctx *cx, const char *subj, bool json)
{
    const struct cp_policy *p = cx->policy;
    struct cp_buf text = {0};
    if (!cp_explain_content_text(subj, &text)) {
        cp_buf_free(&text);
        return 2;
    }
    struct cp_content_scan s = {0};
    cp_content_scan(cx->arena, p->content_classes, p->content, p->ncontent,
                    "content", text.data, text.len, &s);
    cp_buf_free(&text);
    enum cp_verdict v = s.n ? CP_DENY : CP_ALLOW;
    if (json) {
        struct cp_buf b = {0};
        cp_buf_printf(&b,
                      "{\"decision\": \"%s\", \"access\": \"content\", "
                      "\"findings\": ",
                      cp_verdict_text(v));
        cp_content_findings_json(&b, &s);
        cp_buf_adds(&b, ", \"reason\": ");
        if (s.n)
            cp_buf_adds(&b, "null");
        else
            cp_buf_printf(&b, "\"%s\"",
                          cp_sema_default_why(CP_ACC_CONTENT, v, p));
        cp_buf_adds(&b, "}");
        puts(b.data);
        cp_buf_free(&b);
        return 0;
    }
    printf("%s\n", cp_verdict_text(v));
    for (size_t i = 0; i < s.n; i++) {
        const struct cp_content_finding *f = &s.v[i];
        const char *lines = cp_content_lines_text(cx->arena, f);
        if (f->rule)
            printf("  by 'content deny %s%s\"' (%s) at %s:%u:%u: %s\n",
                   f->rule->regex ? "re\"" : "\"", f->rule->text, f->rule->id,
                   f->rule->loc.src ? f->rule->loc.src->path : "",
                   f->rule->loc.line, f->rule->loc.col, lines);
        else
            printf("  by the built-in detector %s: %s\n", f->what, lines);
    }
    if (!s.n)
        printf("  by default: %s\n", cp_sema_default_why(CP_ACC_CONTENT, v, p));
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        if (p->content_off_loc[c].src)
            printf("  note: the detector %s is switched off at %s:%u:%u\n",
                   cp_content_class_name(c), p->content_off_loc[c].src->path,
                   p->content_off_loc[c].line, p->content_off_loc[c].col);
    return 0;
}

/* The command line of explain. */
struct explain_args {
    struct cp_cli_common c;
    const char *pos[3]; /* FILE ACCESS SUBJECT */
    size_t npos;
    bool json, ignore_expect, symbolic;
    enum cp_access acc;
};

/* --format text|json.  Returns -1 to go on, or the exit status. */
static int explain_format(struct explain_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = a[8] == '=' ? a + 9 : (*i + 1 < argc ? argv[++*i] : "");
    if (strcmp(v, "json") == 0)
        x->json = true;
    else if (strcmp(v, "text") == 0)
        x->json = false;
    else
        return cp_cli_usage_error("explain",
                                  "--format expects text or json, got '%s'", v);
    return -1;
}

/* One option.  Returns -1 to go on, or the exit status. */
static int explain_option(struct explain_args *x, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        cp_explain_usage(stdout);
        return 0;
    }
    if (strcmp(a, "--ignore-expect") == 0 || strcmp(a, "--symbolic") == 0) {
        *(a[2] == 'i' ? &x->ignore_expect : &x->symbolic) = true;
        return -1;
    }
    if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0)
        return explain_format(x, argc, argv, i);
    int r = cp_cli_common_opt(&x->c, argc, argv, i);
    if (r < 0)
        return 2;
    if (r == 0) {
        static const char *const opts[] = {
            "--format", "--help", "--ignore-expect", "--symbolic", NULL};
        return cp_cli_unknown_option("explain", a, opts, true);
    }
    return -1;
}

/* Reads the command line and the access.  Returns -1 to go on, or the
 * exit status. */
static int explain_parse(struct explain_args *x, int argc, char **argv)
{
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || x->npos >= 1) {
            /* After FILE every word is positional: a SUBJECT may start
             * with '-' (a command line such as "-rf"). */
            if (x->npos == 3)
                return cp_cli_usage_error("explain", "unexpected argument '%s'",
                                          a);
            x->pos[x->npos++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else {
            int rc = explain_option(x, argc, argv, &i);
            if (rc >= 0)
                return rc;
        }
    }
    if (x->npos != 3)
        return cp_cli_usage_error("explain", "expected FILE ACCESS SUBJECT");
    if (!cp_explain_access(x->pos[1], &x->acc)) {
        static const char *const acc_words[] = {
            "read", "write", "exec", "net", "gate", "content", "socket", NULL};
        const char *near = cp_nearest_word(x->pos[1], acc_words);
        return cp_cli_usage_error("explain",
                                  "unknown access '%s'; expected read, write, "
                                  "exec, net, gate, content or socket%s%s%s",
                                  x->pos[1], near ? "; did you mean '" : "",
                                  near ? near : "", near ? "'?" : "");
    }
    return -1;
}

/* Parses and resolves the policy and checks the expect lines under the
 * bindings.  Returns -1 to go on, or the exit status. */
static int explain_load(struct explain_args *x, struct cp_ctx *cx)
{
    /* The bindings run would use (spec/semantics.md 1.7), so that the
     * answer is the one the sandbox gives; --symbolic keeps -D only. */
    size_t nexplicit = x->c.ndefines;
    if (!x->symbolic) {
        cp_cli_bind_run(&x->c);
        if (!cp_cli_bindings_sane(&x->c, x->pos[0]))
            return 2;
    }
    if (!cp_cli_apply(&x->c, cx))
        return 2;
    cx->main_path = x->pos[0];
    /* The decision needs the resolved policy only: analysis findings and
     * expect failures are check's business, so that explain can show why
     * an expect fails. */
    if (cp_parse(cx) || cp_diag_errors(&cx->diags) || !cx->ast ||
        cp_resolve(cx) || cp_diag_errors(&cx->diags)) {
        cp_cli_print_diags(&x->c, cx);
        return cx->ast ? cp_cli_error_status(cx) : 2;
    }
    /* With bindings, the expect lines are checked under them first: an
     * answer for a binding the policy's own expectations reject is not
     * given (spec/semantics.md 1.7). */
    if (nexplicit && !x->ignore_expect && cp_check_expects(cx)) {
        cp_cli_print_diags(&x->c, cx);
        fprintf(stderr, "confpol explain: an expect line fails under the given "
                        "-D bindings; "
                        "no answer\n");
        return 1;
    }
    return -1;
}

/* Decides the access and prints the answer.  Returns the exit status. */
static int explain_decide(struct explain_args *x, struct cp_ctx *cx)
{
    enum cp_access acc = x->acc;
    const char *subj = x->pos[2];
    if (acc == CP_ACC_CONTENT)
        return cp_explain_content(cx, subj, x->json);
    struct cp_decision dc;
    if (cp_decide(cx->policy, acc, subj, cx->arena, &dc) != 0) {
        fprintf(stderr, "confpol explain: invalid %s subject '%s'%s%s\n",
                cp_access_text(acc), subj,
                cp_access_is_path(acc)
                    ? ": expected a path /abs, ~/x or ${NAME}/x of a param "
                      "of the policy, without '.' or '..' segments"
                    : "",
                acc == CP_ACC_SOCKET
                    ? "; an abstract or unnamed Unix socket has no path: "
                      "the sandbox's own network namespace holds them, and "
                      "no rule names them"
                    : "");
        return 2;
    }
    if (x->json) {
        cp_explain_json(cx, &x->c, acc, subj, &dc);
    } else {
        cp_explain_text(cx, acc, &dc);
        cp_explain_bindings_text(&x->c);
    }
    return 0;
}

int cp_cmd_explain(int argc, char **argv)
{
    struct explain_args x = {.c = {.cmd = "explain"}};
    int rc = explain_parse(&x, argc, argv);
    if (rc < 0) {
        struct cp_ctx cx;
        cp_ctx_init(&cx);
        rc = explain_load(&x, &cx);
        if (rc < 0)
            rc = explain_decide(&x, &cx);
        cp_policy_free(cx.policy);
        cp_ctx_free(&cx);
    }
    fflush(stdout);
    cp_cli_common_free(&x.c);
    return rc;
}

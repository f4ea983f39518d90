/* SPDX-License-Identifier: MIT */
/* Phase 1: lex and parse the main file, then every included file.
 *
 * Each file is scanned and parsed whole (the grammar recovers at statement
 * level, so every syntax error of a file is reported in one run); then its
 * header is checked, its comments are attached to the nearest statement or
 * argument (for fmt), and finally its include statements are followed in
 * source order, depth first.  The chain of files being included is kept on
 * the C stack, so a cycle is reported at the include that closes it with a
 * note at every include of the cycle. */
#include <stdlib.h>
#include <string.h>

#include "confpol.h"

#include "ast.h"
#include "library.h"
#include "text.h"
#include "parser.h"
#include "lexer.h"

int cp_yyparse(void *scanner, struct cp_lex *st);

/* One file on the include chain: `inc` is the include statement (in the
 * parent) that brought `src` in, NULL for the main file. */
struct cp_frame {
    const struct cp_source *src;
    const struct cp_stmt *inc;
    const struct cp_frame *up;
};

static struct cp_file *cp_parse_source(struct cp_ctx *cx,
                                       const struct cp_source *src,
                                       const struct cp_frame *fr, int depth);

static int cp_pos_cmp(unsigned l1, unsigned c1, unsigned l2, unsigned c2)
{
    if (l1 != l2)
        return l1 < l2 ? -1 : 1;
    if (c1 != c2)
        return c1 < c2 ? -1 : 1;
    return 0;
}

/* ---- header ------------------------------------------------------------ */

static void cp_check_header(struct cp_ctx *cx, struct cp_lex *st,
                            struct cp_file *f, int first_tok)
{
    struct cp_stmt **h = (struct cp_stmt **)st->headers.items;
    size_t nh = st->headers.len;
    size_t i = 0;
    if (nh > 0 &&
        (f->nstmts == 0 ||
         cp_pos_cmp(h[0]->n.loc.line, h[0]->n.loc.col, f->stmts[0]->n.loc.line,
                    f->stmts[0]->n.loc.col) < 0)) {
        f->header = h[0]->n.loc;
        const char *v = h[0]->sub.text;
        if (strcmp(v, "1") == 0) {
            f->version = 1;
        } else {
            cp_diag_report(&cx->diags, CP0208, &h[0]->sub.loc,
                           "unsupported language version '%s'; this "
                           "confpol reads version 1",
                           v);
        }
        i = 1;
    } else if (first_tok != KW_CONFPOL) {
        /* A header that failed to parse ('confpol' alone) was already
         * reported; do not report it twice. */
        struct cp_loc l = st->first;
        if (!st->have_first) {
            l.src = st->src;
            l.line = l.end_line = 1;
            l.col = l.end_col = 1;
        }
        struct cp_diag *g = cp_diag_report(
            &cx->diags, CP0207, &l,
            "missing header; a policy file must start with 'confpol 1'");
        cp_diag_set_suggestion(g, "add the line 'confpol 1' before the "
                                  "first statement");
    }
    for (; i < nh; i++) {
        struct cp_diag *g = cp_diag_report(
            &cx->diags, CP0209, &h[i]->keyword.loc,
            f->header.src ? "duplicate 'confpol' header"
                          : "the 'confpol' header must come before every "
                            "statement");
        if (f->header.src)
            cp_diag_add_note(g, &f->header, "the header is here");
    }
}

/* ---- comments ---------------------------------------------------------- */

static bool cp_line_blank(const struct cp_source *s, unsigned line)
{
    size_t n;
    const char *p = cp_source_line(s, line, &n);
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
            return false;
    return true;
}

/* Is any line strictly between `a` and `b` blank? */
static bool cp_blank_between(const struct cp_source *s, unsigned a, unsigned b)
{
    for (unsigned l = a + 1; l < b; l++)
        if (cp_line_blank(s, l))
            return true;
    return false;
}

/* Comment lists are short in practice, but a huge braced list with a
 * comment on every line must not go quadratic: vectors are used while
 * attaching.  Comments come in source order, so the comments of one
 * statement (or argument) arrive together: one vector at a time, for the
 * item being filled, and nothing per statement without comments. */
struct cp_attach {
    struct cp_arena *a;
    struct cp_file *f;
    struct cp_vec lead, inner; /* of statement lead_for, inner_for */
    size_t lead_for, inner_for;
    struct cp_vec *alead; /* per argument of statement alead_for */
    size_t alead_for;
    struct cp_vec file_lead, file_trail;
    size_t i; /* first statement not ending before the comment */
    size_t j; /* first argument of stmts[i] not ending before it */
};

/* The comment C inside the braced list of statement S (number at->i): the
 * trailing comment of an argument on its line, a leading comment of the
 * next argument, or a comment before the closing brace. */
static void cp_attach_in_list(struct cp_attach *at, struct cp_stmt *s,
                              struct cp_comment *c)
{
    unsigned cl = c->loc.line, cc = c->loc.col;
    size_t j = at->j;
    while (j < s->nargs && cp_pos_cmp(s->args[j]->n.loc.end_line,
                                      s->args[j]->n.loc.end_col, cl, cc) < 0)
        j++;
    at->j = j;
    if (j > 0 && s->args[j - 1]->n.loc.end_line == cl &&
        !s->args[j - 1]->trailing) {
        s->args[j - 1]->trailing = c;
    } else if (j < s->nargs) {
        if (at->alead_for != at->i) {
            at->alead = cp_arena_alloc(at->a, s->nargs * sizeof(*at->alead));
            at->alead_for = at->i;
        }
        cp_vec_push(at->a, &at->alead[j], c);
        s->args[j]->leading = (struct cp_comment **)at->alead[j].items;
        s->args[j]->nleading = at->alead[j].len;
    } else {
        if (at->inner_for != at->i) {
            at->inner = (struct cp_vec){0};
            at->inner_for = at->i;
        }
        cp_vec_push(at->a, &at->inner, c);
        s->inner_trailing = (struct cp_comment **)at->inner.items;
        s->ninner_trailing = at->inner.len;
    }
}

/* The comment C before statement number at->i (none left: the file's
 * trailing comments). */
static void cp_attach_before(struct cp_attach *at, struct cp_comment *c)
{
    struct cp_file *f = at->f;
    if (at->i >= f->nstmts) {
        cp_vec_push(at->a, &at->file_trail, c);
        return;
    }
    if (at->lead_for != at->i) {
        at->lead = (struct cp_vec){0};
        at->lead_for = at->i;
    }
    cp_vec_push(at->a, &at->lead, c);
    f->stmts[at->i]->leading = (struct cp_comment **)at->lead.items;
    f->stmts[at->i]->nleading = at->lead.len;
}

/* Attaches the comment C to the item it belongs to. */
static void cp_attach_one(struct cp_attach *at, struct cp_comment *c)
{
    struct cp_file *f = at->f;
    struct cp_stmt **ss = f->stmts;
    size_t ns = f->nstmts;
    unsigned cl = c->loc.line, cc = c->loc.col;
    while (at->i < ns && cp_pos_cmp(ss[at->i]->n.loc.end_line,
                                    ss[at->i]->n.loc.end_col, cl, cc) < 0) {
        at->i++;
        at->j = 0;
    }
    size_t i = at->i;
    if (i > 0 && ss[i - 1]->n.loc.end_line == cl && !ss[i - 1]->trailing) {
        ss[i - 1]->trailing = c;
    } else if (f->header.src && cl == f->header.end_line &&
               f->header.end_col < cc && !f->header_trailing) {
        f->header_trailing = c;
    } else if (f->header.src && cl < f->header.line) {
        cp_vec_push(at->a, &at->file_lead, c);
    } else if (i < ns &&
               cp_pos_cmp(ss[i]->n.loc.line, ss[i]->n.loc.col, cl, cc) < 0) {
        cp_attach_in_list(at, ss[i], c);
    } else {
        cp_attach_before(at, c);
    }
}

/* Marks each of the N comments CS that has a blank line between it and the
 * item before it (*prev: that item's last line, 0 before any). */
static void cp_blank_comments(const struct cp_source *src,
                              struct cp_comment **cs, size_t n, unsigned *prev)
{
    for (size_t k = 0; k < n; k++) {
        cs[k]->blank_before = *prev &&
                              cp_blank_between(src, *prev, cs[k]->loc.line);
        *prev = cs[k]->loc.line;
    }
}

/* Blank lines: each item remembers whether the source had a blank line
 * between it and the item before it. */
static void cp_mark_blank_lines(struct cp_file *f)
{
    const struct cp_source *src = f->src;
    unsigned prev = 0; /* last line of the previous item, 0 before any */
    cp_blank_comments(src, f->leading, f->nleading, &prev);
    if (f->header.src) {
        f->header_blank_before = prev &&
                                 cp_blank_between(src, prev, f->header.line);
        prev = f->header.end_line;
    }
    for (size_t k = 0; k < f->nstmts; k++) {
        struct cp_stmt *s = f->stmts[k];
        cp_blank_comments(src, s->leading, s->nleading, &prev);
        s->blank_before = prev && cp_blank_between(src, prev, s->n.loc.line);
        prev = s->n.loc.end_line;
    }
    cp_blank_comments(src, f->trailing, f->ntrailing, &prev);
}

static void cp_attach_comments(struct cp_arena *a, struct cp_lex *st,
                               struct cp_file *f)
{
    struct cp_comment **cs = (struct cp_comment **)st->comments.items;
    struct cp_attach at = {.a = a,
                           .f = f,
                           .lead_for = (size_t)-1,
                           .inner_for = (size_t)-1,
                           .alead_for = (size_t)-1};
    for (size_t k = 0; k < st->comments.len; k++)
        cp_attach_one(&at, cs[k]);
    f->leading = (struct cp_comment **)at.file_lead.items;
    f->nleading = at.file_lead.len;
    f->trailing = (struct cp_comment **)at.file_trail.items;
    f->ntrailing = at.file_trail.len;
    cp_mark_blank_lines(f);
}

/* ---- includes ---------------------------------------------------------- */

/* Decodes the escapes of a quoted string (already validated by the
 * scanner).  Returns NULL if the result would hold a NUL byte. */
static char *cp_include_name(struct cp_arena *a, const char *s, size_t n,
                             size_t *outlen)
{
    char *o = cp_arena_alloc(a, n + 1);
    size_t nul_at;
    *outlen = cp_unquote(s, n, o, NULL, &nul_at);
    return nul_at < n ? NULL : o;
}

static const char *cp_include_path(struct cp_arena *a,
                                   const struct cp_source *from,
                                   const char *name)
{
    if (name[0] == '/')
        return name;
    const char *slash = strrchr(from->path, '/');
    if (!slash)
        return name;
    return cp_arena_printf(a, "%.*s/%s", (int)(slash - from->path + 1) - 1,
                           from->path, name);
}

/* The file name of the include statement S at depth DEPTH (its argument:
 * one quoted, non-empty string without a NUL byte, within the depth
 * limit); NULL after reporting. */
static char *cp_include_arg(struct cp_ctx *cx, const struct cp_stmt *s,
                            int depth, size_t *len)
{
    if (s->nargs != 1)
        return NULL;
    const struct cp_arg *arg = s->args[0];
    const struct cp_loc *at = &arg->n.loc;
    if (arg->kind != CP_ARG_QUOTED) {
        struct cp_diag *g = cp_diag_report(
            &cx->diags, CP0306, at,
            "the file name after 'include' must be a quoted string");
        if (arg->kind == CP_ARG_BARE)
            cp_diag_set_suggestion(g, "write include \"%s\"", arg->text);
        return NULL;
    }
    *len = 0;
    char *name = cp_include_name(cx->arena, arg->text, arg->len, len);
    if (!name || *len == 0) {
        cp_diag_report(&cx->diags, CP0307, at,
                       name ? "empty file name after 'include'"
                            : "the file name after 'include' holds a NUL "
                              "byte");
        return NULL;
    }
    if (depth + 1 > CP_MAX_INCLUDE_DEPTH) {
        cp_diag_report(&cx->diags, CP0305, at,
                       "includes nested deeper than %d files",
                       CP_MAX_INCLUDE_DEPTH);
        return NULL;
    }
    return name;
}

/* Reports the include cycle closed by including from frame FR the file of
 * frame A (an includer of FR, or FR itself), at AT. */
static void cp_include_cycle(struct cp_ctx *cx, const struct cp_frame *fr,
                             const struct cp_frame *a, const struct cp_loc *at)
{
    if (a == fr) {
        cp_diag_report(&cx->diags, CP0304, at,
                       "include cycle: '%s' includes itself", fr->src->path);
        return;
    }
    /* The chain, top down: a -> ... -> fr -> a. */
    struct cp_buf b = {0};
    size_t n = 0;
    for (const struct cp_frame *x = fr; x != a; x = x->up)
        n++;
    const struct cp_frame **chain = cp_xcalloc(n + 1, sizeof(*chain));
    size_t k = n + 1;
    for (const struct cp_frame *x = fr;; x = x->up) {
        chain[--k] = x;
        if (x == a)
            break;
    }
    for (size_t m = 0; m <= n; m++)
        cp_buf_printf(&b, "'%s' -> ", chain[m]->src->path);
    cp_buf_printf(&b, "'%s'", a->src->path);
    struct cp_diag *g = cp_diag_report(&cx->diags, CP0304, at,
                                       "include cycle: %s", b.data);
    for (size_t m = 1; m <= n; m++)
        cp_diag_add_note(g, &chain[m]->inc->args[0]->n.loc,
                         "'%s' includes '%s' here", chain[m - 1]->src->path,
                         chain[m]->src->path);
    free(chain);
    cp_buf_free(&b);
}

/* An include of a file that is missing but names a set of the gate
 * library ("all", "all.confpol"): the report the load just made (at index
 * ND) suggests the library's spelling. */
static void cp_include_lib_hint(struct cp_ctx *cx, size_t nd, const char *name,
                                size_t len)
{
    if (cx->diags.len != nd + 1 || cx->diags.items[nd].code != CP0301 ||
        memchr(name, '/', len))
        return;
    if (len > 8 && strcmp(name + len - 8, ".confpol") == 0)
        len -= 8;
    const char *why;
    if (!cp_library_path(cx->arena, name, len, &why))
        return;
    cp_diag_set_suggestion(&cx->diags.items[nd],
                           "a set of the gate library is named in angle "
                           "brackets: did you mean 'include \"<%.*s>\"'?",
                           (int)len, name);
}

/* Checks and loads the file of one include statement; reports at the
 * include's argument and returns NULL on any problem. */
static struct cp_source *cp_load_include(struct cp_ctx *cx, struct cp_stmt *s,
                                         const struct cp_frame *fr, int depth)
{
    size_t len;
    char *name = cp_include_arg(cx, s, depth, &len);
    if (!name)
        return NULL;
    const struct cp_loc *at = &s->args[0]->n.loc;
    /* "<NAME>": a set of the gate library, shown under that name */
    bool lib = len > 2 && name[0] == '<' && name[len - 1] == '>';
    const char *path;
    if (lib) {
        const char *why;
        path = cp_library_path(cx->arena, name + 1, len - 2, &why);
        if (!path) {
            struct cp_diag *g = cp_diag_report(
                &cx->diags, CP0301, at, "cannot include '%s': %s", name, why);
            const char *near = cp_library_near(cx->arena, name + 1, len - 2);
            if (near)
                cp_diag_set_suggestion(g, "did you mean 'include \"<%s>\"'?",
                                       near);
            return NULL;
        }
    } else {
        path = cp_include_path(cx->arena, fr->src, name);
    }
    size_t nd = cx->diags.len;
    struct cp_source *src = cp_source_load(cx->arena, &cx->diags, path, at);
    if (!src) {
        cp_include_lib_hint(cx, nd, name, len);
        return NULL;
    }
    if (lib)
        src->path = name;
    for (const struct cp_frame *a = fr; a; a = a->up) {
        if (strcmp(a->src->abspath, src->abspath) == 0) {
            cp_include_cycle(cx, fr, a, at);
            return NULL;
        }
    }
    src->includer = fr->src;
    src->include_line = s->n.loc.line;
    return src;
}

/* ---- one file ---------------------------------------------------------- */

/* The header check runs after the parse, so its records may follow later
 * syntax errors: restore source order for the records of one file (stable
 * insertion sort; they are nearly sorted). */
static void cp_sort_diags(struct cp_diags *d, size_t from)
{
    for (size_t i = from + 1; i < d->len; i++) {
        struct cp_diag x = d->items[i];
        size_t j = i;
        while (j > from &&
               cp_pos_cmp(d->items[j - 1].loc.line, d->items[j - 1].loc.col,
                          x.loc.line, x.loc.col) > 0) {
            d->items[j] = d->items[j - 1];
            j--;
        }
        d->items[j] = x;
    }
}

static struct cp_file *cp_parse_source(struct cp_ctx *cx,
                                       const struct cp_source *src,
                                       const struct cp_frame *fr, int depth)
{
    struct cp_lex st;
    memset(&st, 0, sizeof(st));
    if (!cx->ast_arena)
        cx->ast_arena = cp_arena_new();
    st.arena = cx->ast_arena;
    st.diags = &cx->diags;
    st.src = src;
    st.line = 1;
    st.col = 1;
    st.bol = true;
    st.last_end = (size_t)-1;
    st.err0 = cp_diag_errors(&cx->diags);
    struct cp_file *f = cp_ast_new_file(cx->ast_arena, src);
    st.file = f;

    size_t ndiags = cx->diags.len;
    yyscan_t sc;
    if (cp_yylex_init_extra(&st, &sc) != 0)
        cp_die_oom();
    /* A UTF-8 byte order mark is an error (one encoding, one layout); it is
     * then skipped so that the rest of the file is still checked.  It
     * counts 3 columns. */
    size_t skip = 0;
    if (src->len >= 3 && memcmp(src->text, "\xef\xbb\xbf", 3) == 0) {
        struct cp_loc bom = {src, 1, 1, 1, 3};
        struct cp_diag *g = cp_diag_report(
            &cx->diags, CP0109, &bom,
            "UTF-8 byte order mark at the start of the file");
        cp_diag_set_suggestion(g, "save the file as UTF-8 without a byte "
                                  "order mark");
        skip = 3;
        st.off = 3;
        st.col = 4;
    }
    YY_BUFFER_STATE buf = cp_lex_scan(src->text + skip, src->len - skip, sc);
    int first_tok = 0;
    cp_yyparse(sc, &st);
    cp_yy_delete_buffer(buf, sc);
    cp_yylex_destroy(sc);

    f->stmts = (struct cp_stmt **)st.stmts.items;
    f->nstmts = st.stmts.len;
    if (st.have_first)
        first_tok = st.first_tok;
    if (!st.stopped)
        cp_check_header(cx, &st, f, first_tok);
    cp_attach_comments(cx->ast_arena, &st, f);
    if (cx->opts.no_includes) {
        cp_sort_diags(&cx->diags, ndiags);
        return f;
    }
    /* Every problem at an include site is reported (in source order with
     * the file's other diagnostics) before any included file is parsed. */
    struct cp_source **inc = cp_xcalloc(f->nstmts + 1, sizeof(*inc));
    for (size_t i = 0; i < f->nstmts; i++)
        if (f->stmts[i]->n.kind == CP_N_INCLUDE)
            inc[i] = cp_load_include(cx, f->stmts[i], fr, depth);
    cp_sort_diags(&cx->diags, ndiags);
    for (size_t i = 0; i < f->nstmts; i++) {
        if (!inc[i])
            continue;
        struct cp_frame child = {inc[i], f->stmts[i], fr};
        f->stmts[i]->included = cp_parse_source(cx, inc[i], &child, depth + 1);
    }
    free(inc);
    return f;
}

int cp_parse(struct cp_ctx *cx)
{
    size_t before = cp_diag_errors(&cx->diags);
    const struct cp_source *src = cx->main_src;
    if (!src) {
        if (!cx->main_path) {
            cp_diag_report(&cx->diags, CP0301, NULL, "no policy file given");
            return 1;
        }
        src = cp_source_load(cx->arena, &cx->diags, cx->main_path, NULL);
        if (!src)
            return (int)(cp_diag_errors(&cx->diags) - before);
        cx->main_src = src;
    }
    struct cp_frame top = {src, NULL, NULL};
    cx->ast = cp_parse_source(cx, src, &top, 0);
    return (int)(cp_diag_errors(&cx->diags) - before);
}

int cp_parse_memory(struct cp_ctx *cx, const char *name, const char *text,
                    size_t len)
{
    cx->main_src = cp_source_from_memory(cx->arena, name, text, len);
    if (!cx->main_path)
        cx->main_path = cx->main_src->path;
    return cp_parse(cx);
}

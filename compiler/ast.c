/* SPDX-License-Identifier: MIT */
/* AST constructors (all memory from the compilation's arena) and the stable
 * S-expression dump used by the parser tests and `--dump=ast`. */
#include "ast.h"
#include "confpol.h"

#include <string.h>

#include "arena.h"

struct cp_file *cp_ast_new_file(struct cp_arena *a, const struct cp_source *src)
{
    struct cp_file *f = cp_arena_alloc(a, sizeof(*f));
    f->n.kind = CP_N_FILE;
    f->src = src;
    f->n.loc.src = src;
    f->n.loc.line = 1;
    f->n.loc.col = 1;
    f->n.loc.end_line = src && src->nlines ? (unsigned)src->nlines : 1;
    f->n.loc.end_col = 1;
    return f;
}

struct cp_stmt *cp_ast_new_stmt(struct cp_arena *a, enum cp_node_kind kind,
                                const struct cp_loc *loc)
{
    struct cp_stmt *s = cp_arena_alloc(a, sizeof(*s));
    s->n.kind = kind;
    if (loc)
        s->n.loc = *loc;
    return s;
}

struct cp_arg *cp_ast_new_arg(struct cp_arena *a, enum cp_arg_kind kind,
                              const char *text, size_t len,
                              const struct cp_loc *loc)
{
    struct cp_arg *g = cp_arena_alloc(a, sizeof(*g));
    g->n.kind = CP_N_ARG;
    g->kind = kind;
    g->text = cp_arena_strndup(a, text, len);
    g->len = len;
    if (loc)
        g->n.loc = *loc;
    return g;
}

struct cp_loc cp_loc_span(const struct cp_loc *a, const struct cp_loc *b)
{
    struct cp_loc l = *a;
    l.end_line = b->end_line;
    l.end_col = b->end_col;
    return l;
}

/* ---- dump -------------------------------------------------------------- */

static const char *cp_kind_name(enum cp_node_kind k)
{
    switch (k) {
    case CP_N_FILE:
        return "file";
    case CP_N_PROFILE:
        return "profile";
    case CP_N_FAIL:
        return "fail";
    case CP_N_PARAM:
        return "param";
    case CP_N_LET:
        return "let";
    case CP_N_INCLUDE:
        return "include";
    case CP_N_WRITE:
        return "write";
    case CP_N_EXEC:
        return "exec";
    case CP_N_DENY:
        return "deny";
    case CP_N_GATE:
        return "gate";
    case CP_N_NET:
        return "net";
    case CP_N_EXPECT:
        return "expect";
    case CP_N_CONTENT:
        return "content";
    case CP_N_ARG:
        return "arg";
    }
    return "?";
}

static void cp_dump_str(const char *s, size_t n, FILE *out)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void cp_dump_loc(const struct cp_loc *l, FILE *out)
{
    fprintf(out, " @%u:%u-%u:%u", l->line, l->col, l->end_line, l->end_col);
}

static void cp_dump_word(const char *tag, const struct cp_word *w, FILE *out)
{
    if (!w->text)
        return;
    fprintf(out, " (%s ", tag);
    cp_dump_str(w->text, strlen(w->text), out);
    cp_dump_loc(&w->loc, out);
    fputc(')', out);
}

static void cp_dump_comment(const struct cp_comment *c, FILE *out)
{
    fputs(" (comment ", out);
    cp_dump_str(c->text, c->len, out);
    cp_dump_loc(&c->loc, out);
    fputc(')', out);
}

static void cp_dump_comments(const char *tag, struct cp_comment *const *cs,
                             size_t n, FILE *out)
{
    if (!n)
        return;
    fprintf(out, " (%s", tag);
    for (size_t i = 0; i < n; i++)
        cp_dump_comment(cs[i], out);
    fputc(')', out);
}

static void cp_dump_file(const struct cp_file *f, int depth, FILE *out);

static void cp_dump_arg(const struct cp_arg *g, FILE *out)
{
    static const char *const kinds[] = {"bare", "quoted", "regex"};
    fprintf(out, " (%s ", kinds[g->kind]);
    cp_dump_str(g->text, g->len, out);
    cp_dump_loc(&g->n.loc, out);
    cp_dump_comments("leading", g->leading, g->nleading, out);
    if (g->trailing)
        cp_dump_comments("trailing", &g->trailing, 1, out);
    fputc(')', out);
}

static void cp_indent(int depth, FILE *out)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", out);
}

static void cp_dump_stmt(const struct cp_stmt *s, int depth, FILE *out)
{
    cp_indent(depth, out);
    fprintf(out, "(%s", cp_kind_name(s->n.kind));
    cp_dump_loc(&s->n.loc, out);
    if (s->blank_before)
        fputs(" blank", out);
    if (s->braced)
        fputs(" braced", out);
    cp_dump_comments("leading", s->leading, s->nleading, out);
    bool named = s->n.kind == CP_N_PARAM || s->n.kind == CP_N_LET;
    if (!named)
        cp_dump_word(s->n.kind == CP_N_EXPECT ? "verdict" : "word", &s->sub,
                     out);
    cp_dump_word("access", &s->access, out);
    if (named)
        cp_dump_word("name", &s->name, out);
    for (size_t i = 0; i < s->nargs; i++)
        cp_dump_arg(s->args[i], out);
    cp_dump_comments("inner", s->inner_trailing, s->ninner_trailing, out);
    if (s->trailing)
        cp_dump_comments("trailing", &s->trailing, 1, out);
    if (s->included) {
        fputc('\n', out);
        cp_dump_file(s->included, depth + 1, out);
    }
    fputc(')', out);
}

static void cp_dump_file(const struct cp_file *f, int depth, FILE *out)
{
    cp_indent(depth, out);
    fputs("(file ", out);
    const char *p = f->src ? f->src->path : "";
    cp_dump_str(p, strlen(p), out);
    fprintf(out, " (version %u", f->version);
    if (f->header.src)
        cp_dump_loc(&f->header, out);
    fputc(')', out);
    cp_dump_comments("leading", f->leading, f->nleading, out);
    if (f->header_trailing)
        cp_dump_comments("header", &f->header_trailing, 1, out);
    for (size_t i = 0; i < f->nstmts; i++) {
        fputc('\n', out);
        cp_dump_stmt(f->stmts[i], depth + 1, out);
    }
    if (f->ntrailing) {
        fputc('\n', out);
        cp_indent(depth + 1, out);
        fputs("(trailing", out);
        for (size_t i = 0; i < f->ntrailing; i++)
            cp_dump_comment(f->trailing[i], out);
        fputc(')', out);
    }
    fputc(')', out);
}

void cp_ast_dump(const struct cp_file *f, FILE *out)
{
    if (!f) {
        fputs("(nil)\n", out);
        return;
    }
    cp_dump_file(f, 0, out);
    fputc('\n', out);
}

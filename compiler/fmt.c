/* SPDX-License-Identifier: MIT */
/* `confpol fmt`: prints a parsed file in the canonical layout of
 * spec/language.md (section Canonical layout).  The layout depends only on
 * the AST, and the parser keeps everything the layout prints (comments,
 * blank lines, braces), so formatting formatted text changes nothing. */
#include <string.h>

#include "confpol.h"

#include "ast.h"

/* More arguments than this, or comments inside the braces, give a braced
 * list with one argument per line. */
#define CP_FMT_INLINE_MAX 4

static void cp_fmt_comment(const struct cp_comment *c, struct cp_buf *out)
{
    cp_buf_add(out, c->text, c->len);
}

static void cp_fmt_arg(const struct cp_arg *g, struct cp_buf *out)
{
    switch (g->kind) {
    case CP_ARG_BARE:
        cp_buf_add(out, g->text, g->len);
        break;
    case CP_ARG_QUOTED:
        cp_buf_addc(out, '"');
        cp_buf_add(out, g->text, g->len);
        cp_buf_addc(out, '"');
        break;
    case CP_ARG_REGEX:
        cp_buf_adds(out, "re\"");
        cp_buf_add(out, g->text, g->len);
        cp_buf_addc(out, '"');
        break;
    }
}

static bool cp_fmt_has_inner_comments(const struct cp_stmt *s)
{
    if (s->ninner_trailing)
        return true;
    for (size_t i = 0; i < s->nargs; i++)
        if (s->args[i]->nleading || s->args[i]->trailing)
            return true;
    return false;
}

static void cp_fmt_leading(struct cp_comment *const *cs, size_t n,
                           const char *indent, bool *first, struct cp_buf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (cs[i]->blank_before && !*first)
            cp_buf_addc(out, '\n');
        cp_buf_adds(out, indent);
        cp_fmt_comment(cs[i], out);
        cp_buf_addc(out, '\n');
        *first = false;
    }
}

static void cp_fmt_word(const struct cp_word *w, struct cp_buf *out)
{
    if (!w->text)
        return;
    cp_buf_addc(out, ' ');
    cp_buf_adds(out, w->text);
}

static void cp_fmt_stmt(const struct cp_stmt *s, struct cp_buf *out)
{
    cp_buf_adds(out, s->keyword.text);
    switch (s->n.kind) {
    case CP_N_PARAM:
        cp_fmt_word(&s->name, out);
        break;
    case CP_N_LET:
        cp_fmt_word(&s->name, out);
        cp_buf_adds(out, " =");
        break;
    case CP_N_EXPECT:
        cp_fmt_word(&s->sub, out);
        cp_fmt_word(&s->access, out);
        break;
    case CP_N_PROFILE:
    case CP_N_FAIL:
    case CP_N_DENY:
    case CP_N_GATE:
    case CP_N_NET:
    case CP_N_CONTENT:
        cp_fmt_word(&s->sub, out);
        break;
    case CP_N_FILE:
    case CP_N_INCLUDE:
    case CP_N_WRITE:
    case CP_N_EXEC:
    case CP_N_ARG:
        break;
    }
    bool braces = s->nargs > CP_FMT_INLINE_MAX ||
                  (s->braced && cp_fmt_has_inner_comments(s));
    if (!braces) {
        for (size_t i = 0; i < s->nargs; i++) {
            cp_buf_addc(out, ' ');
            cp_fmt_arg(s->args[i], out);
        }
    } else {
        cp_buf_adds(out, " {\n");
        bool first = true; /* no blank lines inside braces */
        for (size_t i = 0; i < s->nargs; i++) {
            const struct cp_arg *g = s->args[i];
            cp_fmt_leading(g->leading, g->nleading, "    ", &first, out);
            cp_buf_adds(out, "    ");
            cp_fmt_arg(g, out);
            if (g->trailing) {
                cp_buf_addc(out, ' ');
                cp_fmt_comment(g->trailing, out);
            }
            cp_buf_addc(out, '\n');
            first = true;
        }
        for (size_t i = 0; i < s->ninner_trailing; i++) {
            cp_buf_adds(out, "    ");
            cp_fmt_comment(s->inner_trailing[i], out);
            cp_buf_addc(out, '\n');
        }
        cp_buf_addc(out, '}');
    }
    if (s->trailing) {
        cp_buf_addc(out, ' ');
        cp_fmt_comment(s->trailing, out);
    }
    cp_buf_addc(out, '\n');
}

void cp_fmt_file(const struct cp_file *f, struct cp_buf *out)
{
    bool first = true;
    cp_fmt_leading(f->leading, f->nleading, "", &first, out);
    if (f->header_blank_before && !first)
        cp_buf_addc(out, '\n');
    cp_buf_printf(out, "confpol %u", f->version ? f->version : 1);
    if (f->header_trailing) {
        cp_buf_addc(out, ' ');
        cp_fmt_comment(f->header_trailing, out);
    }
    cp_buf_addc(out, '\n');
    first = false;
    for (size_t i = 0; i < f->nstmts; i++) {
        const struct cp_stmt *s = f->stmts[i];
        cp_fmt_leading(s->leading, s->nleading, "", &first, out);
        if (s->blank_before)
            cp_buf_addc(out, '\n');
        cp_fmt_stmt(s, out);
    }
    cp_fmt_leading(f->trailing, f->ntrailing, "", &first, out);
}

/* SPDX-License-Identifier: MIT */
/* The shell reader (spec/patterns.md, "Reading a command line").
 *
 * One recursive-descent pass over the line: words with their quoting,
 * expansions and substitutions, control operators, groups and
 * redirections.  A substitution's body is read by the same pass (no
 * pre-scan for its end), so the work is linear in the line; strings that
 * the shell reads again (sh -c, eval, backquotes, ...) are read again, and
 * every byte read counts against one budget.  Then each simple command is
 * unwrapped: every reading of it (with and without each wrapper) is kept,
 * because a gate must match what runs and what wraps it.
 *
 * Wherever the shell's reading depends on what happens when it runs, the
 * reader takes the reading under which more gates match (a glob for an
 * expansion, the lines of a here-document read as commands), or reports
 * the command as unknown when even that cannot say what runs. */
#include "shell_read.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cmd_tables.h"
#include "text.h"

struct raw {
    struct cp_sh_word *w;
    size_t n;
    struct cp_sh_redir *r;
    size_t nr;
    int depth; /* nesting of substitutions and strings read again */
    const struct raw *pipe_from; /* the command whose output is its
                                    standard input ("a | b"), or NULL */
};

/* A here-document: its delimiter, then where its body went. */
struct hdoc {
    const char *delim;
    bool tabs, quoted; /* <<- ; a quoted delimiter */
    const void *cb;    /* the command being built that it belongs to */
    struct raw *owner; /* that command, once ended */
    size_t idx;        /* its redirection in owner */
    int nest;
};

struct rd {
    struct cp_arena *a;
    struct cp_vec raw;  /* struct raw * */
    struct cp_vec cmds; /* struct cp_sh_cmd * */
    struct cp_vec docs; /* struct hdoc *: every body read */
    size_t budget;
    const char *unknown, *error;
};

/* One pass over one string. */
struct lx {
    struct rd *rd;
    const char *s;
    size_t len, i;
    int nest;
    size_t no_brace_until; /* no brace expansion starts before this */
    struct cp_vec pend;    /* struct hdoc *: bodies to read at the next
                              newline, in order */
};

/* A word being built: its text and glob form. */
struct wb {
    struct cp_buf t, g;
    bool inword, dyn, split, quoted;
    bool brace; /* holds a brace expansion: any words at all */
};

/* Redirection operators waiting for their target word. */
enum {
    PEND_NONE = -1,
    PEND_DUP_IN = 100,
    PEND_DUP_OUT = 101,
    PEND_DOC_TABS = 102, /* <<- */
};

/* A simple command being built. */
struct cb {
    struct cp_vec words;  /* struct cp_sh_word * */
    struct cp_vec redirs; /* struct cp_sh_redir * */
    int pending;
    const struct raw *pipe_from; /* the command before '|', for the next */
};

static void rd_fail(struct rd *rd, const char *why)
{
    if (!rd->error)
        rd->error = why;
}

static void rd_unknown(struct rd *rd, const char *why)
{
    if (!rd->unknown)
        rd->unknown = why;
}

static void parse_list(struct lx *x, char stop);

/* ---- words -------------------------------------------------------------- */

static void wb_lit(struct wb *w, char c)
{
    cp_buf_addc(&w->t, c);
    cp_buf_addc(&w->g, c);
    w->inword = true;
}

/* An expansion: its text kept as written, '*' in the glob form. */
static void wb_dyn(struct wb *w, const char *p, size_t n, bool quoted)
{
    cp_buf_add(&w->t, p, n);
    if (!(w->g.len && w->g.data[w->g.len - 1] == '*'))
        cp_buf_addc(&w->g, '*');
    w->inword = w->dyn = true;
    if (!quoted)
        w->split = true;
}

static void wb_reset(struct wb *w)
{
    cp_buf_reset(&w->t);
    cp_buf_reset(&w->g);
    w->inword = w->dyn = w->split = w->quoted = w->brace = false;
}

static void wb_free(struct wb *w)
{
    cp_buf_free(&w->t);
    cp_buf_free(&w->g);
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* A here-document's delimiter WORD (quoted: QUOTED; <<-: TABS), the
 * redirection IDX of the command being built: its body is read at the
 * next newline. */
static void doc_expect(struct lx *x, const void *cb,
                       const struct cp_sh_word *word, bool quoted, bool tabs,
                       size_t idx)
{
    struct hdoc *d = cp_arena_alloc(x->rd->a, sizeof *d);
    d->cb = cb;
    d->delim = word->text;
    d->quoted = quoted;
    d->tabs = tabs;
    d->idx = idx;
    d->nest = x->nest;
    cp_vec_push(x->rd->a, &x->pend, d);
}

/* Is the line s[b..e) the delimiter D (after leading tabs under <<-)? */
static bool doc_is_delim(const struct lx *x, size_t b, size_t e,
                         const struct hdoc *d)
{
    while (d->tabs && b < e && x->s[b] == '\t')
        b++;
    size_t n = strlen(d->delim);
    return e - b == n && memcmp(x->s + b, d->delim, n) == 0;
}

/* At x->i, just after a newline: the bodies of the here-documents
 * waiting, each up to its delimiter line (or to the end, as bash reads
 * one without). */
static void doc_read(struct lx *x)
{
    for (size_t k = 0; k < x->pend.len; k++) {
        struct hdoc *d = x->pend.items[k];
        size_t start = x->i;
        size_t b = start, end = x->len;
        while (b < x->len) {
            const char *nl = memchr(x->s + b, '\n', x->len - b);
            size_t e = nl ? (size_t)(nl - x->s) : x->len;
            if (doc_is_delim(x, b, e, d)) {
                end = b;
                x->i = nl ? e + 1 : e;
                break;
            }
            b = nl ? e + 1 : x->len;
        }
        if (end == x->len)
            x->i = x->len;
        if (d->owner && d->idx < d->owner->nr) {
            struct cp_sh_redir *r = &d->owner->r[d->idx];
            r->body = cp_arena_strndup(x->rd->a, x->s + start, end - start);
            r->body_quoted = d->quoted;
            cp_vec_push(x->rd->a, &x->rd->docs, d);
        }
    }
    x->pend.len = 0;
}

static void cb_end_word(struct lx *x, struct cb *c, struct wb *w)
{
    if (!w->inword)
        return;
    struct cp_arena *a = x->rd->a;
    struct cp_sh_word word = {
        .text = cp_arena_strndup(a, w->t.data ? w->t.data : "", w->t.len),
        .glob = w->brace ? "*"
                : w->dyn ? cp_arena_strndup(a, w->g.data, w->g.len)
                         : NULL,
        .split = w->split,
    };
    if (c->pending != PEND_NONE) {
        struct cp_sh_redir *r = cp_arena_alloc(a, sizeof *r);
        int op = c->pending;
        if (op == CP_SH_HEREDOC || op == PEND_DOC_TABS) {
            doc_expect(x, c, &word, w->quoted, op == PEND_DOC_TABS,
                       c->redirs.len);
            op = CP_SH_HEREDOC;
        }
        if (op == PEND_DUP_IN || op == PEND_DUP_OUT) {
            bool dup = !word.glob &&
                       (all_digits(word.text) || strcmp(word.text, "-") == 0);
            op = dup ? CP_SH_DUP : op == PEND_DUP_IN ? CP_SH_IN : CP_SH_OUT;
        }
        r->op = (enum cp_sh_rdir)op;
        r->target = word;
        cp_vec_push(a, &c->redirs, r);
        c->pending = PEND_NONE;
    } else {
        struct cp_sh_word *p = cp_arena_alloc(a, sizeof *p);
        *p = word;
        cp_vec_push(a, &c->words, p);
    }
    wb_reset(w);
}

static const struct raw *cb_end_cmd(struct lx *x, struct cb *c, struct wb *w)
{
    cb_end_word(x, c, w);
    c->pending = PEND_NONE;
    const struct raw *from = c->pipe_from;
    c->pipe_from = NULL;
    if (c->words.len == 0 && c->redirs.len == 0)
        return NULL;
    if (x->rd->raw.len >= CP_SH_MAX_CMDS) {
        rd_fail(x->rd, "more than 20,000 simple commands");
        x->i = x->len;
        return NULL;
    }
    struct cp_arena *a = x->rd->a;
    struct raw *r = cp_arena_alloc(a, sizeof *r);
    r->n = c->words.len;
    r->w = cp_arena_alloc(a, (r->n ? r->n : 1) * sizeof *r->w);
    for (size_t k = 0; k < r->n; k++)
        r->w[k] = *(struct cp_sh_word *)c->words.items[k];
    r->nr = c->redirs.len;
    r->r = r->nr ? cp_arena_alloc(a, r->nr * sizeof *r->r) : NULL;
    for (size_t k = 0; k < r->nr; k++)
        r->r[k] = *(struct cp_sh_redir *)c->redirs.items[k];
    r->depth = x->nest;
    r->pipe_from = from;
    cp_vec_push(a, &x->rd->raw, r);
    for (size_t k = 0; k < x->pend.len; k++) {
        struct hdoc *d = x->pend.items[k];
        if (d->cb == c && !d->owner)
            d->owner = r;
    }
    c->words.len = c->redirs.len = 0;
    return r;
}

/* ---- quoting and expansions ---------------------------------------------- */

/* $'...' from just after the opening quote: the escapes bash decodes
 * (\a \b \e \E \f \n \r \t \v \\ \' \" \? \xHH \NNN \cX \uHHHH
 * \UHHHHHHHH). */
/* The byte of the simple escape \E of $'...' (\a \b \e \E \f \n \r \t \v),
 * or -1. */
static int ansi_simple(char e)
{
    static const char from[] = "abeEfnrtv";
    static const char to[] = {'\a', '\b', 0x1b, 0x1b, '\f',
                              '\n', '\r', '\t', '\v'};
    const char *p = e ? strchr(from, e) : NULL;
    return p ? to[p - from] : -1;
}

/* The numeric escapes of $'...' after their letter: \xHH (one or two
 * digits; none: the text "\x" itself) and \NNN (one to three octal digits,
 * E the first).  s[*ip] is the byte after the letter. */
static char ansi_number(const char *s, size_t len, size_t *ip, char e,
                        struct wb *w)
{
    size_t i = *ip;
    int v = 0, nd = 0;
    if (e == 'x') {
        while (nd < 2 && i < len && cp_hex_digit(s[i]) >= 0)
            v = v * 16 + cp_hex_digit(s[i++]), nd++;
        if (!nd)
            wb_lit(w, '\\');
        *ip = i;
        return nd ? (char)v : 'x';
    }
    v = e - '0', nd = 1;
    while (nd < 3 && i < len && s[i] >= '0' && s[i] <= '7')
        v = v * 8 + (s[i++] - '0'), nd++;
    *ip = i;
    return (char)v;
}

/* The byte of the escape \E of $'...' (s[*ip] is the byte after E), with
 * the backslash written first where bash keeps it. */
static char ansi_escape(const char *s, size_t len, size_t *ip, char e,
                        struct wb *w)
{
    int simple = ansi_simple(e);
    if (simple >= 0)
        return (char)simple;
    if (e == 'c')
        return *ip < len ? (char)(s[(*ip)++] & 0x1f) : 'c';
    if (e == 'x' || (e >= '0' && e <= '7'))
        return ansi_number(s, len, ip, e, w);
    if (e != '\\' && e != '\'' && e != '"' && e != '?')
        wb_lit(w, '\\');
    return e;
}

/* \u (up to 4 hex digits) and \U (up to 8) of $'...', E the letter,
 * s[*ip] the byte after it: the code point written in UTF-8, as bash does
 * in a UTF-8 locale ($'\u0073udo' is sudo).  Without a digit the text
 * stays "\u"; U+0000 ends nothing and is dropped, as \0 is; a value past
 * U+10FFFF is written as the longest bash would (up to 6 bytes). */
static void ansi_unicode(const char *s, size_t len, size_t *ip, char e,
                         struct wb *w)
{
    size_t i = *ip;
    unsigned long v = 0;
    int nd = 0, max = e == 'u' ? 4 : 8;
    while (nd < max && i < len && cp_hex_digit(s[i]) >= 0)
        v = v * 16 + (unsigned long)cp_hex_digit(s[i++]), nd++;
    *ip = i;
    if (!nd) {
        wb_lit(w, '\\');
        wb_lit(w, e);
        return;
    }
    if (v == 0)
        return;
    if (v < 0x80) {
        wb_lit(w, (char)v);
        return;
    }
    int n = v < 0x800       ? 2
            : v < 0x10000   ? 3
            : v < 0x200000  ? 4
            : v < 0x4000000 ? 5
                            : 6;
    static const unsigned char lead[] = {0, 0, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc};
    wb_lit(w, (char)(lead[n] | (v >> (6 * (n - 1)))));
    for (int k = n - 2; k >= 0; k--)
        wb_lit(w, (char)(0x80 | ((v >> (6 * k)) & 0x3f)));
}

static void rd_ansi_c(struct lx *x, struct wb *w)
{
    const char *s = x->s;
    size_t i = x->i, len = x->len;
    w->inword = w->quoted = true;
    while (i < len && s[i] != '\'') {
        if (s[i] != '\\' || i + 1 >= len) {
            wb_lit(w, s[i++]);
            continue;
        }
        char e = s[i + 1];
        i += 2;
        if (e == 'u' || e == 'U') {
            ansi_unicode(s, len, &i, e, w);
            continue;
        }
        char out = ansi_escape(s, len, &i, e, w);
        if (out != '\0')
            wb_lit(w, out);
    }
    if (i >= len)
        rd_fail(x->rd, "unterminated $'...' quote");
    x->i = i < len ? i + 1 : len;
}

static bool nest_in(struct lx *x)
{
    if (x->nest >= CP_SH_MAX_NEST) {
        rd_fail(x->rd, "nested more than 64 levels deep");
        x->i = x->len;
        return false;
    }
    x->nest++;
    return true;
}

/* Reads s[0..len) as a command line of its own, nested at `nest`. */
static void read_string(struct rd *rd, const char *s, size_t len, int nest)
{
    if (nest > CP_SH_MAX_NEST) {
        rd_fail(rd, "nested more than 64 levels deep");
        return;
    }
    if (len + 1 > rd->budget) {
        rd_fail(rd, "too much to read (strings read again and again)");
        return;
    }
    rd->budget -= len + 1;
    struct lx x = {.rd = rd, .s = s, .len = len, .nest = nest};
    parse_list(&x, 0);
}

/* `...` at x->i: the body, with \\ \` \$ (and \" inside double quotes)
 * unescaped, is read as commands. */
static void rd_backquote(struct lx *x, struct wb *w, bool in_dq)
{
    size_t start = x->i, j = x->i + 1;
    struct cp_buf b = {0};
    while (j < x->len && x->s[j] != '`') {
        char c = x->s[j];
        if (c == '\\' && j + 1 < x->len &&
            (x->s[j + 1] == '\\' || x->s[j + 1] == '`' || x->s[j + 1] == '$' ||
             (in_dq && x->s[j + 1] == '"'))) {
            cp_buf_addc(&b, x->s[j + 1]);
            j += 2;
            continue;
        }
        cp_buf_addc(&b, c);
        j++;
    }
    if (j >= x->len) {
        rd_fail(x->rd, "unterminated backquote");
        x->i = x->len;
        cp_buf_free(&b);
        return;
    }
    const char *body = cp_arena_strndup(x->rd->a, b.data ? b.data : "", b.len);
    size_t blen = b.len;
    cp_buf_free(&b);
    read_string(x->rd, body, blen, x->nest + 1);
    x->i = j + 1;
    wb_dyn(w, x->s + start, x->i - start, in_dq);
}

static void rd_dquote(struct lx *x, struct wb *w);
static void rd_dollar(struct lx *x, struct wb *w, bool in_dq);

/* ${...} from just after the '{': to the matching '}', reading the
 * substitutions inside. */
static void rd_brace(struct lx *x)
{
    struct wb scratch = {0};
    int depth = 1;
    while (x->i < x->len && !x->rd->error) {
        char c = x->s[x->i];
        if (c == '}') {
            x->i++;
            if (--depth == 0)
                break;
        } else if (c == '{') {
            depth++;
            x->i++;
        } else if (c == '\\') {
            /* a backslash last in the line escapes nothing: stay inside */
            x->i += x->i + 1 < x->len ? 2 : 1;
        } else if (c == '\'') {
            const char *q = memchr(x->s + x->i + 1, '\'', x->len - x->i - 1);
            x->i = q ? (size_t)(q - x->s) + 1 : x->len;
        } else if (c == '"') {
            x->i++;
            rd_dquote(x, &scratch);
        } else if (c == '$') {
            rd_dollar(x, &scratch, true);
        } else if (c == '`') {
            rd_backquote(x, &scratch, true);
        } else {
            x->i++;
        }
    }
    if (depth > 0)
        rd_fail(x->rd, "unterminated ${...}");
    wb_free(&scratch);
}

/* '$' at x->i. */
static bool sh_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* The end of the parameter named after the '$' at s[i] (len bytes in s):
 * a name, one digit or one special parameter (@ * # ? $ ! -); 0 if none
 * follows. */
static size_t dollar_name_end(const char *s, size_t len, size_t i)
{
    char c = i + 1 < len ? s[i + 1] : '\0';
    size_t e = i + 1;
    if (sh_name_start(c)) {
        while (e < len && (sh_name_start(s[e]) || (s[e] >= '0' && s[e] <= '9')))
            e++;
        return e;
    }
    if ((c >= '0' && c <= '9') || (c && strchr("@*#?$!-", c)))
        return i + 2;
    return 0;
}

/* $(...), $((...)) and ${...} from the '$': read to the closing bracket,
 * one word that may be anything. */
static void rd_dollar_group(struct lx *x, struct wb *w, bool in_dq)
{
    size_t i = x->i;
    bool paren = x->s[i + 1] == '(';
    x->i += 2;
    if (!nest_in(x))
        return;
    if (paren)
        parse_list(x, ')');
    else
        rd_brace(x);
    x->nest--;
    wb_dyn(w, x->s + i, x->i - i, in_dq);
}

static void rd_dollar(struct lx *x, struct wb *w, bool in_dq)
{
    const char *s = x->s;
    size_t i = x->i;
    char c = i + 1 < x->len ? s[i + 1] : '\0';
    if (c == '\'' && !in_dq) {
        x->i += 2;
        rd_ansi_c(x, w);
        return;
    }
    if (c == '"' && !in_dq) {
        x->i++; /* $"...": a translated string, read as "..." */
        return;
    }
    if (c == '(' || c == '{') {
        rd_dollar_group(x, w, in_dq);
        return;
    }
    size_t e = dollar_name_end(s, x->len, i);
    if (!e) {
        wb_lit(w, '$');
        x->i++;
        return;
    }
    wb_dyn(w, s + i, e - i, in_dq);
    x->i = e;
}

/* "..." from just after the opening quote. */
static void rd_dquote(struct lx *x, struct wb *w)
{
    w->inword = w->quoted = true;
    while (x->i < x->len && !x->rd->error) {
        char c = x->s[x->i];
        if (c == '"') {
            x->i++;
            return;
        }
        if (c == '\\' && x->i + 1 < x->len &&
            strchr("\"\\$`\n", x->s[x->i + 1])) {
            if (x->s[x->i + 1] != '\n')
                wb_lit(w, x->s[x->i + 1]);
            x->i += 2;
        } else if (c == '$') {
            rd_dollar(x, w, true);
        } else if (c == '`') {
            rd_backquote(x, w, true);
        } else {
            wb_lit(w, c);
            x->i++;
        }
    }
    rd_fail(x->rd, "unterminated double quote");
}

/* ---- redirections ---------------------------------------------------------- */

/* The operator at x->i ('<', '>', or '&' before '>'). */
/* The operator of an input redirection at s[*ip] ('<'): <, <<, <<-,
 * <<<, <>, <&; *ip is moved past it. */
static int redir_in_op(const char *s, size_t len, size_t *ip)
{
    size_t i = *ip + 1;
    int op = CP_SH_IN;
    if (i < len && s[i] == '<') {
        i++;
        op = CP_SH_HEREDOC;
        if (i < len && s[i] == '<')
            i++, op = CP_SH_HERESTR;
        else if (i < len && s[i] == '-')
            i++, op = PEND_DOC_TABS;
    } else if (i < len && s[i] == '>') {
        i++, op = CP_SH_INOUT;
    } else if (i < len && s[i] == '&') {
        i++, op = PEND_DUP_IN;
    }
    *ip = i;
    return op;
}

/* The operator of a redirection at s[*ip] ('&', '>' or '<'): &>, &>>, >,
 * >>, >|, >& or an input one; *ip is moved past it. */
static int redir_op(const char *s, size_t len, size_t *ip)
{
    size_t i = *ip;
    int op = CP_SH_OUT;
    if (s[i] == '&') {
        i += 2;
        if (i < len && s[i] == '>')
            i++;
    } else if (s[i] == '>') {
        i++;
        if (i < len && (s[i] == '>' || s[i] == '|'))
            i++;
        else if (i < len && s[i] == '&')
            i++, op = PEND_DUP_OUT;
    } else {
        return redir_in_op(s, len, ip);
    }
    *ip = i;
    return op;
}

static void rd_redirect(struct lx *x, struct cb *c, struct wb *w)
{
    /* "2>", "{fd}>": the word before names a descriptor */
    if (w->inword && !w->dyn && !w->quoted && w->t.len &&
        (all_digits(w->t.data) ||
         (w->t.data[0] == '{' && w->t.data[w->t.len - 1] == '}')))
        wb_reset(w);
    else
        cb_end_word(x, c, w);
    c->pending = redir_op(x->s, x->len, &x->i);
}

/* ---- the pass ----------------------------------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Does the '{' at x->i begin a brace expansion ({a,b}, {1..3}, also with
 * quotes inside: {sudo,"x"})?  Strict: a ',' or '..' and then a '}' before
 * the word ends, nesting not checked.  A scan that reaches the end of the
 * word without one rules out every '{' before that end, so each byte is
 * scanned once. */
static bool brace_expansion(struct lx *x)
{
    if (x->i < x->no_brace_until)
        return false;
    bool list = false;
    size_t j = x->i;
    while (j < x->len) {
        char c = x->s[j];
        if (is_blank(c) || strchr("\n;&|()<>", c))
            break;
        if (c == '\\') {
            j += 2;
        } else if (c == '\'') {
            const char *q = memchr(x->s + j + 1, '\'', x->len - j - 1);
            j = q ? (size_t)(q - x->s) + 1 : x->len;
        } else if (c == '"') {
            for (j++; j < x->len && x->s[j] != '"'; j++)
                if (x->s[j] == '\\')
                    j++;
            j++;
        } else {
            if (c == ',' || (c == '.' && j + 1 < x->len && x->s[j + 1] == '.'))
                list = true;
            else if (c == '}' && list)
                return true;
            j++;
        }
    }
    x->no_brace_until = j;
    return false;
}

/* Does a ']' close the '[' at s[i] within the word? */
static bool bracket_glob(const struct lx *x)
{
    for (size_t j = x->i + 1; j < x->len; j++) {
        char c = x->s[j];
        if (c == ']')
            return true;
        if (is_blank(c) || strchr("\n;&|()<>", c))
            return false;
    }
    return false;
}

/* What a character of a list did to the loop reading it. */
enum pl_step {
    PL_NONE,   /* not one of the characters the step reads */
    PL_GO,     /* read: go on */
    PL_CLOSED, /* the list's closing ')' */
    PL_BREAK,  /* stop reading (an error, reported) */
};

/* A nested list after its opening "(" or "<(": false if too deep
 * (reported). */
static bool parse_nested(struct lx *x)
{
    if (!nest_in(x))
        return false;
    parse_list(x, ')');
    x->nest--;
    return true;
}

/* Does the byte at i end a simple command ('&>' is a redirection)? */
static bool is_cmd_end(const struct lx *x, size_t i)
{
    char ch = x->s[i];
    return ch == '\n' || ch == ';' || ch == '|' || ch == ')' ||
           (ch == '&' && !(i + 1 < x->len && x->s[i + 1] == '>'));
}

/* Is the '|' at i a pipe ("|" or "|&"), not half of "||"? */
static bool is_pipe(const struct lx *x, size_t i)
{
    return x->s[i] == '|' && !(i + 1 < x->len && x->s[i + 1] == '|') &&
           !(i > 0 && x->s[i - 1] == '|');
}

/* The characters outside words: blanks, the list's closing ')', command
 * separators, '(' and comments. */
static enum pl_step parse_sep(struct lx *x, struct cb *c, struct wb *w,
                              char stop)
{
    char ch = x->s[x->i];
    size_t i = x->i;
    if (is_blank(ch)) {
        cb_end_word(x, c, w);
        x->i++;
    } else if (ch == ')' && stop == ')') {
        x->i++;
        return PL_CLOSED;
    } else if (is_cmd_end(x, i)) {
        const struct raw *r = cb_end_cmd(x, c, w);
        /* a pipe: its output is the next command's standard input */
        if (is_pipe(x, i))
            c->pipe_from = r;
        x->i++;
        if (ch == '\n' && x->pend.len)
            doc_read(x);
    } else if (ch == '(') {
        /* a subshell, a function's "()", an array: the words inside
         * are read as commands (the strict reading) */
        cb_end_cmd(x, c, w);
        x->i++;
        return parse_nested(x) ? PL_GO : PL_BREAK;
    } else if (ch == '#' && !w->inword) {
        while (x->i < x->len && x->s[x->i] != '\n')
            x->i++;
    } else {
        return PL_NONE;
    }
    return PL_GO;
}

/* A backslash outside quotes: a line continuation or a quoted byte. */
static void rd_backslash(struct lx *x, struct wb *w)
{
    size_t i = x->i;
    if (i + 1 < x->len && x->s[i + 1] == '\n') {
        x->i += 2;
    } else if (i + 1 < x->len) {
        wb_lit(w, x->s[i + 1]);
        w->quoted = true;
        x->i += 2;
    } else {
        wb_lit(w, '\\');
        x->i++;
    }
}

/* '...': its bytes as they are.  False if it is not closed (reported). */
static bool rd_squote(struct lx *x, struct wb *w)
{
    size_t i = x->i;
    const char *q = memchr(x->s + i + 1, '\'', x->len - i - 1);
    if (!q) {
        rd_fail(x->rd, "unterminated single quote");
        return false;
    }
    w->inword = w->quoted = true;
    for (const char *p = x->s + i + 1; p < q; p++)
        wb_lit(w, *p);
    x->i = (size_t)(q - x->s) + 1;
    return true;
}

/* A byte of a word with no quoting or expansion of its own: a glob
 * character, a brace expansion, a leading '~' or a literal byte. */
static void rd_plain_char(struct lx *x, struct wb *w, char ch)
{
    if (ch == '*' || ch == '?' || (ch == '[' && bracket_glob(x))) {
        cp_buf_addc(&w->t, ch);
        if (!(w->g.len && w->g.data[w->g.len - 1] == '*'))
            cp_buf_addc(&w->g, '*');
        w->inword = w->dyn = w->split = true;
    } else if (ch == '{' && (w->brace || brace_expansion(x))) {
        /* {a,b}: several words, each any of the forms (s{u,}do is
         * sudo and sdo): the word may be anything */
        wb_lit(w, ch);
        w->dyn = w->split = w->brace = true;
    } else if (ch == '~' && !w->inword) {
        wb_dyn(w, "~", 1, true); /* one word: a home directory */
    } else {
        wb_lit(w, ch);
    }
    x->i++;
}

/* The characters of words: quoting, expansions, redirections and plain
 * bytes. */
static enum pl_step parse_word_char(struct lx *x, struct cb *c, struct wb *w)
{
    char ch = x->s[x->i];
    size_t i = x->i;
    if (ch == '\\') {
        rd_backslash(x, w);
    } else if (ch == '\'') {
        return rd_squote(x, w) ? PL_GO : PL_BREAK;
    } else if (ch == '"') {
        x->i++;
        rd_dquote(x, w);
    } else if (ch == '$') {
        rd_dollar(x, w, false);
    } else if (ch == '`') {
        rd_backquote(x, w, false);
    } else if ((ch == '<' || ch == '>') && i + 1 < x->len &&
               x->s[i + 1] == '(') {
        x->i += 2; /* <(...) >(...): a file whose bytes a command makes */
        if (!parse_nested(x))
            return PL_BREAK;
        wb_dyn(w, x->s + i, x->i - i, true);
    } else if (ch == '<' || ch == '>' || ch == '&') {
        rd_redirect(x, c, w);
    } else {
        rd_plain_char(x, w, ch);
    }
    return PL_GO;
}

static void parse_list(struct lx *x, char stop)
{
    struct cb c = {.pending = PEND_NONE};
    struct wb w = {0};
    bool closed = false;
    while (x->i < x->len && !x->rd->error) {
        enum pl_step st = parse_sep(x, &c, &w, stop);
        if (st == PL_NONE)
            st = parse_word_char(x, &c, &w);
        if (st == PL_CLOSED)
            closed = true;
        if (st == PL_CLOSED || st == PL_BREAK)
            break;
    }
    if (stop && !closed && !x->rd->error)
        rd_fail(x->rd, "unterminated substitution or group: ')' missing");
    cb_end_cmd(x, &c, &w);
    wb_free(&w);
}

/* ---- readings: wrappers, nested code, unknowns ------------------------------ */

static void push_reading(struct rd *rd, const struct raw *r, size_t off)
{
    struct cp_sh_cmd *c = cp_arena_alloc(rd->a, sizeof *c);
    c->w = r->w + off;
    c->n = r->n - off;
    c->r = r->r;
    c->nr = r->nr;
    cp_vec_push(rd->a, &rd->cmds, c);
}

static bool in_list(const char *const *l, const char *w)
{
    for (; l && *l; l++)
        if (strcmp(*l, w) == 0)
            return true;
    return false;
}

static bool is_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    for (w++; *w && *w != '=' && *w != '[' && *w != '+'; w++)
        if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') ||
              (*w >= '0' && *w <= '9') || *w == '_'))
            return false;
    if (*w == '[') {
        w = strchr(w, ']');
        if (!w)
            return false;
        w++;
    }
    if (*w == '+')
        w++;
    return *w == '=';
}

/* The program name a word runs: directory removed, ASCII lower case (a
 * case-insensitive file system finds /usr/bin/sudo as SUDO). */
static const char *prog_name(struct cp_arena *a, const char *w)
{
    const char *b = strrchr(w, '/');
    if (b && b[1])
        w = b + 1;
    const char *u = w;
    while (*u && !(*u >= 'A' && *u <= 'Z'))
        u++;
    if (!*u)
        return w; /* already lower case */
    char *l = cp_arena_strdup(a, w);
    for (char *p = l; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return l;
}

static void reread(struct rd *rd, const char *text, int depth)
{
    read_string(rd, text, strlen(text), depth + 1);
}

static const char *const shells[] = {"sh",   "bash", "dash",  "zsh",  "ksh",
                                     "mksh", "ash",  "yash",  "posh", "fish",
                                     "csh",  "tcsh", "rbash", NULL};
static const char *const interpreters[] = {
    "perl",   "ruby",  "node", "nodejs",    "php",  "lua",
    "luajit", "tclsh", "wish", "rscript",   "pwsh", "powershell",
    "deno",   "bun",   "irb",  "osascript", NULL};

/* Reserved words and operator words that may begin a simple command. */
static const char *const lead_words[] = {
    "!",  "{",     "}",     "if", "then", "else",   "elif",
    "do", "while", "until", "fi", "done", "coproc", NULL};

/* python, python3, pypy3.10...: the interpreters named by a prefix. */
static bool is_python(const char *name)
{
    return strncmp(name, "python", 6) == 0 || strncmp(name, "pypy", 4) == 0;
}

static bool is_interpreter(const char *name)
{
    return is_python(name) || in_list(interpreters, name);
}

/* Options after which a shell or interpreter runs code given on its
 * command line (so not its standard input); options that take a value. */
static bool code_letter(const char *name, char l, bool shell)
{
    if (shell)
        return l == 'c';
    if (is_python(name))
        return l == 'c' || l == 'm';
    if (strcmp(name, "php") == 0)
        return l == 'r' || l == 'f';
    if (strcmp(name, "pwsh") == 0 || strcmp(name, "powershell") == 0)
        return l == 'c' || l == 'C' || l == 'f' || l == 'F';
    return l == 'e' || l == 'E' || l == 'p';
}

static bool value_letter(const char *name, char l, bool shell)
{
    if (shell)
        return l == 'o' || l == 'O';
    if (strncmp(name, "python", 6) == 0)
        return l == 'W' || l == 'X' || l == 'Q';
    return l == 'I' || l == 'r' || l == 'x';
}

static bool stdin_path(const char *t)
{
    return strcmp(t, "-") == 0 || strcmp(t, "/dev/stdin") == 0 ||
           strncmp(t, "/dev/fd/", 8) == 0 ||
           strncmp(t, "/proc/self/fd/", 14) == 0;
}

/* A shell or interpreter at r->w[off]: what program does it run? */
/* What one option word of an interpreter's command line does to the
 * reading of the next ones. */
enum interp_step {
    IS_NEXT,      /* the next word is read as usual */
    IS_SKIP_NEXT, /* the next word is this option's value */
    IS_END_AFTER, /* the options end after this word ("--", "-") */
    IS_EXIT,      /* the program prints and exits (--version, --help) */
};

/* Does the option T make the interpreter print and exit? */
static bool interp_exits(const char *t, bool shell)
{
    return strcmp(t, "--version") == 0 || strcmp(t, "--help") == 0 ||
           (!shell && (strcmp(t, "-V") == 0 || strcmp(t, "-h") == 0 ||
                       strcmp(t, "-v") == 0 || strcmp(t, "--v") == 0));
}

/* A long option T ("--..."): --command, --eval and --print give the code;
 * --rcfile and --init-file take the next word. */
static enum interp_step interp_long(const char *t, bool *code)
{
    if (strcmp(t, "--command") == 0 || strcmp(t, "--eval") == 0 ||
        strcmp(t, "--print") == 0 || strcmp(t, "-Command") == 0)
        *code = true;
    else if (strcmp(t, "--rcfile") == 0 || strcmp(t, "--init-file") == 0)
        return IS_SKIP_NEXT;
    return IS_NEXT;
}

/* Reads the option word T of the interpreter NAME (SHELL: a POSIX shell):
 * sets *code for an option that gives the code (-c, -e, --eval, -Command)
 * and *from_stdin for one that reads it from standard input (-s, "-"). */
static enum interp_step interp_option(const char *t, const char *name,
                                      bool shell, bool *code, bool *from_stdin)
{
    if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
        *from_stdin |= t[1] == '\0';
        return IS_END_AFTER;
    }
    if (interp_exits(t, shell))
        return IS_EXIT;
    if (t[1] == '-')
        return interp_long(t, code);
    if (!shell && (strcmp(t, "-Command") == 0 || strcmp(t, "-File") == 0)) {
        *code = true;
        return IS_NEXT;
    }
    for (const char *p = t + 1; *p; p++) {
        if (code_letter(name, *p, shell)) {
            *code = true;
            if (!shell)
                break; /* the rest of the word is the code */
        } else if (shell && *p == 's') {
            *from_stdin = true;
        } else if (value_letter(name, *p, shell)) {
            return p[1] == '\0' ? IS_SKIP_NEXT : IS_NEXT;
        }
    }
    return IS_NEXT;
}

/* Reads the options of the interpreter at word OFF of R: *end is the first
 * word after them.  Returns false if the program only prints and exits. */
static bool interp_options(const struct raw *r, size_t off, const char *name,
                           bool shell, bool *code, bool *from_stdin,
                           size_t *end)
{
    size_t j = off + 1;
    for (; j < r->n; j++) {
        const struct cp_sh_word *w = &r->w[j];
        const char *t = w->text;
        if (w->glob || !((t[0] == '-' || (shell && t[0] == '+')) && t[1]))
            break;
        enum interp_step st = interp_option(t, name, shell, code, from_stdin);
        if (st == IS_EXIT)
            return false;
        if (st == IS_END_AFTER) {
            j++;
            break;
        }
        if (st == IS_SKIP_NEXT)
            j++;
    }
    *end = j;
    return true;
}

static void rd_interp_stdin(struct rd *rd, const struct raw *r, size_t off,
                            const char *name, bool shell);
static void push_raw(struct rd *rd, struct cp_sh_word *w, size_t n,
                     const struct raw *from);

/* The option that gives the interpreter NAME its code on the command
 * line. */
static const char *code_option(const char *name)
{
    if (is_python(name))
        return "-c";
    if (strcmp(name, "php") == 0)
        return "-r";
    if (strcmp(name, "pwsh") == 0 || strcmp(name, "powershell") == 0)
        return "-Command";
    return "-e";
}

/* Code the interpreter at word OFF of R reads from standard input (a
 * here-document, a here-string): a reading of its own, as if given with
 * the interpreter's code option, so that the rules that see code after
 * -c or -e see it. */
static void push_code(struct rd *rd, const struct raw *r, size_t off,
                      const char *name, const char *code)
{
    struct cp_sh_word *w = cp_arena_alloc(rd->a, 3 * sizeof *w);
    w[0] = r->w[off];
    w[1] = (struct cp_sh_word){.text = code_option(name)};
    w[2] = (struct cp_sh_word){.text = code};
    push_raw(rd, w, 3, r);
}

/* The code given by an option, word J of R: a shell's is read as commands;
 * another language's is not read here. */
static void rd_interp_code(struct rd *rd, const struct raw *r, size_t off,
                           size_t j, const char *name, bool shell)
{
    if (j < r->n && !r->w[j].glob && stdin_path(r->w[j].text)) {
        rd_interp_stdin(rd, r, off, name, shell); /* pwsh -Command - */
        return;
    }
    if (!shell) {
        if (j < r->n && r->w[j].glob)
            rd_unknown(rd, "an interpreter runs code made of an "
                           "expansion");
        return;
    }
    if (j >= r->n) {
        rd_unknown(rd, "sh -c without its string: the commands come from "
                       "elsewhere");
    } else if (r->w[j].glob) {
        rd_unknown(rd, "sh -c of an expansion: the commands are known "
                       "only when it runs");
    } else {
        reread(rd, r->w[j].text, r->depth);
    }
}

/* printf's format alone as it prints it: NULL unless its only escapes are
 * \n, \t and \\ and it holds no '%' (then what it prints is not known
 * here). */
static const char *printf_text(struct cp_arena *a, const char *f)
{
    char *out = cp_arena_alloc(a, strlen(f) + 1), *o = out;
    for (; *f; f++) {
        if (*f == '%')
            return NULL;
        if (*f != '\\') {
            *o++ = *f;
            continue;
        }
        f++;
        if (*f == 'n')
            *o++ = '\n';
        else if (*f == 't')
            *o++ = '\t';
        else if (*f == '\\')
            *o++ = '\\';
        else
            return NULL;
    }
    *o = '\0';
    return out;
}

/* echo's words as it prints them (with -n or none; NULL with -e, -E or a
 * backslash, which some echos decode). */
static const char *echo_text(struct rd *rd, const struct raw *p)
{
    size_t k = 1;
    bool nl = true;
    while (k < p->n && strcmp(p->w[k].text, "-n") == 0) {
        nl = false;
        k++;
    }
    if (k < p->n && p->w[k].text[0] == '-' && strcmp(p->w[k].text, "-") != 0)
        return NULL; /* -e, -E, -ne ...: escapes or options not read here */
    struct cp_buf b = {0};
    for (size_t j = k; j < p->n; j++) {
        if (strchr(p->w[j].text, '\\')) {
            cp_buf_free(&b);
            return NULL;
        }
        if (j > k)
            cp_buf_addc(&b, ' ');
        cp_buf_adds(&b, p->w[j].text);
    }
    if (nl)
        cp_buf_addc(&b, '\n');
    const char *t = cp_arena_strndup(rd->a, b.data ? b.data : "", b.len);
    cp_buf_free(&b);
    return t;
}

/* What the command P writes to the pipe when the line alone says it: echo
 * or printf of static words, cat of a here-document or here-string.  NULL
 * when it is known only when it runs (a file, a download, an expansion). */
static const char *piped_text(struct rd *rd, const struct raw *p)
{
    if (p->n == 0)
        return NULL;
    for (size_t k = 0; k < p->n; k++)
        if (p->w[k].glob)
            return NULL;
    const char *name = prog_name(rd->a, p->w[0].text);
    if (strcmp(name, "cat") == 0 && p->n == 1 && p->nr > 0) {
        const struct cp_sh_redir *d = &p->r[p->nr - 1];
        if (d->op == CP_SH_HEREDOC && d->body)
            return d->body;
        if (d->op == CP_SH_HERESTR && !d->target.glob)
            return d->target.text;
        return NULL;
    }
    if (p->nr > 0)
        return NULL; /* its output may go elsewhere */
    if (strcmp(name, "echo") == 0)
        return echo_text(rd, p);
    if (strcmp(name, "printf") == 0 && p->n == 2)
        return printf_text(rd->a, p->w[1].text);
    return NULL;
}

/* The program comes from standard input: from the last input redirection
 * of R, if any, else from the pipe when the command before it says what
 * it writes. */
static void rd_interp_stdin(struct rd *rd, const struct raw *r, size_t off,
                            const char *name, bool shell)
{
    for (size_t k = r->nr; k-- > 0;) {
        const struct cp_sh_redir *d = &r->r[k];
        if (d->op == CP_SH_HEREDOC) {
            /* a shell's body is read as commands (docs_read); another
             * language's is its code */
            if (!shell && d->body)
                push_code(rd, r, off, name, d->body);
            return;
        }
        if (d->op == CP_SH_HERESTR) {
            if (d->target.glob)
                rd_unknown(rd, "a shell or interpreter reads its program "
                               "from an expansion");
            else if (shell)
                reread(rd, d->target.text, r->depth);
            else
                push_code(rd, r, off, name, d->target.text);
            return;
        }
        if (d->op == CP_SH_IN || d->op == CP_SH_INOUT) {
            if (d->target.glob || stdin_path(d->target.text))
                break;
            return; /* a script file */
        }
    }
    const char *code = r->pipe_from ? piped_text(rd, r->pipe_from) : NULL;
    if (code && shell && r->pipe_from->nr &&
        r->pipe_from->r[r->pipe_from->nr - 1].op == CP_SH_HEREDOC)
        return; /* a here-document's body: docs_read reads it as commands */
    if (code && shell)
        reread(rd, code, r->depth);
    else if (code)
        push_code(rd, r, off, name, code);
    else
        rd_unknown(rd, "a shell or interpreter reads its program from "
                       "standard input (a pipe, a substitution or the "
                       "terminal)");
}

static void rd_interp(struct rd *rd, const struct raw *r, size_t off,
                      const char *name, bool shell)
{
    bool code = false, from_stdin = false;
    size_t j;
    if (!interp_options(r, off, name, shell, &code, &from_stdin, &j))
        return; /* prints and exits */
    if (code) {
        rd_interp_code(rd, r, off, j, name, shell);
        return;
    }
    if (!from_stdin && j < r->n) {
        if (r->w[j].glob) {
            rd_unknown(rd, "a shell or interpreter runs a script named by an "
                           "expansion or made by a command");
            return;
        }
        if (!stdin_path(r->w[j].text))
            return; /* a script file */
    }
    rd_interp_stdin(rd, r, off, name, shell);
}

/* Joins words [from, to) with spaces, or NULL when one is an expansion. */
static const char *join_static(struct rd *rd, const struct raw *r, size_t from,
                               size_t to)
{
    struct cp_buf b = {0};
    for (size_t k = from; k < to; k++) {
        if (r->w[k].glob) {
            cp_buf_free(&b);
            return NULL;
        }
        if (k > from)
            cp_buf_addc(&b, ' ');
        cp_buf_adds(&b, r->w[k].text);
    }
    const char *t = cp_arena_strndup(rd->a, b.data ? b.data : "", b.len);
    cp_buf_free(&b);
    return t;
}

static void push_raw(struct rd *rd, struct cp_sh_word *w, size_t n,
                     const struct raw *from)
{
    if (from->depth + 1 > CP_SH_MAX_NEST) {
        rd_fail(rd, "nested more than 64 levels deep");
        return;
    }
    struct raw *r = cp_arena_alloc(rd->a, sizeof *r);
    r->w = w;
    r->n = n;
    r->r = from->r;
    r->nr = from->nr;
    r->depth = from->depth + 1;
    cp_vec_push(rd->a, &rd->raw, r);
}

/* xargs runs its command with words read from standard input appended
 * (options, operands: anything), or, with -I, replaced into it. */
static void rd_xargs(struct rd *rd, const struct raw *r, size_t off, size_t j)
{
    const char *repl = NULL;
    for (size_t k = off + 1; k < j; k++) {
        const char *t = r->w[k].text;
        if ((strcmp(t, "-I") == 0) && k + 1 < j)
            repl = r->w[k + 1].text;
        else if (strncmp(t, "-I", 2) == 0 && t[2])
            repl = t + 2;
        else if (strcmp(t, "-i") == 0 || strcmp(t, "--replace") == 0)
            repl = "{}";
        else if (strncmp(t, "--replace=", 10) == 0)
            repl = t + 10;
    }
    if (j >= r->n)
        return; /* echo */
    if (repl && *repl && strstr(r->w[j].text, repl)) {
        rd_unknown(rd, "xargs names the program with words from its input");
        return;
    }
    size_t n = r->n - j;
    struct cp_sh_word *w = cp_arena_alloc(rd->a, (n + 1) * sizeof *w);
    memcpy(w, r->w + j, n * sizeof *w);
    w[n] = (struct cp_sh_word){.text = "(words read by xargs)",
                               .glob = "*",
                               .split = true};
    push_raw(rd, w, n + 1, r);
}

/* find ... -exec CMD ... ; (also -execdir, -ok, -okdir). */
static void rd_find(struct rd *rd, const struct raw *r, size_t off)
{
    for (size_t k = off + 1; k < r->n; k++) {
        const char *t = r->w[k].text;
        if (strcmp(t, "-exec") && strcmp(t, "-execdir") && strcmp(t, "-ok") &&
            strcmp(t, "-okdir"))
            continue;
        size_t e = k + 1;
        while (e < r->n && strcmp(r->w[e].text, ";") != 0 &&
               strcmp(r->w[e].text, "+") != 0)
            e++;
        if (e > k + 1)
            push_raw(rd, r->w + k + 1, e - k - 1, r);
        k = e;
    }
}

/* The command line string that the option word J of R gives (an option of
 * STR_OPTS, its string attached or the next word), or NULL; *unknown is
 * set when that string is an expansion. */
static const char *wrapper_string(const struct raw *r, size_t j,
                                  const char *const *str_opts, bool *unknown)
{
    const char *t = r->w[j].text;
    for (const char *const *o = str_opts; o && *o; o++) {
        size_t ol = strlen(*o);
        if (strcmp(t, *o) == 0 && j + 1 < r->n) {
            if (r->w[j + 1].glob) {
                *unknown = true;
                return NULL;
            }
            return r->w[j + 1].text;
        }
        if (strncmp(t, *o, ol) == 0 && t[ol] && (t[1] != '-' || t[ol] == '='))
            return t + ol + (t[ol] == '=');
    }
    return NULL;
}

/* Is word j an option ("-x", "--long"; not "-" alone)?  Every word has its
 * text (NULL only past the end). */
static bool is_option_word(const struct raw *r, size_t j)
{
    const char *t = r->w[j].text;
    assert(t);
    return !r->w[j].glob && t[0] == '-' && t[1];
}

/* The options of a wrapper at r->w[off]: returns the index of the wrapped
 * command, or r->n when a command line string was read instead. */
static size_t rd_wrapper(struct rd *rd, const struct raw *r, size_t off,
                         const struct cp_wrapper *wr)
{
    size_t j = off + 1;
    while (j < r->n && is_option_word(r, j)) {
        const char *t = r->w[j].text;
        if (strcmp(t, "--") == 0) {
            j++;
            break;
        }
        bool unknown = false;
        const char *v = wrapper_string(r, j, wr->str_opts, &unknown);
        if (unknown) {
            rd_unknown(rd, "a command line string made of an expansion");
            return r->n;
        }
        if (v) {
            reread(rd, v, r->depth);
            return r->n;
        }
        j += in_list(wr->arg_opts, t) ? 2 : 1;
    }
    for (int s = 0; s < wr->skip && j < r->n; s++)
        j++;
    while (wr->assigns && j < r->n && is_assignment(r->w[j].text))
        j++;
    return j;
}

/* eval ARGS: the words joined by spaces. */
static void rd_eval(struct rd *rd, const struct raw *r, size_t off)
{
    if (off + 1 >= r->n)
        return;
    const char *t = join_static(rd, r, off + 1, r->n);
    if (!t)
        rd_unknown(rd, "eval of an expansion: the commands are known only "
                       "when it runs");
    else
        reread(rd, t, r->depth);
}

/* su, script, runuser: the string after -c, a cluster ending in c
 * (script -qc) or --command. */
static void rd_su(struct rd *rd, const struct raw *r, size_t off)
{
    for (size_t k = off + 1; k + 1 < r->n; k++) {
        const char *t = r->w[k].text;
        size_t tl = strlen(t);
        bool c_opt = (t[0] == '-' && t[1] != '-' && tl >= 2 &&
                      t[tl - 1] == 'c') ||
                     strcmp(t, "--command") == 0;
        if (!c_opt)
            continue;
        if (r->w[k + 1].glob)
            rd_unknown(rd, "su -c of an expansion");
        else
            reread(rd, r->w[k + 1].text, r->depth);
    }
}

/* watch [OPTIONS] ARGS: the words after the options joined by spaces. */
static void rd_watch(struct rd *rd, const struct raw *r, size_t off)
{
    size_t j = off + 1;
    while (j < r->n && r->w[j].text[0] == '-') {
        const char *t = r->w[j].text;
        j += (strcmp(t, "-n") == 0 || strcmp(t, "--interval") == 0 ||
              strcmp(t, "-q") == 0)
                 ? 2
                 : 1;
    }
    if (j >= r->n)
        return;
    const char *t = join_static(rd, r, j, r->n);
    if (t)
        reread(rd, t, r->depth);
    else
        rd_unknown(rd, "watch of an expansion");
}

/* trap ACTION SIGNALS: the action. */
static void rd_trap(struct rd *rd, const struct raw *r, size_t off)
{
    if (off + 1 >= r->n || r->w[off + 1].text[0] == '-')
        return;
    if (r->w[off + 1].glob)
        rd_unknown(rd, "trap of an expansion");
    else
        reread(rd, r->w[off + 1].text, r->depth);
}

/* alias NAME=VALUE...: each value. */
static void rd_alias(struct rd *rd, const struct raw *r, size_t off)
{
    for (size_t k = off + 1; k < r->n; k++) {
        const char *eq = strchr(r->w[k].text, '=');
        if (eq && r->w[k].glob)
            rd_unknown(rd, "alias of an expansion");
        else if (eq)
            reread(rd, eq + 1, r->depth);
    }
}

/* Commands whose operands hold a command line. */
static void rd_strings(struct rd *rd, const struct raw *r, size_t off,
                       const char *name)
{
    if (strcmp(name, "eval") == 0) {
        rd_eval(rd, r, off);
    } else if (strcmp(name, "source") == 0 || strcmp(name, ".") == 0) {
        if (off + 1 < r->n &&
            (r->w[off + 1].glob || stdin_path(r->w[off + 1].text)))
            rd_unknown(rd, "source of a file made by a command or named by "
                           "an expansion");
    } else if (strcmp(name, "su") == 0 || strcmp(name, "script") == 0 ||
               strcmp(name, "runuser") == 0) {
        rd_su(rd, r, off);
    } else if (strcmp(name, "watch") == 0) {
        rd_watch(rd, r, off);
    } else if (strcmp(name, "trap") == 0) {
        rd_trap(rd, r, off);
    } else if (strcmp(name, "alias") == 0) {
        rd_alias(rd, r, off);
    } else if (strcmp(name, "find") == 0) {
        rd_find(rd, r, off);
    }
}

/* Every name the unwrapping looks at, in byte order: a command whose
 * program is none of them (most commands) costs one binary search. */
static const char *const special_names[] = {
    "!",          ".",           "alias",
    "arch",       "ash",         "bash",
    "builtin",    "bun",         "busybox",
    "caffeinate", "catchsegv",   "chroot",
    "chrt",       "command",     "coproc",
    "corepack",   "csh",         "dash",
    "deno",       "do",          "doas",
    "done",       "elif",        "else",
    "env",        "eval",        "exec",
    "faketime",   "fi",          "find",
    "firejail",   "fish",        "flock",
    "if",         "ionice",      "irb",
    "ksh",        "ltrace",      "lua",
    "luajit",     "mksh",        "nice",
    "node",       "nodejs",      "nohup",
    "osascript",  "parallel",    "perl",
    "php",        "pkexec",      "posh",
    "powershell", "proxychains", "proxychains4",
    "pwsh",       "rbash",       "rlwrap",
    "rscript",    "ruby",        "run0",
    "runuser",    "script",      "setsid",
    "sh",         "source",      "sshpass",
    "stdbuf",     "strace",      "su",
    "sudo",       "taskset",     "tclsh",
    "tcsh",       "then",        "time",
    "timeout",    "torsocks",    "toybox",
    "trap",       "unshare",     "until",
    "watch",      "while",       "wish",
    "xargs",      "yash",        "zsh",
    "{",          "}",
};

static int name_cmp(const void *k, const void *e)
{
    return strcmp(k, *(const char *const *)e);
}

static bool special(const char *name)
{
    if (is_python(name))
        return true;
    return bsearch(name, special_names,
                   sizeof special_names / sizeof special_names[0],
                   sizeof special_names[0], name_cmp) != NULL;
}

static void rd_unwrap(struct rd *rd, const struct raw *r)
{
    size_t off = 0;
    for (int step = 0; !rd->error; step++) {
        if (step > CP_SH_MAX_UNWRAP) {
            rd_fail(rd, "wrappers nested more than 64 deep");
            return;
        }
        push_reading(rd, r, off);
        if (off >= r->n)
            return;
        const struct cp_sh_word *w0 = &r->w[off];
        if (is_assignment(w0->text) ||
            (!w0->glob && in_list(lead_words, w0->text))) {
            off++;
            continue;
        }
        if (w0->glob) {
            rd_unknown(rd, "the program is named by an expansion");
            return;
        }
        const char *name = prog_name(rd->a, w0->text);
        if (!special(name))
            return;
        const struct cp_wrapper *wr = cp_cmd_wrapper(name);
        if (wr) {
            size_t j = rd_wrapper(rd, r, off, wr);
            if (strcmp(name, "xargs") == 0) {
                if (j < r->n)
                    rd_xargs(rd, r, off, j);
                return;
            }
            if (strcmp(name, "parallel") == 0 &&
                (j >= r->n || strcmp(r->w[j].text, ":::") == 0)) {
                rd_unknown(rd, "parallel runs commands read from standard "
                               "input or given after :::");
                return;
            }
            if (j >= r->n)
                return;
            off = j;
            continue;
        }
        bool shell = in_list(shells, name);
        if (shell || is_interpreter(name))
            rd_interp(rd, r, off, name, shell);
        else
            rd_strings(rd, r, off, name);
        return;
    }
}

/* Programs that may run a here-document's body, or a file it writes, as
 * commands, besides the names special() knows (shells, interpreters,
 * wrappers, eval, source, xargs, find). */
static const char *const doc_runners[] = {
    "ssh", "docker",     "podman",   "kubectl", "nsenter",
    "lxc", "machinectl", "parallel", "chmod",   "make",
    "npm", "npx",        "yarn",     "pnpm",    NULL};

/* Does the word T name a program that may run code it is given: a shell,
 * an interpreter, a wrapper, eval and the like? */
static bool word_runs_code(struct rd *rd, const char *t)
{
    static const char *const runs[] = {"eval",    "source", ".",     "su",
                                       "runuser", "script", "watch", "find",
                                       "trap",    "alias",  NULL};
    /* every word of the line is looked up: one hashed set, not a scan of
     * each list per word (200,000 words took 120 ms) */
    static struct cp_nameset set;
    static bool built;
    if (!built) {
        const char *const *lists[] = {shells, interpreters, runs, doc_runners};
        for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
            for (const char *const *l = lists[k]; *l; l++)
                cp_nameset_put(&set, *l, 1);
        built = true;
    }
    const char *name = prog_name(rd->a, t);
    /* the set holds the interpreters named in full */
    if (cp_nameset_get(&set, name) > 0 || is_python(name))
        return true;
    return cp_cmd_wrapper(name) != NULL;
}

/* Could some command of the line run a here-document's body as commands?
 * A shell, an interpreter or a wrapper named anywhere (sudo bash, xargs
 * sh, a script written by cat and run by sh), a program named by a path or
 * an expansion (./s.sh, "$x"). */
static bool line_runs_code(struct rd *rd)
{
    for (size_t k = 0; k < rd->raw.len; k++) {
        const struct raw *r = rd->raw.items[k];
        size_t p = 0;
        while (p < r->n && is_assignment(r->w[p].text))
            p++;
        if (p < r->n && (r->w[p].glob || strchr(r->w[p].text, '/')))
            return true;
        for (size_t j = 0; j < r->n; j++) {
            if (r->w[j].glob)
                continue;
            if (word_runs_code(rd, r->w[j].text))
                return true;
        }
    }
    return false;
}

/* The substitutions in an unquoted here-document body run wherever the
 * body goes: read them as in "...". */
static void doc_scan(struct rd *rd, const char *body, int nest)
{
    size_t len = strlen(body);
    if (len + 1 > rd->budget) {
        rd_fail(rd, "too much to read (strings read again and again)");
        return;
    }
    rd->budget -= len + 1;
    struct lx x = {.rd = rd, .s = body, .len = len, .nest = nest};
    struct wb scratch = {0};
    while (x.i < x.len && !rd->error) {
        char c = x.s[x.i];
        if (c == '\\')
            x.i += x.i + 1 < x.len ? 2 : 1;
        else if (c == '$')
            rd_dollar(&x, &scratch, true);
        else if (c == '`')
            rd_backquote(&x, &scratch, true);
        else
            x.i++;
    }
    wb_free(&scratch);
}

/* The here-document bodies: read as commands when the line could run them
 * (the strict reading), else data, of which only the substitutions of an
 * unquoted one run. */
static void docs_read(struct rd *rd)
{
    if (!rd->docs.len) /* the common case: no word to look at */
        return;
    bool code = line_runs_code(rd);
    for (size_t k = 0; k < rd->docs.len && !rd->error; k++) {
        const struct hdoc *d = rd->docs.items[k];
        const struct cp_sh_redir *r = &d->owner->r[d->idx];
        if (code)
            read_string(rd, r->body, strlen(r->body), d->nest);
        else if (!r->body_quoted)
            doc_scan(rd, r->body, d->nest);
    }
}

void cp_sh_read(struct cp_arena *a, const char *line, size_t len,
                struct cp_sh_read *out)
{
    struct rd rd = {.a = a, .budget = CP_SH_BUDGET(len)};
    read_string(&rd, line, len, 0);
    docs_read(&rd);
    for (size_t k = 0; k < rd.raw.len && !rd.error; k++)
        rd_unwrap(&rd, rd.raw.items[k]);
    out->ncmds = rd.cmds.len;
    struct cp_sh_cmd *c = cp_arena_alloc(a, (rd.cmds.len + 1) * sizeof *c);
    for (size_t k = 0; k < rd.cmds.len; k++)
        c[k] = *(struct cp_sh_cmd *)rd.cmds.items[k];
    out->cmds = c;
    out->unknown = rd.unknown;
    out->error = rd.error;
}

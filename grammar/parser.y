/* SPDX-License-Identifier: MIT */
/* The confpol grammar (spec/language.md, section Grammar).  Actions only
 * build nodes; names, words and paths are checked in compiler/resolve.c.
 * Statement-level error recovery: after an error the parser skips to the
 * end of the statement (newline or ';'; a braced list is skipped whole
 * because the scanner emits no newline inside braces). */
%require "3.6"
%define api.pure full
%define api.prefix {cp_yy}
%define api.location.type {struct cp_loc}
%locations
%define parse.error detailed
%define parse.lac full
%expect 0

%code requires {
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"
#include "source.h"

/* Per-parse state shared by the scanner (yyextra) and the parser
 * (parse-param); no globals. */
struct cp_lex {
    struct cp_arena *arena;
    struct cp_diags *diags;
    const struct cp_source *src;
    struct cp_file *file;
    struct cp_vec stmts;     /* struct cp_stmt * in source order */
    struct cp_vec comments;  /* struct cp_comment * in source order */
    struct cp_vec headers;   /* struct cp_stmt * of kind CP_N_FILE: headers */
    /* scanner position of the next byte */
    unsigned line, col;
    size_t off;
    int depth;               /* brace nesting */
    struct cp_loc brace;     /* the open '{' */
    bool brace_err;          /* a ';' or '{' was reported in this list */
    size_t err0;             /* errors in the sink before this file */
    bool stopped;            /* CP_MAX_PARSE_ERRORS reached: stop */
    bool bol;                /* the next token starts a statement */
    bool eof_nl;             /* synthetic end of line sent at end of file */
    bool done;
    int last_tok;            /* kind of the previous token */
    size_t last_end;         /* byte offset after the previous token */
    /* the most recent token, for error messages */
    const char *tok_text;
    size_t tok_len;
    bool tok_bol;
    struct cp_loc first;     /* first token of the file */
    int first_tok;           /* and its kind */
    bool have_first;
};

/* An argument list and whether it was written in braces. */
struct cp_alist {
    struct cp_vec v;
    bool braced;
};

/* Syntax and lexical errors reported in one file before the parser gives
 * up on it (clang's -ferror-limit, larger): past this, a garbage file only
 * produces output quadratic in its line length. */
#define CP_MAX_PARSE_ERRORS 100

struct cp_tok {
    const char *text; /* the bytes in the source text (not NUL-terminated;
                         for strings and regexes: between the quotes) */
    size_t len;
};

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                         \
    do {                                                                    \
        if (N) {                                                            \
            (Cur) = YYRHSLOC(Rhs, 1);                                       \
            (Cur).end_line = YYRHSLOC(Rhs, N).end_line;                     \
            (Cur).end_col = YYRHSLOC(Rhs, N).end_col;                       \
        } else {                                                            \
            (Cur) = YYRHSLOC(Rhs, 0);                                       \
            (Cur).line = (Cur).end_line;                                    \
            (Cur).col = (Cur).end_col;                                      \
        }                                                                   \
    } while (0)
}

%code provides {
#define YYSTYPE CP_YYSTYPE
#define YYLTYPE CP_YYLTYPE
int cp_yylex(CP_YYSTYPE *lval, CP_YYLTYPE *lloc, void *scanner);
/* The statement keyword nearest to a misspelt word, or NULL (lexer.l). */
const char *cp_lex_keyword_near(const char *w, size_t n);
/* Starts `scanner` on a copy of the `len` bytes at `text` (lexer.l); the
 * returned buffer is deleted with cp_yy_delete_buffer. */
void *cp_lex_scan(const char *text, size_t len, void *scanner);
}

%param {void *scanner}
%parse-param {struct cp_lex *st}

%code {
#include <stdarg.h>
#include <string.h>

static void cp_yyerror(CP_YYLTYPE *l, void *scanner, struct cp_lex *st,
                       const char *m);
static struct cp_stmt *cp_p_stmt(struct cp_lex *st, enum cp_node_kind k,
                                 const struct cp_loc *kw,
                                 const struct cp_tok *kwt,
                                 const struct cp_loc *last);
static void cp_p_word(struct cp_lex *st, struct cp_word *w,
                      const struct cp_tok *t, const struct cp_loc *l);
static void cp_p_args(struct cp_stmt *s, const struct cp_vec *v,
                      bool braced);
static void cp_p_deny_word(struct cp_lex *st, const struct cp_tok *t,
                           const struct cp_loc *l);
static void cp_p_missing(struct cp_lex *st, const struct cp_loc *after,
                         const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
}

%union {
    struct cp_tok tok;
    struct cp_arg *arg;
    struct cp_vec list;
    struct cp_alist alist;
    struct cp_stmt *stmt;
}

%token END 0 "end of file"
%token NL "end of line"
%token SEMI "';'"
%token LBRACE "'{'"
%token RBRACE "'}'"
%token EQ "'='"
%token <tok> WORD "word"
%token <tok> STRING "string"
%token <tok> REGEX "regex"
%token <tok> KW_CONFPOL "'confpol'"
%token <tok> KW_PROFILE "'profile'"
%token <tok> KW_FAIL "'fail'"
%token <tok> KW_PARAM "'param'"
%token <tok> KW_LET "'let'"
%token <tok> KW_INCLUDE "'include'"
%token <tok> KW_WRITE "'write'"
%token <tok> KW_EXEC "'exec'"
%token <tok> KW_DENY "'deny'"
%token <tok> KW_GATE "'gate'"
%token <tok> KW_NET "'net'"
%token <tok> KW_EXPECT "'expect'"
%token <tok> KW_CONTENT "'content'"

%type <arg> arg
%type <list> list blist
%type <alist> args
%type <stmt> stmt

%%

file
    : %empty
    | file item
    ;

item
    : NL
    | SEMI
    | stmt end {
          /* Only a statement that ends well joins the file. */
          if ($1)
              cp_vec_push(st->arena,
                          $1->n.kind == CP_N_FILE ? &st->headers : &st->stmts,
                          $1);
      }
    | error end { yyerrok; }
    ;

end
    : NL
    | SEMI
    ;

stmt
    : KW_CONFPOL WORD {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_FILE, &@1, &$1, &@2);
          cp_p_word(st, &s->sub, &$2, &@2);
          $$ = s;
      }
    | KW_CONFPOL { cp_p_missing(st, &@1, "a version number after 'confpol'"); $$ = NULL; }
    | KW_PROFILE WORD {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_PROFILE, &@1, &$1, &@2);
          cp_p_word(st, &s->sub, &$2, &@2);
          $$ = s;
      }
    | KW_PROFILE { cp_p_missing(st, &@1, "a profile name after 'profile'"); $$ = NULL; }
    | KW_FAIL WORD {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_FAIL, &@1, &$1, &@2);
          cp_p_word(st, &s->sub, &$2, &@2);
          $$ = s;
      }
    | KW_FAIL { cp_p_missing(st, &@1, "'closed' or 'open' after 'fail'"); $$ = NULL; }
    | KW_PARAM WORD {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_PARAM, &@1, &$1, &@2);
          cp_p_word(st, &s->name, &$2, &@2);
          $$ = s;
      }
    | KW_PARAM { cp_p_missing(st, &@1, "a name after 'param'"); $$ = NULL; }
    | KW_LET WORD EQ arg {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_LET, &@1, &$1, &@4);
          cp_p_word(st, &s->name, &$2, &@2);
          struct cp_vec v = {0};
          cp_vec_push(st->arena, &v, $4);
          cp_p_args(s, &v, false);
          $$ = s;
      }
    | KW_LET { cp_p_missing(st, &@1, "a name after 'let'"); $$ = NULL; }
    | KW_LET WORD { cp_p_missing(st, &@2, "'=' after 'let %.*s'", (int)$2.len, $2.text); $$ = NULL; }
    | KW_LET WORD EQ { cp_p_missing(st, &@3, "a value after '='"); $$ = NULL; }
    | KW_INCLUDE arg {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_INCLUDE, &@1, &$1, &@2);
          struct cp_vec v = {0};
          cp_vec_push(st->arena, &v, $2);
          cp_p_args(s, &v, false);
          $$ = s;
      }
    | KW_INCLUDE { cp_p_missing(st, &@1, "a quoted file name after 'include'"); $$ = NULL; }
    | KW_WRITE args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_WRITE, &@1, &$1, &@2);
          cp_p_args(s, &$2.v, $2.braced);
          $$ = s;
      }
    | KW_WRITE { cp_p_missing(st, &@1, "a path after 'write'"); $$ = NULL; }
    | KW_EXEC args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_EXEC, &@1, &$1, &@2);
          cp_p_args(s, &$2.v, $2.braced);
          $$ = s;
      }
    | KW_EXEC { cp_p_missing(st, &@1, "a path after 'exec'"); $$ = NULL; }
    | KW_DENY WORD args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_DENY, &@1, &$1, &@3);
          cp_p_word(st, &s->sub, &$2, &@2);
          cp_p_args(s, &$3.v, $3.braced);
          $$ = s;
      }
    | KW_DENY { cp_p_missing(st, &@1, "'read', 'write' or 'exec' after 'deny'"); $$ = NULL; }
    | KW_DENY WORD { cp_p_deny_word(st, &$2, &@2); $$ = NULL; }
    | KW_GATE WORD args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_GATE, &@1, &$1, &@3);
          cp_p_word(st, &s->sub, &$2, &@2);
          cp_p_args(s, &$3.v, $3.braced);
          $$ = s;
      }
    | KW_GATE { cp_p_missing(st, &@1, "'ask' or 'deny' after 'gate'"); $$ = NULL; }
    | KW_GATE WORD { cp_p_missing(st, &@2, "a pattern after 'gate %.*s'", (int)$2.len, $2.text); $$ = NULL; }
    | KW_NET WORD {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_NET, &@1, &$1, &@2);
          cp_p_word(st, &s->sub, &$2, &@2);
          $$ = s;
      }
    | KW_NET WORD args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_NET, &@1, &$1, &@3);
          cp_p_word(st, &s->sub, &$2, &@2);
          cp_p_args(s, &$3.v, $3.braced);
          $$ = s;
      }
    | KW_NET { cp_p_missing(st, &@1, "'deny', 'allow' or 'socket' after 'net'"); $$ = NULL; }
    | KW_EXPECT WORD WORD arg {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_EXPECT, &@1, &$1, &@4);
          cp_p_word(st, &s->sub, &$2, &@2);
          cp_p_word(st, &s->access, &$3, &@3);
          struct cp_vec v = {0};
          cp_vec_push(st->arena, &v, $4);
          cp_p_args(s, &v, false);
          $$ = s;
      }
    | KW_EXPECT { cp_p_missing(st, &@1, "'allow', 'deny' or 'ask' after 'expect'"); $$ = NULL; }
    | KW_EXPECT WORD { cp_p_missing(st, &@2, "an access after 'expect %.*s'", (int)$2.len, $2.text); $$ = NULL; }
    | KW_CONTENT WORD args {
          struct cp_stmt *s = cp_p_stmt(st, CP_N_CONTENT, &@1, &$1, &@3);
          cp_p_word(st, &s->sub, &$2, &@2);
          cp_p_args(s, &$3.v, $3.braced);
          $$ = s;
      }
    | KW_CONTENT { cp_p_missing(st, &@1, "'deny' or 'allow' after 'content'"); $$ = NULL; }
    | KW_CONTENT WORD { cp_p_missing(st, &@2, "a pattern or a class after 'content %.*s'", (int)$2.len, $2.text); $$ = NULL; }
    | KW_EXPECT WORD WORD { cp_p_missing(st, &@3, "a subject after 'expect %.*s %.*s'", (int)$2.len, $2.text, (int)$3.len, $3.text); $$ = NULL; }
    ;

/* The argument list of write/exec/deny/gate/net. */
args
    : list { $$.v = $1; $$.braced = false; }
    | LBRACE blist RBRACE { $$.v = $2; $$.braced = true; }
    | LBRACE RBRACE {
          $$.v = (struct cp_vec){0};
          $$.braced = true;
          cp_diag_report(st->diags, CP0204, &@1,
                         "empty list; write at least one argument between "
                         "'{' and '}'");
          YYERROR;
      }
    ;

list
    : arg { $$ = (struct cp_vec){0}; cp_vec_push(st->arena, &$$, $1); }
    | list arg { $$ = $1; cp_vec_push(st->arena, &$$, $2); }
    ;

blist
    : arg { $$ = (struct cp_vec){0}; cp_vec_push(st->arena, &$$, $1); }
    | blist arg { $$ = $1; cp_vec_push(st->arena, &$$, $2); }
    ;

arg
    : WORD { $$ = cp_ast_new_arg(st->arena, CP_ARG_BARE, $1.text, $1.len, &@1); }
    | STRING { $$ = cp_ast_new_arg(st->arena, CP_ARG_QUOTED, $1.text, $1.len, &@1); }
    | REGEX { $$ = cp_ast_new_arg(st->arena, CP_ARG_REGEX, $1.text, $1.len, &@1); }
    ;

%%

static struct cp_stmt *cp_p_stmt(struct cp_lex *st, enum cp_node_kind k,
                                 const struct cp_loc *kw,
                                 const struct cp_tok *kwt,
                                 const struct cp_loc *last)
{
    struct cp_loc l = cp_loc_span(kw, last);
    struct cp_stmt *s = cp_ast_new_stmt(st->arena, k, &l);
    if (kwt)
        cp_p_word(st, &s->keyword, kwt, kw);
    return s;
}

static void cp_p_word(struct cp_lex *st, struct cp_word *w,
                      const struct cp_tok *t, const struct cp_loc *l)
{
    w->text = cp_arena_intern(st->arena, t->text, t->len);
    w->loc = *l;
}

static void cp_p_args(struct cp_stmt *s, const struct cp_vec *v,
                      bool braced)
{
    s->args = (struct cp_arg **)v->items;
    s->nargs = v->len;
    s->braced = braced;
}

/* A statement that stops before a required word or argument: the caret goes
 * just after the last token that was written. */
/* 'deny WORD' and nothing more: when WORD is a path the access is what is
 * missing ('deny /tmp'), otherwise the path. */
static void cp_p_deny_word(struct cp_lex *st, const struct cp_tok *t,
                           const struct cp_loc *l)
{
    bool path = t->len && (t->text[0] == '/' || t->text[0] == '~' ||
                           t->text[0] == '$' || t->text[0] == '.' ||
                           memchr(t->text, '/', t->len));
    if (!path) {
        cp_p_missing(st, l, "a path after 'deny %.*s'", (int)t->len, t->text);
        return;
    }
    if (st->stopped)
        return;
    struct cp_diag *g = cp_diag_report(
        st->diags, CP0203, l,
        "expected 'read', 'write' or 'exec' after 'deny', before the path");
    cp_diag_set_suggestion(g, "write 'deny read %.*s', 'deny write %.*s' or "
                              "'deny exec %.*s'",
                           (int)t->len, t->text, (int)t->len, t->text,
                           (int)t->len, t->text);
}

static void cp_p_missing(struct cp_lex *st, const struct cp_loc *after,
                         const char *fmt, ...)
{
    if (st->stopped)
        return;
    struct cp_loc l = *after;
    l.line = l.end_line;
    l.col = l.end_col + 1;
    l.end_col = l.col;
    struct cp_buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    cp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    cp_diag_report(st->diags, CP0203, &l, "expected %s", b.data);
    cp_buf_free(&b);
}

/* Is the unexpected token U (ULEN bytes of bison's message) an argument:
 * a word, a string or a regex? */
static bool cp_err_is_arg(const char *u, size_t ulen)
{
    return (ulen == 4 && strncmp(u, "word", 4) == 0) ||
           (ulen == 6 && strncmp(u, "string", 6) == 0) ||
           (ulen == 5 && strncmp(u, "regex", 5) == 0);
}

static bool cp_err_ends_stmt(const char *name)
{
    return strcmp(name, "end of line") == 0 || strcmp(name, "';'") == 0;
}

/* Appends "; expected A, B or C" for bison's list X ("A or B or C").
 * Where a word could also be missing (the statement may end here only to
 * be reported as incomplete), the end of the statement is not offered. */
static void cp_err_expected(struct cp_lex *st, struct cp_buf *b,
                            const char *x)
{
    const char *names[8];
    size_t nn = 0;
    bool has_other = false;
    while (nn < 8) {
        const char *o = strstr(x, " or ");
        size_t n = o ? (size_t)(o - x) : strlen(x);
        names[nn++] = cp_arena_strndup(st->arena, x, n);
        if (!o)
            break;
        x = o + 4;
    }
    for (size_t i = 0; i < nn; i++)
        if (!cp_err_ends_stmt(names[i]))
            has_other = true;
    size_t kept = 0;
    for (size_t i = 0; i < nn; i++)
        if (!has_other || !cp_err_ends_stmt(names[i]))
            names[kept++] = names[i];
    cp_buf_adds(b, "; expected ");
    for (size_t i = 0; i < kept; i++) {
        if (i)
            cp_buf_adds(b, i + 1 == kept ? " or " : ", ");
        cp_buf_adds(b, names[i]);
    }
}

/* 'read PATH...': there is no allow-read rule, reading is allowed unless a
 * deny matches, so the statement meant to deny (a fix that adds a deny
 * never widens the policy) or is not needed.  REST: the source after
 * 'read' (NUL-terminated), up to the end of the statement. */
static void cp_err_read_stmt(struct cp_diag *g, const char *rest)
{
    rest += strspn(rest, " \t");
    size_t n = strcspn(rest, "\r\n;#");
    while (n && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
        n--;
    bool show = n && n <= 200;
    cp_diag_set_suggestion(
        g,
        "reading is allowed wherever no 'deny read' rule matches, so a 'read' "
        "rule is not needed to allow it; to forbid it, did you mean 'deny "
        "read %.*s'?",
        show ? (int)n : 3, show ? rest : "...");
}

/* A word at the start of a statement: an unknown statement, its first N
 * bytes quoted (CUT: followed by "..."), with the nearest keyword. */
static void cp_err_unknown_stmt(struct cp_lex *st, const CP_YYLTYPE *l,
                                size_t n, bool cut)
{
    struct cp_buf b = {0};
    cp_buf_adds(&b, "unknown statement '");
    cp_buf_add(&b, st->tok_text, n);
    cp_buf_adds(&b, cut ? "...'" : "'");
    struct cp_diag *g = cp_diag_report(st->diags, CP0202, l, "%s", b.data);
    const char *near = cp_lex_keyword_near(st->tok_text, st->tok_len);
    if (n == 4 && memcmp(st->tok_text, "read", 4) == 0)
        cp_err_read_stmt(g, st->tok_text + 4);
    else if (near)
        cp_diag_set_suggestion(g, "did you mean '%s'?", near);
    cp_buf_free(&b);
}

/* Bison's detailed message is "syntax error, unexpected X[, expecting A or
 * B...]"; it is rewritten as "unexpected 'TEXT'; expected A, B or C", with
 * the text of the offending word, and a word at the start of a statement is
 * reported as an unknown statement. */
static void cp_yyerror(CP_YYLTYPE *l, void *scanner, struct cp_lex *st,
                       const char *m)
{
    (void)scanner;
    if (st->stopped)
        return;
    const char *u = strstr(m, "unexpected ");
    if (!u) {
        cp_diag_report(st->diags, CP0201, l, "%s", m);
        return;
    }
    u += strlen("unexpected ");
    const char *e = strstr(u, ", expecting ");
    size_t ulen = e ? (size_t)(e - u) : strlen(u);
    bool word = cp_err_is_arg(u, ulen) && st->tok_text;
    size_t n = word ? st->tok_len : 0;
    bool cut = n > 40;
    if (cut)
        n = 37;
    if (word && st->tok_bol && ulen == 4) {
        cp_err_unknown_stmt(st, l, n, cut);
        return;
    }
    struct cp_buf b = {0};
    cp_buf_printf(&b, "unexpected %.*s", (int)ulen, u);
    if (word) {
        cp_buf_adds(&b, " '");
        cp_buf_add(&b, st->tok_text, n);
        cp_buf_adds(&b, cut ? "...'" : "'");
    }
    if (e)
        cp_err_expected(st, &b, e + strlen(", expecting "));
    else if (st->tok_bol)
        cp_buf_adds(&b, "; expected a statement");
    struct cp_diag *g = cp_diag_report(st->diags, CP0201, l, "%s", b.data);
    if (ulen == 3 && strncmp(u, "'='", 3) == 0)
        cp_diag_set_suggestion(g, "'=' belongs to 'let'; quote a path or "
                                  "pattern that contains it");
    cp_buf_free(&b);
}

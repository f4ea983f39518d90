/* SPDX-License-Identifier: MIT */
/* The one AST header: every node kind, and a source span on every node.
 * Grammar actions only build these nodes; names, types and paths are
 * checked later (compiler/resolve.c).  The AST keeps comments for fmt. */
#ifndef CP_AST_H
#define CP_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "source.h"

struct cp_arena;

enum cp_node_kind {
    CP_N_FILE,    /* a whole source file (main or included) */
    CP_N_PROFILE, /* profile WORD */
    CP_N_FAIL,    /* fail WORD */
    CP_N_PARAM,   /* param NAME */
    CP_N_LET,     /* let NAME = ARG */
    CP_N_INCLUDE, /* include "FILE" */
    CP_N_WRITE,   /* write ARG... */
    CP_N_EXEC,    /* exec ARG... */
    CP_N_DENY,    /* deny WORD ARG...        (WORD: read|write|exec) */
    CP_N_GATE,    /* gate WORD ARG...        (WORD: ask|deny) */
    CP_N_NET,     /* net WORD ARG...         (WORD: deny|allow) */
    CP_N_EXPECT,  /* expect WORD WORD ARG    (verdict, access, subject) */
    CP_N_CONTENT, /* content WORD ARG...     (WORD: deny|allow) */
    CP_N_ARG,     /* one argument: bare word, quoted string or re"..." */
};

enum cp_arg_kind {
    CP_ARG_BARE,   /* unquoted token: path (may hold globs), name or domain */
    CP_ARG_QUOTED, /* "..." : raw source text between the quotes, escapes kept */
    CP_ARG_REGEX,  /* re"..." : raw source text between the quotes */
};

/* Every node starts with this header. */
struct cp_node {
    enum cp_node_kind kind;
    struct cp_loc loc; /* whole construct */
};

/* A comment line '# ...' (text without the newline, with the '#'). */
struct cp_comment {
    struct cp_loc loc;
    const char *text;
    size_t len;
    bool blank_before; /* a blank line preceded it (fmt keeps one) */
};

struct cp_arg {
    struct cp_node n; /* n.kind == CP_N_ARG; n.loc covers quotes/prefix too */
    enum cp_arg_kind kind;
    const char *text; /* raw bytes as written (between the quotes) */
    size_t len;
    struct cp_comment
        *trailing; /* '# ...' after it on the same line, in braces */
    struct cp_comment **leading; /* comment lines before it inside braces */
    size_t nleading;
};

/* A word in a keyword position (profile name, access, verdict...): kept as
 * written so that an unknown word gets a caret under it. */
struct cp_word {
    const char *text; /* interned */
    struct cp_loc loc;
};

struct cp_stmt {
    struct cp_node n;       /* kind: CP_N_PROFILE .. CP_N_EXPECT */
    struct cp_word keyword; /* the statement keyword itself */
    union {
        struct cp_word
            sub; /* profile/fail/deny/gate/net/content: the word after
                                    the keyword; expect: the verdict */
        struct cp_word name; /* param/let: NAME (never both: one field) */
    };
    struct cp_word access; /* expect only: read|write|exec|net|gate */
    struct cp_arg **args;  /* let: 1 value; include: 1; lists: n */
    size_t nargs;
    struct cp_comment **leading; /* comment lines directly before it */
    struct cp_comment *trailing; /* comment on the statement's last line */
    struct cp_file *included;    /* include: the parsed file, NULL on error */
    struct cp_comment **inner_trailing; /* comments after the last argument,
                                           before the closing '}' */
    unsigned nleading, ninner_trailing;
    bool braced;       /* list written as { ... } */
    bool blank_before; /* a blank line between it and the item
                                    before it (its last leading comment, or
                                    the previous statement); fmt keeps one */
};

struct cp_file {
    struct cp_node n; /* n.kind == CP_N_FILE */
    const struct cp_source *src;
    struct cp_loc header; /* the 'confpol 1' line; header.src NULL if missing */
    unsigned version;     /* from the header, 0 if missing */
    struct cp_comment **leading; /* comments before the header */
    size_t nleading;
    struct cp_stmt **stmts;
    size_t nstmts;
    struct cp_comment **trailing; /* comments after the last statement */
    size_t ntrailing;
    struct cp_comment *header_trailing; /* comment on the header line */
    bool
        header_blank_before; /* a blank line between leading comments and header */
};

/* Constructors used by the grammar (compiler/ast.c). */
struct cp_file *cp_ast_new_file(struct cp_arena *a,
                                const struct cp_source *src);
struct cp_stmt *cp_ast_new_stmt(struct cp_arena *a, enum cp_node_kind kind,
                                const struct cp_loc *loc);
struct cp_arg *cp_ast_new_arg(struct cp_arena *a, enum cp_arg_kind kind,
                              const char *text, size_t len,
                              const struct cp_loc *loc);
/* A span from the start of `a` to the end of `b`. */
struct cp_loc cp_loc_span(const struct cp_loc *a, const struct cp_loc *b);

#endif

/* SPDX-License-Identifier: MIT */
/* The compiler's small public API: one context per compilation, phases that
 * return their number of new errors, and a driver-level cp_compile(). */
#ifndef CP_CONFPOL_H
#define CP_CONFPOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"
/* The content scanner is public: explain and the gate hook use it. */
#include "content.h"
#include "diag.h"
#include "policy.h"
#include "version.h" /* CP_VERSION */

struct cp_file;

struct cp_define { /* -D NAME=VALUE */
    const char *name;
    const char *value;
};

struct cp_options {
    struct cp_define *defines;
    size_t ndefines;
    const char *outdir; /* build -o DIR (control plane), or NULL */
    bool expand_globs;  /* build --expand-globs */
    bool no_includes;   /* cp_parse: do not follow includes (fmt) */
    /* Set by cp_compile when resolution runs on a tree that lost statements
     * to syntax errors: what a lost statement may have declared (a param,
     * a let, the profile) is not reported missing. */
    bool partial;
};

struct cp_ctx {
    struct cp_arena *arena;
    struct cp_arena *ast_arena; /* the syntax tree only (see cp_compile) */
    struct cp_diags diags;
    struct cp_options opts;
    const char *main_path;            /* the policy file to compile */
    const struct cp_source *main_src; /* set when compiling from memory */
    struct cp_file *ast;              /* after cp_parse */
    struct cp_policy *policy;         /* after cp_resolve */
};

void cp_ctx_init(struct cp_ctx *cx);
void cp_ctx_free(struct cp_ctx *cx);

/* Phases; each returns the number of new errors. */
int cp_parse(struct cp_ctx *cx); /* compiler/parse.c: lex, parse, includes */
/* Parses an in-memory buffer as the main file (fuzzers, tests): sets
 * cx->main_src to a copy of it and runs cp_parse. */
int cp_parse_memory(struct cp_ctx *cx, const char *name, const char *text,
                    size_t len);
int cp_resolve(
    struct cp_ctx
        *cx); /* compiler/resolve.c: names, types, paths, profiles -> policy */
int cp_check(
    struct cp_ctx
        *cx); /* compiler/check.c: overlap/containment analysis, expect */
/* Only the expect lines (explain -D); returns the number of errors added. */
int cp_check_expects(struct cp_ctx *cx);

/* parse + resolve + check; stops between phases on errors.  Returns the
 * number of errors (0: cx->policy is usable).  Once resolution succeeded,
 * nothing reads the syntax tree again: its memory is freed before the
 * analysis, and cx->ast is left as the main file without its statements
 * (source and header only).  Callers that need the tree run the phases
 * themselves. */
int cp_compile(struct cp_ctx *cx);

/* Stable S-expression dump of a parsed file, for tests and --dump=ast
 * (compiler/ast.c). */
void cp_ast_dump(const struct cp_file *f, FILE *out);
/* fmt: canonical layout of one parsed file (compiler/fmt.c). */
void cp_fmt_file(const struct cp_file *f, struct cp_buf *out);
/* --print-effective: the resolved policy in confpol syntax, implicit rules
 * marked with their origin (compiler/effective.c). */
void cp_print_effective(const struct cp_policy *p, struct cp_buf *out);

#endif

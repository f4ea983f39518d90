/* SPDX-License-Identifier: MIT */
/* The vocabulary of the confpol part of a `.claude.json` artifact, defined
 * once for the room that writes it (backends/claude.c) and the rooms that
 * read it (hook/, the gate; settings/, install and verify): the keys of
 * the "confpol" object, of its gate rows and content rules, the values a
 * row's verdict and kind take, and the keys of the hook entry; and the one
 * reader of the gate table's rows (spec/gate.md, spec/backends.md). */
#ifndef CP_CLAUDE_VOCAB_H
#define CP_CLAUDE_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

/* ---- the "confpol" object ------------------------------------------------ */

#define CP_CV_CONFPOL "confpol"        /* the object, at the top level */
#define CP_CV_VERSION "version"        /* 1 */
#define CP_CV_STEM "stem"              /* the policy's stem */
#define CP_CV_FAIL_CLOSED "failClosed" /* boolean */
#define CP_CV_PROFILE "profile"        /* the profile's name */
#define CP_CV_PROJECT_RELATIVE "projectRelative" /* boolean */
#define CP_CV_GATES "gates"                /* the gate rows, in rule order */
#define CP_CV_PATHS "paths"                /* the file tools' path rules */
#define CP_CV_PATHS_WRITE "write"          /* paths: write roots */
#define CP_CV_PATHS_DENY_WRITE "denyWrite" /* paths: deny-write targets */
#define CP_CV_CONTENT "content"            /* the content rules */
#define CP_CV_CONTENT_CLASSES "classes"    /* content: detector classes */
#define CP_CV_CONTENT_RULES "rules"        /* content: `content deny` rules */

/* A gate row ({id, kind, pattern, verdict, where}) and a content rule
 * ({id, kind, pattern, where}). */
#define CP_CV_ID "id"
#define CP_CV_KIND "kind"
#define CP_CV_PATTERN "pattern"
#define CP_CV_PROGRAMS "programs" /* a words row: its first word's names */
#define CP_CV_VERDICT "verdict"
#define CP_CV_WHERE "where"

#define CP_CV_VERDICT_ASK "ask"
#define CP_CV_VERDICT_DENY "deny"
#define CP_CV_KIND_WORDS "words"     /* a gate row: a word pattern */
#define CP_CV_KIND_REGEX "regex"     /* a gate row or a content rule */
#define CP_CV_KIND_UNKNOWN "unknown" /* a gate row: `gate ... unknown` */
#define CP_CV_KIND_TEXT "text"       /* a content rule: literal bytes */

/* ---- the hook entry ------------------------------------------------------ */

#define CP_CV_HOOKS "hooks"               /* top level, and in a group */
#define CP_CV_PRE_TOOL_USE "PreToolUse"   /* hooks: the groups */
#define CP_CV_MATCHER "matcher"           /* a group: the tools it covers */
#define CP_CV_HOOK_COMMAND "command"      /* a hook: the command line */
#define CP_CV_HOOK_TYPE "type"            /* a hook: "command" */
#define CP_CV_ON_FAILURE "onFailure"      /* a hook: "block" */
#define CP_CV_HOOK_TYPE_COMMAND "command" /* the hook type */
#define CP_CV_ON_FAILURE_BLOCK "block"    /* a hook that fails blocks */

/* ---- the one reader of the gate rows -------------------------------------- */

enum cp_cv_kind { CP_CV_WORDS, CP_CV_REGEX, CP_CV_UNKNOWN };

/* One row of "gates", as written: the strings are the document's. */
struct cp_cv_gate_row {
    const char *id, *pattern, *where;
    size_t pattern_len;
    bool deny; /* verdict "deny", else "ask" */
    enum cp_cv_kind kind;
    /* "programs" of a words row: the names its first word can take (the
     * pattern's key, cp_gate_key_of), written by the compiler so that the
     * hook need not parse a row no command line reaches; NULL without */
    const char **programs;
    size_t nprograms;
};

struct cp_jnode;
/* The rows of the "gates" member of the confpol object CONF into *rows
 * (arena) and *n.  NULL, or why the table is invalid (arena): no array,
 * a row that is not an object with string id, verdict, kind, pattern and
 * where, a verdict other than ask or deny, a kind other than words, regex
 * or unknown, an unknown row whose pattern is not "unknown", or a
 * "programs" that is not a non-empty array of non-empty strings of a
 * words row.  *n counts
 * the rows read before an invalid one. */
const char *cp_cv_gate_rows(struct cp_arena *a, const struct cp_jnode *conf,
                            struct cp_cv_gate_row **rows, size_t *n);

#endif

/* SPDX-License-Identifier: MIT */
/* The resolved policy: a flat list of typed rules with provenance.  This is
 * the only input of the analysis, the decision model and every backend
 * (backends never include ast.h). */
#ifndef CP_POLICY_H
#define CP_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "netmatch.h" /* struct cp_domain, enum cp_verdict, cp_domain_format */
#include "source.h"

struct cp_arena;
struct cp_content_rule;

enum cp_profile {
    CP_PROFILE_COOPERATIVE,
    CP_PROFILE_CONFINED,
    CP_PROFILE_EXCLUSIVE,
};

enum cp_fail {
    CP_FAIL_CLOSED,
    CP_FAIL_OPEN,
};

/* ---- path patterns --------------------------------------------------- */

enum cp_seg_kind {
    CP_SEG_LIT,  /* literal bytes (any byte but '/' and NUL) */
    CP_SEG_GLOB, /* one segment with '*' (any run) and '?' (one byte);
                    '\\' escapes the next byte ('\\*' is a literal '*') */
    CP_SEG_ANY,  /* '**': any number (zero or more) of whole segments */
};

/* 16 bytes: every pass over the rules reads their paths' segments, and a
 * segment is at most CP_MAX_PATH_LEN bytes long. */
struct cp_seg {
    enum cp_seg_kind kind;
    uint32_t len;  /* 0 for CP_SEG_ANY */
    const char *s; /* not NUL-terminated in general; use len */
};

/* A path pattern names each matching path AND everything beneath it.
 * root == NULL: absolute.  Otherwise the interned name of a param
 * ("HOME" for ~, "PROJECT", ...) whose value is an absolute canonical
 * directory bound at apply time.  Zero segments denote the root itself
 * ("/" or the param's directory).  Segments never are "", "." or "..". */
struct cp_path {
    const char *root;
    struct cp_seg *segs;
    size_t nsegs;
    bool has_glob; /* any CP_SEG_GLOB or CP_SEG_ANY */
};

/* ---- command (gate) patterns ----------------------------------------- */

enum cp_gate_pat_kind {
    CP_GATE_WORDS,   /* "git push --force *": words, '*' globs inside a word;
                      a lone '*' word matches exactly one word, except as the
                      LAST word where it matches zero or more further words */
    CP_GATE_REGEX,   /* re"...": POSIX ERE matched against the whole line */
    CP_GATE_UNKNOWN, /* the bare word `unknown`: a command line holding a
                        command known only when it runs (spec/patterns.md) */
};

/* One element of a word pattern (options, alternatives, redirections);
 * defined in compiler/match_gate.c. */
struct cp_gate_el;

struct cp_gate_pat {
    enum cp_gate_pat_kind kind;
    bool
        trailing_any; /* CP_GATE_WORDS: last word was a lone '*' (not in words) */
    const char *text; /* the pattern as written, unescaped (NUL-free) */
    const char *
        *words; /* CP_GATE_WORDS: each word, glob syntax as in CP_SEG_GLOB */
    size_t nwords;
    void
        *regex; /* CP_GATE_REGEX: compiled regex_t * (REG_EXTENDED|REG_NOSUB) */
    const struct cp_gate_el *els; /* CP_GATE_WORDS: the words read as
                                     positional words, options and
                                     redirections, in order */
    size_t nels;
};

/* ---- rules ----------------------------------------------------------- */

enum cp_rule_kind {
    CP_R_WRITE,     /* write PATH      (allow write+read) */
    CP_R_EXEC,      /* exec PATH       (allow exec; makes exec an allow-list) */
    CP_R_DENY_READ, /* deny read PATH */
    CP_R_DENY_WRITE, /* deny write PATH */
    CP_R_DENY_EXEC,  /* deny exec PATH */
    CP_R_GATE_ASK,   /* gate ask PATTERN */
    CP_R_GATE_DENY,  /* gate deny PATTERN */
    CP_R_NET_ALLOW,  /* net allow DOMAIN */
    CP_R_NET_DENY,   /* net deny (no argument) */
    CP_R_NET_SOCKET, /* net socket PATH (one named filesystem Unix socket;
                        a path without globs, u.path) */
};

/* Where a rule came from. */
enum cp_origin {
    CP_ORIGIN_SOURCE,   /* written in a policy file at loc */
    CP_ORIGIN_CONFINED, /* implicit: added by profile confined (or exclusive) */
    CP_ORIGIN_EXCLUSIVE, /* implicit: added by profile exclusive */
};

#define CP_RF_REDUNDANT                                                        \
    0x1u                   /* analysis: contained in another rule of the same
                                kind; backends may emit nothing for it */
#define CP_RF_CONTROL 0x2u /* implicit control-plane protection */

struct cp_rule {
    unsigned id; /* index in policy->rules; "rule #id" in messages */
    enum cp_rule_kind kind;
    enum cp_origin origin;
    unsigned flags; /* CP_RF_* */
    const char
        *why; /* implicit rules: short reason, e.g. "policy source file" */
    struct cp_loc loc; /* the argument's span (src NULL for implicit rules) */
    const char *text;  /* the argument as written, for messages and fmt */
    union {
        struct cp_path path;     /* WRITE, EXEC, DENY_*, NET_SOCKET */
        struct cp_gate_pat gate; /* GATE_* */
        struct cp_domain dom;    /* NET_ALLOW */
    } u;
};

/* expect VERDICT ACCESS SUBJECT */
enum cp_access {
    CP_ACC_READ,
    CP_ACC_WRITE,
    CP_ACC_EXEC,
    CP_ACC_NET,     /* subject: a domain name */
    CP_ACC_GATE,    /* subject: a command line */
    CP_ACC_CONTENT, /* subject: text a file tool would write (content rules) */
    CP_ACC_SOCKET,  /* subject: the path of a filesystem Unix socket */
};

/* Accesses whose subject is a path (read, write, exec, socket). */
static inline bool cp_access_is_path(enum cp_access a)
{
    return a <= CP_ACC_EXEC || a == CP_ACC_SOCKET;
}

struct cp_expect {
    enum cp_verdict verdict;
    enum cp_access access;
    const char
        *subject; /* path (param-rooted form "${PROJECT}/x" kept as text) */
    struct cp_path path; /* read/write/exec/socket: subject as a literal
                            path */
    struct cp_loc loc;
    size_t rules_before; /* rules resolved before it (orders diagnostics) */
};

struct cp_param {
    const char *name;  /* interned */
    const char *value; /* bound with -D (absolute, canonical), or NULL */
    struct cp_loc loc; /* declaration (src NULL for HOME and PROJECT) */
    bool used;         /* some rule is rooted at it */
};

struct cp_policy {
    const char *stem;      /* main file name without directory and .confpol */
    const char *main_path; /* main source path as given */
    enum cp_profile profile;
    bool profile_defaulted; /* no profile statement */
    struct cp_loc
        profile_loc; /* the profile statement (src NULL if defaulted) */
    enum cp_fail fail;
    bool fail_written;
    struct cp_param *params; /* HOME and PROJECT first, then declared order */
    size_t nparams;
    struct cp_rule **rules; /* source order, implicit rules after */
    size_t nrules;
    bool has_exec; /* any CP_R_EXEC */
    enum { CP_NET_ALL, CP_NET_NONE, CP_NET_LIST } net;
    struct cp_expect *expects;
    size_t nexpects;
    const char **sources; /* absolute paths of every policy source file */
    size_t nsources;
    const char *outdir; /* absolute output directory of build, or NULL */
    /* Content rules (compiler/content.h): the built-in detector classes in
     * force (a bit per enum cp_cc; all unless `content allow CLASS`), where
     * each was switched off (src NULL: not switched off), and the
     * `content deny` patterns in rule order. */
    unsigned content_classes;
    struct cp_loc *content_off_loc; /* CP_CC__COUNT entries */
    struct cp_content_rule *content;
    size_t ncontent;
};

/* ---- the decision model (compiler/decide.c) -------------------------- */

struct cp_decision {
    enum cp_verdict verdict;
    /* Rules that decided it: the deny/ask rules that match, or the allow
     * rules that match when allowed.  Empty when decided by default. */
    const struct cp_rule **rules;
    size_t nrules;
    bool by_default; /* no rule matched; the model's default applied */
    /* Set when an unbound param makes the answer depend on its value: the
     * answer given assumes params name directories unrelated to every
     * other root (spec/semantics.md 2.1); name of the param. */
    const char *unbound_param;
    const struct cp_rule *unbound_rule; /* a rule that may match, with it */
    /* Gate: why the command line is known only when it runs, or why it
     * cannot be read (then the verdict is deny with no rule). */
    const char *gate_why;
    bool gate_unreadable;
};

/* `subject`: for read/write/exec/socket an absolute path (no params: bind them
 * first) or a path pattern text like "${PROJECT}/x" resolved against the
 * policy's bound params; for net a domain; for gate a command line. */
int cp_decide(const struct cp_policy *p, enum cp_access acc,
              const char *subject, struct cp_arena *a, struct cp_decision *out);

/* Printable forms, NUL-terminated in the arena. */
const char *cp_path_format(struct cp_arena *a,
                           const struct cp_path *p); /* confpol syntax */
const char *cp_rule_kind_text(enum cp_rule_kind k);  /* "deny write" */
const char *cp_access_text(enum cp_access a);        /* "write" */
const char *cp_verdict_text(enum cp_verdict v);      /* "deny" */
const char *cp_profile_text(enum cp_profile p);

/* Texts for explaining a decision (compiler/policy.c). */
/* "deny write ${PROJECT}/x" for messages (the argument as written). */
const char *cp_sema_rule_text(struct cp_arena *a, const struct cp_rule *r);
/* "profile confined" or "profile exclusive": the origin of an implicit rule. */
const char *cp_sema_origin_text(enum cp_origin o);
/* Why a decision fell to the model's default (no rule matched). */
const char *cp_sema_default_why(enum cp_access acc, enum cp_verdict v,
                                const struct cp_policy *p);

/* Frees what the arena does not own (compiled regexes); the context's owner
 * calls it before freeing the arena.  NULL is allowed. */
void cp_policy_free(struct cp_policy *p);

#endif

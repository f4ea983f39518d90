/* SPDX-License-Identifier: MIT */
/* Pattern algorithms shared by the decision model, the analysis, the gate
 * hook and the backends: matching a subject, and deciding containment and
 * overlap between two patterns exactly (spec/patterns.md).
 * Pure functions: no I/O, no globals. */
#ifndef CP_MATCH_H
#define CP_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

struct cp_arena;

/* Answer of a relation between two patterns. */
enum cp_rel {
    CP_REL_NO,
    CP_REL_YES,
    CP_REL_MAY, /* depends on the value of an unbound param (named in
                   *param); with *param NULL: too costly to decide (a
                   pathological pattern exhausted the work budget, see
                   spec/patterns.md) or a regex is involved */
};

/* ---- paths ----------------------------------------------------------- */

/* Parses a path pattern text (as written in a policy, after ${NAME}
 * interpolation of lets but with param roots kept) into *out.  `quoted`:
 * the whole text is literal (no globs; the root is still recognised).
 * Accepts "/abs", "~", "~/x", "${NAME}", "${NAME}/x"; normalises doubled
 * and trailing slashes.  Unquoted, '\' escapes '*', '?' or '\'; a
 * segment left without globs is stored as CP_SEG_LIT with the escapes
 * removed, so a literal segment may hold '*', '?' and '\' bytes.  Returns
 * NULL on success, else a static message (table in spec/patterns.md) and
 * *err_off, the byte offset of the problem.  Segments point into an arena
 * copy of the text. */
const char *cp_path_parse(struct cp_arena *a, const char *text, size_t len,
                          bool quoted, struct cp_path *out, size_t *err_off);

/* Does pattern p cover the concrete absolute path `path` (p's param root
 * replaced by `root_value`, which must be non-NULL when p->root is set)?
 * A pattern covers every path it matches and everything beneath. */
bool cp_path_covers(const struct cp_path *p, const char *root_value,
                    const char *path, size_t len);

/* Exact: is every path covered by `inner` also covered by `outer`
 * (L(inner) ⊆ L(outer), both closed downwards, over canonical paths)?
 * Params with different names are opaque: the answer is CP_REL_MAY unless
 * it holds or fails for every binding (every absolute canonical directory,
 * "/" included); *param names the param whose binding would decide it
 * (both, when two differ: the name that sorts first).  `param` may be
 * NULL.  Typically 50 ns when one side is literal, a few µs glob against
 * glob; bind params first (cp_path_bind) to get YES/NO. */
enum cp_rel cp_path_contains(const struct cp_path *outer,
                             const struct cp_path *inner, const char **param);
/* Exact: do the two cover a common path? */
enum cp_rel cp_path_overlaps(const struct cp_path *a, const struct cp_path *b,
                             const char **param);
/* Total order for indexes (root name, then segments bytewise, literal
 * before glob); equal iff identical patterns. */
int cp_path_cmp(const struct cp_path *a, const struct cp_path *b);
/* Number of leading literal segments (the part a trie can index). */
size_t cp_path_literal_prefix(const struct cp_path *p);
/* *out = p with its param root replaced by `root_value` (an absolute
 * canonical directory): an absolute pattern sharing p's segments.  Absolute
 * p is copied as is.  Returns NULL, or a message when root_value is not an
 * absolute path without '.', '..' or '${'. */
const char *cp_path_bind(struct cp_arena *a, const struct cp_path *p,
                         const char *root_value, struct cp_path *out);

/* ---- gate (command) patterns ----------------------------------------- */

/* Parses a quoted word pattern or compiles a regex (`is_regex`).  Returns
 * NULL on success, else a message (for regexes, regerror's text). */
const char *cp_gate_parse(struct cp_arena *a, const char *text, size_t len,
                          bool is_regex, struct cp_gate_pat *out);
/* Frees a compiled regex (the arena does not own it); no-op otherwise. */
void cp_gate_free(struct cp_gate_pat *g);
/* The `unknown` pattern (written as the bare word in a policy). */
void cp_gate_unknown(struct cp_gate_pat *out);

/* A command line read once by the shell reader (compiler/shell_read.h) and
 * indexed for matching many patterns: the one matcher of explain, expect,
 * the gate on a policy and the gate on an artifact. */
struct cp_gate_subject;
struct cp_sh_read;
struct cp_gate_subject *cp_gate_subject_new(struct cp_arena *a,
                                            const char *line);
const struct cp_sh_read *cp_gate_subject_read(const struct cp_gate_subject *s);
/* Does the pattern match?  Word patterns: some reading of some command
 * matches (spec/patterns.md 2.3); regex: the whole line; unknown: some
 * command is known only when it runs.  Callers check the reading's error
 * first (an unreadable line is denied).  Allocates in `a`. */
bool cp_gate_subject_matches(const struct cp_gate_pat *g,
                             struct cp_gate_subject *s, struct cp_arena *a);
/* What a command line must hold for a word pattern to match it: the kind
 * of reading cp_gate_subject_matches tries it on (every line, readings
 * with redirections, any reading, or the readings of the programs named).
 * A table keeps the key of a row it has checked but not kept parsed
 * (hook/gate.c), and parses the row only for a line that has it. */
enum cp_gate_key_kind {
    CP_GATE_KEY_ALL,
    CP_GATE_KEY_REDIR,
    CP_GATE_KEY_READINGS,
    CP_GATE_KEY_PROGRAMS,
};
struct cp_gate_key {
    enum cp_gate_key_kind kind;
    const char *const *names; /* PROGRAMS: the program's alternatives */
    size_t n;
};
/* The key of the word pattern g (names copied into a). */
void cp_gate_key_of(struct cp_arena *a, const struct cp_gate_pat *g,
                    struct cp_gate_key *k);
/* Checks a word pattern exactly as cp_gate_parse does, without building
 * what matching needs, and puts its key into k (names in ka); the parse
 * itself goes into a, a scratch arena.  NULL, or why it is invalid. */
const char *cp_gate_check_words(struct cp_arena *a, struct cp_arena *ka,
                                const char *text, size_t len,
                                struct cp_gate_key *k);
/* false: no reading of s is one cp_gate_subject_matches would try a
 * pattern of key k on, so the pattern does not match s. */
bool cp_gate_subject_may(const struct cp_gate_key *k,
                         struct cp_gate_subject *s);
/* The gate decision, the one combination that explain, expect, the gate on
 * a policy and the gate on an artifact share (spec/semantics.md): a line
 * the reader cannot read is deny (no row); else deny if a deny row
 * matches, else ask if an ask row matches, else allow.  The rows are the
 * caller's: verdict(ctx, i) is CP_DENY or CP_ASK (anything else: not a gate
 * row), match(ctx, i, ...) 1, 0, or -1 with *err set when the row cannot
 * be matched (the verdict is then deny with that error).  With ALL, every
 * matching row of the verdict is listed; else the first. */
struct cp_gate_rows {
    size_t n;
    void *ctx;
    enum cp_verdict (*verdict)(void *ctx, size_t i);
    int (*match)(void *ctx, size_t i, struct cp_gate_subject *s,
                 struct cp_arena *a, const char **err);
};
struct cp_gate_result {
    enum cp_verdict verdict;
    size_t *rows; /* the deciding rows, in row order (arena) */
    size_t nrows;
    bool unreadable;   /* denied by the reader: why says why */
    const char *why;   /* unreadable: the reason; else the reader's unknown */
    const char *error; /* a row that could not be matched */
};
void cp_gate_decide(const struct cp_gate_rows *rows, struct cp_gate_subject *s,
                    bool all, struct cp_arena *a, struct cp_gate_result *out);
/* The same for one pattern and a line (reads it). */
bool cp_gate_matches(const struct cp_gate_pat *g, const char *line,
                     struct cp_arena *a);
/* The reason given when a line cannot be read (arena). */
const char *cp_gate_unreadable_reason(struct cp_arena *a, const char *why);
/* Containment / overlap of two word patterns as sets of command lines
 * (wrapper stripping is not taken into account): exact for patterns of
 * single positional words; with options, alternatives, '**' or
 * redirections YES only when proven, else CP_REL_MAY.  Any relation
 * involving a regex is CP_REL_MAY. */
enum cp_rel cp_gate_contains(const struct cp_gate_pat *outer,
                             const struct cp_gate_pat *inner);
enum cp_rel cp_gate_overlaps(const struct cp_gate_pat *a,
                             const struct cp_gate_pat *b);
/* Number of leading words without '*' (0 for a regex): the part a trie
 * can index.  If outer contains inner, outer's leading literal words equal
 * inner's words at the same positions; if two word patterns overlap, their
 * literal words agree wherever both have one.  So, as for paths, the
 * candidates of a containment sit at the ancestors of a pattern's trie
 * node, and those of an overlap at its ancestors and descendants. */
size_t cp_gate_literal_prefix(const struct cp_gate_pat *g);

/* ---- domains --------------------------------------------------------- */

/* Parsing, matching and the network decision: util/netmatch.h (included
 * through policy.h).  Exact relations between two domain patterns: */
enum cp_rel cp_domain_contains(const struct cp_domain *outer,
                               const struct cp_domain *inner);
/* Exact: does some host match both? */
enum cp_rel cp_domain_overlaps(const struct cp_domain *a,
                               const struct cp_domain *b);

#endif

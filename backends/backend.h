/* SPDX-License-Identifier: MIT */
/* The backend interface: each target lowers the resolved rule list (never
 * the AST) into an artifact in memory and rates its fidelity per rule. */
#ifndef CP_BACKEND_H
#define CP_BACKEND_H

#include <stdbool.h>

#include "arena.h"
#include "../compiler/diag.h"
#include "../compiler/policy.h"

enum cp_fidelity {
    CP_FID_EXACT,        /* enforced exactly as the decision model says */
    CP_FID_STRICTER,     /* enforced, but the target denies more */
    CP_FID_NOT_ENFORCED, /* this target does not enforce it (another does) */
};

struct cp_backend_opts {
    bool expand_globs; /* bwrap: expand deny globs at apply time */
    bool shell_format; /* bwrap: --format shell (readable command line) */
};

struct cp_backend {
    const char *name;   /* "sbpl", "bwrap", "claude" */
    const char *suffix; /* ".sb", ".bwrap", ".claude.json" */
    /* Every reader rejects the artifact when it is cut short (the .bwrap
     * trailer, JSON's closing brace), so a write that a crash truncates
     * fails closed and build need not fsync it (spec/cli.md). */
    bool truncation_detected;
    /* Reports what the target cannot express (errors at the rule, fidelity
     * warnings) and returns the number of errors. */
    int (*check)(const struct cp_policy *p, const struct cp_backend_opts *o,
                 struct cp_diags *d);
    /* Fidelity of one rule on this target; *why: one line, static or arena. */
    enum cp_fidelity (*fidelity)(const struct cp_policy *p,
                                 const struct cp_rule *r, struct cp_arena *a,
                                 const char **why);
    /* Fidelity of every rule at once (fid[i], why[i] for p->rules[i]) under
     * the given options; optional (NULL: use `fidelity` per rule). */
    void (*fidelity_all)(const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_arena *a,
                         enum cp_fidelity *fid, const char **why);
    /* Appends the artifact to out.  Returns false (with diagnostics) on
     * failure.  Returns true with out->len == 0 when the target writes no
     * file for this policy (e.g. an OS target and a cooperative policy);
     * then it reports a note saying so. */
    bool (*emit)(const struct cp_policy *p, const struct cp_backend_opts *o,
                 struct cp_arena *a, struct cp_diags *d, struct cp_buf *out);
    /* check, then emit when it added no error to d, from one analysis:
     * the diagnostics and bytes of the two calls in a row.  Returns the
     * number of errors check would return; out is left empty unless the
     * artifact was emitted.  Scratch memory is freed before returning. */
    int (*build)(const struct cp_policy *p, const struct cp_backend_opts *o,
                 struct cp_diags *d, struct cp_buf *out);
};

extern const struct cp_backend cp_backend_sbpl;
extern const struct cp_backend cp_backend_bwrap;
extern const struct cp_backend cp_backend_claude;
/* Rated only (build --fidelity beside bwrap): the Landlock enforcer that
 * applies the .bwrap artifact without namespaces (backends/landlock.c). */
extern const struct cp_backend cp_backend_landlock;

/* Number of mount records (bind, pin, pinro, ro, mask) of a .bwrap record
 * stream (backends/bwrap.c). */
size_t cp_bwrap_count_mounts(const char *data, size_t len);

/* NULL-terminated table in a stable order: sbpl, bwrap, claude. */
extern const struct cp_backend *const cp_backends[];
const struct cp_backend *cp_backend_find(const char *name);

#endif

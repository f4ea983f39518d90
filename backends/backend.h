/* SPDX-License-Identifier: MIT */
/* The backend interface: each target lowers the resolved rule list (never
 * the AST) in two steps.  `analyse` reads the policy once and yields an
 * analysis (its diagnostics, the fidelity of every rule, the facts the
 * artifact needs); `write` turns an error-free analysis into bytes.  check,
 * emit, build and the fidelity table are written once, over those two
 * steps, in backends/backends.c (spec/backends.md, "The backend
 * interface"). */
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
    bool shell_format; /* --format shell (targets with `shell_format`) */
    bool verbose;      /* write also reports a summary note of the artifact
                          (bwrap: its mount count, CP0722) */
};

/* What an analysis reports to its diagnostics. */
enum cp_report {
    CP_REPORT_NONE,   /* nothing (fidelity queries) */
    CP_REPORT_ERRORS, /* errors only: what keeps the artifact from being
                         written (emit) */
    CP_REPORT_ALL,    /* errors, fidelity warnings and notes (check, build) */
};

/* One backend's analysis of one policy; opaque outside backends/ (its
 * common head is in backends/fidelity.h).  It lives in the arena given to
 * `analyse`, and refers to the policy and options given there. */
struct cp_analysis;

struct cp_backend {
    const char *name;   /* "sbpl", "bwrap", "claude", "codex", "landlock" */
    const char *suffix; /* ".sb", ".bwrap", ".claude.json", ".codex.toml";
                           NULL: the target
                           writes no file of its own (rated only) */
    /* Every reader rejects the artifact when it is cut short (the .bwrap
     * trailer, JSON's closing brace), so a write that a crash truncates
     * fails closed and build need not fsync it (spec/cli.md). */
    bool truncation_detected;
    /* The artifact has a readable shell form (--format shell). */
    bool shell_format;
    /* The artifact enforces the policy's gates (the claude target's hook);
     * a build without such a target gets the note CP0721. */
    bool enforces_gates;
    /* Rated right after this target in `build --fidelity`: an enforcer
     * that applies this target's artifact (bwrap: landlock). */
    const struct cp_backend *rated_beside;
    /* The target needs every param a rule uses bound with -D, so it is
     * built only when named, never by `--target all` (codex). */
    bool bound_only;
    /* Step 1: analyses p under o (NULL: defaults) in arena a, reporting to
     * d (may be NULL) as rep says.  Never NULL. */
    struct cp_analysis *(*analyse)(const struct cp_policy *p,
                                   const struct cp_backend_opts *o,
                                   struct cp_arena *a, struct cp_diags *d,
                                   enum cp_report rep);
    /* Step 2, for an analysis without errors: appends the artifact to out,
     * or, when the target writes no file for this policy (an OS target
     * and a cooperative policy), appends nothing and reports to d (may be
     * NULL) a note saying so.  NULL for a target rated only: it writes
     * nothing. */
    void (*write)(const struct cp_analysis *an, struct cp_diags *d,
                  struct cp_buf *out);
};

extern const struct cp_backend cp_backend_sbpl;
extern const struct cp_backend cp_backend_bwrap;
extern const struct cp_backend cp_backend_claude;
extern const struct cp_backend cp_backend_codex;
/* Rated only (build --fidelity beside bwrap): the Landlock enforcer that
 * applies the .bwrap artifact without namespaces (backends/landlock.c). */
extern const struct cp_backend cp_backend_landlock;

/* NULL-terminated table of the targets that write a file, in a stable
 * order: sbpl, bwrap, claude, codex.  The order is the order of `build`, and the
 * index is the target's bit in a set of targets (1u << i). */
extern const struct cp_backend *const cp_backends[];
const struct cp_backend *cp_backend_find(const char *name);

/* ---- the two steps, for a caller that keeps the analysis ---------------- */

struct cp_analysis *cp_backend_analyse(const struct cp_backend *be,
                                       const struct cp_policy *p,
                                       const struct cp_backend_opts *o,
                                       struct cp_arena *a, struct cp_diags *d,
                                       enum cp_report rep);
/* The number of errors the analysis found (counted even when unreported). */
int cp_analysis_errors(const struct cp_analysis *an);
/* Step 2 (see `write`); the analysis must have no error. */
void cp_analysis_write(const struct cp_analysis *an, struct cp_diags *d,
                       struct cp_buf *out);

/* ---- check, emit, build and fidelity, over the two steps ---------------- */

/* Reports what the target cannot express (errors at the rule, fidelity
 * warnings) and returns the number of errors. */
int cp_backend_check(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_diags *d);
/* Appends the artifact to out (analysis memory in a).  Returns false, with
 * the errors reported to d (may be NULL), when the target cannot lower the
 * policy.  Returns true with nothing appended when the target writes no
 * file for this policy; then it reports a note saying so. */
bool cp_backend_emit(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_arena *a,
                     struct cp_diags *d, struct cp_buf *out);
/* check, then emit when it added no error to d, from one analysis: the
 * diagnostics and bytes of the two calls in a row.  Returns the number of
 * errors check would return; out is left empty unless the artifact was
 * written.  Scratch memory is freed before returning. */
int cp_backend_build(const struct cp_backend *be, const struct cp_policy *p,
                     const struct cp_backend_opts *o, struct cp_diags *d,
                     struct cp_buf *out);
/* The fidelity of every rule (fid[i], why[i] for p->rules[i], why never
 * NULL) under o, reporting nothing; arrays of p->nrules entries. */
void cp_backend_fidelity(const struct cp_backend *be, const struct cp_policy *p,
                         const struct cp_backend_opts *o, struct cp_arena *a,
                         enum cp_fidelity *fid, const char **why);

#endif

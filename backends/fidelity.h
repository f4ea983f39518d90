/* SPDX-License-Identifier: MIT */
/* What the backends share while lowering: the common head of an analysis,
 * a per-rule fidelity table (the strictest finding wins) and diagnostics
 * located at a rule. */
#ifndef CP_FIDELITY_H
#define CP_FIDELITY_H

#include <stdarg.h>

#include "backend.h"

/* The head of every backend's analysis (its first member), which the
 * driver (backends.c) reads; the rest is the backend's own. */
struct cp_analysis {
    const struct cp_backend *be;
    const struct cp_policy *p;
    struct cp_backend_opts o; /* a copy: zeroed when none were given */
    struct cp_arena *a;       /* the analysis and its scratch memory */
    struct cp_diags *d;       /* NULL: nothing is reported */
    enum cp_report rep;
    int errors;            /* counted whether reported or not */
    enum cp_fidelity *fid; /* per rule, in rule order */
    const char **why;      /* per rule, in rule order, never NULL */
};

/* Fills the head; d is kept only when rep asks for something. */
void cp_analysis_init(struct cp_analysis *h, const struct cp_backend *be,
                      const struct cp_policy *p,
                      const struct cp_backend_opts *o, struct cp_arena *a,
                      struct cp_diags *d, enum cp_report rep);
/* Where a diagnostic of code c goes: h->d, or NULL when it is not to be
 * reported (CP_REPORT_ERRORS and a code that is not an error by default). */
struct cp_diags *cp_analysis_sink(const struct cp_analysis *h,
                                  enum cp_diag_code c);

struct cp_fidtab {
    enum cp_fidelity *fid; /* by rule id */
    const char **why;      /* by rule id; NULL: no finding (exact) */
};

void cp_fidtab_init(struct cp_fidtab *t, struct cp_arena *a, size_t nrules);
/* Records a finding; one of lower or equal rank than the recorded one is
 * ignored, so the strictest finding wins and the first of a rank stays. */
void cp_fidtab_set(struct cp_fidtab *t, const struct cp_rule *r,
                   enum cp_fidelity f, const char *why);
/* Sets h->fid and h->why from the table, in rule order. */
void cp_fidtab_rate(const struct cp_fidtab *t, struct cp_analysis *h);

/* The rule as written, or its path formatted when it has no source text. */
const char *cp_backend_rule_text(struct cp_arena *a, const struct cp_rule *r);
/* Where the rule is written, "FILE:LINE", or "rule #ID" for an implicit
 * rule (the records of the artifacts and profiles name it). */
const char *cp_backend_rule_where(struct cp_arena *a, const struct cp_rule *r);
/* The domain of a net rule as written: "*.github.com" for a wildcard. */
const char *cp_backend_rule_domain(struct cp_arena *a, const struct cp_rule *r);
/* An array of n items of `size` bytes in arena a with room for one more:
 * v itself, or a copy of twice its capacity (*cap updated). */
void *cp_backend_grow(struct cp_arena *a, void *v, size_t n, size_t *cap,
                      size_t size);
/* A word of a gate pattern that a target's literal prefix rules say as it
 * is (Claude Code's Bash rules, Codex's exec-policy prefixes, held in a
 * Starlark string and a TOML literal string): letters, digits and
 * "_./=,@%+-:", at least one. */
bool cp_backend_plain_word(const char *w);
/* Reports at the rule (no location for implicit rules, with a note naming
 * why the profile added them).  d == NULL: nothing is reported. */
struct cp_diag *cp_backend_vreport(struct cp_diags *d, enum cp_diag_code c,
                                   const struct cp_rule *r, const char *fmt,
                                   va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif

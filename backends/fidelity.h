/* SPDX-License-Identifier: MIT */
/* What the OS backends share while lowering: a per-rule fidelity table
 * (the strictest finding wins) and diagnostics located at a rule. */
#ifndef CP_FIDELITY_H
#define CP_FIDELITY_H

#include <stdarg.h>

#include "backend.h"

struct cp_fidtab {
    enum cp_fidelity *fid; /* by rule id */
    const char **why;      /* by rule id; NULL: no finding (exact) */
};

void cp_fidtab_init(struct cp_fidtab *t, struct cp_arena *a, size_t nrules);
/* Records a finding; one of lower or equal rank than the recorded one is
 * ignored, so the strictest finding wins and the first of a rank stays. */
void cp_fidtab_set(struct cp_fidtab *t, const struct cp_rule *r,
                   enum cp_fidelity f, const char *why);
/* The rule's fidelity; *why is "" when nothing was recorded. */
enum cp_fidelity cp_fidtab_get(const struct cp_fidtab *t,
                               const struct cp_rule *r, const char **why);
/* The fidelity of every rule of p, in rule order (fidelity_all). */
void cp_fidtab_copy(const struct cp_fidtab *t, const struct cp_policy *p,
                    enum cp_fidelity *fid, const char **why);

/* The rule as written, or its path formatted when it has no source text. */
const char *cp_backend_rule_text(struct cp_arena *a, const struct cp_rule *r);
/* The domain of a net rule as written: "*.github.com" for a wildcard. */
const char *cp_backend_rule_domain(struct cp_arena *a, const struct cp_rule *r);
/* Reports at the rule (no location for implicit rules, with a note naming
 * why the profile added them).  d == NULL: nothing is reported. */
struct cp_diag *cp_backend_vreport(struct cp_diags *d, enum cp_diag_code c,
                                   const struct cp_rule *r, const char *fmt,
                                   va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif

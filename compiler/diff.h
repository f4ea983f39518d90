/* SPDX-License-Identifier: MIT */
/* confpol diff: the accesses one resolved policy grants or refuses that
 * another does not, each with a witness the decision model decides
 * differently under the two (spec/semantics.md, "Diff"). */
#ifndef CP_DIFF_H
#define CP_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "policy.h"

/* One side's decision of a witness: what cp_decide answered. */
struct cp_diff_side {
    enum cp_verdict verdict;
    const struct cp_rule **rules; /* the deciding rules (the side's own) */
    size_t nrules;
    bool by_default;
    const char *unbound_param; /* the decision's note, or NULL */
};

/* A region: the subjects of one access decided by exactly these rules with
 * these verdicts on each side; `subject` is its first witness (the
 * shortest found).  Params named in bind_names are bound to bind_values
 * for the witness (a side that does not declare one ignores it). */
struct cp_diff_item {
    enum cp_access access;
    bool widened; /* new grants more (deny < ask < allow); else narrowed */
    const char *subject; /* as explain takes it: /abs, ~/x, ${NAME}/x */
    const char *region;  /* the changed rule's pattern, or NULL */
    const char **bind_names, **bind_values;
    size_t nbind;
    struct cp_diff_side old, new;
};

struct cp_diff_opts {
    /* Search the binding classes of the params the policies leave unbound
     * (the default); false: only the unbound model (params opaque). */
    bool bindings;
    /* Work budget (product states of the search); 0: the default. */
    size_t budget;
};

struct cp_diff {
    struct cp_diff_item *items; /* widened first, then narrowed; each in
                                   access order, then as found */
    size_t n;
    size_t nwidened, nnarrowed;
    size_t nprobes; /* subjects decided on both sides */
    /* Set when a question exceeded the budget or a limit: a region may
     * have been missed (callers fail closed). */
    const char *incomplete;
};

/* Compares the two policies (resolved, each with its own -D bindings).
 * Items and their texts live in `a`; rules point into the policies. */
void cp_diff_policies(const struct cp_policy *old, const struct cp_policy *new,
                      const struct cp_diff_opts *o, struct cp_arena *a,
                      struct cp_diff *out);

#endif

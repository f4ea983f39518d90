/* SPDX-License-Identifier: MIT */
/* Exact relations between two domain patterns, for the analysis
 * (spec/patterns.md, "Domains"): containment and overlap.  Parsing and
 * matching one host live in util/netmatch.c, shared with the launcher. */
#include "match.h"

/* Does the name of d, taken as a wildcard or not, match `name`?  Pattern
 * names are canonical (non-empty, lower-case, no trailing dot), so this
 * is exact equality (plain) or being a strict subdomain (wildcard). */
static bool dom_name_matches(const struct cp_domain *d, bool wildcard,
                             const char *name)
{
    struct cp_domain w = *d;
    w.wildcard = wildcard;
    return cp_domain_matches(&w, name);
}

enum cp_rel cp_domain_contains(const struct cp_domain *outer,
                               const struct cp_domain *inner)
{
    if (outer->kind != inner->kind ||
        (outer->port && outer->port != inner->port))
        return CP_REL_NO;
    if (!outer->wildcard)
        return (!inner->wildcard && dom_name_matches(outer, false, inner->name))
                   ? CP_REL_YES
                   : CP_REL_NO;
    /* *.W contains n and *.n exactly when n is W's strict subdomain, and
     * also contains *.W itself. */
    if (dom_name_matches(outer, true, inner->name))
        return CP_REL_YES;
    if (inner->wildcard && dom_name_matches(outer, false, inner->name))
        return CP_REL_YES;
    return CP_REL_NO;
}

enum cp_rel cp_domain_overlaps(const struct cp_domain *a,
                               const struct cp_domain *b)
{
    if (a->kind != b->kind || (a->port && b->port && a->port != b->port))
        return CP_REL_NO;
    struct cp_domain a0 = *a, b0 = *b;
    a0.port = b0.port = 0; /* ports compatible: the hosts decide */
    a = &a0;
    b = &b0;
    if (cp_domain_contains(a, b) == CP_REL_YES ||
        cp_domain_contains(b, a) == CP_REL_YES)
        return CP_REL_YES;
    /* Two wildcards overlap iff one base is equal to or below the other
     * (covered above); a wildcard and a name iff the name matches. */
    return CP_REL_NO;
}

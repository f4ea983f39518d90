/* SPDX-License-Identifier: MIT */
/* Path helpers shared by the OS backends (SBPL, bwrap): a total order on
 * literal path patterns that keeps every subtree contiguous, sorted sets
 * with ancestor/descendant queries in O(depth log n), and the relation of a
 * path to a set of write roots, exact for literal paths and conservative
 * ("may") across param roots. */
#ifndef CP_OSPATH_H
#define CP_OSPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "../compiler/policy.h"

/* Order: absolute paths first, then by root name (bytewise); then segment
 * by segment, bytewise, a shorter path before its extensions.  A path is
 * therefore immediately followed by everything beneath it. */
int cp_ospath_cmp(const struct cp_path *a, const struct cp_path *b);
/* Number of segments, counting a param root as one. */
size_t cp_ospath_depth(const struct cp_path *p);
/* Same root and anc's segments are a prefix of p's (byte-equal). */
bool cp_ospath_is_prefix(const struct cp_path *anc, const struct cp_path *p);
/* The first k segments of p (shares p's segments). */
struct cp_path cp_ospath_prefix(const struct cp_path *p, size_t k);

/* Sets perm[0..n) to the indices of paths[0..n) in cp_ospath_cmp order
 * or, with `by_depth`, by cp_ospath_depth first.  Each path is encoded
 * once as a byte string whose bytewise order is that order, compared 8
 * bytes at a time.  Stable: equal paths keep their order. */
void cp_ospath_sort(const struct cp_path *const *paths, size_t n, bool by_depth,
                    size_t *perm);
/* The same, keeping only the first of each run of equal paths: returns
 * their number k, with their indices in perm[0..k). */
size_t cp_ospath_sort_uniq(const struct cp_path *const *paths, size_t n,
                           bool by_depth, size_t *perm);

/* A sorted, de-duplicated set of literal paths. */
struct cp_pathset {
    const struct cp_path **v;
    size_t n;
    const char **roots; /* distinct roots present (NULL = absolute) */
    size_t nroots;
    /* Hash index of the members for the exact and ancestor queries (one
     * probe per prefix instead of a binary search each). */
    struct cp_pathset_slot *slots;
    size_t mask; /* slots: mask + 1, a power of two; 0 when empty */
};

struct cp_pathset_slot {
    uint64_t h;
    size_t idx; /* member index + 1; 0: empty */
};

/* Sorts and de-duplicates v (arena-owned array of n pointers). */
void cp_pathset_init(struct cp_arena *a, struct cp_pathset *s,
                     const struct cp_path **v, size_t n);
bool cp_pathset_has(const struct cp_pathset *s, const struct cp_path *p);
/* Index of the first member >= p in the set's order (cp_ospath_cmp): the
 * members at or beneath p follow it contiguously. */
size_t cp_pathset_lower(const struct cp_pathset *s, const struct cp_path *p);
/* Some member is p or an ancestor of p (same root). */
const struct cp_path *cp_pathset_ancestor_or_self(const struct cp_pathset *s,
                                                  const struct cp_path *p);
/* Some member is a strict ancestor of p (same root); the shallowest one. */
const struct cp_path *cp_pathset_outermost_strict_ancestor(
    const struct cp_pathset *s, const struct cp_path *p);
/* Some member has a root different from `root` (then a relation between
 * them depends on param values: "may"). */
bool cp_pathset_other_root(const struct cp_pathset *s, const char *root);

/* Relation of a pattern to the union of a set of literal write roots:
 * CP_REL_YES when they certainly share a path, CP_REL_MAY when that
 * depends on param values, CP_REL_NO when they never do.  Globs are
 * decided exactly against the members below their literal prefix. */
enum cp_ospath_rel { CP_OSREL_NO, CP_OSREL_YES, CP_OSREL_MAY };
enum cp_ospath_rel cp_pathset_overlaps(const struct cp_pathset *s,
                                       const struct cp_path *p);
/* Is the pattern certainly contained in some member (a literal member is
 * an ancestor-or-self of p's literal prefix)? */
bool cp_pathset_contains(const struct cp_pathset *s, const struct cp_path *p);

#endif

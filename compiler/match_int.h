/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the match_*.c files (not a public interface). */
#ifndef CP_MATCH_INT_H
#define CP_MATCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* Does the pattern segment list match some prefix (by segments) of the
 * concrete path `path` ("" or "/a/b", no empty segments expected)? */
bool cp_match_segs(const struct cp_seg *segs, size_t nsegs, const char *path,
                   size_t len);

/* Gate word globs ('*' any run of bytes, other bytes literal, NUL-
 * terminated): exact language inclusion L(inner) ⊆ L(outer) and overlap.
 * 1 yes, 0 no, -1 too costly to decide. */
int cp_match_word_contains(const char *outer, const char *inner);
int cp_match_word_overlaps(const char *a, const char *b);

#endif

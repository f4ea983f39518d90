/* SPDX-License-Identifier: MIT */
/* Exact containment and overlap of path patterns (spec/patterns.md,
 * "Relations"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "match_int.h"

bool cp_match_glob_seg(const char *pat, size_t plen, const char *s, size_t n)
{
    size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;
    while (i < n) {
        if (p < plen && pat[p] == '*') {
            star_p = ++p;
            star_i = i;
            continue;
        }
        if (p < plen) {
            if (pat[p] == '?') {
                p++;
                i++;
                continue;
            }
            char c = pat[p];
            size_t step = 1;
            if (c == '\\' && p + 1 < plen) {
                c = pat[p + 1];
                step = 2;
            }
            if (c == s[i]) {
                p += step;
                i++;
                continue;
            }
        }
        if (star_p == (size_t)-1)
            return false;
        p = star_p;
        i = ++star_i;
    }
    while (p < plen && pat[p] == '*')
        p++;
    return p == plen;
}

static bool seg_matches(const struct cp_seg *g, const char *s, size_t n)
{
    switch (g->kind) {
    case CP_SEG_LIT:
        return g->len == n && memcmp(g->s, s, n) == 0;
    case CP_SEG_GLOB:
        return cp_match_glob_seg(g->s, g->len, s, n);
    case CP_SEG_ANY:
        return true;
    }
    return false;
}

bool cp_match_segs(const struct cp_seg *segs, size_t nsegs, const char *path,
                   size_t len)
{
    /* Set of pattern positions reached after each path segment. */
    uint64_t small[4];
    size_t words = (nsegs + 1 + 63) / 64;
    uint64_t *cur = words <= 2 ? small : cp_xcalloc(2 * words, sizeof *cur);
    uint64_t *nxt = cur + words;
    bool hit = false;

    memset(cur, 0, words * sizeof *cur);
    cur[0] = 1;
    size_t i = 0;
    for (;;) {
        /* epsilon: '**' may match zero segments */
        for (size_t k = 0; k < nsegs; k++)
            if ((cur[k / 64] >> (k % 64)) & 1 && segs[k].kind == CP_SEG_ANY)
                cur[(k + 1) / 64] |= (uint64_t)1 << ((k + 1) % 64);
        if ((cur[nsegs / 64] >> (nsegs % 64)) & 1) {
            hit = true;
            break;
        }
        while (i < len && path[i] == '/')
            i++;
        if (i >= len)
            break;
        size_t s = i;
        while (i < len && path[i] != '/')
            i++;
        bool any = false;
        memset(nxt, 0, words * sizeof *nxt);
        for (size_t k = 0; k < nsegs; k++) {
            if (!((cur[k / 64] >> (k % 64)) & 1))
                continue;
            if (segs[k].kind == CP_SEG_ANY) {
                nxt[k / 64] |= (uint64_t)1 << (k % 64);
                any = true;
            } else if (seg_matches(&segs[k], path + s, i - s)) {
                nxt[(k + 1) / 64] |= (uint64_t)1 << ((k + 1) % 64);
                any = true;
            }
        }
        if (!any)
            break;
        memcpy(cur, nxt, words * sizeof *cur);
    }
    if (cur != small)
        free(cur);
    return hit;
}

enum cp_rel cp_path_contains(const struct cp_path *outer,
                             const struct cp_path *inner, const char **param)
{
    (void)outer;
    (void)inner;
    *param = NULL;
    return CP_REL_MAY; /* interim: exact procedure follows */
}

enum cp_rel cp_path_overlaps(const struct cp_path *a, const struct cp_path *b,
                             const char **param)
{
    (void)a;
    (void)b;
    *param = NULL;
    return CP_REL_MAY; /* interim: exact procedure follows */
}

/* SPDX-License-Identifier: MIT */
/* "Did you mean": the fixed word nearest to a misspelt one, for keywords,
 * profiles, fail modes, access words, -W names, commands and options. */
#include <string.h>
#include <strings.h>

#include "diag.h"

/* Optimal string alignment distance (a swap of two neighbours costs 1) of
 * A (n bytes) and B (m bytes), both at most CP_NEAR_MAX bytes. */
enum { CP_NEAR_MAX = 32 };

static unsigned cp_osa(const char *a, size_t n, const char *b, size_t m)
{
    unsigned d[CP_NEAR_MAX + 1][CP_NEAR_MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            unsigned c = a[i - 1] == b[j - 1] ? 0 : 1;
            unsigned best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + c < best)
                best = d[i - 1][j - 1] + c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *cp_nearest(const char *w, size_t n, const void *words, size_t count,
                       size_t stride)
{
    if (n > CP_NEAR_MAX)
        return NULL;
    const char *best = NULL;
    unsigned bestd = ~0u;
    for (size_t k = 0; k < count; k++) {
        const char *kw = *(const char *const *)((const char *)words +
                                                k * stride);
        if (!kw)
            break;
        size_t m = strlen(kw);
        if (m > CP_NEAR_MAX)
            continue;
        if (m == n && strncasecmp(kw, w, n) == 0)
            return kw;
        unsigned d = cp_osa(w, n, kw, m);
        /* One edit for short words, two from five bytes on: further is
         * more often another word than a typo; none for two bytes or less
         * ('-x' is not a misspelt '-D'). */
        unsigned max = m > 4 ? 2u : m > 2 ? 1u : 0u;
        if (d <= max && d < bestd) {
            best = kw;
            bestd = d;
        }
    }
    return best;
}

const char *cp_nearest_word(const char *w, const char *const *words)
{
    size_t count = 0;
    while (words[count])
        count++;
    return cp_nearest(w, strlen(w), words, count, sizeof *words);
}

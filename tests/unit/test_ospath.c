/* SPDX-License-Identifier: MIT */
/* The path order of the OS backends: cp_ospath_sort (a radix sort on
 * encoded keys) against a plain stable sort with cp_ospath_cmp. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ospath.h"

struct ref_ctx {
    const struct cp_path *const *v;
    bool by_depth;
};

/* Insertion sort of indices: stable, and obviously right. */
static void ref_sort(const struct ref_ctx *c, size_t n, size_t *perm)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0; j--) {
            const struct cp_path *a = c->v[perm[j - 1]], *b = c->v[i];
            int k = 0;
            if (c->by_depth && cp_ospath_depth(a) != cp_ospath_depth(b))
                k = cp_ospath_depth(a) < cp_ospath_depth(b) ? -1 : 1;
            if (!k)
                k = cp_ospath_cmp(a, b);
            if (k <= 0)
                break;
            perm[j] = perm[j - 1];
        }
        perm[j] = i;
    }
}

START_TEST(test_sort_matches_comparator)
{
    static const char *const roots[] = {NULL, "HOME", "PROJECT", "HOMEX"};
    static const char *const words[] = {"a",        "ab",        "b",
                                        "abcdefgh", "abcdefghi", "abcdefg",
                                        "x*",       "tmp",       "private"};
    struct cp_arena *a = cp_arena_new();
    unsigned seed = 7;
    for (int iter = 0; iter < 300; iter++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 8) % 200;
        const struct cp_path **v = cp_arena_alloc(a, (n + 1) * sizeof *v);
        for (size_t i = 0; i < n; i++) {
            struct cp_path *p = cp_arena_alloc(a, sizeof *p);
            seed = seed * 1103515245u + 12345u;
            p->root = roots[(seed >> 8) % 4];
            p->nsegs = (seed >> 12) % 5;
            p->segs = cp_arena_alloc(a, (p->nsegs + 1) * sizeof *p->segs);
            for (size_t j = 0; j < p->nsegs; j++) {
                seed = seed * 1103515245u + 12345u;
                unsigned k = (seed >> 8) % 3;
                p->segs[j].kind = k == 0   ? CP_SEG_LIT
                                  : k == 1 ? CP_SEG_GLOB
                                           : CP_SEG_ANY;
                if (p->segs[j].kind != CP_SEG_ANY) {
                    p->segs[j].s = words[(seed >> 12) % 9];
                    p->segs[j].len = strlen(p->segs[j].s);
                    p->has_glob |= p->segs[j].kind == CP_SEG_GLOB;
                } else {
                    p->has_glob = true;
                }
            }
            v[i] = p;
        }
        for (int bd = 0; bd < 2; bd++) {
            size_t *got = cp_arena_alloc(a, (n + 1) * sizeof *got);
            size_t *want = cp_arena_alloc(a, (n + 1) * sizeof *want);
            size_t *uniq = cp_arena_alloc(a, (n + 1) * sizeof *uniq);
            struct ref_ctx c = {v, bd != 0};
            ref_sort(&c, n, want);
            cp_ospath_sort(v, n, bd != 0, got);
            for (size_t i = 0; i < n; i++)
                ck_assert_uint_eq(got[i], want[i]);
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (m == 0 || cp_ospath_cmp(v[uniq[m - 1]], v[want[i]]) != 0)
                    uniq[m++] = want[i];
            size_t k = cp_ospath_sort_uniq(v, n, bd != 0, got);
            ck_assert_uint_eq(k, m);
            for (size_t i = 0; i < m; i++)
                ck_assert_uint_eq(got[i], uniq[i]);
        }
    }
    cp_arena_free(a);
}
END_TEST

START_TEST(test_sort_many_equal)
{
    /* Long runs of equal paths keep their input order. */
    struct cp_arena *a = cp_arena_new();
    struct cp_seg seg = {.kind = CP_SEG_LIT, .s = "same", .len = 4};
    struct cp_path same = {.root = NULL, .segs = &seg, .nsegs = 1};
    struct cp_path root = {0};
    size_t n = 1000;
    const struct cp_path **v = cp_arena_alloc(a, n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = i % 3 ? &same : &root;
    size_t *perm = cp_arena_alloc(a, n * sizeof *perm);
    cp_ospath_sort(v, n, true, perm);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3)
        ck_assert_uint_eq(perm[k++], i);
    for (size_t i = 0; i < n; i++)
        if (i % 3)
            ck_assert_uint_eq(perm[k++], i);
    ck_assert_uint_eq(cp_ospath_sort_uniq(v, n, false, perm), 2);
    ck_assert_uint_eq(perm[0], 0);
    ck_assert_uint_eq(perm[1], 1);
    cp_arena_free(a);
}
END_TEST

Suite *cp_test_ospath_suite(void); /* collected by the Makefile */
Suite *cp_test_ospath_suite(void)
{
    Suite *s = suite_create("ospath");
    TCase *tc = tcase_create("sort");
    tcase_add_test(tc, test_sort_matches_comparator);
    tcase_add_test(tc, test_sort_many_equal);
    suite_add_tcase(s, tc);
    return s;
}

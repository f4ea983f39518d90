/* SPDX-License-Identifier: MIT */
/* confpol-gate's allocator (hook/gate_heap.c), included here with its
 * functions renamed so that the test runner keeps the C library's malloc:
 * sizes and alignment, reuse (and calloc's zeroing of a reused block),
 * realloc across the small classes and the mapped blocks, the overflow
 * refusals, and the aborts on a header it did not write. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CP_HEAP_NAME(f) cp_test_heap_##f
void *cp_test_heap_malloc(size_t n);
void *cp_test_heap_calloc(size_t m, size_t n);
void *cp_test_heap_realloc(void *p, size_t n);
void cp_test_heap_free(void *p);
void *cp_test_heap_aligned_alloc(size_t align, size_t n);
int cp_test_heap_posix_memalign(void **out, size_t align, size_t n);
#include "../../hook/gate_heap.c"

static bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

/* Every size from 0 to past the largest class: aligned, writable, and no
 * two live blocks share a byte. */
START_TEST(heap_sizes)
{
    static const size_t sizes[] = {0,     1,      15,         16,
                                   17,    100,    4096,       65536,
                                   65537, 262144, 262144 + 1, 1u << 20};
    enum { N = sizeof sizes / sizeof sizes[0] };
    unsigned char *p[N];
    for (size_t i = 0; i < N; i++) {
        p[i] = cp_test_heap_malloc(sizes[i]);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_uint_eq((uintptr_t)p[i] % 16, 0);
        memset(p[i], (int)i + 1, sizes[i]);
    }
    for (size_t i = 0; i < N; i++) {
        ck_assert(all_bytes(p[i], sizes[i], (unsigned char)(i + 1)));
        cp_test_heap_free(p[i]);
    }
    cp_test_heap_free(NULL);
}
END_TEST

/* A freed block is handed out again for its class; calloc zeroes it. */
START_TEST(heap_reuse)
{
    unsigned char *p = cp_test_heap_malloc(100);
    memset(p, 0xff, 100);
    cp_test_heap_free(p);
    unsigned char *q = cp_test_heap_calloc(4, 32); /* 128: the same class */
    ck_assert_ptr_eq(q, p);
    ck_assert(all_bytes(q, 128, 0));
    unsigned char *r = cp_test_heap_calloc(1, 1u << 20); /* mapped: zero */
    ck_assert(all_bytes(r, 1u << 20, 0));
    cp_test_heap_free(q);
    cp_test_heap_free(r);
}
END_TEST

/* realloc keeps the bytes: within a class, to a larger class, to a mapped
 * block, between mapped sizes (mremap), and back to a small block. */
START_TEST(heap_realloc)
{
    static const size_t steps[] = {
        10, 30, 1000, 300000, 3u << 20, (1u << 20) + 5, 500, 7};
    unsigned char *p = cp_test_heap_realloc(NULL, 5);
    size_t had = 5;
    memset(p, 0x5a, had);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        size_t n = steps[i];
        p = cp_test_heap_realloc(p, n);
        ck_assert_ptr_nonnull(p);
        ck_assert(all_bytes(p, n < had ? n : had, 0x5a));
        memset(p, 0x5a, n);
        had = n;
    }
    cp_test_heap_free(p);
}
END_TEST

/* Sizes that cannot be had are refused with ENOMEM, and a failed realloc
 * leaves the block as it was. */
START_TEST(heap_refusals)
{
    errno = 0;
    ck_assert_ptr_null(cp_test_heap_calloc(SIZE_MAX / 2, 3));
    ck_assert_int_eq(errno, ENOMEM);
    errno = 0;
    ck_assert_ptr_null(cp_test_heap_malloc(SIZE_MAX - 8));
    ck_assert_int_eq(errno, ENOMEM);
    unsigned char *p = cp_test_heap_malloc(300000);
    memset(p, 7, 300000);
    errno = 0;
    ck_assert_ptr_null(cp_test_heap_realloc(p, SIZE_MAX - 8));
    ck_assert_int_eq(errno, ENOMEM);
    ck_assert(all_bytes(p, 300000, 7));
    cp_test_heap_free(p);
    void *q = NULL;
    ck_assert_ptr_nonnull(q = cp_test_heap_aligned_alloc(16, 40));
    cp_test_heap_free(q);
    errno = 0;
    ck_assert_ptr_null(cp_test_heap_aligned_alloc(64, 40));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(cp_test_heap_posix_memalign(&q, 8, 10), 0);
    cp_test_heap_free(q);
    ck_assert_int_eq(cp_test_heap_posix_memalign(&q, 32, 10), EINVAL);
    ck_assert_int_eq(cp_test_heap_posix_memalign(&q, 3, 10), EINVAL);
}
END_TEST

/* Runs how(k) in a child: did it end by SIGABRT? */
static bool aborts(void (*how)(int), int k)
{
    pid_t pid = fork();
    if (pid == 0) {
        how(k);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static void corrupt(int k)
{
    unsigned char *p = cp_test_heap_malloc(32);
    static unsigned char fake[64] __attribute__((aligned(16)));
    switch (k) {
    case 0: /* a write just before the block */
        p[-1] ^= 1;
        cp_test_heap_free(p);
        break;
    case 1: /* freed twice */
        cp_test_heap_free(p);
        cp_test_heap_free(p);
        break;
    case 2: /* never handed out */
        cp_test_heap_free(fake + 16);
        break;
    case 3: /* realloc of a freed block */
        cp_test_heap_free(p);
        (void)cp_test_heap_realloc(p, 64);
        break;
    default: /* a sound block: no abort */
        cp_test_heap_free(p);
        break;
    }
}

START_TEST(heap_aborts)
{
    for (int k = 0; k < 4; k++)
        ck_assert_msg(aborts(corrupt, k), "case %d did not abort", k);
    ck_assert(!aborts(corrupt, 4));
}
END_TEST

Suite *cp_test_gate_heap_suite(void); /* collected by the Makefile */
Suite *cp_test_gate_heap_suite(void)
{
    Suite *s = suite_create("gate_heap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, heap_sizes);
    tcase_add_test(tc, heap_reuse);
    tcase_add_test(tc, heap_realloc);
    tcase_add_test(tc, heap_refusals);
    tcase_add_test(tc, heap_aborts);
    suite_add_tcase(s, tc);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* The shell reader's bounds: it reads line[0..len) and never the byte
 * after.  Each line is copied to the very end of a readable page followed
 * by an inaccessible one, so a read past the end faults in every build (and
 * AddressSanitizer, with the exact-size heap copy, reports it too). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arena.h"
#include "shell_read.h"

static char *guard_page; /* two pages: the second is PROT_NONE */
static size_t page;

static void setup(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    guard_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(guard_page, MAP_FAILED);
    ck_assert_int_eq(mprotect(guard_page + page, page, PROT_NONE), 0);
}

static void teardown(void)
{
    munmap(guard_page, 2 * page);
}

/* Reads S (N bytes, N < one page) from a buffer that ends where the
 * readable memory ends, then from an exact-size heap copy. */
static void read_at_edge(const char *s, size_t n)
{
    char *edge = guard_page + page - n;
    memcpy(edge, s, n);
    struct cp_arena *a = cp_arena_new();
    struct cp_sh_read r;
    cp_sh_read(a, edge, n, &r);
    char *heap = malloc(n ? n : 1);
    memcpy(heap, s, n);
    cp_sh_read(a, heap, n, &r);
    free(heap);
    cp_arena_free(a);
}

/* Lines that end inside a construct, each where a read of one more byte
 * would happen if the reader did not check its length. */
static const char *const edge_lines[] = {
    "echo ${\\", "echo \"${\\", "echo ${x\\", "echo ${'",   "echo ${\"",
    "echo $",    "echo $'\\",   "echo $'\\c", "echo $'\\x", "echo $'\\1",
    "a\\",       "\"a\\",       "`\\",        "a{b,\\",     "x{a,\"",
    "cat <<",    "cat <<-",     "a 2>",       "a &",        "a <&",
    "a >&",      "a[b",         "$(",         "<(",         "a #",
    "${",        "$((",         "'",          "\"",         "`",
};

START_TEST(edge_exact_size)
{
    const char *s = edge_lines[_i];
    read_at_edge(s, strlen(s));
}
END_TEST

/* Every line of up to 3 bytes over the bytes the reader treats specially. */
START_TEST(edge_brute_force)
{
    static const char al[] = "\\'\"$`{}()<>&|;#~*[]-c x\n,=.";
    const size_t k = sizeof al - 1;
    char s[3];
    for (size_t n = 1; n <= 3; n++) {
        size_t total = 1;
        for (size_t i = 0; i < n; i++)
            total *= k;
        for (size_t v = 0; v < total; v++) {
            size_t t = v;
            for (size_t i = 0; i < n; i++, t /= k)
                s[i] = al[t % k];
            read_at_edge(s, n);
        }
    }
}
END_TEST

Suite *cp_test_shell_read_suite(void); /* collected by the Makefile */
Suite *cp_test_shell_read_suite(void)
{
    Suite *s = suite_create("shell_read");
    TCase *tc = tcase_create("bounds");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, edge_exact_size, 0,
                        sizeof edge_lines / sizeof edge_lines[0]);
    tcase_add_test(tc, edge_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

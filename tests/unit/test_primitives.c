/* SPDX-License-Identifier: MIT */
/* The small primitives of util/: the UTF-8 validator against the table of
 * well-formed byte sequences (Unicode, table 3-7) over every sequence of
 * up to three bytes and every four-byte lead and second byte; hex digits
 * over every byte; the unquoting of escapes with its offset map; FNV-1a
 * against its published vectors. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "hash.h"
#include "text.h"
#include "utf8.h"

/* Table 3-7: the range of the second byte after lead C, and how many
 * continuation bytes follow the lead; 0 continuations for a byte that is
 * no lead. */
static size_t ref_second(unsigned c, unsigned *lo, unsigned *hi)
{
    *lo = 0x80, *hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        return 1;
    if (c == 0xe0)
        *lo = 0xa0;
    if (c == 0xed)
        *hi = 0x9f;
    if (c >= 0xe0 && c <= 0xef)
        return 2;
    if (c == 0xf0)
        *lo = 0x90;
    if (c == 0xf4)
        *hi = 0x8f;
    if (c >= 0xf0 && c <= 0xf4)
        return 3;
    return 0;
}

/* The length of the well-formed sequence at s (n bytes), 0 if none. */
static size_t ref_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    unsigned lo, hi;
    size_t k = ref_second(s[0], &lo, &hi);
    if (k == 0 || n < k + 1 || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i <= k; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return k + 1;
}

START_TEST(utf8_short_sequences)
{
    unsigned char s[3];
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (unsigned char)a;
        ck_assert_uint_eq(cp_utf8_len(s, 1), ref_len(s, 1));
        for (unsigned b = 0; b < 256; b++) {
            s[1] = (unsigned char)b;
            ck_assert_uint_eq(cp_utf8_len(s, 2), ref_len(s, 2));
            for (unsigned c = 0; c < 256; c++) {
                s[2] = (unsigned char)c;
                if (cp_utf8_len(s, 3) != ref_len(s, 3))
                    ck_abort_msg("%02x %02x %02x: %zu, want %zu", a, b, c,
                                 cp_utf8_len(s, 3), ref_len(s, 3));
            }
        }
    }
}
END_TEST

START_TEST(utf8_four_bytes)
{
    static const unsigned char tails[] = {0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xff};
    unsigned char s[4];
    for (unsigned a = 0xf0; a < 0x100; a++)
        for (unsigned b = 0; b < 256; b++)
            for (size_t c = 0; c < sizeof tails; c++)
                for (size_t d = 0; d < sizeof tails; d++) {
                    s[0] = (unsigned char)a, s[1] = (unsigned char)b;
                    s[2] = tails[c], s[3] = tails[d];
                    ck_assert_uint_eq(cp_utf8_len(s, 4), ref_len(s, 4));
                    ck_assert_uint_eq(cp_utf8_len(s, 3), ref_len(s, 3));
                }
}
END_TEST

START_TEST(utf8_valid_texts)
{
    ck_assert(cp_utf8_valid("", 0));
    ck_assert(cp_utf8_valid("plain ascii", 11));
    ck_assert(
        cp_utf8_valid("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
    ck_assert(!cp_utf8_valid("\xc3", 1));             /* cut short */
    ck_assert(!cp_utf8_valid("ab\xe2\x82", 4));       /* cut short */
    ck_assert(!cp_utf8_valid("\xc0\xaf", 2));         /* overlong */
    ck_assert(!cp_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    ck_assert(!cp_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    ck_assert(!cp_utf8_valid("\x80", 1));             /* continuation */
    ck_assert(cp_utf8_valid("a\0b", 3)); /* NUL is well-formed UTF-8 */
}
END_TEST

START_TEST(hex_digits)
{
    static const char digits[] = "0123456789abcdef";
    for (int c = 0; c < 256; c++) {
        const char *lo = c ? strchr(digits, c) : NULL;
        const char *up = c >= 'A' && c <= 'F' ? strchr(digits, c - 'A' + 'a')
                                              : NULL;
        int want = lo ? (int)(lo - digits) : up ? (int)(up - digits) : -1;
        ck_assert_int_eq(cp_hex_digit(c), want);
    }
}
END_TEST

static const struct {
    const char *in, *out;
    size_t outlen, nul_at;
} unquote_cases[] = {
    {"plain", "plain", 5, 5},
    {"a\\\"b", "a\"b", 3, 4},
    {"a\\\\b", "a\\b", 3, 4},
    {"\\x41\\x7e", "A~", 2, 8},
    {"\\x4", "\\x4", 3, 3},           /* not an escape: kept as written */
    {"\\q", "\\q", 2, 2},             /* likewise */
    {"end\\", "end\\", 4, 4},         /* a trailing backslash */
    {"a\\x00b\\x00", "a\0b\0", 4, 1}, /* the first \x00 */
};

START_TEST(unquote)
{
    const char *in = unquote_cases[_i].in;
    size_t n = strlen(in), map[32], nul_at;
    char out[32];
    size_t k = cp_unquote(in, n, out, map, &nul_at);
    ck_assert_uint_eq(k, unquote_cases[_i].outlen);
    ck_assert_mem_eq(out, unquote_cases[_i].out, k);
    ck_assert_int_eq(out[k], '\0');
    ck_assert_uint_eq(nul_at, unquote_cases[_i].nul_at);
    ck_assert_uint_eq(map[k], n);
    for (size_t i = 0; i < k; i++) { /* each byte maps to its source */
        ck_assert_uint_lt(map[i], n);
        if (i)
            ck_assert_uint_gt(map[i], map[i - 1]);
    }
    size_t nul2;
    char out2[32];
    ck_assert_uint_eq(cp_unquote(in, n, out2, NULL, &nul2), k);
    ck_assert_mem_eq(out2, out, k);
}
END_TEST

START_TEST(fnv_vectors)
{
    ck_assert_uint_eq(cp_fnv32(CP_FNV32_OFFSET, "", 0), 0x811c9dc5u);
    ck_assert_uint_eq(cp_fnv32(CP_FNV32_OFFSET, "a", 1), 0xe40c292cu);
    ck_assert_uint_eq(cp_fnv32(CP_FNV32_OFFSET, "foobar", 6), 0xbf9cf968u);
    ck_assert(cp_fnv64(CP_FNV64_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cull);
    ck_assert(cp_fnv64(CP_FNV64_OFFSET, "foobar", 6) == 0x85944171f73967e8ull);
    /* extending piecewise is hashing the whole */
    ck_assert(cp_fnv64(cp_fnv64(CP_FNV64_OFFSET, "foo", 3), "bar", 3) ==
              cp_fnv64(CP_FNV64_OFFSET, "foobar", 6));
}
END_TEST

START_TEST(xstrndup)
{
    char *s = cp_xstrndup("abcdef", 3);
    ck_assert_str_eq(s, "abc");
    free(s);
    s = cp_xstrndup("", 0);
    ck_assert_str_eq(s, "");
    free(s);
}
END_TEST

START_TEST(utoa)
{
    char b[CP_UTOA_LEN];
    ck_assert_str_eq(cp_utoa(b, 0), "0");
    ck_assert_str_eq(cp_utoa(b, 7), "7");
    ck_assert_str_eq(cp_utoa(b, 4294967295ul), "4294967295");
    ck_assert_str_eq(cp_utoa(b, (unsigned long)-1), "18446744073709551615");
}
END_TEST

/* Past the lengths kept from the measuring pass, and with empty parts. */
START_TEST(arena_cat)
{
    struct cp_arena *a = cp_arena_new();
    ck_assert_str_eq(cp_arena_cat(a, (char *)NULL), "");
    ck_assert_str_eq(cp_arena_cat(a, "a", "", "bc", (char *)NULL), "abc");
    ck_assert_str_eq(cp_arena_cat(a, "1", "2", "3", "4", "5", "6", "7", "8",
                                  "9", "10", "", "11", (char *)NULL),
                     "1234567891011");
    cp_arena_free(a);
}
END_TEST

/* cp_find_byte answers as memchr at every length, alignment and position
 * around its 32-byte steps, for bytes with the high bit set too, and never
 * reads past n (the buffer ends at n; AddressSanitizer builds check). */
START_TEST(find_byte)
{
    static const char wants[] = {'"', '\0', '\n', (char)0x80, (char)0xff};
    for (size_t w = 0; w < sizeof wants; w++) {
        for (size_t n = 0; n <= 80; n++) {
            for (size_t at = 0; at <= n; at++) { /* at == n: absent */
                char *b = malloc(n ? n : 1);
                for (size_t k = 0; k < n; k++) /* never the byte sought */
                    b[k] = (char)(wants[w] == 'a' ? 'b' : 'a');
                if (at < n)
                    b[at] = wants[w];
                if (at + 7 < n) /* a second one after: the first is named */
                    b[at + 7] = wants[w];
                const char *r = cp_find_byte(b, n, wants[w]);
                ck_assert_ptr_eq(r, memchr(b, wants[w], n));
                ck_assert_ptr_eq(r, at < n ? b + at : NULL);
                free(b);
            }
        }
    }
}
END_TEST

Suite *cp_test_primitives_suite(void); /* collected by the Makefile */
Suite *cp_test_primitives_suite(void)
{
    Suite *s = suite_create("primitives");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, utf8_short_sequences);
    tcase_add_test(tc, utf8_four_bytes);
    tcase_add_test(tc, utf8_valid_texts);
    tcase_add_test(tc, hex_digits);
    tcase_add_test(tc, find_byte);
    tcase_add_loop_test(tc, unquote, 0,
                        (int)(sizeof unquote_cases / sizeof unquote_cases[0]));
    tcase_add_test(tc, fnv_vectors);
    tcase_add_test(tc, xstrndup);
    tcase_add_test(tc, arena_cat);
    tcase_add_test(tc, utoa);
    suite_add_tcase(s, tc);
    return s;
}

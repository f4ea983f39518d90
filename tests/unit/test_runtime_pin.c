/* SPDX-License-Identifier: MIT */
/* Runtime checks pinned where a launch cannot reach them: each case breaks
 * one refusal of runtime/ (found unpinned by `make mutate`,
 * spec/runtime.md §8.1) and must fail if that refusal is removed or
 * inverted.  Each asserts the refusal and its allowed neighbour. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "sha256.h"

Suite *cp_test_runtime_pin_suite(void);

/* A -D name longer than the name buffer is refused before it is copied
 * (the copy would overrun it); the longest name that fits is taken. */
START_TEST(define_name_length)
{
    struct {
        struct cp_rt_define d;
        char guard[512]; /* an overrun lands here, not past the frame */
    } s;
    struct cp_rt_err e = {0};
    char text[sizeof s.d.name + 8];
    size_t fit = sizeof s.d.name - 1;
    memset(text, 'N', fit);
    strcpy(text + fit, "=/x");
    memset(s.guard, 0, sizeof s.guard);
    ck_assert_int_eq(cp_rt_define_split(text, &s.d, &e), 0);
    ck_assert_uint_eq(strlen(s.d.name), fit);
    ck_assert_str_eq(s.d.value, "/x");

    memset(text, 'N', fit + 1);
    strcpy(text + fit + 1, "=/x");
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(cp_rt_define_split(text, &s.d, &e), CP_RT_EXIT_ERROR);
    ck_assert_int_eq(e.status, CP_RT_EXIT_ERROR);
    ck_assert_int_eq(s.guard[0], 0);
    ck_assert_ptr_null(s.d.value);
}
END_TEST

/* Writes a sealed artifact: the header, `profile confined`, one `arg`
 * record of `n` bytes, and its trailer (spec/artifacts.md); returns its
 * path (a temporary file the caller removes). */
static char *big_artifact(size_t n)
{
    static const char head[] = "confpol-bwrap\0"
                               "1\0"
                               "profile\0"
                               "confined\0"
                               "arg\0";
    size_t hl = sizeof head - 1, len = hl + n + 1;
    char *body = malloc(len);
    ck_assert_ptr_nonnull(body);
    memcpy(body, head, hl);
    memset(body + hl, 'a', n);
    body[len - 1] = '\0';
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, len, hex);
    char *path = strdup("/tmp/confpol-pin-art.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(body, 1, len, f), len);
    fprintf(f, "end%c3%c%s%c", 0, 0, hex, 0);
    ck_assert_int_eq(fclose(f), 0);
    free(body);
    return path;
}

/* An artifact under the size limit loads however large: one of 40 MiB
 * (more than half the limit: a loader that grows its buffer before it is
 * full would pass the limit) loads, and one over the limit is refused. */
START_TEST(artifact_size_limit)
{
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    char *path = big_artifact(40u << 20);
    ck_assert_msg(cp_rt_artifact_load(&a, path, &e) == 0, "%s", e.msg);
    cp_rt_artifact_free(&a);
    unlink(path);
    free(path);
    path = big_artifact(CP_RT_MAX_ARTIFACT);
    ck_assert_int_eq(cp_rt_artifact_load(&a, path, &e), CP_RT_EXIT_ERROR);
    unlink(path);
    free(path);
}
END_TEST

/* Parses header, `profile confined`, `param NAME`, sealed; returns the
 * parser's status. */
static int parse_param(const char *name)
{
    char body[256];
    int n = snprintf(body, sizeof body,
                     "confpol-bwrap%c1%cprofile%cconfined%c"
                     "param%c%s%c",
                     0, 0, 0, 0, 0, name, 0);
    ck_assert(n > 0 && (size_t)n < sizeof body - 100);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, (size_t)n, hex);
    n += snprintf(body + n, sizeof body - (size_t)n, "end%c3%c%s%c", 0, 0, hex,
                  0);
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    int rc = cp_rt_artifact_parse(&a, body, (size_t)n, &e);
    if (!rc)
        cp_rt_artifact_free(&a);
    return rc;
}

/* A param name is an identifier: letters, '_', digits after the first;
 * anything else (':' and the rest of ASCII between '9' and 'A') is
 * refused, as is a leading digit. */
START_TEST(param_names)
{
    ck_assert_int_eq(parse_param("P"), 0);
    ck_assert_int_eq(parse_param("_p09Az"), 0);
    ck_assert_int_eq(parse_param("PROJECT_2"), 0);
    ck_assert_int_eq(parse_param("9P"), CP_RT_EXIT_ERROR);
    static const char *const bad[] = {"P:1", "P;", "P=", "P?", "P@", "P/",
                                      "P.",  "P-", "P ", "P[", "P`", "P{",
                                      ":P",  "@P", "[P", "`P", "{P"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse_param(bad[i]) == CP_RT_EXIT_ERROR, "'%s' taken",
                      bad[i]);
}
END_TEST

Suite *cp_test_runtime_pin_suite(void)
{
    Suite *s = suite_create("runtime_pin");
    TCase *tc = tcase_create("runtime_pin");
    tcase_add_test(tc, define_name_length);
    tcase_add_test(tc, artifact_size_limit);
    tcase_add_test(tc, param_names);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* Domain patterns: parsing, matching, containment and overlap. */
#include <check.h>
#include <string.h>

#include "arena.h"
#include "match.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

static struct cp_domain D(const char *text)
{
    struct cp_domain d;
    const char *msg = cp_domain_parse(ar, text, strlen(text), &d);
    ck_assert_msg(msg == NULL, "parse '%s': %s", text, msg);
    return d;
}

START_TEST(parse_ok)
{
    struct cp_domain d = D("Example.COM");
    ck_assert_str_eq(d.name, "example.com");
    ck_assert(!d.wildcard);
    d = D("*.Api.Example.com.");
    ck_assert_str_eq(d.name, "api.example.com");
    ck_assert(d.wildcard);
    d = D("localhost");
    ck_assert_str_eq(d.name, "localhost");
    d = D("a-1.b2.io");
    ck_assert_str_eq(d.name, "a-1.b2.io");
    d = D("*.github.io");
    ck_assert(d.wildcard);
    d = D("*.example.co.uk");
    ck_assert_str_eq(d.name, "example.co.uk");
    char label[64];
    memset(label, 'a', 63);
    label[63] = '\0';
    char name[80];
    strcpy(name, label);
    strcat(name, ".com");
    d = D(name);
    ck_assert_uint_eq(strlen(d.name), 67);
}
END_TEST

static const struct {
    const char *text, *msg;
} dom_errors[] = {
    {"", "empty domain"},
    {".", "empty domain"},
    {"*", "'*' alone would allow every domain"},
    {"*.", "'*.' needs a domain after it"},
    {"*.com", "wildcard over a top-level domain would allow every domain "
              "under it"},
    {"*.co.uk", "wildcard over a public suffix would allow every domain "
                "under it"},
    {"*.COM.AU", "wildcard over a public suffix would allow every domain "
                 "under it"},
    {"a..b", "empty label in domain"},
    {".a.b", "empty label in domain"},
    {"a.b..", "empty label in domain"},
    {"-a.com", "domain label starts or ends with '-'"},
    {"a-.com", "domain label starts or ends with '-'"},
    {"a_b.com", "bad character in domain (allowed: letters, digits, '-', "
                "'.')"},
    {"a b.com", "bad character in domain (allowed: letters, digits, '-', "
                "'.')"},
    {"https://a.com", "bad character in domain (allowed: letters, digits, "
                      "'-', '.')"},
    {"a.*.com", "'*' is only allowed as a whole first label "
                "('*.example.com')"},
    {"*a.com", "'*' is only allowed as a whole first label "
               "('*.example.com')"},
    {"**.a.com", "'*' is only allowed as a whole first label "
                 "('*.example.com')"},
};

START_TEST(parse_error)
{
    struct cp_domain d;
    const char *t = dom_errors[_i].text;
    const char *msg = cp_domain_parse(ar, t, strlen(t), &d);
    ck_assert_ptr_nonnull(msg);
    ck_assert_str_eq(msg, dom_errors[_i].msg);
}
END_TEST

START_TEST(parse_limits)
{
    struct cp_domain d;
    char label[65];
    memset(label, 'a', 64);
    label[64] = '\0';
    ck_assert_str_eq(cp_domain_parse(ar, label, 64, &d),
                     "domain label longer than 63 bytes");
    char name[260];
    size_t n = 0;
    while (n < 250) { /* 63 + 1 per label */
        memset(name + n, 'b', 62);
        n += 62;
        name[n++] = '.';
    }
    memcpy(name + n, "cc", 2); /* 254 bytes */
    n += 2;
    ck_assert_uint_eq(n, 254);
    ck_assert_str_eq(cp_domain_parse(ar, name, n, &d),
                     "domain longer than 253 bytes");
    ck_assert_ptr_null(cp_domain_parse(ar, name + 1, n - 1, &d));
    ck_assert_str_eq(cp_domain_parse(ar, "a\0b", 3, &d), "NUL byte in domain");
}
END_TEST

START_TEST(matching)
{
    struct cp_domain d = D("example.com"), w = D("*.example.com");
    ck_assert(cp_domain_matches(&d, "example.com"));
    ck_assert(cp_domain_matches(&d, "EXAMPLE.Com"));
    ck_assert(cp_domain_matches(&d, "example.com."));
    ck_assert(!cp_domain_matches(&d, "www.example.com"));
    ck_assert(!cp_domain_matches(&d, "example.co"));
    ck_assert(!cp_domain_matches(&d, "xexample.com"));
    ck_assert(!cp_domain_matches(&d, ""));
    ck_assert(cp_domain_matches(&w, "www.example.com"));
    ck_assert(cp_domain_matches(&w, "a.b.Example.COM"));
    ck_assert(!cp_domain_matches(&w, "example.com"));
    ck_assert(!cp_domain_matches(&w, "badexample.com"));
    ck_assert(!cp_domain_matches(&w, ".example.com"));
    ck_assert(!cp_domain_matches(&w, "example.com.evil.net"));
}
END_TEST

static const struct {
    const char *a, *b, *expect; /* contains(a,b), contains(b,a), overlaps */
} dom_rel[] = {
    {"example.com", "example.com", "YYY"},
    {"example.com", "EXAMPLE.com.", "YYY"},
    {"example.com", "www.example.com", "NNN"},
    {"*.example.com", "www.example.com", "YNY"},
    {"*.example.com", "a.b.example.com", "YNY"},
    {"*.example.com", "example.com", "NNN"},
    {"*.example.com", "*.example.com", "YYY"},
    {"*.example.com", "*.api.example.com", "YNY"},
    {"*.example.com", "*.example.org", "NNN"},
    {"*.example.com", "*.badexample.com", "NNN"},
    {"*.api.example.com", "www.example.com", "NNN"},
    {"a.com", "b.com", "NNN"},
};

static char rel_char(enum cp_rel r)
{
    return r == CP_REL_YES ? 'Y' : r == CP_REL_NO ? 'N' : 'M';
}

START_TEST(relations)
{
    struct cp_domain a = D(dom_rel[_i].a), b = D(dom_rel[_i].b);
    char got[4] = {rel_char(cp_domain_contains(&a, &b)),
                   rel_char(cp_domain_contains(&b, &a)),
                   rel_char(cp_domain_overlaps(&a, &b)), 0};
    ck_assert_msg(strcmp(got, dom_rel[_i].expect) == 0,
                  "'%s' vs '%s': got %s, want %s", dom_rel[_i].a,
                  dom_rel[_i].b, got, dom_rel[_i].expect);
    ck_assert_int_eq(rel_char(cp_domain_overlaps(&b, &a)), got[2]);
}
END_TEST

Suite *cp_test_match_domain_suite(void); /* collected by the Makefile */
Suite *cp_test_match_domain_suite(void)
{
    Suite *s = suite_create("match_domain");
    TCase *tc = tcase_create("domain");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, parse_ok);
    tcase_add_loop_test(tc, parse_error, 0,
                        sizeof dom_errors / sizeof dom_errors[0]);
    tcase_add_test(tc, parse_limits);
    tcase_add_test(tc, matching);
    tcase_add_loop_test(tc, relations, 0, sizeof dom_rel / sizeof dom_rel[0]);
    suite_add_tcase(s, tc);
    return s;
}

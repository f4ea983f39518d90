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

static struct cp_domain D(const char *text) {
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
    /* a longer host that starts with the name is another name */
    ck_assert(!cp_domain_matches(&d, "example.comx"));
    ck_assert(!cp_domain_matches(&d, "example.com.evil.net"));
    ck_assert(!cp_domain_matches(&d, ""));
    ck_assert(cp_domain_matches(&w, "www.example.com"));
    ck_assert(cp_domain_matches(&w, "a.b.Example.COM"));
    ck_assert(!cp_domain_matches(&w, "example.com"));
    ck_assert(!cp_domain_matches(&w, "badexample.com"));
    ck_assert(!cp_domain_matches(&w, ".example.com"));
    ck_assert(!cp_domain_matches(&w, "example.com.evil.net"));
    /* the suffix compared letter by letter, not only its length and dot */
    ck_assert(!cp_domain_matches(&w, "www.exbmple.com"));
    ck_assert(!cp_domain_matches(&w, "a.b.elpmaxe.moc"));
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
                  "'%s' vs '%s': got %s, want %s", dom_rel[_i].a, dom_rel[_i].b,
                  got, dom_rel[_i].expect);
    ck_assert_int_eq(rel_char(cp_domain_overlaps(&b, &a)), got[2]);
}
END_TEST

/* Ports, IP literals, canonical text (spec/patterns.md 3.3). */
START_TEST(parse_ports_ips)
{
    struct cp_domain d = D("GitHub.com:443");
    ck_assert_str_eq(d.name, "github.com");
    ck_assert_uint_eq(d.port, 443);
    ck_assert_str_eq(cp_domain_format(ar, &d), "github.com:443");
    d = D("*.example.com:8080");
    ck_assert(d.wildcard);
    ck_assert_str_eq(cp_domain_format(ar, &d), "*.example.com:8080");
    d = D("10.0.0.5");
    ck_assert_int_eq(d.kind, CP_HOST_IPV4);
    ck_assert_uint_eq(d.port, 0);
    d = D("[0:0::1]:22");
    ck_assert_int_eq(d.kind, CP_HOST_IPV6);
    ck_assert_str_eq(d.name, "::1");
    ck_assert_str_eq(cp_domain_format(ar, &d), "[::1]:22");
    d = D("localhost:3000");
    ck_assert_int_eq(d.kind, CP_HOST_NAME);
    static const char *const bad[][2] = {
        {"a.com:", "empty port after ':'"},
        {"a.com:0", "port must be a number from 1 to 65535"},
        {"a.com:65536", "port must be a number from 1 to 65535"},
        {"a.com:08", "port must be a number from 1 to 65535"},
        {"::1", "an IPv6 address is written in brackets ('[::1]:443')"},
        {"[::1", "'[' without ']' around an IPv6 address"},
        {"[zz]", "bad IPv6 address"},
        {"[::1]x", "unexpected text after ']'"},
        {"*.10.0.0.1", "'*.' cannot apply to an IP address"},
        {"127.1", "not a dotted-quad IPv4 address, and a domain name's last "
                  "label cannot be all digits"},
        {"10.0.0.1.", "not a dotted-quad IPv4 address, and a domain name's "
                      "last label cannot be all digits"},
        {"a.b.123", "not a dotted-quad IPv4 address, and a domain name's "
                    "last label cannot be all digits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *msg = cp_domain_parse(ar, bad[i][0], strlen(bad[i][0]), &d);
        ck_assert_msg(msg && !strcmp(msg, bad[i][1]), "%s: %s", bad[i][0],
                      msg ? msg : "(accepted)");
    }
}
END_TEST

/* Requests read IPv4 as the C library does, so "127.1" cannot slip past
 * a rule for 127.0.0.1 (nor be allowed by a name rule). */
START_TEST(request_forms)
{
    static const char *const same[] = {"127.1", "0x7f.1", "2130706433",
                                       "127.0.0.1", "0177.0.0.1"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        struct cp_domain r;
        ck_assert_ptr_null(cp_net_host_parse(ar, same[i], strlen(same[i]), &r));
        ck_assert_int_eq(r.kind, CP_HOST_IPV4);
        ck_assert_str_eq(r.name, "127.0.0.1");
    }
    struct cp_domain r;
    ck_assert_ptr_null(cp_net_host_parse(ar, "::ffff:127.0.0.1", 16, &r));
    ck_assert_int_eq(r.kind, CP_HOST_IPV6);
    ck_assert_ptr_null(cp_net_host_parse(ar, "Api.GitHub.com.:443", 19, &r));
    ck_assert_str_eq(r.name, "api.github.com");
    ck_assert_uint_eq(r.port, 443);
    ck_assert_ptr_nonnull(cp_net_host_parse(ar, "*.a.com", 7, &r));
    ck_assert_ptr_nonnull(cp_net_host_parse(ar, "a_b.com", 7, &r));
}
END_TEST

static enum cp_verdict ND(const char *const *rules, size_t n, const char *req,
                          size_t *first)
{
    struct cp_net_rule nr[8];
    struct cp_domain d[8];
    size_t match[8], nm = 0;
    for (size_t i = 0; i < n; i++) {
        nr[i].dom = NULL;
        if (*rules[i]) {
            d[i] = D(rules[i]);
            nr[i].dom = &d[i];
        }
    }
    struct cp_domain r;
    ck_assert_ptr_null(cp_net_host_parse(ar, req, strlen(req), &r));
    enum cp_verdict v = cp_net_decide(nr, n, &r, match, &nm);
    *first = nm ? match[0] : (size_t)-1;
    return v;
}

START_TEST(net_decide)
{
    static const char *const list[] = {"github.com:443", "*.github.com",
                                       "127.0.0.1:8080", "localhost"};
    size_t f;
    ck_assert_int_eq(ND(list, 4, "github.com:443", &f), CP_ALLOW);
    ck_assert_uint_eq(f, 0);
    ck_assert_int_eq(ND(list, 4, "github.com:80", &f), CP_DENY);
    ck_assert_uint_eq(f, (size_t)-1);
    ck_assert_int_eq(ND(list, 4, "github.com", &f), CP_DENY);
    ck_assert_int_eq(ND(list, 4, "api.github.com:22", &f), CP_ALLOW);
    ck_assert_uint_eq(f, 1);
    ck_assert_int_eq(ND(list, 4, "127.1:8080", &f), CP_ALLOW);
    ck_assert_uint_eq(f, 2);
    ck_assert_int_eq(ND(list, 4, "127.0.0.1:80", &f), CP_DENY);
    ck_assert_int_eq(ND(list, 4, "[::1]:8080", &f), CP_DENY);
    ck_assert_int_eq(ND(list, 4, "localhost:9", &f), CP_ALLOW);
    ck_assert_int_eq(ND(list, 4, "140.82.121.4:443", &f), CP_DENY);
    static const char *const withdeny[] = {"github.com", ""};
    ck_assert_int_eq(ND(withdeny, 2, "github.com:443", &f), CP_DENY);
    ck_assert_uint_eq(f, 1);
    ck_assert_int_eq(ND(NULL, 0, "anything.example:1", &f), CP_ALLOW);
}
END_TEST

START_TEST(port_relations)
{
    struct cp_domain a = D("*.a.com"), b = D("x.a.com:443"),
                     c = D("*.a.com:80"), i4 = D("10.0.0.1"), n = D("a.com");
    ck_assert_int_eq(cp_domain_contains(&a, &b), CP_REL_YES);
    ck_assert_int_eq(cp_domain_contains(&b, &a), CP_REL_NO);
    ck_assert_int_eq(cp_domain_contains(&c, &b), CP_REL_NO);
    ck_assert_int_eq(cp_domain_overlaps(&c, &b), CP_REL_NO);
    ck_assert_int_eq(cp_domain_overlaps(&a, &b), CP_REL_YES);
    ck_assert_int_eq(cp_domain_overlaps(&i4, &n), CP_REL_NO);
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
    tcase_add_test(tc, parse_ports_ips);
    tcase_add_test(tc, request_forms);
    tcase_add_test(tc, net_decide);
    tcase_add_test(tc, port_relations);
    suite_add_tcase(s, tc);
    return s;
}

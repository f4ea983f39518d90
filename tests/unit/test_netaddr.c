/* SPDX-License-Identifier: MIT */
/* The special-purpose address table and the proxy's address decision
 * (util/netaddr.c, spec/runtime.md 14.3): each registry range refused at
 * its edges and public addresses just outside it kept; every embedding of
 * an IPv4 address unwrapped (mapped, compatible, NAT64, 6to4, Teredo); an
 * IP-literal rule and `localhost` allowing what they name and nothing
 * more; the host's own address refused; socket addresses converted
 * without punning; and the table in the spec row for row. */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "netaddr.h"
#include "netmatch.h"

static struct cp_ip IP(const char *text) {
    struct cp_ip ip = {0};
    if (inet_pton(AF_INET, text, ip.b) == 1)
        ip.af = AF_INET;
    else if (inet_pton(AF_INET6, text, ip.b) == 1)
        ip.af = AF_INET6;
    ck_assert_msg(ip.af, "bad address in the test: %s", text);
    return ip;
}

/* The table's row text for an address, or "public". */
static const char *
row(const char *text)
{
    struct cp_ip ip = IP(text);
    struct cp_addr_class c;
    cp_addr_classify(&ip, &c);
    return c.range ? c.range->text : "public";
}

#define ROW(addr, want) ck_assert_str_eq(row(addr), want)

START_TEST(ipv4_rows)
{
    ROW("0.0.0.0", "0.0.0.0/8");
    ROW("0.255.255.255", "0.0.0.0/8");
    ROW("1.0.0.0", "public");
    ROW("9.255.255.255", "public");
    ROW("10.0.0.0", "10.0.0.0/8");
    ROW("10.0.0.5", "10.0.0.0/8");
    ROW("10.255.255.255", "10.0.0.0/8");
    ROW("11.0.0.0", "public");
    ROW("100.63.255.255", "public");
    ROW("100.64.0.0", "100.64.0.0/10");
    ROW("100.100.100.200", "100.64.0.0/10"); /* a cloud's metadata */
    ROW("100.127.255.255", "100.64.0.0/10");
    ROW("100.128.0.0", "public");
    ROW("127.0.0.1", "127.0.0.0/8");
    ROW("127.255.255.254", "127.0.0.0/8");
    ROW("128.0.0.0", "public");
    ROW("169.253.255.255", "public");
    ROW("169.254.169.254", "169.254.0.0/16");
    ROW("169.254.0.0", "169.254.0.0/16");
    ROW("169.255.0.0", "public");
    ROW("172.15.255.255", "public");
    ROW("172.16.0.0", "172.16.0.0/12");
    ROW("172.31.255.255", "172.16.0.0/12");
    ROW("172.32.0.0", "public");
    ROW("192.0.0.8", "192.0.0.0/24");
    ROW("192.0.0.192", "192.0.0.0/24"); /* a cloud's metadata */
    ROW("192.0.1.0", "public");
    ROW("192.0.2.1", "192.0.2.0/24");
    ROW("192.31.196.1", "192.31.196.0/24");
    ROW("192.52.193.1", "192.52.193.0/24");
    ROW("192.88.99.1", "192.88.99.0/24");
    ROW("192.167.255.255", "public");
    ROW("192.168.1.1", "192.168.0.0/16");
    ROW("192.169.0.0", "public");
    ROW("192.175.48.1", "192.175.48.0/24");
    ROW("198.17.255.255", "public");
    ROW("198.18.0.1", "198.18.0.0/15");
    ROW("198.19.255.255", "198.18.0.0/15");
    ROW("198.20.0.0", "public");
    ROW("198.51.100.7", "198.51.100.0/24");
    ROW("203.0.113.7", "203.0.113.0/24");
    ROW("168.63.129.16", "168.63.129.16/32");
    ROW("168.63.129.15", "public");
    ROW("168.63.129.17", "public");
    ROW("223.255.255.255", "public");
    ROW("224.0.0.1", "224.0.0.0/4");
    ROW("239.255.255.255", "224.0.0.0/4");
    ROW("240.0.0.1", "240.0.0.0/4");
    ROW("255.255.255.255", "240.0.0.0/4");
    ROW("8.8.8.8", "public");
    ROW("140.82.121.4", "public");
}
END_TEST

START_TEST(ipv6_rows)
{
    ROW("::", "::/128");
    ROW("::1", "::1/128");
    ROW("::2", "::/96");
    ROW("::a00:5", "::/96");   /* compatible */
    ROW("::808:808", "::/96"); /* compatible, even public inside */
    ROW("64:ff9b:1::1", "64:ff9b:1::/48");
    ROW("100::1", "100::/64");
    ROW("100:0:0:1::1", "outside 2000::/3");
    ROW("2001::1", "2001::/32");
    ROW("2001:2::1", "2001::/23");
    ROW("2001:1ff::1", "2001::/23");
    ROW("2001:200::1", "public");
    ROW("2001:db8::1", "2001:db8::/32");
    ROW("2002:808:808::1", "2002::/16");
    ROW("2003::1", "public");
    ROW("2a00:1450:4001::200e", "public");
    ROW("2620:4f:8000::1", "2620:4f:8000::/48");
    ROW("2620:4f:8001::1", "public");
    ROW("3fff::1", "3fff::/20");
    ROW("3fff:1000::1", "public");
    ROW("5f00::1", "5f00::/16");
    ROW("fc00::1", "fc00::/7");
    ROW("fd00:ec2::254", "fc00::/7");
    ROW("fe80::1", "fe80::/10");
    ROW("fec0::1", "fec0::/10");
    ROW("ff02::1", "ff00::/8");
    ROW("1fff:ffff::1", "outside 2000::/3");
    ROW("4000::1", "outside 2000::/3");
    ROW("e000::1", "outside 2000::/3");
    ROW("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public");
}
END_TEST

/* Mapped and NAT64 addresses are decided as their IPv4 address. */
START_TEST(unwrap_decides)
{
    ROW("::ffff:127.0.0.1", "127.0.0.0/8");
    ROW("::ffff:10.0.0.5", "10.0.0.0/8");
    ROW("::ffff:169.254.169.254", "169.254.0.0/16");
    ROW("::ffff:168.63.129.16", "168.63.129.16/32");
    ROW("::ffff:8.8.8.8", "public");
    ROW("64:ff9b::7f00:1", "127.0.0.0/8");
    ROW("64:ff9b::a00:5", "10.0.0.0/8");
    ROW("64:ff9b::c000:8", "192.0.0.0/24");
    ROW("64:ff9b::808:808", "public");
    struct cp_ip in;
    struct cp_ip ip = IP("::ffff:127.0.0.1");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_MAPPED);
    ck_assert_int_eq(in.af, AF_INET);
    ck_assert_mem_eq(in.b, "\x7f\0\0\x01", 4);
    ip = IP("::a00:5");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_COMPAT);
    ck_assert_mem_eq(in.b, "\x0a\0\0\x05", 4);
    ip = IP("64:ff9b::a00:5");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_NAT64);
    ck_assert_mem_eq(in.b, "\x0a\0\0\x05", 4);
    ip = IP("2002:7f00:1::1");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_6TO4);
    ck_assert_mem_eq(in.b, "\x7f\0\0\x01", 4);
    /* Teredo: the client's address, inverted, in the last 32 bits. */
    ip = IP("2001:0:4136:e378:8000:63bf:f5ff:fffe");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_TEREDO);
    ck_assert_mem_eq(in.b, "\x0a\0\0\x01", 4);
    ip = IP("::1");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_NONE);
    ip = IP("::");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_NONE);
    ip = IP("2a00:1450::1");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_NONE);
    ip = IP("10.0.0.5");
    ck_assert_int_eq(cp_addr_unwrap(&ip, &in), CP_EMBED_NONE);
    /* Loopback is the host's: 127/8, ::1 and the mapped form only. */
    struct cp_addr_class c;
    const char *lo[] = {"127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.2"};
    for (size_t i = 0; i < 4; i++) {
        ip = IP(lo[i]);
        cp_addr_classify(&ip, &c);
        ck_assert_msg(c.loopback, "%s is loopback", lo[i]);
    }
    const char *notlo[] = {"64:ff9b::7f00:1", "::7f00:1",
                           "2002:7f00:1::", "10.0.0.1"};
    for (size_t i = 0; i < 4; i++) {
        ip = IP(notlo[i]);
        cp_addr_classify(&ip, &c);
        ck_assert_msg(!c.loopback, "%s is not loopback", notlo[i]);
        ck_assert_ptr_nonnull(c.range);
    }
}
END_TEST

static struct cp_arena *ar;

/* Rules from texts ("" is `net deny`). */
static size_t rules_of(const char *const *text, size_t n, struct cp_net_rule *r,
                       struct cp_domain *d)
{
    for (size_t i = 0; i < n; i++) {
        r[i].dom = NULL;
        if (*text[i]) {
            ck_assert_ptr_null(
                cp_domain_parse(ar, text[i], strlen(text[i]), &d[i]));
            r[i].dom = &d[i];
        }
    }
    return n;
}

static bool allowed(const struct cp_net_rule *r, size_t n, const char *addr,
                    unsigned port, bool own)
{
    struct cp_ip ip = IP(addr);
    const char *why = NULL;
    bool ok = cp_net_addr_allowed(r, n, &ip, port, own, &why);
    ck_assert_msg(ok || why, "%s refused without a reason", addr);
    return ok;
}

START_TEST(decision)
{
    ar = cp_arena_new();
    static const char *const text[] = {"allowed.test:80", "10.0.0.5:80",
                                       "[fd00:ec2::254]", "localhost:8080"};
    struct cp_net_rule r[4];
    struct cp_domain d[4];
    size_t n = rules_of(text, 4, r, d);
    /* Public: yes, unless it is the host's own. */
    ck_assert(allowed(r, n, "140.82.121.4", 80, false));
    ck_assert(allowed(r, n, "2a00:1450::1", 443, false));
    ck_assert(!allowed(r, n, "140.82.121.4", 80, true));
    const char *why = NULL;
    struct cp_ip own = IP("140.82.121.4");
    ck_assert(!cp_net_addr_allowed(r, n, &own, 80, true, &why));
    ck_assert_str_eq(why, "the host's own address");
    /* An IP-literal rule allows its address at its port, and the mapped
     * form of it; not the NAT64 or compatible forms, not other ports. */
    ck_assert(allowed(r, n, "10.0.0.5", 80, false));
    ck_assert(allowed(r, n, "::ffff:10.0.0.5", 80, false));
    ck_assert(!allowed(r, n, "10.0.0.5", 81, false));
    ck_assert(!allowed(r, n, "::ffff:10.0.0.5", 81, false));
    ck_assert(!allowed(r, n, "64:ff9b::a00:5", 80, false));
    ck_assert(!allowed(r, n, "::a00:5", 80, false));
    ck_assert(!allowed(r, n, "10.0.0.6", 80, false));
    ck_assert(allowed(r, n, "fd00:ec2::254", 1234, false));
    ck_assert(!allowed(r, n, "fd00:ec2::253", 1234, false));
    /* `localhost:8080` allows loopback at 8080, mapped included. */
    ck_assert(allowed(r, n, "127.0.0.1", 8080, false));
    ck_assert(allowed(r, n, "::1", 8080, false));
    ck_assert(allowed(r, n, "::ffff:127.0.0.1", 8080, false));
    ck_assert(!allowed(r, n, "127.0.0.1", 80, false));
    ck_assert(!allowed(r, n, "::ffff:127.0.0.1", 80, false));
    ck_assert(!allowed(r, n, "64:ff9b::7f00:1", 8080, false));
    ck_assert(!allowed(r, n, "2002:7f00:1::1", 8080, false));
    /* Every hostile answer of a name rule: refused. */
    const char *bad[] = {"127.0.0.1",
                         "::ffff:127.0.0.1",
                         "::ffff:10.0.0.5",
                         "::ffff:169.254.169.254",
                         "169.254.169.254",
                         "168.63.129.16",
                         "fd00:ec2::253",
                         "64:ff9b::a00:6",
                         "2002:a00:6::1",
                         "::a00:6",
                         "192.0.0.8",
                         "198.18.0.1",
                         "100.64.0.1",
                         "172.16.0.1",
                         "192.168.0.1",
                         "0.0.0.0",
                         "::",
                         "fe80::1",
                         "ff02::1",
                         "2001:0:4136:e378:8000:63bf:f5ff:fffe"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!allowed(r, n, bad[i], 443, false), "%s allowed", bad[i]);
    /* Under `net deny` nothing special is allowed. */
    static const char *const deny[] = {""};
    n = rules_of(deny, 1, r, d);
    ck_assert(!allowed(r, n, "127.0.0.1", 80, false));
    cp_arena_free(ar);
}
END_TEST

START_TEST(sockaddr_round_trip)
{
    union cp_sockaddr u;
    struct cp_ip ip = IP("::ffff:127.0.0.1"), back;
    socklen_t len = cp_ip_to_sockaddr(&ip, 8080, &u);
    ck_assert_uint_eq(len, sizeof(struct sockaddr_in6));
    ck_assert_int_eq(cp_sockaddr_family(&u, len), AF_INET6);
    ck_assert(cp_ip_from_sockaddr(&u, len, &back));
    ck_assert_int_eq(back.af, AF_INET6);
    ck_assert_mem_eq(back.b, ip.b, 16);
    ck_assert_uint_eq(ntohs(u.in6.sin6_port), 8080);
    ip = IP("10.0.0.5");
    len = cp_ip_to_sockaddr(&ip, 80, &u);
    ck_assert_uint_eq(len, sizeof(struct sockaddr_in));
    ck_assert(cp_ip_from_sockaddr(&u.sa, len, &back));
    ck_assert_int_eq(back.af, AF_INET);
    ck_assert_mem_eq(back.b, ip.b, 4);
    /* Too short, or not IP: no address. */
    ck_assert(!cp_ip_from_sockaddr(&u, 4, &back));
    ck_assert_int_eq(cp_sockaddr_family(&u, 1), -1);
    memset(&u, 0, sizeof u);
    u.un.sun_family = AF_UNIX;
    ck_assert(!cp_ip_from_sockaddr(&u, sizeof u.un, &back));
    char text[INET6_ADDRSTRLEN];
    ip = IP("64:ff9b::a00:5");
    cp_ip_format(&ip, text, sizeof text);
    ck_assert_str_eq(text, "64:ff9b::a00:5");
}
END_TEST

/* spec/runtime.md 14.3 lists every row, in the table's order. */
START_TEST(table_in_spec)
{
    FILE *f = fopen("spec/runtime.md", "r");
    ck_assert_ptr_nonnull(f);
    static char spec[1 << 20];
    size_t len = fread(spec, 1, sizeof spec - 1, f);
    fclose(f);
    spec[len] = '\0';
    size_t n;
    const struct cp_addr_range *t = cp_addr_table(&n);
    const char *at = strstr(spec, "| range | what |");
    ck_assert_ptr_nonnull(at);
    for (size_t i = 0; i < n; i++) {
        char cell[128];
        snprintf(cell, sizeof cell, "\n| `%s` |", t[i].text);
        const char *p = strstr(at, cell);
        ck_assert_msg(p, "row %s is not in the spec's table (in order)",
                      t[i].text);
        at = p + 1;
    }
}
END_TEST

Suite *cp_test_netaddr_suite(void); /* collected by the Makefile */
Suite *cp_test_netaddr_suite(void)
{
    Suite *s = suite_create("netaddr");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, ipv4_rows);
    tcase_add_test(tc, ipv6_rows);
    tcase_add_test(tc, unwrap_decides);
    tcase_add_test(tc, decision);
    tcase_add_test(tc, sockaddr_round_trip);
    tcase_add_test(tc, table_in_spec);
    suite_add_tcase(s, tc);
    return s;
}

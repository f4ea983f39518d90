/* SPDX-License-Identifier: MIT */
/* Special-purpose addresses and the proxy's address decision
 * (spec/runtime.md 14.3).  The rows are the IANA IPv4 and IPv6
 * special-purpose address registries, whatever their "globally reachable"
 * column says (an allowed name has no business resolving to anycast
 * infrastructure either: stricter), plus multicast, the reserved IPv4
 * space, the cloud metadata address outside them, and every IPv6 address
 * outside 2000::/3 (reserved by the IETF or unallocated). */
#include <arpa/inet.h>
#include <string.h>

#include "netaddr.h"

#define V4(a, b, c, d)                                                         \
    {                                                                          \
        a, b, c, d                                                             \
    }

static const struct cp_addr_range addr_table[] = {
    /* IPv4 */
    {AF_INET, 8, V4(0, 0, 0, 0), "0.0.0.0/8", "\"this network\" (RFC 791)"},
    {AF_INET, 8, V4(10, 0, 0, 0), "10.0.0.0/8", "private-use (RFC 1918)"},
    {AF_INET, 10, V4(100, 64, 0, 0), "100.64.0.0/10",
     "shared address space, CGNAT (RFC 6598)"},
    {AF_INET, 8, V4(127, 0, 0, 0), "127.0.0.0/8", "loopback (RFC 1122)"},
    {AF_INET, 16, V4(169, 254, 0, 0), "169.254.0.0/16",
     "link-local, cloud metadata 169.254.169.254 (RFC 3927)"},
    {AF_INET, 12, V4(172, 16, 0, 0), "172.16.0.0/12", "private-use (RFC 1918)"},
    {AF_INET, 24, V4(192, 0, 0, 0), "192.0.0.0/24",
     "IETF protocol assignments (RFC 6890)"},
    {AF_INET, 24, V4(192, 0, 2, 0), "192.0.2.0/24",
     "documentation, TEST-NET-1 (RFC 5737)"},
    {AF_INET, 24, V4(192, 31, 196, 0), "192.31.196.0/24",
     "AS112-v4 (RFC 7535)"},
    {AF_INET, 24, V4(192, 52, 193, 0), "192.52.193.0/24", "AMT (RFC 7450)"},
    {AF_INET, 24, V4(192, 88, 99, 0), "192.88.99.0/24",
     "deprecated 6to4 relay anycast (RFC 7526)"},
    {AF_INET, 16, V4(192, 168, 0, 0), "192.168.0.0/16",
     "private-use (RFC 1918)"},
    {AF_INET, 24, V4(192, 175, 48, 0), "192.175.48.0/24",
     "direct delegation AS112 service (RFC 7534)"},
    {AF_INET, 15, V4(198, 18, 0, 0), "198.18.0.0/15",
     "benchmarking (RFC 2544)"},
    {AF_INET, 24, V4(198, 51, 100, 0), "198.51.100.0/24",
     "documentation, TEST-NET-2 (RFC 5737)"},
    {AF_INET, 24, V4(203, 0, 113, 0), "203.0.113.0/24",
     "documentation, TEST-NET-3 (RFC 5737)"},
    {AF_INET, 4, V4(224, 0, 0, 0), "224.0.0.0/4", "multicast (RFC 5771)"},
    {AF_INET, 4, V4(240, 0, 0, 0), "240.0.0.0/4",
     "reserved, limited broadcast 255.255.255.255 (RFC 1112, RFC 919)"},
    {AF_INET, 32, V4(168, 63, 129, 16), "168.63.129.16/32",
     "cloud platform endpoint (Azure WireServer and metadata)"},
    /* IPv6 (mapped and 64:ff9b::/96 are decided as their IPv4 address) */
    {AF_INET6, 128, {0}, "::/128", "unspecified (RFC 4291)"},
    {AF_INET6, 128, {[15] = 1}, "::1/128", "loopback (RFC 4291)"},
    {AF_INET6,
     96,
     {[10] = 0xff, [11] = 0xff},
     "::ffff:0:0/96",
     "IPv4-mapped (RFC 4291): decided as the IPv4 address"},
    {AF_INET6, 96, {0}, "::/96", "IPv4-compatible, deprecated (RFC 4291)"},
    {AF_INET6,
     96,
     {0, 0x64, 0xff, 0x9b},
     "64:ff9b::/96",
     "NAT64 well-known prefix (RFC 6052): decided as the IPv4 address"},
    {AF_INET6,
     48,
     {0, 0x64, 0xff, 0x9b, 0, 1},
     "64:ff9b:1::/48",
     "local-use NAT64 (RFC 8215)"},
    {AF_INET6, 64, {1}, "100::/64", "discard-only (RFC 6666)"},
    {AF_INET6, 32, {0x20, 0x01}, "2001::/32", "Teredo (RFC 4380)"},
    {AF_INET6,
     23,
     {0x20, 0x01},
     "2001::/23",
     "IETF protocol assignments (RFC 2928)"},
    {AF_INET6,
     32,
     {0x20, 0x01, 0x0d, 0xb8},
     "2001:db8::/32",
     "documentation (RFC 3849)"},
    {AF_INET6, 16, {0x20, 0x02}, "2002::/16", "6to4 (RFC 3056)"},
    {AF_INET6,
     48,
     {0x26, 0x20, 0, 0x4f, 0x80},
     "2620:4f:8000::/48",
     "direct delegation AS112 service (RFC 7534)"},
    {AF_INET6, 20, {0x3f, 0xff}, "3fff::/20", "documentation (RFC 9637)"},
    {AF_INET6, 16, {0x5f, 0x00}, "5f00::/16", "SRv6 SIDs (RFC 9602)"},
    {AF_INET6,
     7,
     {0xfc},
     "fc00::/7",
     "unique local, cloud metadata fd00:ec2::254 (RFC 4193)"},
    {AF_INET6, 10, {0xfe, 0x80}, "fe80::/10", "link-local (RFC 4291)"},
    {AF_INET6,
     10,
     {0xfe, 0xc0},
     "fec0::/10",
     "site-local, deprecated (RFC 3879)"},
    {AF_INET6, 8, {0xff}, "ff00::/8", "multicast (RFC 4291)"},
    /* Tried last: what the rows above leave of the space outside. */
    {AF_INET6,
     3,
     {0x20},
     "outside 2000::/3",
     "reserved by the IETF or unallocated (IPv6 address space registry)"},
};

enum { ADDR_NROWS = sizeof addr_table / sizeof *addr_table };

const struct cp_addr_range *cp_addr_table(size_t *n)
{
    *n = ADDR_NROWS;
    return addr_table;
}

static bool addr_in(const struct cp_ip *ip, const struct cp_addr_range *r)
{
    if (ip->af != r->af)
        return false;
    unsigned full = r->len / 8, rest = r->len % 8;
    if (memcmp(ip->b, r->prefix, full) != 0)
        return false;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return rest == 0 || (ip->b[full] & mask) == (r->prefix[full] & mask);
}

/* The row of text `text` (the rows decided specially below). */
static const struct cp_addr_range *addr_row(const char *text)
{
    for (size_t i = 0; i < ADDR_NROWS; i++)
        if (strcmp(addr_table[i].text, text) == 0)
            return &addr_table[i];
    return NULL;
}

static void addr_v4(struct cp_ip *out, const unsigned char *b, bool invert)
{
    memset(out, 0, sizeof *out);
    out->af = AF_INET;
    for (int i = 0; i < 4; i++)
        out->b[i] = (unsigned char)(invert ? ~b[i] : b[i]);
}

enum cp_embed cp_addr_unwrap(const struct cp_ip *ip, struct cp_ip *inner)
{
    static const unsigned char zero[12];
    memset(inner, 0, sizeof *inner);
    if (ip->af != AF_INET6)
        return CP_EMBED_NONE;
    const unsigned char *b = ip->b;
    enum cp_embed e = CP_EMBED_NONE;
    if (addr_in(ip, addr_row("::ffff:0:0/96")))
        e = CP_EMBED_MAPPED;
    else if (memcmp(b, zero, 12) == 0 && (b[12] | b[13] | b[14]))
        e = CP_EMBED_COMPAT; /* not :: nor ::1 (nor ::0.0.0.x) */
    else if (addr_in(ip, addr_row("64:ff9b::/96")))
        e = CP_EMBED_NAT64;
    if (e != CP_EMBED_NONE) {
        addr_v4(inner, b + 12, false);
    } else if (b[0] == 0x20 && b[1] == 0x02) {
        e = CP_EMBED_6TO4;
        addr_v4(inner, b + 2, false);
    } else if (addr_in(ip, addr_row("2001::/32"))) {
        e = CP_EMBED_TEREDO;
        addr_v4(inner, b + 12, true);
    }
    return e;
}

static const struct cp_addr_range *addr_lookup(const struct cp_ip *ip)
{
    for (size_t i = 0; i + 1 < ADDR_NROWS; i++)
        if (addr_in(ip, &addr_table[i]))
            return &addr_table[i];
    if (ip->af == AF_INET6 && (ip->b[0] & 0xe0) != 0x20)
        return &addr_table[ADDR_NROWS - 1];
    return NULL;
}

void cp_addr_classify(const struct cp_ip *ip, struct cp_addr_class *out)
{
    memset(out, 0, sizeof *out);
    out->embed = cp_addr_unwrap(ip, &out->inner);
    if (out->embed == CP_EMBED_MAPPED || out->embed == CP_EMBED_NAT64) {
        out->range = addr_lookup(&out->inner);
        out->loopback = out->embed == CP_EMBED_MAPPED && out->inner.b[0] == 127;
        return;
    }
    out->range = addr_lookup(ip);
    out->loopback = ip->af == AF_INET ? ip->b[0] == 127
                                      : out->range == addr_row("::1/128");
}

/* Does the rule list allow the IP literal `ip` (or the name `localhost`
 * when ip is NULL) at port? */
static bool addr_rule_allows(const struct cp_net_rule *rules, size_t n,
                             const struct cp_ip *ip, unsigned port)
{
    char text[INET6_ADDRSTRLEN] = "localhost";
    struct cp_domain req = {.name = text, .kind = CP_HOST_NAME, .port = port};
    if (ip) {
        cp_ip_format(ip, text, sizeof text);
        req.kind = ip->af == AF_INET ? CP_HOST_IPV4 : CP_HOST_IPV6;
    }
    size_t first, nm;
    return cp_net_decide_first(rules, n, &req, &first, &nm) == CP_ALLOW;
}

bool cp_net_addr_allowed(const struct cp_net_rule *rules, size_t n,
                         const struct cp_ip *ip, unsigned port, bool host_own,
                         const char **why)
{
    struct cp_addr_class c;
    cp_addr_classify(ip, &c);
    if (why)
        *why = host_own  ? "the host's own address"
               : c.range ? c.range->what
                         : NULL;
    if (!c.range && !host_own)
        return true;
    return addr_rule_allows(rules, n, ip, port) ||
           (c.embed == CP_EMBED_MAPPED &&
            addr_rule_allows(rules, n, &c.inner, port)) ||
           (c.loopback && addr_rule_allows(rules, n, NULL, port));
}

bool cp_ip_from_sockaddr(const void *sa, size_t len, struct cp_ip *out)
{
    union cp_sockaddr u;
    memset(out, 0, sizeof *out);
    int af = cp_sockaddr_family(sa, len);
    if ((af == AF_INET && len >= sizeof u.in4) ||
        (af == AF_INET6 && len >= sizeof u.in6)) {
        memcpy(&u, sa, af == AF_INET ? sizeof u.in4 : sizeof u.in6);
        out->af = af;
        if (af == AF_INET)
            memcpy(out->b, &u.in4.sin_addr, 4);
        else
            memcpy(out->b, &u.in6.sin6_addr, 16);
        return true;
    }
    return false;
}

socklen_t cp_ip_to_sockaddr(const struct cp_ip *ip, unsigned port,
                            union cp_sockaddr *out)
{
    memset(out, 0, sizeof *out);
    if (ip->af == AF_INET) {
        out->in4.sin_family = AF_INET;
        out->in4.sin_port = htons((uint16_t)port);
        memcpy(&out->in4.sin_addr, ip->b, 4);
        return sizeof out->in4;
    }
    out->in6.sin6_family = AF_INET6;
    out->in6.sin6_port = htons((uint16_t)port);
    memcpy(&out->in6.sin6_addr, ip->b, 16);
    return sizeof out->in6;
}

void cp_ip_format(const struct cp_ip *ip, char *buf, size_t size)
{
    if (!inet_ntop(ip->af, ip->b, buf, (socklen_t)size) && size)
        buf[0] = '\0';
}

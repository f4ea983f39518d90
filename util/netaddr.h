/* SPDX-License-Identifier: MIT */
/* Special-purpose addresses and the proxy's address decision
 * (spec/runtime.md 14.3): one table built on the IANA IPv4 and IPv6
 * special-purpose address registries, the IPv4 address embedded in an
 * IPv6 one unwrapped first, and one function that decides whether a
 * connection for an allowed name may go to an address its name resolved
 * to.  And socket addresses without type punning: a `struct sockaddr` is
 * only ever read or written through union cp_sockaddr or by memcpy, so
 * that no store can be dropped under strict aliasing.  Pure functions: no
 * I/O, no globals. */
#ifndef CP_NETADDR_H
#define CP_NETADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "netmatch.h"

/* Every socket address the runtime builds or reads: written through one
 * member, passed to the kernel as `sa`, read back through the member of
 * its family (C11 6.5.2.3: reading another member of a union is defined). */
union cp_sockaddr {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
    struct sockaddr_un un;
    struct sockaddr_storage ss;
};

/* An IP address as bytes in network order: af AF_INET (b[0..3]) or
 * AF_INET6 (b[0..15]). */
struct cp_ip {
    int af;
    unsigned char b[16];
};

/* How an IPv4 address is embedded in an IPv6 one. */
enum cp_embed {
    CP_EMBED_NONE,
    CP_EMBED_MAPPED, /* ::ffff:a.b.c.d: the same IPv4 host on the wire */
    CP_EMBED_COMPAT, /* ::a.b.c.d, deprecated IPv4-compatible */
    CP_EMBED_NAT64,  /* 64:ff9b::a.b.c.d, the NAT64 well-known prefix */
    CP_EMBED_6TO4,   /* 2002:AABB:CCDD::/48, the 6to4 relay's IPv4 */
    CP_EMBED_TEREDO, /* 2001::/32, the client's IPv4 (inverted) */
};

/* One row of the special-purpose table. */
struct cp_addr_range {
    int af;
    unsigned len; /* prefix length in bits */
    unsigned char prefix[16];
    const char *text; /* "10.0.0.0/8", as spec/runtime.md 14.3 lists it */
    const char *what; /* "private-use", ... */
};

/* What the table says of one address. */
struct cp_addr_class {
    const struct cp_addr_range *range; /* the deciding row; NULL: public */
    enum cp_embed embed;               /* how `inner` was found */
    struct cp_ip inner;                /* the embedded IPv4 (af 0: none) */
    bool loopback; /* 127/8, ::1, ::ffff:127.x.y.z: the host's loopback */
};

/* The table, in the order rows are tried (more specific first). */
const struct cp_addr_range *cp_addr_table(size_t *n);
/* The embedded IPv4 address of an IPv6 one (mapped, compatible, NAT64
 * well-known prefix, 6to4, Teredo): CP_EMBED_NONE when there is none,
 * else the kind, with the IPv4 address in *inner. */
enum cp_embed cp_addr_unwrap(const struct cp_ip *ip, struct cp_ip *inner);
/* Classifies ip: mapped and NAT64 addresses are decided as their embedded
 * IPv4 address; every other embedding is special itself (its inner
 * address is reported).  IPv6 outside 2000::/3 is reserved. */
void cp_addr_classify(const struct cp_ip *ip, struct cp_addr_class *out);

/* The proxy's address decision (spec/runtime.md 14.3): may a connection
 * for an allowed name go to `ip` at `port`?  A public address that is not
 * one of the host's own (`host_own`, which the caller finds out) may.  Any
 * other only when the rules allow it as an IP literal at that port — the
 * address as dialled, or for an IPv4-mapped address the IPv4 address —
 * or, for a loopback address, allow `localhost` at that port.  *why (may
 * be NULL) gets the reason of a refusal: the table row's description, or
 * "the host's own address". */
bool cp_net_addr_allowed(const struct cp_net_rule *rules, size_t n,
                         const struct cp_ip *ip, unsigned port, bool host_own,
                         const char **why);

/* The family of a socket address of len bytes (read by memcpy), or -1.
 * Inline: the stage's socket helpers need it without the address table. */
static inline int cp_sockaddr_family(const void *sa, size_t len)
{
    sa_family_t f;
    size_t off = offsetof(struct sockaddr, sa_family);
    if (len < off + sizeof f)
        return -1;
    memcpy(&f, (const char *)sa + off, sizeof f);
    return f;
}
/* The IP address of an AF_INET or AF_INET6 socket address of len bytes
 * (copied by memcpy); false for any other. */
bool cp_ip_from_sockaddr(const void *sa, size_t len, struct cp_ip *out);
/* The socket address of ip at port; its length. */
socklen_t cp_ip_to_sockaddr(const struct cp_ip *ip, unsigned port,
                            union cp_sockaddr *out);
/* ip as text (inet_ntop's canonical form) into buf (at least 46 bytes). */
void cp_ip_format(const struct cp_ip *ip, char *buf, size_t size);

#endif

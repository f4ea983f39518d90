/* SPDX-License-Identifier: MIT */
/* Domain patterns and the network decision (spec/patterns.md 3,
 * spec/semantics.md, net): what the decision model (explain, expect) and
 * the launcher's proxy share.  The compiler sees these through policy.h
 * and match.h; the launcher includes this header alone.  Pure functions:
 * no I/O, no globals. */
#ifndef CP_NETMATCH_H
#define CP_NETMATCH_H

#include <stdbool.h>
#include <stddef.h>

struct cp_arena;

/* What a net rule or a requested host names (spec/patterns.md 3). */
enum cp_host_kind {
    CP_HOST_NAME, /* a DNS name ("example.com", "localhost") */
    CP_HOST_IPV4, /* an IPv4 literal, canonical dotted quad */
    CP_HOST_IPV6, /* an IPv6 literal, canonical inet_ntop form, no brackets */
};

struct cp_domain {
    const char *name; /* lower-case, no trailing dot: "example.com" */
    bool wildcard;    /* "*.example.com": strict subdomains, any depth */
    enum cp_host_kind kind;
    unsigned port; /* 1-65535, or 0: every port */
};

/* A decision's answer (the network decision gives allow or deny only). */
enum cp_verdict {
    CP_ALLOW,
    CP_ASK, /* gate only */
    CP_DENY,
};

/* "example.com" or "*.example.com"; rejects "*", "*.com" (a public suffix
 * with no registrable label), empty labels, bad characters.  Returns NULL
 * on success, else a message. */
const char *cp_domain_parse(struct cp_arena *a, const char *text, size_t len,
                            struct cp_domain *out);
/* A requested host[:port] (spec/patterns.md 3.3): a name, an IP literal
 * in any form the C library accepts as an address ("127.1" is
 * 127.0.0.1), canonicalised; no wildcard.  NULL or a message. */
const char *cp_net_host_parse(struct cp_arena *a, const char *text, size_t len,
                              struct cp_domain *out);
/* Name part only (any kind of rule against a name). */
bool cp_domain_matches(const struct cp_domain *d, const char *host);
/* A net rule's canonical text, NUL-terminated in the arena:
 * "*.a.com:443", "[::1]", "10.0.0.1:22". */
const char *cp_domain_format(struct cp_arena *a, const struct cp_domain *d);

/* The network decision (spec/semantics.md, net): shared by the decision
 * model (explain, expect) and the runtime's proxy.  rules[i].dom is NULL
 * for 'net deny'.  Any 'net deny' denies; no allow rule allows all;
 * otherwise allowed iff an allow rule matches.  The indices of the
 * deciding rules (every deny, or every matching allow) go to match[]
 * (room for n), their count to *nmatch (0: decided by default). */
struct cp_net_rule {
    const struct cp_domain *dom;
};
enum cp_verdict cp_net_decide(const struct cp_net_rule *rules, size_t n,
                              const struct cp_domain *req, size_t *match,
                              size_t *nmatch);
/* The same decision with room for one index: the first deciding rule goes
 * to *first when *nmatch > 0 (the runtime's proxy: no array sized by the
 * number of rules on a thread's stack). */
enum cp_verdict cp_net_decide_first(const struct cp_net_rule *rules, size_t n,
                                    const struct cp_domain *req, size_t *first,
                                    size_t *nmatch);

#endif

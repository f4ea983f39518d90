/* SPDX-License-Identifier: MIT */
/* Domain patterns: parsing, printing, matching a host, and the network
 * decision (spec/patterns.md, "Domains"; spec/semantics.md, net).  The
 * exact relations between two patterns (containment, overlap) are the
 * analysis's: compiler/match_domain.c. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "netmatch.h"

#define DOM_MAX_LEN 253
#define DOM_MAX_LABEL 63

/* Second-level public suffixes under which a wildcard would name every
 * registrable domain of a country ("*.co.uk").  Not the full Public Suffix
 * List: a fixed, documented list of the common ICANN ones. */
static const char *const dom_public_2ld[] = {
    "ac.jp",  "ac.uk",  "co.id",  "co.il",  "co.in",  "co.jp",  "co.kr",
    "co.nz",  "co.uk",  "co.za",  "com.ar", "com.au", "com.br", "com.cn",
    "com.hk", "com.mx", "com.my", "com.pl", "com.sg", "com.tr", "com.tw",
    "com.ua", "edu.au", "edu.cn", "go.jp",  "gov.au", "gov.cn", "gov.uk",
    "ltd.uk", "me.uk",  "ne.jp",  "net.au", "net.br", "net.cn", "net.in",
    "net.nz", "net.uk", "or.jp",  "org.au", "org.br", "org.cn", "org.in",
    "org.nz", "org.uk", "plc.uk",
};

static char dom_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool dom_label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* The "*." lead, the trailing root dot and the length of a name: sets
 * *wildcard and narrows text/len to the labels.  NULL or a message. */
static const char *dom_name_trim(const char **text, size_t *len, bool *wildcard)
{
    *wildcard = false;
    if (*len == 1 && (*text)[0] == '*')
        return "'*' alone would allow every domain";
    if (*len >= 2 && (*text)[0] == '*' && (*text)[1] == '.') {
        *wildcard = true;
        *text += 2;
        *len -= 2;
    }
    if (*len > 0 && (*text)[*len - 1] == '.')
        (*len)--; /* a fully qualified name: the root label is implied */
    if (*len == 0)
        return *wildcard ? "'*.' needs a domain after it" : "empty domain";
    if (*len > DOM_MAX_LEN)
        return "domain longer than 253 bytes";
    return NULL;
}

/* The label ending at buf[end] (exclusive), starting at buf[start]. */
static const char *dom_label_check(const char *buf, size_t start, size_t end)
{
    size_t l = end - start;
    if (l == 0)
        return "empty label in domain";
    if (l > DOM_MAX_LABEL)
        return "domain label longer than 63 bytes";
    if (buf[start] == '-' || buf[end - 1] == '-')
        return "domain label starts or ends with '-'";
    return NULL;
}

/* Lower-cases text into buf (len + 1 bytes, NUL-terminated), checking each
 * label; counts the labels and tells whether the last is all digits. */
static const char *dom_name_scan(const char *text, size_t len, char *buf,
                                 size_t *labels, bool *digits)
{
    size_t start = 0;
    *labels = 0;
    *digits = true; /* the current label is all digits */
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? dom_lower(text[i]) : '.';
        if (c == '.') {
            const char *msg = dom_label_check(buf, start, i);
            if (msg)
                return msg;
            (*labels)++;
            start = i + 1;
            if (i < len)
                *digits = true;
        } else if (c == '*') {
            return "'*' is only allowed as a whole first label "
                   "('*.example.com')";
        } else if (!dom_label_char(c)) {
            return "bad character in domain (allowed: letters, digits, '-', "
                   "'.')";
        } else if (c < '0' || c > '9') {
            *digits = false;
        }
        if (i < len)
            buf[i] = c;
    }
    buf[len] = '\0';
    return NULL;
}

/* A wildcard's base must leave a registrable label below a public suffix. */
static const char *dom_wildcard_base(const char *buf, size_t labels)
{
    if (labels < 2)
        return "wildcard over a top-level domain would allow every "
               "domain under it";
    for (size_t i = 0; i < sizeof dom_public_2ld / sizeof *dom_public_2ld; i++)
        if (strcmp(buf, dom_public_2ld[i]) == 0)
            return "wildcard over a public suffix would allow every "
                   "domain under it";
    return NULL;
}

/* A DNS name, optionally "*."-led (spec/patterns.md 3.1). */
static const char *dom_parse_name(struct cp_arena *a, const char *text,
                                  size_t len, struct cp_domain *out)
{
    bool wildcard, digits;
    size_t labels;
    const char *msg = dom_name_trim(&text, &len, &wildcard);
    if (msg)
        return msg;
    char buf[DOM_MAX_LEN + 1];
    msg = dom_name_scan(text, len, buf, &labels, &digits);
    if (msg)
        return msg;
    /* Resolvers read "127.1", "10.0.0.1" or "2130706433" as addresses: a
     * name whose last label is all digits would name an address under a
     * rule that does not look like one. */
    if (digits)
        return wildcard ? "'*.' cannot apply to an IP address"
                        : "not a dotted-quad IPv4 address, and a domain "
                          "name's last label cannot be all digits";
    if (wildcard && (msg = dom_wildcard_base(buf, labels)) != NULL)
        return msg;
    out->name = cp_arena_strndup(a, buf, len);
    out->wildcard = wildcard;
    out->kind = CP_HOST_NAME;
    return NULL;
}

/* ":PORT" after a host: 1-65535, decimal, no sign, no leading zero. */
static const char *dom_parse_port(const char *t, size_t len, unsigned *port)
{
    unsigned v = 0;
    if (len == 0)
        return "empty port after ':'";
    if (t[0] == '0' || len > 5)
        return "port must be a number from 1 to 65535";
    for (size_t i = 0; i < len; i++) {
        if (t[i] < '0' || t[i] > '9')
            return "port must be a number from 1 to 65535";
        v = v * 10 + (unsigned)(t[i] - '0');
    }
    if (v > 65535)
        return "port must be a number from 1 to 65535";
    *port = v;
    return NULL;
}

static bool dom_all(const char *t, size_t len, const char *set)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr(set, t[i]))
            return false;
    return true;
}

/* An IP literal of `kind` in canonical text form, or a message. */
static const char *dom_parse_ip(struct cp_arena *a, const char *t, size_t len,
                                int af, bool lenient, struct cp_domain *out)
{
    char in[64], canon[INET6_ADDRSTRLEN];
    unsigned char bin[16];
    if (len >= sizeof in)
        return af == AF_INET6 ? "bad IPv6 address" : "bad IPv4 address";
    memcpy(in, t, len);
    in[len] = '\0';
    int ok;
    if (af == AF_INET && lenient) {
        /* Requests: every form the C library accepts as an address
         * ("127.1", "0x7f.1", "2130706433") is that address. */
        struct in_addr ia;
        ok = inet_aton(in, &ia);
        memcpy(bin, &ia, sizeof ia);
    } else {
        ok = inet_pton(af, in, bin);
    }
    if (ok != 1 || !inet_ntop(af, bin, canon, sizeof canon))
        return af == AF_INET6 ? "bad IPv6 address"
                              : "not a dotted-quad IPv4 address, and a "
                                "domain name's last label cannot be all "
                                "digits";
    out->name = cp_arena_strndup(a, canon, strlen(canon));
    out->kind = af == AF_INET6 ? CP_HOST_IPV6 : CP_HOST_IPV4;
    out->wildcard = false;
    return NULL;
}

/* Where a HOST[:PORT] text splits: the host, and the ':' before the
 * port (NULL: no port). */
struct dom_split {
    const char *host;
    size_t hlen;
    const char *colon;
};

/* "[IPV6]" or "[IPV6]:PORT". */
static const char *dom_split_bracket(const char *text, size_t len,
                                     struct dom_split *sp)
{
    const char *rb = memchr(text, ']', len);
    if (!rb)
        return "'[' without ']' around an IPv6 address";
    sp->host = text + 1;
    sp->hlen = (size_t)(rb - sp->host);
    size_t rest = len - (size_t)(rb + 1 - text);
    if (rest && rb[1] != ':')
        return "unexpected text after ']'";
    sp->colon = rest ? rb + 1 : NULL;
    return NULL;
}

/* HOST or HOST:PORT without brackets.  Two colons or more: a bare IPv6
 * address, which only a request may be (*bare6 set), else a message. */
static const char *dom_split_plain(const char *text, size_t len, bool request,
                                   struct dom_split *sp, bool *bare6)
{
    const char *first = memchr(text, ':', len);
    const char *last = first;
    for (const char *q = first; q && q < text + len;
         q = memchr(q + 1, ':', (size_t)(text + len - q - 1)))
        last = q;
    if (first && first != last) {
        *bare6 = request && dom_all(text, len, "0123456789abcdefABCDEF:.");
        return *bare6 ? NULL
                      : "an IPv6 address is written in brackets ('[::1]:443')";
    }
    /* "https://a.com" is not a port: leave the ':' to the name check. */
    if (first &&
        dom_all(first + 1, (size_t)(text + len - first - 1), "0123456789")) {
        sp->colon = first;
        sp->hlen = (size_t)(first - text);
    }
    return NULL;
}

/* The host part: a bracketed IPv6 address, a dotted quad (for a request
 * also a "0x" form), or a name. */
static const char *dom_parse_host(struct cp_arena *a, const char *host,
                                  size_t hlen, bool bracket, bool request,
                                  struct cp_domain *out)
{
    if (bracket)
        return dom_parse_ip(a, host, hlen, AF_INET6, request, out);
    if (hlen > 0 && dom_all(host, hlen, "0123456789.") && host[hlen - 1] != '.')
        return dom_parse_ip(a, host, hlen, AF_INET, request, out);
    if (request && hlen > 2 && host[0] == '0' &&
        (host[1] == 'x' || host[1] == 'X') &&
        dom_parse_ip(a, host, hlen, AF_INET, true, out) == NULL)
        return NULL;
    const char *msg = dom_parse_name(a, host, hlen, out);
    if (!msg && request && out->wildcard)
        msg = "a request names one host, not a pattern";
    return msg;
}

/* HOST[:PORT] where HOST is a name, "*."name, a dotted quad or a
 * bracketed IPv6 address.  `request`: a subject, not a rule (no wildcard,
 * lenient IPv4 forms, a bare IPv6 address accepted). */
static const char *dom_parse(struct cp_arena *a, const char *text, size_t len,
                             bool request, struct cp_domain *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return "empty domain";
    if (memchr(text, '\0', len))
        return "NUL byte in domain";
    struct dom_split sp = {.host = text, .hlen = len, .colon = NULL};
    bool bare6 = false;
    const char *msg = text[0] == '['
                          ? dom_split_bracket(text, len, &sp)
                          : dom_split_plain(text, len, request, &sp, &bare6);
    if (msg)
        return msg;
    if (bare6)
        return dom_parse_ip(a, text, len, AF_INET6, true, out);
    if (sp.colon) {
        msg = dom_parse_port(sp.colon + 1, (size_t)(text + len - sp.colon - 1),
                             &out->port);
        if (msg)
            return msg;
    }
    unsigned port = out->port;
    msg = dom_parse_host(a, sp.host, sp.hlen, sp.host != text, request, out);
    out->port = port;
    return msg;
}

const char *cp_domain_parse(struct cp_arena *a, const char *text, size_t len,
                            struct cp_domain *out)
{
    return dom_parse(a, text, len, false, out);
}

const char *cp_net_host_parse(struct cp_arena *a, const char *text, size_t len,
                              struct cp_domain *out)
{
    return dom_parse(a, text, len, true, out);
}

const char *cp_domain_format(struct cp_arena *a, const struct cp_domain *d)
{
    /* Without printf: the back ends format every net rule of a policy. */
    char port[16], *p = port + sizeof port;
    *--p = '\0';
    for (unsigned v = d->port; v; v /= 10)
        *--p = (char)('0' + v % 10);
    if (d->port)
        *--p = ':';
    if (d->kind == CP_HOST_IPV6)
        return cp_arena_cat(a, "[", d->name, "]", p, (char *)NULL);
    return cp_arena_cat(a, d->wildcard ? "*." : "", d->name, p, (char *)NULL);
}

/* Is `host` (len bytes, compared case-insensitively) a strict subdomain of
 * the lower-case `base`? */
static bool dom_strict_sub(const char *host, size_t hlen, const char *base,
                           size_t blen)
{
    if (hlen < blen + 2)
        return false;
    if (host[hlen - blen - 1] != '.')
        return false;
    for (size_t i = 0; i < blen; i++)
        if (dom_lower(host[hlen - blen + i]) != base[i])
            return false;
    return true;
}

static bool dom_equal(const char *host, size_t hlen, const char *base,
                      size_t blen)
{
    if (hlen != blen)
        return false;
    for (size_t i = 0; i < blen; i++)
        if (dom_lower(host[i]) != base[i])
            return false;
    return true;
}

/* Does rule d match the parsed request req (same kind, port if any)? A
 * request without a port (0) matches only rules without a port. */
static bool cp_domain_matches_req(const struct cp_domain *d,
                                  const struct cp_domain *req)
{
    if (d->kind != req->kind || (d->port && d->port != req->port))
        return false;
    if (d->kind != CP_HOST_NAME)
        return strcmp(d->name, req->name) == 0;
    return cp_domain_matches(d, req->name);
}

bool cp_domain_matches(const struct cp_domain *d, const char *host)
{
    size_t hlen = strlen(host);
    if (hlen > 0 && host[hlen - 1] == '.')
        hlen--;
    if (hlen == 0)
        return false;
    size_t blen = strlen(d->name);
    if (d->wildcard)
        return dom_strict_sub(host, hlen, d->name, blen);
    return dom_equal(host, hlen, d->name, blen);
}

/* The decision; the indices of the deciding rules go to match[] while
 * fewer than cap are there, their count to *nmatch. */
static enum cp_verdict net_decide(const struct cp_net_rule *rules, size_t n,
                                  const struct cp_domain *req, size_t *match,
                                  size_t cap, size_t *nmatch)
{
    size_t nd = 0, na = 0;
    bool any_allow = false;
    for (size_t i = 0; i < n; i++)
        if (!rules[i].dom) {
            if (nd < cap)
                match[nd] = i;
            nd++;
        }
    *nmatch = nd;
    if (nd)
        return CP_DENY;
    for (size_t i = 0; i < n; i++) {
        any_allow = true;
        if (cp_domain_matches_req(rules[i].dom, req)) {
            if (na < cap)
                match[na] = i;
            na++;
        }
    }
    *nmatch = na;
    return (!any_allow || na) ? CP_ALLOW : CP_DENY;
}

enum cp_verdict cp_net_decide(const struct cp_net_rule *rules, size_t n,
                              const struct cp_domain *req, size_t *match,
                              size_t *nmatch)
{
    return net_decide(rules, n, req, match, n, nmatch);
}

enum cp_verdict cp_net_decide_first(const struct cp_net_rule *rules, size_t n,
                                    const struct cp_domain *req, size_t *first,
                                    size_t *nmatch)
{
    return net_decide(rules, n, req, first, 1, nmatch);
}

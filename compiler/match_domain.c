/* SPDX-License-Identifier: MIT */
/* Domain patterns: parsing, matching a host, exact containment and overlap
 * (spec/patterns.md, "Domains"). */
#include <string.h>

#include "arena.h"
#include "match.h"

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

const char *cp_domain_parse(struct cp_arena *a, const char *text, size_t len,
                            struct cp_domain *out)
{
    bool wildcard = false;
    size_t i;

    memset(out, 0, sizeof *out);
    if (len == 0)
        return "empty domain";
    for (i = 0; i < len; i++)
        if (text[i] == '\0')
            return "NUL byte in domain";
    if (len == 1 && text[0] == '*')
        return "'*' alone would allow every domain";
    if (len >= 2 && text[0] == '*' && text[1] == '.') {
        wildcard = true;
        text += 2;
        len -= 2;
    }
    if (len > 0 && text[len - 1] == '.')
        len--; /* a fully qualified name: the root label is implied */
    if (len == 0)
        return wildcard ? "'*.' needs a domain after it" : "empty domain";
    if (len > DOM_MAX_LEN)
        return "domain longer than 253 bytes";

    char buf[DOM_MAX_LEN + 1];
    size_t labels = 0, start = 0;
    for (i = 0; i <= len; i++) {
        char c = i < len ? dom_lower(text[i]) : '.';
        if (c == '.') {
            size_t l = i - start;
            if (l == 0)
                return "empty label in domain";
            if (l > DOM_MAX_LABEL)
                return "domain label longer than 63 bytes";
            if (buf[start] == '-' || buf[i - 1] == '-')
                return "domain label starts or ends with '-'";
            labels++;
            start = i + 1;
        } else if (c == '*') {
            return "'*' is only allowed as a whole first label ('*.example.com')";
        } else if (!dom_label_char(c)) {
            return "bad character in domain (allowed: letters, digits, '-', '.')";
        }
        if (i < len)
            buf[i] = c;
    }
    buf[len] = '\0';
    if (wildcard) {
        if (labels < 2)
            return "wildcard over a top-level domain would allow every "
                   "domain under it";
        for (i = 0; i < sizeof dom_public_2ld / sizeof *dom_public_2ld; i++)
            if (strcmp(buf, dom_public_2ld[i]) == 0)
                return "wildcard over a public suffix would allow every "
                       "domain under it";
    }
    out->name = cp_arena_strndup(a, buf, len);
    out->wildcard = wildcard;
    return NULL;
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

enum cp_rel cp_domain_contains(const struct cp_domain *outer,
                               const struct cp_domain *inner)
{
    size_t ol = strlen(outer->name), il = strlen(inner->name);
    if (!outer->wildcard)
        return (!inner->wildcard && dom_equal(inner->name, il, outer->name, ol))
                   ? CP_REL_YES
                   : CP_REL_NO;
    /* *.W contains n and *.n exactly when n is W's strict subdomain, and
     * also contains *.W itself. */
    if (dom_strict_sub(inner->name, il, outer->name, ol))
        return CP_REL_YES;
    if (inner->wildcard && dom_equal(inner->name, il, outer->name, ol))
        return CP_REL_YES;
    return CP_REL_NO;
}

enum cp_rel cp_domain_overlaps(const struct cp_domain *a,
                               const struct cp_domain *b)
{
    if (cp_domain_contains(a, b) == CP_REL_YES ||
        cp_domain_contains(b, a) == CP_REL_YES)
        return CP_REL_YES;
    /* Two wildcards overlap iff one base is equal to or below the other
     * (covered above); a wildcard and a name iff the name matches. */
    return CP_REL_NO;
}

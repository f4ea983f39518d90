/* SPDX-License-Identifier: MIT */
/* The content detectors and the author's content rules (spec/gate.md,
 * "Content").  Each built-in detector is a hand-written scanner: find an
 * anchor (a fixed prefix) with memmem, then check the shape that follows
 * and the boundaries around it.  That keeps a 1 MiB write to a few
 * milliseconds and makes each detector's language exact enough to be
 * tested with a firing case and a near miss.  Nothing here keeps or
 * returns the matched bytes: a finding is a class and line numbers. */
#include "content.h"

#include <stdint.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char *const cp_cc_names[CP_CC__COUNT] = {
    [CP_CC_PRIVATE_KEY] = "private-key",
    [CP_CC_AWS_KEY] = "aws-key",
    [CP_CC_GITHUB_TOKEN] = "github-token",
    [CP_CC_GITLAB_TOKEN] = "gitlab-token",
    [CP_CC_SLACK_TOKEN] = "slack-token",
    [CP_CC_GOOGLE_API_KEY] = "google-api-key",
    [CP_CC_ANTHROPIC_KEY] = "anthropic-key",
    [CP_CC_OPENAI_KEY] = "openai-key",
    [CP_CC_STRIPE_KEY] = "stripe-key",
    [CP_CC_NPM_TOKEN] = "npm-token",
    [CP_CC_PYPI_TOKEN] = "pypi-token",
    [CP_CC_DOCKER_TOKEN] = "docker-token",
    [CP_CC_HUGGINGFACE_TOKEN] = "huggingface-token",
    [CP_CC_DIGITALOCEAN_TOKEN] = "digitalocean-token",
    [CP_CC_AZURE_KEY] = "azure-key",
    [CP_CC_OVERRIDE_TEXT] = "override-text",
};

const char *const cp_content_names[] = {
    "private-key",
    "aws-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "google-api-key",
    "anthropic-key",
    "openai-key",
    "stripe-key",
    "npm-token",
    "pypi-token",
    "docker-token",
    "huggingface-token",
    "digitalocean-token",
    "azure-key",
    "override-text",
    "access-token",
    "all",
    NULL,
};

#define CP_CC_TOKENS                                                           \
    (CP_CC_ALL & ~((1u << CP_CC_PRIVATE_KEY) | (1u << CP_CC_OVERRIDE_TEXT)))

const char *cp_content_class_name(unsigned c)
{
    return c < CP_CC__COUNT ? cp_cc_names[c] : "?";
}

bool cp_content_class_mask(const char *name, size_t len, unsigned *mask)
{
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        if (strlen(cp_cc_names[c]) == len &&
            memcmp(cp_cc_names[c], name, len) == 0) {
            *mask = 1u << c;
            return true;
        }
    if (len == 12 && memcmp(name, "access-token", 12) == 0) {
        *mask = CP_CC_TOKENS;
        return true;
    }
    if (len == 3 && memcmp(name, "all", 3) == 0) {
        *mask = CP_CC_ALL;
        return true;
    }
    return false;
}

/* ---- findings ----------------------------------------------------------- */

/* Line numbers are counted incrementally: matches of one class come in
 * increasing order, so each newline is counted once per class. */
struct cc_lines {
    const char *text;
    size_t pos;    /* counted up to here */
    unsigned line; /* line of text[pos] */
};

static unsigned cc_line_at(struct cc_lines *l, size_t at)
{
    if (at < l->pos) { /* not expected; recount from the start */
        l->pos = 0;
        l->line = 1;
    }
    const char *p = l->text + l->pos, *e = l->text + at;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl)
            break;
        l->line++;
        p = nl + 1;
    }
    l->pos = at;
    return l->line;
}

struct cc_ctx {
    struct cp_arena *a;
    struct cp_content_scan *out;
    const char *field;
    const char *text;
    size_t len;
    long cur; /* index in out->v of the finding of the rule or class being
                 scanned, -1 before its first hit */
    struct cc_lines lines;
};

static void cc_begin(struct cc_ctx *c)
{
    c->cur = -1;
    c->lines = (struct cc_lines){.text = c->text, .pos = 0, .line = 1};
}

/* Records a hit at `at` in the finding *slot (created on the first hit;
 * an index, since out->v moves as it grows). */
static void cc_hit_in(struct cc_ctx *c, long *slot, const char *what,
                      const struct cp_content_rule *rule, size_t at)
{
    unsigned line = cc_line_at(&c->lines, at);
    struct cp_content_finding *f;
    if (*slot >= 0) {
        f = &c->out->v[*slot];
    } else {
        struct cp_content_scan *s = c->out;
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 8;
            struct cp_content_finding *v = cp_arena_alloc(c->a,
                                                          cap * sizeof *v);
            if (s->n)
                memcpy(v, s->v, s->n * sizeof *v);
            s->v = v;
            s->cap = cap;
        }
        *slot = (long)s->n;
        f = &s->v[s->n++];
        memset(f, 0, sizeof *f);
        f->what = what;
        f->rule = rule;
        f->field = c->field;
    }
    f->total++;
    if (f->nlines && f->lines[f->nlines - 1] == line)
        return;
    if (f->nlines < CP_CONTENT_MAX_LINES)
        f->lines[f->nlines++] = line;
}

static void cc_hit(struct cc_ctx *c, const char *what,
                   const struct cp_content_rule *rule, size_t at)
{
    cc_hit_in(c, &c->cur, what, rule, at);
}

/* ---- byte classes ------------------------------------------------------- */

static bool cc_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool cc_upnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool cc_urlsafe(unsigned char c)
{
    return cc_alnum(c) || c == '_' || c == '-';
}

/* Length of the run of bytes satisfying `ok` at t[i..len). */
static size_t cc_run(const char *t, size_t len, size_t i,
                     bool (*ok)(unsigned char))
{
    size_t j = i;
    while (j < len && ok((unsigned char)t[j]))
        j++;
    return j - i;
}

/* Does a token start at `at` (the byte before, if any, is not `ok`)? */
static bool cc_starts(const char *t, size_t at, bool (*ok)(unsigned char))
{
    return at == 0 || !ok((unsigned char)t[at - 1]);
}

/* A detector's anchor: a fixed prefix, and the check of what follows it,
 * returning the number of bytes matched (0: no match). */
typedef size_t (*cc_check)(const char *t, size_t len, size_t at);

/* ---- the detectors ------------------------------------------------------ */

static bool cc_label_byte(unsigned char c)
{
    return cc_upnum(c) || c == ' ';
}

/* "-----BEGIN [LABEL ]PRIVATE KEY-----" or "... PRIVATE KEY BLOCK-----"
 * (PEM, PKCS#8, OpenSSH, encrypted PKCS#8, PGP). */
static size_t cc_pem(const char *t, size_t len, size_t at)
{
    size_t i = at + 11; /* "-----BEGIN " */
    size_t n = cc_run(t, len, i, cc_label_byte);
    if (n > 64 || i + n + 5 > len || memcmp(t + i + n, "-----", 5) != 0)
        return 0;
    static const char *const ends[] = {"PRIVATE KEY", "PRIVATE KEY BLOCK"};
    for (size_t k = 0; k < 2; k++) {
        size_t el = strlen(ends[k]);
        if (n >= el && memcmp(t + i + n - el, ends[k], el) == 0 &&
            (n == el || t[i + n - el - 1] == ' '))
            return 11 + n + 5;
    }
    return 0;
}

/* "PuTTY-User-Key-File-N:" at the start of a line. */
static size_t cc_putty(const char *t, size_t len, size_t at)
{
    size_t i = at + 20;
    if ((at > 0 && t[at - 1] != '\n') || i + 2 > len ||
        !(t[i] >= '0' && t[i] <= '9') || t[i + 1] != ':')
        return 0;
    return 22;
}

static bool cc_b64(unsigned char c)
{
    return cc_alnum(c) || c == '/' || c == '+';
}

/* The base64 body of a private key without its armor lines: the DER
 * prefixes every key of the kind starts with (PKCS#1 RSA "MII...IBAAK",
 * PKCS#8 RSA "MII...IBADANBgkqhkiG9w0BAQEFAAS"), at the start of a base64
 * token.  The fixed prefixes (SEC1 EC, PKCS#8 EC and Ed25519, OpenSSH's
 * "openssh-key-v1") are anchors of their own (cc_der_fixed). */
static size_t cc_der_mii(const char *t, size_t len, size_t at)
{
    /* "MII" and three characters: the SEQUENCE header 30 82 HH LL */
    if (!cc_starts(t, at, cc_b64) || len - at < 13 ||
        !cc_b64((unsigned char)t[at + 3]) ||
        !cc_b64((unsigned char)t[at + 4]) || !cc_b64((unsigned char)t[at + 5]))
        return 0;
    /* version 0, then the modulus' INTEGER header 02 81|82 (1024 bits
     * and more); or version 0 and the rsaEncryption algorithm id */
    static const char *const tails[] = {"IBAAK", "IBADANBgkqhkiG9w0BAQEFAAS"};
    for (size_t k = 0; k < 2; k++) {
        size_t n = strlen(tails[k]);
        if (len - at - 6 >= n && memcmp(t + at + 6, tails[k], n) == 0)
            return 6 + n;
    }
    return 0;
}

static size_t cc_der_fixed(const char *t, size_t len, size_t at)
{
    (void)len;
    return cc_starts(t, at, cc_b64) ? 1 : 0;
}

/* AKIA/ASIA/ABIA/ACCA + 16 upper-case letters or digits, a whole token. */
static size_t cc_aws_id(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_alnum) ||
        len - at < 20) /* the anchor is "A" alone */
        return 0;
    if (memcmp(t + at, "AKIA", 4) && memcmp(t + at, "ASIA", 4) &&
        memcmp(t + at, "ABIA", 4) && memcmp(t + at, "ACCA", 4))
        return 0;
    size_t n = cc_run(t, len, at + 4, cc_upnum);
    if (n != 16 || (at + 20 < len && cc_alnum((unsigned char)t[at + 20])))
        return 0;
    return 20;
}

/* secret_access_key (any case, as in aws_secret_access_key or
 * SecretAccessKey's snake form), then quotes, blanks, '=' or ':', then 40
 * base64 characters. */
static size_t cc_aws_secret(const char *t, size_t len, size_t at)
{
    size_t i = at + 17;
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' ||
                       t[i] == '\'' || t[i] == '=' || t[i] == ':'))
        i++;
    size_t n = cc_run(t, len, i, cc_b64);
    return n == 40 ? i + n - at : 0;
}

/* PREFIX + exactly `n` alphanumerics, a whole token. */
static size_t cc_fixed(const char *t, size_t len, size_t at, size_t plen,
                       size_t n)
{
    if (!cc_starts(t, at, cc_alnum))
        return 0;
    size_t r = cc_run(t, len, at + plen, cc_alnum);
    if (r != n || (at + plen + r < len && t[at + plen + r] == '_'))
        return 0;
    return plen + r;
}

static size_t cc_gh(const char *t, size_t len, size_t at)
{
    /* anchor "gh?_": the letter after "gh" says which token */
    if (at + 4 > len || t[at + 2] == '\0' || !strchr("posur", t[at + 2]) ||
        t[at + 3] != '_')
        return 0;
    return cc_fixed(t, len, at, 4, 36);
}

static bool cc_word_byte(unsigned char c)
{
    return cc_alnum(c) || c == '_';
}

static size_t cc_gh_pat(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_alnum))
        return 0;
    size_t n = cc_run(t, len, at + 11, cc_word_byte);
    return n >= 36 ? 11 + n : 0;
}

static size_t cc_glpat(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t n = cc_run(t, len, at + 6, cc_urlsafe);
    return n >= 20 ? 6 + n : 0;
}

static bool cc_has_digit(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] >= '0' && t[i] <= '9')
            return true;
    return false;
}

static bool cc_has_letter(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z'))
            return true;
    return false;
}

static bool cc_slack_byte(unsigned char c)
{
    return cc_alnum(c) || c == '-';
}

/* xox[abposr]- then 10 or more of [A-Za-z0-9-] holding a digit. */
static size_t cc_slack(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_alnum) || at + 5 > len ||
        !strchr("abposr", t[at + 3]) || t[at + 3] == '\0' || t[at + 4] != '-')
        return 0;
    size_t n = cc_run(t, len, at + 5, cc_slack_byte);
    return n >= 10 && cc_has_digit(t + at + 5, n) ? 5 + n : 0;
}

static size_t cc_google(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t n = cc_run(t, len, at + 4, cc_urlsafe);
    return n == 35 ? 39 : 0;
}

static size_t cc_anthropic(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t n = cc_run(t, len, at + 7, cc_urlsafe);
    return n >= 20 ? 7 + n : 0;
}

/* sk-[proj-|svcacct-|admin-] then 32 or more of [A-Za-z0-9_-] with a
 * letter and a digit; "sk-ant-" is the Anthropic class. */
static size_t cc_openai(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t i = at + 3;
    if (len - i >= 4 && memcmp(t + i, "ant-", 4) == 0)
        return 0;
    static const char *const kinds[] = {"proj-", "svcacct-", "admin-"};
    for (size_t k = 0; k < 3; k++) {
        size_t kl = strlen(kinds[k]);
        if (len - i >= kl && memcmp(t + i, kinds[k], kl) == 0) {
            i += kl;
            break;
        }
    }
    size_t n = cc_run(t, len, i, cc_urlsafe);
    if (n < 32 || !cc_has_digit(t + i, n) || !cc_has_letter(t + i, n))
        return 0;
    return i + n - at;
}

static size_t cc_stripe(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_alnum))
        return 0;
    size_t n = cc_run(t, len, at + 8, cc_alnum);
    return n >= 20 ? 8 + n : 0;
}

static size_t cc_npm(const char *t, size_t len, size_t at)
{
    return cc_fixed(t, len, at, 4, 36);
}

/* PREFIX + at least `min` of [A-Za-z0-9_-], a token start. */
static size_t cc_urlsafe_min(const char *t, size_t len, size_t at, size_t plen,
                             size_t min)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t n = cc_run(t, len, at + plen, cc_urlsafe);
    return n >= min ? plen + n : 0;
}

/* "pypi-AgEIcHlwaS5vcmc" (the macaroon of pypi.org) + 50 or more. */
static size_t cc_pypi(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 20, 50);
}

static size_t cc_docker(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 9, 20);
}

static size_t cc_hf(const char *t, size_t len, size_t at)
{
    return cc_fixed(t, len, at, 3, 34);
}

static bool cc_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* do[por]_v1_ + exactly 64 lower-case hex digits. */
static size_t cc_digitalocean(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_alnum) || len - at < 7 || t[at + 2] == '\0' ||
        !strchr("por", t[at + 2]) || memcmp(t + at + 3, "_v1_", 4) != 0)
        return 0;
    size_t n = cc_run(t, len, at + 7, cc_hex);
    if (n != 64 || (at + 71 < len && cc_alnum((unsigned char)t[at + 71])))
        return 0;
    return 71;
}

/* AccountKey= + 86 base64 + "==" (a storage account key, 64 bytes);
 * SharedAccessKey= + 43 base64 + "=" (a SAS policy key, 32 bytes). */
static size_t cc_azure(const char *t, size_t len, size_t at)
{
    bool account = t[at] == 'A';
    size_t i = at + (account ? 11 : 16), want = account ? 86 : 43;
    size_t n = cc_run(t, len, i, cc_b64);
    size_t pad = account ? 2 : 1;
    if (n != want || len - i - n < pad || memcmp(t + i + n, "==", pad) != 0)
        return 0;
    return i + n + pad - at;
}

/* ---- override text ------------------------------------------------------ */

/* Words are runs of ASCII letters, folded to lower case.  Zero-width
 * characters and the soft hyphen inside a word are skipped (they are
 * invisible and would otherwise split "ig\u200bnore" in two). */
static size_t cc_invisible(const unsigned char *p, size_t n)
{
    if (n >= 3 && p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0x8b && p[2] <= 0x8d)
        return 3; /* U+200B..U+200D */
    if (n >= 3 && p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0xa0)
        return 3; /* U+2060 */
    if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
        return 3; /* U+FEFF */
    if (n >= 2 && p[0] == 0xc2 && p[1] == 0xad)
        return 2; /* U+00AD */
    return 0;
}

#define CC_WORD_MAX 16

struct cc_word {
    char w[CC_WORD_MAX + 1]; /* truncated words never equal a listed one */
    size_t at;
};

/* ASCII letters only (the C locale's isalpha, without the call). */
static bool cc_alpha(unsigned char c)
{
    return (unsigned char)((c | 0x20) - 'a') < 26;
}

/* Next word at or after *i; false at the end. */
static bool cc_next_word(const char *t, size_t len, size_t *i,
                         struct cc_word *w)
{
    const unsigned char *u = (const unsigned char *)t;
    size_t j = *i;
    while (j < len && !cc_alpha(u[j]))
        j++;
    if (j >= len)
        return false;
    w->at = j;
    size_t k = 0;
    bool long_word = false;
    while (j < len) {
        if (cc_alpha(u[j])) {
            if (k < CC_WORD_MAX)
                w->w[k++] = (char)(u[j] | 0x20);
            else
                long_word = true;
            j++;
            continue;
        }
        size_t z = u[j] >= 0xc2 ? cc_invisible(u + j, len - j) : 0;
        if (!z)
            break;
        j += z;
    }
    w->w[k] = '\0';
    if (long_word)
        w->w[0] = '\0';
    *i = j;
    return true;
}

static bool cc_in(const char *w, const char *const *set)
{
    for (; *set; set++) /* first letters first: most words are no match */
        if ((*set)[0] == w[0] && strcmp(w, *set) == 0)
            return true;
    return false;
}

static const char *const cc_verbs[] = {"ignore",   "disregard", "forget",
                                       "override", "bypass",    NULL};
static const char *const cc_adjs[] = {
    "previous", "prior", "above",  "earlier",  "preceding", "foregoing",
    "all",      "any",   "system", "original", "initial",   NULL};
static const char *const cc_nouns[] = {
    "instruction", "instructions", "prompt",  "prompts",   "direction",
    "directions",  "rule",         "rules",   "guideline", "guidelines",
    "message",     "messages",     "context", "guidance",  NULL};
static const char *const cc_everything_after[] = {
    "above", "before", "previously", "prior", "earlier", NULL};

/* VERB, then within the next five words an adjective of the list followed
 * (later, within the window) by a noun of the list; or VERB everything
 * above/before/... */
static void cc_override(struct cc_ctx *c)
{
    size_t i = 0;
    struct cc_word w;
    while (cc_next_word(c->text, c->len, &i, &w)) {
        if (!cc_in(w.w, cc_verbs))
            continue;
        size_t j = i, at = w.at;
        bool adj = false, hit = false;
        struct cc_word x;
        for (int k = 0; k < 5 && cc_next_word(c->text, c->len, &j, &x); k++) {
            if (k == 0 && strcmp(x.w, "everything") == 0) {
                struct cc_word y;
                size_t m = j;
                if (cc_next_word(c->text, c->len, &m, &y) &&
                    cc_in(y.w, cc_everything_after))
                    hit = true;
                break;
            }
            if (cc_in(x.w, cc_adjs))
                adj = true;
            else if (adj && cc_in(x.w, cc_nouns)) {
                hit = true;
                break;
            }
        }
        if (hit) {
            cc_hit(c, cp_cc_names[CP_CC_OVERRIDE_TEXT], NULL, at);
            i = j;
        }
    }
}

/* ---- author rules ------------------------------------------------------- */

const char *cp_content_rule_compile(struct cp_arena *a,
                                    struct cp_content_rule *r)
{
    if (!r->regex || r->re)
        return NULL;
    regex_t *re = cp_xmalloc(sizeof *re);
    int e = regcomp(re, r->text, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
    if (e) {
        char msg[256];
        regerror(e, re, msg, sizeof msg);
        free(re);
        return cp_arena_printf(a, "%s", msg);
    }
    r->re = re;
    return NULL;
}

void cp_content_rule_free(struct cp_content_rule *r)
{
    if (r->re) {
        regfree(r->re);
        free(r->re);
        r->re = NULL;
    }
}

/* A regex rule runs on each line; a NUL byte splits a line into pieces
 * (regexec reads C strings), each matched on its own. */
static void cc_regex_rule(struct cc_ctx *c, const struct cp_content_rule *r)
{
    struct cp_buf piece = {0};
    size_t i = 0;
    while (i <= c->len) {
        size_t e = i;
        while (e < c->len && c->text[e] != '\n' && c->text[e] != '\0')
            e++;
        piece.len = 0;
        cp_buf_add(&piece, c->text + i, e - i);
        int flags = i > 0 && c->text[i - 1] == '\0' ? REG_NOTBOL : 0;
        if (regexec(r->re, piece.data, 0, NULL, flags) == 0)
            cc_hit(c, r->id, r, i);
        if (e >= c->len)
            break;
        i = e + 1;
    }
    cp_buf_free(&piece);
}

static void cc_literal_rule(struct cc_ctx *c, const struct cp_content_rule *r)
{
    if (!r->len)
        return;
    size_t i = 0;
    while (i + r->len <= c->len) {
        const char *p = memmem(c->text + i, c->len - i, r->text, r->len);
        if (!p)
            return;
        size_t at = (size_t)(p - c->text);
        cc_hit(c, r->id, r, at);
        i = at + r->len;
    }
}

/* ---- scan --------------------------------------------------------------- */

static unsigned cc_class_of(const struct cp_content_finding *f)
{
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        if (f->what == cp_cc_names[c])
            return c;
    return CP_CC__COUNT;
}

/* Every anchored detector in one pass over the text: a table from a byte
 * to the anchors that start with it, so each byte costs one lookup and the
 * line count advances once.  An anchor that matched is not tried again
 * inside its own match.  The findings are then put in class order. */
static void cc_anchors(struct cc_ctx *c, unsigned classes)
{
    static const struct {
        unsigned cls;
        const char *anchor;
        cc_check check;
    } tab[] = {
        {CP_CC_PRIVATE_KEY, "-----BEGIN ", cc_pem},
        {CP_CC_PRIVATE_KEY, "PuTTY-User-Key-File-", cc_putty},
        {CP_CC_PRIVATE_KEY, "MII", cc_der_mii},
        {CP_CC_PRIVATE_KEY, "MHcCAQEEI", cc_der_fixed},  /* SEC1 P-256 */
        {CP_CC_PRIVATE_KEY, "MIGkAgEBBD", cc_der_fixed}, /* SEC1 P-384 */
        {CP_CC_PRIVATE_KEY, "MIHcAgEBBE", cc_der_fixed}, /* SEC1 P-521 */
        {CP_CC_PRIVATE_KEY, "MIGHAgEAMBMGByqGSM49AgEG",
         cc_der_fixed}, /* PKCS#8 EC */
        {CP_CC_PRIVATE_KEY, "MC4CAQAwBQYDK2VwBCIEI",
         cc_der_fixed}, /* PKCS#8 Ed25519 */
        {CP_CC_PRIVATE_KEY, "b3BlbnNzaC1rZXktdjE",
         cc_der_fixed}, /* openssh-key-v1 */
        {CP_CC_AWS_KEY, "A", cc_aws_id},
        {CP_CC_AWS_KEY, "secret_access_key", cc_aws_secret},
        {CP_CC_AWS_KEY, "SECRET_ACCESS_KEY", cc_aws_secret},
        {CP_CC_GITHUB_TOKEN, "gh", cc_gh},
        {CP_CC_GITHUB_TOKEN, "github_pat_", cc_gh_pat},
        {CP_CC_GITLAB_TOKEN, "glpat-", cc_glpat},
        {CP_CC_SLACK_TOKEN, "xox", cc_slack},
        {CP_CC_GOOGLE_API_KEY, "AIza", cc_google},
        {CP_CC_ANTHROPIC_KEY, "sk-ant-", cc_anthropic},
        {CP_CC_OPENAI_KEY, "sk-", cc_openai},
        {CP_CC_STRIPE_KEY, "sk_live_", cc_stripe},
        {CP_CC_STRIPE_KEY, "rk_live_", cc_stripe},
        {CP_CC_NPM_TOKEN, "npm_", cc_npm},
        {CP_CC_PYPI_TOKEN, "pypi-AgEIcHlwaS5vcmc", cc_pypi},
        {CP_CC_DOCKER_TOKEN, "dckr_pat_", cc_docker},
        {CP_CC_HUGGINGFACE_TOKEN, "hf_", cc_hf},
        {CP_CC_DIGITALOCEAN_TOKEN, "do", cc_digitalocean},
        {CP_CC_AZURE_KEY, "AccountKey=", cc_azure},
        {CP_CC_AZURE_KEY, "SharedAccessKey=", cc_azure},
    };
    enum { NT = sizeof tab / sizeof tab[0] };
    _Static_assert(NT <= 32, "one bit per anchor");
    uint32_t first[256] = {0};
    size_t alen[NT], skip[NT] = {0};
    for (size_t k = 0; k < NT; k++) {
        alen[k] = strlen(tab[k].anchor);
        if (classes & (1u << tab[k].cls))
            first[(unsigned char)tab[k].anchor[0]] |= 1u << k;
    }
    long slot[CP_CC__COUNT];
    for (size_t k = 0; k < CP_CC__COUNT; k++)
        slot[k] = -1;
    size_t n0 = c->out->n;
    const char *t = c->text;
    for (size_t i = 0; i < c->len; i++) {
        uint32_t m = first[(unsigned char)t[i]];
        while (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            m &= m - 1;
            if (i < skip[k] || c->len - i < alen[k] ||
                memcmp(t + i, tab[k].anchor, alen[k]) != 0)
                continue;
            size_t n = tab[k].check(t, c->len, i);
            if (!n)
                continue;
            cc_hit_in(c, &slot[tab[k].cls], cp_cc_names[tab[k].cls], NULL, i);
            skip[k] = i + n;
        }
    }
    /* class order (at most one finding per class: a few entries) */
    struct cp_content_finding *v = c->out->v;
    for (size_t i = n0 + 1; i < c->out->n; i++)
        for (size_t j = i;
             j > n0 && cc_class_of(&v[j]) < cc_class_of(&v[j - 1]); j--) {
            struct cp_content_finding x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
}

void cp_content_scan(struct cp_arena *a, unsigned classes,
                     const struct cp_content_rule *rules, size_t nrules,
                     const char *field, const char *text, size_t len,
                     struct cp_content_scan *out)
{
    struct cc_ctx c = {.a = a,
                       .out = out,
                       .field = field,
                       .text = text,
                       .len = len};
    cc_begin(&c);
    cc_anchors(&c, classes);
    if (classes & (1u << CP_CC_OVERRIDE_TEXT)) {
        cc_begin(&c);
        cc_override(&c);
    }
    for (size_t i = 0; i < nrules; i++) {
        cc_begin(&c);
        if (rules[i].regex) {
            if (rules[i].re)
                cc_regex_rule(&c, &rules[i]);
        } else {
            cc_literal_rule(&c, &rules[i]);
        }
    }
}

/* ---- reporting ---------------------------------------------------------- */

static int cc_uint_cmp(const void *x, const void *y)
{
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    return a < b ? -1 : a > b;
}

/* Lines sorted and without repeats (several anchors of one class). */
static size_t cc_sorted_lines(const struct cp_content_finding *f,
                              unsigned out[CP_CONTENT_MAX_LINES])
{
    memcpy(out, f->lines, f->nlines * sizeof *out);
    qsort(out, f->nlines, sizeof *out, cc_uint_cmp);
    size_t n = 0;
    for (size_t i = 0; i < f->nlines; i++)
        if (!n || out[n - 1] != out[i])
            out[n++] = out[i];
    return n;
}

const char *cp_content_lines_text(struct cp_arena *a,
                                  const struct cp_content_finding *f)
{
    unsigned ln[CP_CONTENT_MAX_LINES];
    size_t n = cc_sorted_lines(f, ln);
    struct cp_buf b = {0};
    cp_buf_printf(&b, "line%s ", n > 1 ? "s" : "");
    for (size_t j = 0; j < n; j++)
        cp_buf_printf(&b, "%s%u", j ? ", " : "", ln[j]);
    if (f->nlines == CP_CONTENT_MAX_LINES && f->total > f->nlines)
        cp_buf_adds(&b, ", ...");
    const char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

const char *cp_content_reason(struct cp_arena *a,
                              const struct cp_content_scan *s)
{
    struct cp_buf b = {0};
    cp_buf_adds(&b, "content check: ");
    for (size_t i = 0; i < s->n; i++) {
        const struct cp_content_finding *f = &s->v[i];
        if (i)
            cp_buf_adds(&b, "; ");
        if (f->rule)
            cp_buf_printf(&b, "rule %s (%s): %s%s%s", f->rule->id,
                          f->rule->where, f->rule->regex ? "re\"" : "\"",
                          f->rule->text, "\"");
        else
            cp_buf_adds(&b, f->what);
        cp_buf_printf(&b, " in %s (%s)", f->field, cp_content_lines_text(a, f));
    }
    cp_buf_adds(&b, "; the content is not shown");
    const char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

void cp_content_findings_json(struct cp_buf *b, const struct cp_content_scan *s)
{
    cp_buf_addc(b, '[');
    for (size_t i = 0; i < s->n; i++) {
        const struct cp_content_finding *f = &s->v[i];
        /* names and ids are ASCII without quotes or backslashes; the
         * field is one of the fixed tool_input paths */
        cp_buf_printf(b,
                      "%s{\"class\": \"%s\", \"field\": \"%s\", \"lines\": [",
                      i ? ", " : "", f->what, f->field);
        unsigned ln[CP_CONTENT_MAX_LINES];
        size_t n = cc_sorted_lines(f, ln);
        for (size_t j = 0; j < n; j++)
            cp_buf_printf(b, "%s%u", j ? ", " : "", ln[j]);
        cp_buf_adds(b, "]}");
    }
    cp_buf_addc(b, ']');
}

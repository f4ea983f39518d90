/* SPDX-License-Identifier: MIT */
/* The content detectors and the author's content rules (spec/gate.md,
 * "Content").  Each built-in detector is a hand-written scanner: find an
 * anchor (a fixed prefix) with memmem, then check the shape that follows
 * and the boundaries around it.  That keeps a 1 MiB write to a few
 * milliseconds and makes each detector's language exact enough to be
 * tested with a firing case and a near miss.  Nothing here keeps or
 * returns the matched bytes: a finding is a class and line numbers. */
#include "content.h"
#include "rx.h"
#include "text.h"

#include <stdint.h>
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
    [CP_CC_SENDGRID_KEY] = "sendgrid-key",
    [CP_CC_TWILIO_KEY] = "twilio-key",
    [CP_CC_MAILGUN_KEY] = "mailgun-key",
    [CP_CC_DATADOG_KEY] = "datadog-key",
    [CP_CC_SHOPIFY_TOKEN] = "shopify-token",
    [CP_CC_TELEGRAM_TOKEN] = "telegram-token",
    [CP_CC_VAULT_TOKEN] = "vault-token",
    [CP_CC_AGE_KEY] = "age-key",
    [CP_CC_HEROKU_KEY] = "heroku-key",
    [CP_CC_WEBHOOK_URL] = "webhook-url",
    [CP_CC_CREDENTIAL_URL] = "credential-url",
    [CP_CC_PASSWORD] = "password",
    [CP_CC_JWT] = "jwt",
    [CP_CC_GENERIC_SECRET] = "generic-secret",
    [CP_CC_OTHER_TOKEN] = "other-token",
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
    "sendgrid-key",
    "twilio-key",
    "mailgun-key",
    "datadog-key",
    "shopify-token",
    "telegram-token",
    "vault-token",
    "age-key",
    "heroku-key",
    "webhook-url",
    "credential-url",
    "password",
    "jwt",
    "generic-secret",
    "other-token",
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
        const char *nl = cp_find_byte(p, (size_t)(e - p), '\n');
        if (!nl)
            break;
        l->line++;
        p = nl + 1;
    }
    l->pos = at;
    return l->line;
}

struct cc_chains;

struct cc_ctx {
    struct cp_arena *a;
    struct cp_content_scan *out;
    const char *field;
    const char *text;
    size_t len;
    long cur; /* index in out->v of the finding of the rule or class being
                 scanned, -1 before its first hit */
    struct cc_lines lines;
    const struct cc_chains *ch; /* the anchors by first byte */
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
    if (!cc_starts(t, at, cc_alnum) || len - at < 20)
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
    if (!cc_starts(t, at, cc_slack_byte) || at + 5 > len ||
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

/* ---- more providers ----------------------------------------------------- */

/* Exactly n bytes satisfying ok at t[i..), and no more of them after. */
static bool cc_exact(const char *t, size_t len, size_t i, size_t n,
                     bool (*ok)(unsigned char))
{
    size_t j = i;
    while (j < len && j - i <= n && ok((unsigned char)t[j]))
        j++;
    return i <= len && j - i == n;
}

static bool cc_hexany(unsigned char c)
{
    return cc_hex(c) || (c >= 'A' && c <= 'F');
}

/* SendGrid: "SG." + 22 + "." + 43 of [A-Za-z0-9_-]. */
static size_t cc_sendgrid(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe) ||
        !cc_exact(t, len, at + 3, 22, cc_urlsafe) || at + 25 >= len ||
        t[at + 25] != '.' || !cc_exact(t, len, at + 26, 43, cc_urlsafe))
        return 0;
    return 69;
}

/* PREFIX + exactly n hex digits (either case), a whole token: Twilio API
 * keys (SK), Mailgun keys (key-), Shopify tokens (shp??_). */
static size_t cc_prefix_hex(const char *t, size_t len, size_t at, size_t plen,
                            size_t n)
{
    if (!cc_starts(t, at, cc_alnum) ||
        !cc_exact(t, len, at + plen, n, cc_hexany))
        return 0;
    size_t e = at + plen + n;
    return e < len && cc_urlsafe((unsigned char)t[e]) ? 0 : plen + n;
}

static size_t cc_twilio(const char *t, size_t len, size_t at)
{
    return cc_prefix_hex(t, len, at, 2, 32);
}

static size_t cc_mailgun(const char *t, size_t len, size_t at)
{
    return cc_prefix_hex(t, len, at, 4, 32);
}

/* shpat_ shpca_ shppa_ shpss_ + 32 hex. */
static size_t cc_shopify(const char *t, size_t len, size_t at)
{
    static const char *const kinds[] = {"at_", "ca_", "pa_", "ss_"};
    if (len - at < 6)
        return 0;
    for (size_t k = 0; k < 4; k++)
        if (memcmp(t + at + 3, kinds[k], 3) == 0)
            return cc_prefix_hex(t, len, at, 6, 32);
    return 0;
}

static bool cc_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Telegram bot token: 8 to 10 digits (the bot id), ":AA", then 33 of
 * [A-Za-z0-9_-]; the anchor is ":AA". */
static size_t cc_telegram(const char *t, size_t len, size_t at)
{
    size_t d = 0;
    while (d < at && d < 11 && cc_digit((unsigned char)t[at - d - 1]))
        d++;
    /* a letter may come before the id: api.telegram.org/bot<token>/ */
    if (d < 8 || d > 10 || !cc_starts(t, at - d, cc_digit) ||
        !cc_exact(t, len, at + 3, 33, cc_urlsafe))
        return 0;
    return 36;
}

/* Vault: hvs. (service), hvb. (batch), hvr. (recovery) + 24 or more of
 * [A-Za-z0-9_-]. */
static size_t cc_vault(const char *t, size_t len, size_t at)
{
    if (len - at < 4 || !strchr("sbr", t[at + 2]) || t[at + 2] == '\0' ||
        t[at + 3] != '.')
        return 0;
    return cc_urlsafe_min(t, len, at, 4, 24);
}

static bool cc_bech32_upper(unsigned char c)
{
    return c != '\0' && strchr("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", c) != NULL;
}

/* age: "AGE-SECRET-KEY-1" + 58 characters of bech32 (upper case). */
static size_t cc_age(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe) ||
        !cc_exact(t, len, at + 16, 58, cc_bech32_upper))
        return 0;
    return 74;
}

/* Heroku: "HRKU-" + 20 or more of [A-Za-z0-9_-]. */
static size_t cc_heroku(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 5, 20);
}

static bool cc_upnum_b(unsigned char c)
{
    return cc_upnum(c);
}

/* hooks.slack.com/services/T.../B.../SECRET (and /workflows/, /triggers/
 * with the same ids): the secret is 24 alphanumerics. */
static size_t cc_slack_hook(const char *t, size_t len, size_t at)
{
    size_t i = at + 16;
    static const char *const kinds[] = {"services/", "workflows/", "triggers/"};
    size_t k = 0;
    while (k < 3 && (len - i < strlen(kinds[k]) ||
                     memcmp(t + i, kinds[k], strlen(kinds[k])) != 0))
        k++;
    if (k == 3)
        return 0;
    i += strlen(kinds[k]);
    size_t n = cc_run(t, len, i, cc_upnum_b);
    if (n < 8 || i + n >= len || t[i + n] != '/')
        return 0;
    i += n + 1;
    n = cc_run(t, len, i, cc_upnum_b);
    if (n < 8 || i + n >= len || t[i + n] != '/')
        return 0;
    i += n + 1;
    n = cc_run(t, len, i, cc_alnum);
    return n >= 20 ? i + n - at : 0;
}

/* discord.com/api/webhooks/ID/TOKEN (also discordapp.com): the id 17 to 20
 * digits, the token 60 or more of [A-Za-z0-9_-]. */
static size_t cc_discord_hook(const char *t, size_t len, size_t at)
{
    size_t i = at + 7;
    if (len - i >= 3 && memcmp(t + i, "app", 3) == 0)
        i += 3;
    static const char tail[] = ".com/api/webhooks/";
    if (len - i < sizeof tail - 1 || memcmp(t + i, tail, sizeof tail - 1) != 0)
        return 0;
    i += sizeof tail - 1;
    size_t n = cc_run(t, len, i, cc_digit);
    if (n < 17 || n > 20 || i + n >= len || t[i + n] != '/')
        return 0;
    i += n + 1;
    n = cc_run(t, len, i, cc_urlsafe);
    return n >= 60 ? i + n - at : 0;
}

/* Microsoft Teams incoming webhooks: ".webhook.office.com/webhookb2/" and a
 * path of ids and a secret. */
static size_t cc_teams_hook(const char *t, size_t len, size_t at)
{
    size_t i = at + 31, n = 0;
    while (i + n < len && (cc_urlsafe((unsigned char)t[i + n]) ||
                           t[i + n] == '@' || t[i + n] == '/'))
        n++;
    return n >= 60 ? 31 + n : 0;
}

/* A JWT: "eyJ" (base64 of `{"`) + 10 or more base64url, ".eyJ" + 10 or
 * more, "." and an optional signature.  The anchor is the header. */
static size_t cc_jwt(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_urlsafe))
        return 0;
    size_t n = cc_run(t, len, at + 3, cc_urlsafe);
    size_t i = at + 3 + n;
    if (n < 10 || len - i < 5 || memcmp(t + i, ".eyJ", 4) != 0)
        return 0;
    n = cc_run(t, len, i + 4, cc_urlsafe);
    if (n < 10 || i + 4 + n >= len || t[i + 4 + n] != '.')
        return 0;
    i += 4 + n + 1;
    return i + cc_run(t, len, i, cc_urlsafe) - at;
}

/* base64 of "-----BEGIN " at the start of a base64 token: decode what
 * follows (up to the header's end) and check it as a PEM header.  Kubernetes
 * secrets and CI variables carry keys so. */
static int cc_b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : -1;
}

static size_t cc_pem_b64(const char *t, size_t len, size_t at)
{
    if (!cc_starts(t, at, cc_b64))
        return 0;
    char out[96];
    size_t o = 0, i = at;
    unsigned acc = 0, bits = 0;
    while (i < len && o < sizeof out) {
        int v = cc_b64val((unsigned char)t[i]);
        if (v < 0)
            break;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xff);
        }
        i++;
    }
    /* "-----BEGIN " + LABEL + "-----": cc_pem reads it in the buffer */
    return cc_pem(out, o, 0) ? i - at : 0;
}

/* Azure AD client secrets: 3 of [A-Za-z0-9_~.], a digit, "Q~", then 31 to
 * 34 of [A-Za-z0-9_~.-].  The anchor is "Q~". */
static bool cc_azure_byte(unsigned char c)
{
    return cc_alnum(c) || c == '_' || c == '~' || c == '.' || c == '-';
}

static size_t cc_azure_ad(const char *t, size_t len, size_t at)
{
    if (at < 4 || !cc_digit((unsigned char)t[at - 1]))
        return 0;
    for (size_t k = 2; k <= 4; k++)
        if (!cc_azure_byte((unsigned char)t[at - k]) || t[at - k] == '-')
            return 0;
    if (!cc_starts(t, at - 4, cc_azure_byte))
        return 0;
    size_t n = cc_run(t, len, at + 2, cc_azure_byte);
    return n >= 31 && n <= 34 ? 2 + n : 0;
}

/* Google OAuth client secrets (GOCSPX- + 28) and access tokens (ya29. + 30
 * or more). */
static size_t cc_google_oauth(const char *t, size_t len, size_t at)
{
    if (t[at] == 'G')
        return cc_starts(t, at, cc_urlsafe) &&
                       cc_exact(t, len, at + 7, 28, cc_urlsafe)
                   ? 35
                   : 0;
    return cc_urlsafe_min(t, len, at, 5, 30);
}

/* Other providers' tokens: a fixed prefix, then at least `min` (and at most
 * `max`, 0 for no bound) bytes of a set, a whole token. */
enum cc_set { CC_SET_ALNUM, CC_SET_URLSAFE, CC_SET_HEX, CC_SET_B64 };

static const struct cc_vendor {
    const char *prefix;
    unsigned char set;
    unsigned short min, max;
} cc_vendors[] = {
    {"lin_api_", CC_SET_ALNUM, 40, 40},     /* Linear */
    {"PMAK-", CC_SET_URLSAFE, 59, 59},      /* Postman: 24 hex - 34 hex */
    {"NRAK-", CC_SET_ALNUM, 27, 27},        /* New Relic user key */
    {"sntrys_", CC_SET_B64, 40, 0},         /* Sentry organization token */
    {"sntryu_", CC_SET_HEX, 64, 64},        /* Sentry user token */
    {"glsa_", CC_SET_URLSAFE, 32, 48},      /* Grafana service account */
    {"glc_", CC_SET_B64, 32, 0},            /* Grafana Cloud */
    {"pscale_tkn_", CC_SET_URLSAFE, 32, 0}, /* PlanetScale */
    {"pscale_pw_", CC_SET_URLSAFE, 32, 0},  /* PlanetScale password */
    {"sbp_", CC_SET_HEX, 40, 40},           /* Supabase */
    {"dapi", CC_SET_HEX, 32, 32},           /* Databricks */
    {"pul-", CC_SET_HEX, 40, 40},           /* Pulumi */
    {"rubygems_", CC_SET_HEX, 48, 48},      /* RubyGems */
    {"figd_", CC_SET_URLSAFE, 40, 0},       /* Figma */
    {"sq0atp-", CC_SET_URLSAFE, 22, 22},    /* Square access token */
    {"sq0csp-", CC_SET_URLSAFE, 43, 43},    /* Square OAuth secret */
    {"dp.pt.", CC_SET_ALNUM, 40, 0},        /* Doppler personal */
    {"dp.st.", CC_SET_URLSAFE, 40, 0},      /* Doppler service */
    {"dp.sa.", CC_SET_ALNUM, 40, 0},        /* Doppler service account */
    {"dt0c01.", CC_SET_URLSAFE, 80, 0},     /* Dynatrace */
    {"bkua_", CC_SET_HEX, 40, 40},          /* Buildkite */
    {"CCIPAT_", CC_SET_URLSAFE, 30, 0},     /* CircleCI */
    {"ATATT3", CC_SET_URLSAFE, 50, 0},      /* Atlassian API token */
    {"xapp-", CC_SET_URLSAFE, 30, 0},       /* Slack app-level token */
    {"ntn_", CC_SET_ALNUM, 40, 0},          /* Notion */
    {"fo1_", CC_SET_URLSAFE, 40, 0},        /* Fly.io */
    {"tfp_", CC_SET_URLSAFE, 40, 0},        /* Typeform */
    {"EZAK", CC_SET_ALNUM, 54, 54},         /* EasyPost */
    {"shippo_live_", CC_SET_HEX, 40, 40},   /* Shippo */
    {"sk.eyJ", CC_SET_URLSAFE, 60, 0},      /* Mapbox secret token */
    {"LTAI", CC_SET_ALNUM, 20, 20},         /* Alibaba Cloud key id */
    {"rdme_", CC_SET_ALNUM, 70, 70},        /* ReadMe */
    {"pnu_", CC_SET_ALNUM, 36, 36},         /* Prefect */
    {"aio_", CC_SET_ALNUM, 28, 28},         /* Adafruit IO */
    {"CLOJARS_", CC_SET_HEX, 60, 60},       /* Clojars */
    {"xai-", CC_SET_ALNUM, 80, 80},         /* xAI */
    {"gsk_", CC_SET_ALNUM, 52, 52},         /* Groq */
    {"pplx-", CC_SET_ALNUM, 48, 48},        /* Perplexity */
    {"r8_", CC_SET_ALNUM, 37, 37},          /* Replicate */
    {"api_org_", CC_SET_ALNUM, 34, 34},     /* Hugging Face organization */
    {"whsec_", CC_SET_B64, 32, 0},          /* Stripe webhook secret */
};

static bool cc_set_byte(unsigned set, unsigned char c)
{
    switch (set) {
    case CC_SET_ALNUM:
        return cc_alnum(c);
    case CC_SET_URLSAFE:
        return cc_urlsafe(c);
    case CC_SET_HEX:
        return cc_hex(c);
    default:
        return cc_b64(c) || c == '_' || c == '-' || c == '=';
    }
}

static size_t cc_vendor(const char *t, size_t len, size_t at)
{
    for (size_t k = 0; k < sizeof cc_vendors / sizeof cc_vendors[0]; k++) {
        const struct cc_vendor *v = &cc_vendors[k];
        size_t pl = strlen(v->prefix);
        /* a token starts where no byte of its own set precedes (`=`
         * ends base64 and is an assignment's operator) */
        if (len - at < pl || memcmp(t + at, v->prefix, pl) != 0 ||
            (at > 0 && t[at - 1] != '=' &&
             (cc_alnum((unsigned char)t[at - 1]) ||
              cc_set_byte(v->set, (unsigned char)t[at - 1]))))
            continue;
        size_t n = 0;
        while (at + pl + n < len &&
               cc_set_byte(v->set, (unsigned char)t[at + pl + n]))
            n++;
        bool more = at + pl + n < len &&
                    cc_urlsafe((unsigned char)t[at + pl + n]);
        if (n >= v->min && (!v->max || n <= v->max) && !more)
            return pl + n;
    }
    return 0;
}

/* ---- URLs with a password, .npmrc credentials ----------------------------- */

static bool cc_scheme_byte(unsigned char c)
{
    return cc_alnum(c) || c == '+' || c == '.' || c == '-';
}

static bool cc_lower_eq(const char *t, size_t n, const char *w)
{
    if (strlen(w) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] | 0x20 : t[i]) != w[i])
            return false;
    return true;
}

/* Values that documentation writes in place of a secret. */
static bool cc_placeholder(const char *v, size_t n)
{
    static const char *const words[] = {
        "password",   "passwd",       "pass",          "pwd",
        "secret",     "changeme",     "admin",         "root",
        "test",       "testing",      "guest",         "user",
        "username",   "default",      "none",          "null",
        "nil",        "true",         "false",         "example",
        "dummy",      "redacted",     "foo",           "bar",
        "mypassword", "yourpassword", "your_password", "your-password",
        "postgres",   "mysql",        "letmein",       NULL};
    for (size_t k = 0; words[k]; k++)
        if (cc_lower_eq(v, n, words[k]))
            return true;
    static const char *const parts[] = {
        "example", "EXAMPLE", "changeme", "CHANGEME", "placeholder", "xxxx",
        "XXXX",    "****",    "your_",    "YOUR_",    "your-",       "<",
        "${",      "{{",      "%s",       NULL};
    for (size_t k = 0; parts[k]; k++)
        if (memmem(v, n, parts[k], strlen(parts[k])))
            return true;
    return false;
}

static bool cc_url_pw_byte(unsigned char c)
{
    return c > ' ' && c != '/' && c != '"' && c != '\'' && c != '`' &&
           c != 0x7f;
}

/* scheme://[user]:password@host with a scheme of two or more of
 * [A-Za-z0-9+.-]; the anchor is "://".  Not a finding: no password, a
 * password that is a placeholder, an expansion (`${DB_PASSWORD}`, `$PW`,
 * `%s`) or the user name again (`postgres:postgres`). */
/* The authority after "://" up to a '/', a blank or a quote: the end, the
 * first ':' before any '@' (0: none) and the last '@' (0: none). */
static size_t cc_authority(const char *t, size_t len, size_t i, size_t *col,
                           size_t *atsign)
{
    size_t e = i;
    *col = *atsign = 0;
    while (e < len && e - i < 512 && cc_url_pw_byte((unsigned char)t[e])) {
        if (t[e] == ':' && !*col && !*atsign)
            *col = e;
        if (t[e] == '@')
            *atsign = e;
        e++;
    }
    return e;
}

static size_t cc_cred_url(const char *t, size_t len, size_t at)
{
    size_t s = at;
    while (s > 0 && at - s < 32 && cc_scheme_byte((unsigned char)t[s - 1]))
        s--;
    if (at - s < 2)
        return 0;
    size_t i = at + 3, col, atsign;
    size_t e = cc_authority(t, len, i, &col, &atsign);
    if (!col || !atsign || atsign < col || atsign + 1 >= e)
        return 0;
    const char *pw = t + col + 1;
    size_t pn = atsign - col - 1;
    if (pn < 3 || pw[0] == '$' || cc_placeholder(pw, pn) ||
        (pn == col - i && memcmp(pw, t + i, pn) == 0))
        return 0;
    return e - at;
}

/* A password outside an assignment: .netrc's `machine HOST login USER
 * password PW` (the anchor is "machine "), and XML's `<password>PW<`. */
static size_t cc_netrc(const char *t, size_t len, size_t at)
{
    if (at > 0 && t[at - 1] != '\n' && t[at - 1] != ' ' && t[at - 1] != '\t')
        return 0;
    size_t end = len - at > 256 ? at + 256 : len;
    const char *p = memmem(t + at, end - at, "password", 8);
    if (!p || (p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n'))
        return 0;
    size_t i = (size_t)(p - t) + 8, n = 0;
    if (i >= len || (t[i] != ' ' && t[i] != '\t'))
        return 0;
    while (i < len && (t[i] == ' ' || t[i] == '\t'))
        i++;
    while (i + n < len && t[i + n] > ' ')
        n++;
    return n >= 6 && !cc_placeholder(t + i, n) ? i + n - at : 0;
}

static size_t cc_xml_password(const char *t, size_t len, size_t at)
{
    size_t i = at + 10, n = 0;
    while (i + n < len && t[i + n] != '<' && t[i + n] != '\n' && n < 256)
        n++;
    return n >= 6 && i + n < len && t[i + n] == '<' && t[i] != '$' &&
                   !cc_placeholder(t + i, n)
               ? 10 + n
               : 0;
}

/* .npmrc's legacy credentials: `_auth = BASE64`, `_password = BASE64` and
 * `_authToken = TOKEN` (also after `//registry/:`), at a line start, after
 * `:` or a blank. */
static bool cc_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* After `=`, blanks and a quote: the length of the value at *i (a run of
 * non-blank bytes up to a quote), 0 when it is short, an expansion or a
 * placeholder. */
static size_t cc_npmrc_value(const char *t, size_t len, size_t *i)
{
    while (*i < len && (cc_blank(t[*i]) || t[*i] == '"'))
        (*i)++;
    size_t n = 0;
    while (*i + n < len && t[*i + n] > ' ' && t[*i + n] != '"')
        n++;
    return n < 8 || t[*i] == '$' || cc_placeholder(t + *i, n) ? 0 : n;
}

static size_t cc_npmrc(const char *t, size_t len, size_t at)
{
    if (at > 0 && t[at - 1] != '\n' && t[at - 1] != ':' && !cc_blank(t[at - 1]))
        return 0;
    size_t i = at + (t[at + 1] == 'a' ? 5 : 9);
    if (t[at + 1] == 'a' && len - i >= 5 && memcmp(t + i, "Token", 5) == 0)
        i += 5;
    while (i < len && cc_blank(t[i]))
        i++;
    if (i >= len || t[i] != '=')
        return 0;
    i++;
    size_t n = cc_npmrc_value(t, len, &i);
    return n ? i + n - at : 0;
}

/* GitLab's other tokens: PREFIX + 20 or more of [A-Za-z0-9_-]. */
static size_t cc_gl5(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 5, 20);
}

static size_t cc_gl7(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 7, 20);
}

static size_t cc_gl9(const char *t, size_t len, size_t at)
{
    return cc_urlsafe_min(t, len, at, 9, 20);
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

/* The end of the word starting at j: its letters and the invisible
 * characters between them. */
static size_t cc_word_end(const unsigned char *u, size_t len, size_t j)
{
    while (j < len) {
        if (cc_alpha(u[j])) {
            j++;
            continue;
        }
        size_t z = u[j] >= 0xc2 ? cc_invisible(u + j, len - j) : 0;
        if (!z)
            break;
        j += z;
    }
    return j;
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
    size_t e = cc_word_end(u, len, j), k = 0;
    for (; j < e; j++)
        if (cc_alpha(u[j])) {
            if (k == CC_WORD_MAX) { /* too long to be a word of the lists */
                k = 0;
                break;
            }
            w->w[k++] = (char)(u[j] | 0x20);
        }
    w->w[k] = '\0';
    *i = e;
    return true;
}

static bool cc_in(const char *w, const char *const *set)
{
    for (; *set; set++) /* first letters first: most words are no match */
        if ((*set)[0] == w[0] && (*set)[1] == w[1] && strcmp(w, *set) == 0)
            return true;
    return false;
}

static const char *const cc_verbs[] = {"ignore",   "disregard", "forget",
                                       "override", "bypass",    NULL};
/* the first letters of cc_verbs, a bit per letter from 'a' */
#define CC_VERB_INITIALS                                                       \
    (1u << ('i' - 'a') | 1u << ('d' - 'a') | 1u << ('f' - 'a') |               \
     1u << ('o' - 'a') | 1u << ('b' - 'a'))
static const char *const cc_adjs[] = {
    "previous", "prior", "above",  "earlier",  "preceding", "foregoing",
    "all",      "any",   "system", "original", "initial",   NULL};
static const char *const cc_nouns[] = {
    "instruction", "instructions", "prompt",  "prompts",   "direction",
    "directions",  "rule",         "rules",   "guideline", "guidelines",
    "message",     "messages",     "context", "guidance",  NULL};
static const char *const cc_everything_after[] = {
    "above", "before", "previously", "prior", "earlier", NULL};

/* After the verb word w (the text read up to *i): within the next five
 * words an adjective of the list followed by a noun of the list, or
 * "everything" and a word of cc_everything_after.  On a hit, records it
 * and moves *i past the words read. */
static void cc_override_after(struct cc_ctx *c, size_t *i,
                              const struct cc_word *w)
{
    size_t j = *i;
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
        cc_hit(c, cp_cc_names[CP_CC_OVERRIDE_TEXT], NULL, w->at);
        *i = j;
    }
}

static bool cc_verb_initial(unsigned char c)
{
    return cc_alpha(c) && ((1u << ((c | 0x20) - 'a')) & CC_VERB_INITIALS);
}

/* Could the letters at u[i..] start a verb of cc_verbs?  Every verb has
 * six letters or more, and no two share their first four: the word is
 * read only when its first four letters are a verb's (most words of a
 * text starting with the verbs' initials, "if", "for", "int", are not). */
static bool cc_verb_prefix(const unsigned char *u, size_t n, size_t i)
{
    static const char pre[][4] = {"igno", "disr", "forg", "over", "bypa"};
    if (n - i < 6)
        return false;
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++)
        if ((u[i] | 0x20) == pre[k][0] && (u[i + 1] | 0x20) == pre[k][1] &&
            (u[i + 2] | 0x20) == pre[k][2] && (u[i + 3] | 0x20) == pre[k][3])
            return true;
    return false;
}

/* Without a byte of 0xc2 or more, no invisible character joins letters,
 * so a word is a run of letters and starts where a letter follows a byte
 * that is not one: the override words of such a text are read in the
 * anchors' pass (cc_anchors), which calls this where a word may start
 * with a verb's first four letters.  Returns where the pass may look for
 * the next word (past the words read). */
static size_t cc_override_word(struct cc_ctx *c, size_t i)
{
    const unsigned char *u = (const unsigned char *)c->text;
    if ((i > 0 && cc_alpha(u[i - 1])) || !cc_verb_prefix(u, c->len, i))
        return i + 1;
    struct cc_word w;
    size_t e = i;
    cc_next_word(c->text, c->len, &e, &w);
    if (cc_in(w.w, cc_verbs))
        cc_override_after(c, &e, &w);
    return e;
}

/* Does t[0..n) hold a byte of 0xc2 or more (one that may start an
 * invisible character)?  Eight bytes at a time. */
static bool cc_has_high(const char *t, size_t n)
{
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t v;
        memcpy(&v, t + i, 8);
        if (v & 0x8080808080808080u)
            break;
    }
    for (; i < n; i++)
        if ((unsigned char)t[i] >= 0xc2)
            return true;
    return false;
}

/* VERB, then within the next five words an adjective of the list followed
 * (later, within the window) by a noun of the list; or VERB everything
 * above/before/... */
static void cc_override(struct cc_ctx *c)
{
    size_t i = 0;
    struct cc_word w;
    const unsigned char *u = (const unsigned char *)c->text;
    for (;;) {
        while (i < c->len && !cc_alpha(u[i]))
            i++;
        /* a word that cannot be a verb is walked over, not copied: most
         * words of a text */
        if (i < c->len && !cc_verb_initial(u[i])) {
            i = cc_word_end(u, c->len, i);
            continue;
        }
        if (!cc_next_word(c->text, c->len, &i, &w))
            break;
        if (cc_in(w.w, cc_verbs))
            cc_override_after(c, &i, &w);
    }
}

static size_t cc_distinct(const char *v, size_t n)
{
    bool seen[256] = {false};
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        if (!seen[(unsigned char)v[i]]) {
            seen[(unsigned char)v[i]] = true;
            d++;
        }
    return d;
}

/* Published example values (AWS's documentation keys end in EXAMPLE or
 * EXAMPLEKEY; jwt.io's example token) and placeholders of one or a few
 * repeated characters (`ghp_xxxx...`): not findings. */
static const char *const cc_examples[] = {
    "EXAMPLE",                                     /* AWS documentation */
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", /* jwt.io */
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",    /* GitHub documentation */
    "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy", /* Slack */
    NULL,
};

static bool cc_example(const char *t, size_t at, size_t alen, size_t n)
{
    for (size_t k = 0; cc_examples[k]; k++)
        if (memmem(t + at, n, cc_examples[k], strlen(cc_examples[k])))
            return true;
    /* XXXX... in place of the secret part, at the end or throughout */
    if (n >= alen + 12 && cc_distinct(t + at + n - 12, 12) < 4)
        return true;
    return n >= alen + 16 && cc_distinct(t + at + alen, n - alen) < 6;
}

/* ---- assignments: a secret by the name it is given ------------------------ */

/* log2(x) * 1024 for x >= 1 (fixed point: no libm in the hook). */
static unsigned cc_log2_q10(unsigned x)
{
    unsigned ip = 0;
    while ((x >> ip) > 1)
        ip++;
    uint64_t y = ((uint64_t)x << 16) >> ip; /* [1, 2) in 16.16 */
    unsigned frac = 0;
    for (int b = 9; b >= 0; b--) {
        y = (y * y) >> 16;
        if (y >= (2u << 16)) {
            y >>= 1;
            frac |= 1u << b;
        }
    }
    return ip * 1024 + frac;
}

/* Shannon entropy of the bytes, in bits per byte * 1024. */
static unsigned cc_entropy_q10(const char *v, size_t n)
{
    unsigned cnt[256] = {0};
    for (size_t i = 0; i < n; i++)
        cnt[(unsigned char)v[i]]++;
    uint64_t sum = 0;
    for (size_t c = 0; c < 256; c++)
        if (cnt[c])
            sum += (uint64_t)cnt[c] * cc_log2_q10(cnt[c]);
    return cc_log2_q10((unsigned)n) - (unsigned)(sum / n);
}

/* Kinds of bytes present: lower, upper, digit, other (a bit each). */
static unsigned cc_kinds(const char *v, size_t n)
{
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        k |= c >= 'a' && c <= 'z'   ? 1u
             : c >= 'A' && c <= 'Z' ? 2u
             : cc_digit(c)          ? 4u
                                    : 8u;
    }
    return k;
}

static unsigned cc_popcount(unsigned x)
{
    return (unsigned)__builtin_popcount(x);
}

static bool cc_key_byte(unsigned char c)
{
    return cc_alnum(c) || c == '_' || c == '-' || c == '.';
}

struct cc_assign {
    char key[65]; /* lower case */
    size_t key_at;
    const char *v;
    size_t vn;
    size_t end; /* after the value (and its quote); 0 when none was read */
    bool quoted;
};

static bool cc_has(const char *key, const char *const *words)
{
    for (; *words; words++)
        if (strstr(key, *words))
            return true;
    return false;
}

/* The name before the operator at `op`: identifier bytes, maybe quoted. */
static bool cc_assign_key(const char *t, size_t op, struct cc_assign *a)
{
    size_t j = op;
    while (j > 0 && (t[j - 1] == ' ' || t[j - 1] == '\t'))
        j--;
    if (j > 0 && (t[j - 1] == '"' || t[j - 1] == '\''))
        j--;
    size_t e = j;
    while (j > 0 && e - j < 64 && cc_key_byte((unsigned char)t[j - 1]))
        j--;
    if (e - j < 3 || (j > 0 && cc_key_byte((unsigned char)t[j - 1])))
        return false;
    for (size_t k = 0; k < e - j; k++) {
        char c = t[j + k];
        a->key[k] = c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
    }
    a->key[e - j] = '\0';
    a->key_at = j;
    return true;
}

static bool cc_value_byte(unsigned char c)
{
    return c > ' ' && c != 0x7f && !strchr(",;)]}\"'`([", c);
}

/* The literal after the operator: a quoted string on the line, or a bare
 * run; false for anything else (a call, an expansion, a reference). */
/* The end of the value starting at s (quoted by q, or bare), or 0 when it
 * is not a literal: an unclosed quote, a call or an index. */
static size_t cc_value_end(const char *t, size_t len, size_t s, char q)
{
    size_t e = s;
    if (q) {
        while (e < len && e - s < 256 && t[e] != q && t[e] != '\n')
            e++;
        return e < len && t[e] == q ? e : 0;
    }
    while (e < len && e - s < 256 && cc_value_byte((unsigned char)t[e]))
        e++;
    return e < len && (t[e] == '(' || t[e] == '`' || t[e] == '[') ? 0 : e;
}

static bool cc_assign_value(const char *t, size_t len, size_t op,
                            struct cc_assign *a)
{
    size_t i = op + 1;
    if (i < len &&
        ((t[op] == '=' && t[i] == '>') || (t[op] == ':' && t[i] == '=')))
        i++;
    while (i < len && cc_blank(t[i]))
        i++;
    a->end = 0;
    if (i >= len)
        return false;
    char q = t[i];
    a->quoted = q == '"' || q == '\'' || q == '`';
    size_t s = i + a->quoted;
    size_t e = cc_value_end(t, len, s, a->quoted ? q : '\0');
    if (!e)
        return false;
    a->v = t + s;
    a->vn = e - s;
    a->end = e + a->quoted;
    return a->vn > 0 && !memchr(a->v, '$', a->vn) &&
           !cc_placeholder(a->v, a->vn);
}

/* A bare value that reads as a name (DB_PASSWORD, config.db.password,
 * process.env.X) rather than a secret: letters, `_` and `.` only. */
static bool cc_namelike(const struct cc_assign *a)
{
    if (a->quoted)
        return false;
    for (size_t i = 0; i < a->vn; i++) {
        unsigned char c = (unsigned char)a->v[i];
        if (!(cc_alpha(c) || c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

static bool cc_hex_run(const char *v, size_t n)
{
    return cc_run(v, n, 0, cc_hexany) == n;
}

static bool cc_uuid(const char *v, size_t n)
{
    static const size_t dash[] = {8, 13, 18, 23};
    if (n != 36)
        return false;
    for (size_t i = 0, d = 0; i < n; i++) {
        if (d < 4 && i == dash[d]) {
            if (v[i] != '-')
                return false;
            d++;
        } else if (!cc_hexany((unsigned char)v[i])) {
            return false;
        }
    }
    return true;
}

static const char *const cc_pw_words[] = {"password", "passwd", "passphrase",
                                          NULL};
static const char *const cc_secret_words[] = {
    "secret",     "token",       "api_key",        "apikey",     "api-key",
    "access_key", "accesskey",   "private_key",    "privatekey", "auth_key",
    "credential", "signing_key", "encryption_key", "master_key", NULL};
/* names of things about a secret, not the secret */
static const char *const cc_not_secret[] = {
    "hash",    "salt",     "digest",      "length",  "_len",  "min",
    "max",     "policy",   "reset",       "field",   "label", "prompt",
    "regex",   "pattern",  "hint",        "file",    "path",  "url",
    "uri",     "endpoint", "env",         "name",    "type",  "expir",
    "ttl",     "timeout",  "count",       "limit",   "size",  "header",
    "prefix",  "format",   "version",     "public",  "_id",   "tokenizer",
    "tokens",  "confirm",  "required",    "enabled", "rule",  "strength",
    "validat", "forgot",   "placeholder", "kind",    "mode",  NULL};

static bool cc_is_password_key(const char *k)
{
    if (cc_has(k, cc_pw_words))
        return true;
    size_t n = strlen(k);
    /* a segment pass, pw or pwd: db_pass, PG_PW, mysql.pwd */
    static const char *const segs[] = {"pass", "pw", "pwd", NULL};
    for (size_t s = 0; segs[s]; s++) {
        size_t sl = strlen(segs[s]);
        for (const char *p = strstr(k, segs[s]); p;
             p = strstr(p + 1, segs[s])) {
            bool l = p == k || !cc_alnum((unsigned char)p[-1]);
            bool r = (size_t)(p - k) + sl == n ||
                     !cc_alnum((unsigned char)p[sl]);
            if (l && r)
                return true;
        }
    }
    return false;
}

/* A password, not a name or a phrase of one kind of letter: 8 or more
 * bytes of two kinds or more, or a quoted value of 12 or more with the
 * entropy of random text (a passphrase). */
static bool cc_password_value(const struct cc_assign *a)
{
    if (a->vn < 8 || cc_namelike(a) || cc_distinct(a->v, a->vn) < 5)
        return false;
    if (cc_popcount(cc_kinds(a->v, a->vn)) >= 2)
        return true;
    return a->quoted && a->vn >= 12 && !memchr(a->v, ' ', a->vn) &&
           cc_entropy_q10(a->v, a->vn) >= 3380;
}

/* Is the name one an assignment pass looks at at all? */
static bool cc_key_interesting(const char *k)
{
    return cc_is_password_key(k) || cc_has(k, cc_secret_words) ||
           strstr(k, "heroku") || strstr(k, "datadog") || strstr(k, "twilio") ||
           strstr(k, "mailgun") || strncmp(k, "dd_", 3) == 0 ||
           strncmp(k, "dd-", 3) == 0;
}

/* The class an assignment is a finding of, or CP_CC__COUNT. */
/* Providers whose keys have no prefix, known by the name: a UUID named
 * heroku, 32 or 40 hex digits named datadog or dd_..key, 32 named twilio,
 * Mailgun's 32 hex (and -8-8). */
static unsigned cc_provider_class(const struct cc_assign *a)
{
    const char *k = a->key;
    if (strstr(k, "heroku") && cc_uuid(a->v, a->vn))
        return CP_CC_HEROKU_KEY;
    bool hex = cc_hex_run(a->v, a->vn);
    if ((strstr(k, "datadog") ||
         ((strncmp(k, "dd_", 3) == 0 || strncmp(k, "dd-", 3) == 0) &&
          strstr(k, "key"))) &&
        hex && (a->vn == 32 || a->vn == 40))
        return CP_CC_DATADOG_KEY;
    if (strstr(k, "twilio") && hex && a->vn == 32)
        return CP_CC_TWILIO_KEY;
    if (strstr(k, "mailgun") && (a->vn == 32 || a->vn == 50) &&
        cc_run(a->v, a->vn, 0, cc_hexany) >= 32)
        return CP_CC_MAILGUN_KEY;
    return CP_CC__COUNT;
}

/* A generic secret: 16 or more bytes with letters and digits and the
 * entropy of random text (3.5 bits per byte and more). */
static bool cc_generic_value(const struct cc_assign *a)
{
    unsigned kinds = cc_kinds(a->v, a->vn);
    return a->vn >= 16 && !cc_namelike(a) && (kinds & 4u) && (kinds & 3u) &&
           cc_entropy_q10(a->v, a->vn) >= 3584;
}

static unsigned cc_assign_class(const struct cc_assign *a)
{
    const char *k = a->key;
    if (cc_has(k, cc_not_secret))
        return CP_CC__COUNT;
    unsigned p = cc_provider_class(a);
    if (p < CP_CC__COUNT)
        return p;
    if (cc_is_password_key(k))
        return cc_password_value(a) ? CP_CC_PASSWORD : CP_CC__COUNT;
    if (cc_has(k, cc_secret_words) && cc_generic_value(a))
        return CP_CC_GENERIC_SECRET;
    return CP_CC__COUNT;
}

static bool cc_generic_charset(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (!(cc_urlsafe(c) || c == '+' || c == '/' || c == '=' || c == '.' ||
              c == '~'))
            return false;
    }
    return true;
}

static bool cc_anchored_any(const struct cc_chains *ch, const char *v,
                            size_t n);

/* Every `=`, `:`, `=>`, `:=` with a name before it and a literal after. */
static void cc_assignments(struct cc_ctx *c, unsigned classes, long *slot)
{
    const char *t = c->text;
    /* the next `=` and `:` at or after a position, each found by
     * cp_find_byte (most bytes are neither) */
    const char *eq = t, *co = t, *end = t + c->len;
    for (size_t i = 1; i + 1 < c->len; i++) {
        if (eq && eq < t + i)
            eq = cp_find_byte(t + i, (size_t)(end - (t + i)), '=');
        if (co && co < t + i)
            co = cp_find_byte(t + i, (size_t)(end - (t + i)), ':');
        const char *op = !eq ? co : !co ? eq : eq < co ? eq : co;
        if (!op || (size_t)(op - t) + 1 >= c->len)
            break;
        i = (size_t)(op - t);
        if (t[i + 1] == '=' || t[i + 1] == '/' || t[i + 1] == ':' ||
            strchr("=!<>:", t[i - 1]))
            continue;
        struct cc_assign a;
        if (!cc_assign_key(t, i, &a) || !cc_key_interesting(a.key))
            continue;
        bool lit = cc_assign_value(t, c->len, i, &a);
        /* the value is not read again for an operator inside it: each byte
         * is in one value at most, so the pass stays linear */
        if (a.end > i + 1)
            i = a.end - 1;
        if (!lit || cc_example(a.v, 0, 0, a.vn))
            continue;
        unsigned cls = cc_assign_class(&a);
        if (cls == CP_CC_GENERIC_SECRET && !cc_generic_charset(a.v, a.vn))
            continue;
        /* a name and value a provider's detector knows are its finding alone
         * (aws_secret_access_key = ..., PASSWORD=pypi-...) */
        if ((cls == CP_CC_GENERIC_SECRET || cls == CP_CC_PASSWORD) &&
            cc_anchored_any(c->ch, t + a.key_at,
                            (size_t)(a.v - t) + a.vn - a.key_at))
            continue;
        if (cls < CP_CC__COUNT && (classes & (1u << cls)))
            cc_hit_in(c, &slot[cls], cp_cc_names[cls], NULL, a.key_at);
    }
}

/* ---- author rules ------------------------------------------------------- */

/* Author regexes are compiled and searched by confpol's own engine, as
 * gate regexes are (compiler/rx.c): time linear in the line, and the same
 * answer whatever C library a program links (confpol-gate links musl). */
const char *cp_content_rule_compile(struct cp_arena *a,
                                    struct cp_content_rule *r)
{
    if (!r->regex || r->re)
        return NULL;
    struct cp_rx *rx;
    const char *e = cp_rx_compile(r->text, r->len, CP_RX_NEWLINE, &rx);
    if (e)
        return cp_arena_printf(a, "%s", e);
    r->re = rx;
    return NULL;
}

void cp_content_rule_free(struct cp_content_rule *r)
{
    if (r->re) {
        cp_rx_free(r->re);
        r->re = NULL;
    }
}

/* A regex rule runs on each line; a NUL byte splits a line into pieces,
 * each matched as a line of its own. */
static void cc_regex_rule(struct cc_ctx *c, const struct cp_content_rule *r)
{
    size_t i = 0;
    while (i <= c->len) {
        size_t e = i;
        while (e < c->len && c->text[e] != '\n' && c->text[e] != '\0')
            e++;
        if (cp_rx_search(r->re, c->text + i, e - i))
            cc_hit(c, r->id, r, i);
        if (e >= c->len)
            break;
        i = e + 1;
    }
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

struct cc_anchor {
    unsigned cls;
    const char *anchor;
    cc_check check;
};

static const struct cc_anchor cc_tab[] = {
    {CP_CC_PRIVATE_KEY, "-----BEGIN ", cc_pem},
    {CP_CC_PRIVATE_KEY, "PuTTY-User-Key-File-", cc_putty},
    {CP_CC_PRIVATE_KEY, "MII", cc_der_mii},
    {CP_CC_PRIVATE_KEY, "MHcCAQEEI", cc_der_fixed},  /* SEC1 P-256 */
    {CP_CC_PRIVATE_KEY, "MIGkAgEBBD", cc_der_fixed}, /* SEC1 P-384 */
    {CP_CC_PRIVATE_KEY, "MIHcAgEBBE", cc_der_fixed}, /* SEC1 P-521 */
    {CP_CC_PRIVATE_KEY, "MIGHAgEAMBMGByqGSM49AgEG",
     cc_der_fixed},                                             /* PKCS#8 EC */
    {CP_CC_PRIVATE_KEY, "MC4CAQAwBQYDK2VwBCIEI", cc_der_fixed}, /* Ed25519 */
    {CP_CC_PRIVATE_KEY, "b3BlbnNzaC1rZXktdjE",
     cc_der_fixed},                                    /* openssh-key-v1 */
    {CP_CC_PRIVATE_KEY, "LS0tLS1CRUdJTi", cc_pem_b64}, /* base64 "-----BEGIN" */
    /* four anchors, not "A": no anchor of one byte, so that the scan's
     * filter can ask for the next two bytes too (cc_anchors) */
    {CP_CC_AWS_KEY, "AKIA", cc_aws_id},
    {CP_CC_AWS_KEY, "ASIA", cc_aws_id},
    {CP_CC_AWS_KEY, "ABIA", cc_aws_id},
    {CP_CC_AWS_KEY, "ACCA", cc_aws_id},
    {CP_CC_AWS_KEY, "secret_access_key", cc_aws_secret},
    {CP_CC_AWS_KEY, "SECRET_ACCESS_KEY", cc_aws_secret},
    {CP_CC_GITHUB_TOKEN, "gh", cc_gh},
    {CP_CC_GITHUB_TOKEN, "github_pat_", cc_gh_pat},
    {CP_CC_GITLAB_TOKEN, "glpat-", cc_glpat},
    {CP_CC_GITLAB_TOKEN, "glptt-", cc_glpat},
    {CP_CC_GITLAB_TOKEN, "gldt-", cc_gl5},
    {CP_CC_GITLAB_TOKEN, "glrt-", cc_gl5},
    {CP_CC_GITLAB_TOKEN, "glft-", cc_gl5},
    {CP_CC_GITLAB_TOKEN, "glsoat-", cc_gl7},
    {CP_CC_GITLAB_TOKEN, "GR1348941", cc_gl9},
    {CP_CC_SLACK_TOKEN, "xox", cc_slack},
    {CP_CC_GOOGLE_API_KEY, "AIza", cc_google},
    {CP_CC_GOOGLE_API_KEY, "GOCSPX-", cc_google_oauth},
    {CP_CC_GOOGLE_API_KEY, "ya29.", cc_google_oauth},
    {CP_CC_ANTHROPIC_KEY, "sk-ant-", cc_anthropic},
    {CP_CC_OPENAI_KEY, "sk-", cc_openai},
    {CP_CC_STRIPE_KEY, "sk_live_", cc_stripe},
    {CP_CC_STRIPE_KEY, "rk_live_", cc_stripe},
    {CP_CC_NPM_TOKEN, "npm_", cc_npm},
    {CP_CC_NPM_TOKEN, "_auth", cc_npmrc},
    {CP_CC_NPM_TOKEN, "_password", cc_npmrc},
    {CP_CC_PYPI_TOKEN, "pypi-AgEIcHlwaS5vcmc", cc_pypi},
    {CP_CC_DOCKER_TOKEN, "dckr_pat_", cc_docker},
    {CP_CC_DOCKER_TOKEN, "dckr_oat_", cc_docker},
    {CP_CC_HUGGINGFACE_TOKEN, "hf_", cc_hf},
    {CP_CC_DIGITALOCEAN_TOKEN, "do", cc_digitalocean},
    {CP_CC_AZURE_KEY, "AccountKey=", cc_azure},
    {CP_CC_AZURE_KEY, "SharedAccessKey=", cc_azure},
    {CP_CC_AZURE_KEY, "Q~", cc_azure_ad},
    {CP_CC_SENDGRID_KEY, "SG.", cc_sendgrid},
    {CP_CC_TWILIO_KEY, "SK", cc_twilio},
    {CP_CC_MAILGUN_KEY, "key-", cc_mailgun},
    {CP_CC_SHOPIFY_TOKEN, "shp", cc_shopify},
    {CP_CC_TELEGRAM_TOKEN, ":AA", cc_telegram},
    {CP_CC_VAULT_TOKEN, "hv", cc_vault},
    {CP_CC_AGE_KEY, "AGE-SECRET-KEY-1", cc_age},
    {CP_CC_HEROKU_KEY, "HRKU-", cc_heroku},
    {CP_CC_WEBHOOK_URL, "hooks.slack.com/", cc_slack_hook},
    {CP_CC_WEBHOOK_URL, "discord", cc_discord_hook},
    {CP_CC_WEBHOOK_URL, ".webhook.office.com/webhookb2/", cc_teams_hook},
    {CP_CC_CREDENTIAL_URL, "://", cc_cred_url},
    {CP_CC_PASSWORD, "machine ", cc_netrc},
    {CP_CC_PASSWORD, "<password>", cc_xml_password},
    {CP_CC_JWT, "eyJ", cc_jwt},
};

/* Every anchored detector in one pass over the text: chains from a byte to
 * the anchors that start with it, so each byte costs one lookup and the
 * line count advances once.  An anchor that matched is not tried again
 * inside its own match.  Other providers' prefixes are anchors of the
 * other-token class. */
enum {
    CC_NTAB = sizeof cc_tab / sizeof cc_tab[0],
    CC_NVEND = sizeof cc_vendors / sizeof cc_vendors[0],
    CC_NANCH = CC_NTAB + CC_NVEND
};

static void cc_anchor_at(size_t k, unsigned *cls, const char **anchor,
                         cc_check *check)
{
    if (k < CC_NTAB) {
        *cls = cc_tab[k].cls;
        *anchor = cc_tab[k].anchor;
        *check = cc_tab[k].check;
    } else {
        *cls = CP_CC_OTHER_TOKEN;
        *anchor = cc_vendors[k - CC_NTAB].prefix;
        *check = cc_vendor;
    }
}

/* Chains to the anchors that start a text: `all` from a first byte to
 * every anchor (for cc_anchored_any); for the enabled anchors, `one` from
 * a byte to those of one byte, and from the first two bytes to the longer
 * ones (a small open-addressed table of pairs, `pkey` and `phead`). */
enum { CC_NPAIR = 256 }; /* more than the anchors' distinct pairs */

struct cc_chains {
    short all[256], one[256];
    short next_all[CC_NANCH], next_one[CC_NANCH], next_pair[CC_NANCH];
    unsigned char alen[CC_NANCH];
    unsigned short pkey[CC_NPAIR];
    short phead[CC_NPAIR];
    /* the first two bytes of the enabled anchors, one bit per pair (a
     * one-byte anchor sets every pair it starts): most bytes of a text
     * start no anchor, and this rejects them with one load */
    uint64_t pair[65536 / 64];
    /* their second and third bytes (an anchor of two bytes sets every pair
     * its second byte starts, one of one byte every pair): a pair of the
     * first set is common in prose and code ("se", "ke", "fo"), the two
     * together seldom are */
    uint64_t pair2[65536 / 64];
    /* the union of the two: an anchor at i has its first pair in the
     * first set and its second, at i + 1, in the second, so the pair at
     * every even position of the text is in the union when an anchor
     * starts there or one byte before; the scan looks at every other
     * position first */
    uint64_t either[65536 / 64];
};

/* Pair p's bit of set, as 0 or 1 (a number, so that two can be and-ed
 * without a branch). */
static uint64_t cc_pair_get(const uint64_t *set, unsigned p)
{
    return (set[p >> 6] >> (p & 63)) & 1u;
}

static bool cc_pair_on(const uint64_t *set, unsigned p)
{
    return cc_pair_get(set, p) != 0;
}

static void cc_pair_bit(uint64_t *set, unsigned p)
{
    set[p >> 6] |= (uint64_t)1 << (p & 63);
}

/* The slot of pair p in the table: its own, or the free one that ends its
 * probe. */
static size_t cc_pair_slot(const struct cc_chains *ch, unsigned p)
{
    size_t h = (p * 40503u >> 8) % CC_NPAIR;
    while (ch->phead[h] >= 0 && ch->pkey[h] != p)
        h = (h + 1) % CC_NPAIR;
    return h;
}

/* After an anchor of two bytes, the third bytes its check allows (NULL:
 * any), so that the scan's filter can ask for three bytes of it too: each
 * check below reads t[at + 2] from this set or fails. */
static const char *cc_third(size_t k)
{
    cc_check ck = k < CC_NTAB ? cc_tab[k].check : NULL;
    return ck == cc_gh             ? "posur"
           : ck == cc_digitalocean ? "por"
           : ck == cc_vault        ? "sbr"
           : ck == cc_twilio       ? "0123456789abcdefABCDEF" /* hexany */
           : ck == cc_azure_ad
               ? "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                 "0123456789_~.-" /* cc_azure_byte */
               : NULL;
}

/* Puts the enabled anchor k (AN) at the head of its chain. */
static void cc_chain_on(struct cc_chains *ch, size_t k, const char *an)
{
    unsigned b0 = (unsigned char)an[0], b1 = (unsigned char)an[1];
    if (!an[1]) {
        for (unsigned x = 0; x < 256; x++)
            cc_pair_bit(ch->pair, b0 << 8 | x);
        memset(ch->pair2, 0xff, sizeof ch->pair2);
        ch->next_one[k] = ch->one[b0];
        ch->one[b0] = (short)k;
        return;
    }
    if (!an[2] && cc_third(k))
        for (const char *x = cc_third(k); *x; x++)
            cc_pair_bit(ch->pair2, b1 << 8 | (unsigned char)*x);
    else if (!an[2])
        for (unsigned x = 0; x < 256; x++)
            cc_pair_bit(ch->pair2, b1 << 8 | x);
    else
        cc_pair_bit(ch->pair2, b1 << 8 | (unsigned char)an[2]);
    unsigned p = b0 << 8 | b1;
    cc_pair_bit(ch->pair, p);
    size_t h = cc_pair_slot(ch, p);
    ch->pkey[h] = (unsigned short)p;
    ch->next_pair[k] = ch->phead[h];
    ch->phead[h] = (short)k;
}

/* Does the anchor AN of length N start at T?  Its first bytes are known
 * to match (its chain); an inline comparison, since a call per candidate
 * was most of the scan. */
static bool cc_anchor_eq(const char *t, const char *an, size_t n)
{
    for (size_t j = 1; j < n; j++)
        if (t[j] != an[j])
            return false;
    return true;
}

/* The pairs of the verbs' first four letters, in either case, for the
 * override words read in the anchors' pass. */
static void cc_chains_verbs(struct cc_chains *ch)
{
    static const char pre[][4] = {"igno", "disr", "forg", "over", "bypa"};
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++)
        for (unsigned x = 0; x < 4; x++) {
            unsigned a = (unsigned char)pre[k][0] & ~(x & 1 ? 0x20u : 0u);
            unsigned b = (unsigned char)pre[k][1] & ~(x & 2 ? 0x20u : 0u);
            unsigned b2 = (unsigned char)pre[k][2] & ~(x & 1 ? 0x20u : 0u);
            cc_pair_bit(ch->pair, a << 8 | b);
            cc_pair_bit(ch->pair2, b << 8 | b2);
            cc_pair_bit(ch->pair2,
                        (b ^ 0x20u) << 8 | b2); /* the other case of b */
        }
}

static void cc_chains_build(struct cc_chains *ch, unsigned classes, bool verbs)
{
    memset(ch->all, -1, sizeof ch->all);
    memset(ch->one, -1, sizeof ch->one);
    memset(ch->phead, -1, sizeof ch->phead);
    memset(ch->pair, 0, sizeof ch->pair);
    memset(ch->pair2, 0, sizeof ch->pair2);
    for (size_t k = CC_NANCH; k-- > 0;) {
        unsigned cls;
        const char *an;
        cc_check ck;
        cc_anchor_at(k, &cls, &an, &ck);
        unsigned char b = (unsigned char)an[0];
        ch->alen[k] = (unsigned char)strlen(an);
        ch->next_all[k] = ch->all[b];
        ch->all[b] = (short)k;
        if (classes & (1u << cls))
            cc_chain_on(ch, k, an);
    }
    if (verbs)
        cc_chains_verbs(ch);
    for (size_t w = 0; w < sizeof ch->either / sizeof ch->either[0]; w++)
        ch->either[w] = ch->pair[w] | ch->pair2[w];
}

/* Tries the enabled anchors of the chain from k at t[i]. */
static void cc_try_chain(struct cc_ctx *c, long *slot, size_t *skip, short k,
                         size_t i, const short *next)
{
    const struct cc_chains *ch = c->ch;
    const char *t = c->text;
    for (; k >= 0; k = next[k]) {
        unsigned cls;
        const char *an;
        cc_check ck;
        cc_anchor_at((size_t)k, &cls, &an, &ck);
        if (i < skip[k] || c->len - i < ch->alen[k] ||
            !cc_anchor_eq(t + i, an, ch->alen[k]))
            continue;
        size_t n = ck(t, c->len, i);
        if (!n)
            continue;
        /* an example is skipped whole, so that its inside is not
         * read again */
        skip[k] = i + n;
        /* the example rule counts the bytes after the anchor; an AWS key
         * id's was "A" alone (its four anchors serve the scan's filter),
         * so its "KIA" letters still count */
        size_t plen = ck == cc_aws_id ? 1 : ch->alen[k];
        if (cls == CP_CC_PRIVATE_KEY || !cc_example(t, i, plen, n))
            cc_hit_in(c, &slot[cls], cp_cc_names[cls], NULL, i);
    }
}

/* The anchors that may start at u[i] (two bytes at least remain). */
static void cc_anchors_at(struct cc_ctx *c, long *slot, size_t *skip, size_t i)
{
    const struct cc_chains *ch = c->ch;
    const unsigned char *u = (const unsigned char *)c->text;
    unsigned p = (unsigned)u[i] << 8 | u[i + 1];
    if (ch->one[u[i]] >= 0)
        cc_try_chain(c, slot, skip, ch->one[u[i]], i, ch->next_one);
    short k = ch->phead[cc_pair_slot(ch, p)];
    if (k >= 0)
        cc_try_chain(c, slot, skip, k, i, ch->next_pair);
}

/* Every anchored detector, and with VERBS the override words of a text
 * without bytes of 0xc2 or more (cc_override_word; its finding is
 * c->cur), in one pass. */
static void cc_anchors(struct cc_ctx *c, long *slot, bool verbs)
{
    const struct cc_chains *ch = c->ch;
    size_t skip[CC_NANCH] = {0};
    const unsigned char *u = (const unsigned char *)c->text;
    const uint64_t *pair = ch->pair, *pair2 = ch->pair2, *either = ch->either;
    size_t len = c->len, words = 0;
    /* an anchor or a verb starts at i only where its first two bytes and
     * its second and third are pairs of the sets; every even position j
     * is looked at once (one load, one branch, for two positions), and
     * only where its pair is in their union are i = j - 1 and i = j
     * tested, in that order */
    for (size_t j = 0; j + 1 < len; j += 2) {
        if (!cc_pair_get(either, (unsigned)u[j] << 8 | u[j + 1]))
            continue;
        for (size_t i = j ? j - 1 : 0; i <= j && i + 2 < len; i++) {
            if (!(cc_pair_get(pair, (unsigned)u[i] << 8 | u[i + 1]) &
                  cc_pair_get(pair2, (unsigned)u[i + 1] << 8 | u[i + 2])))
                continue;
            cc_anchors_at(c, slot, skip, i);
            if (verbs && i >= words)
                words = cc_override_word(c, i);
        }
    }
    size_t i = len >= 2 ? len - 2 : 0;
    /* the last two bytes: an anchor of two bytes at most */
    if (i + 1 < len && cc_pair_on(pair, (unsigned)u[i] << 8 | u[i + 1]))
        cc_anchors_at(c, slot, skip, i);
    /* the last byte can start only a one-byte anchor */
    if (c->len && ch->one[u[c->len - 1]] >= 0)
        cc_try_chain(c, slot, skip, ch->one[u[c->len - 1]], c->len - 1,
                     ch->next_one);
}

/* Does any anchored detector, enabled or not, find a token in V? */
static bool cc_anchored_any(const struct cc_chains *ch, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (short k = ch->all[(unsigned char)v[i]]; k >= 0;
             k = ch->next_all[k]) {
            unsigned cls;
            const char *an;
            cc_check ck;
            cc_anchor_at((size_t)k, &cls, &an, &ck);
            if (n - i >= ch->alen[k] && memcmp(v + i, an, ch->alen[k]) == 0 &&
                ck(v, n, i))
                return true;
        }
    return false;
}

/* The built-in findings (from n0 on) in class order: at most one finding
 * per class, a few entries. */
static void cc_class_order(struct cp_content_scan *s, size_t n0)
{
    struct cp_content_finding *v = s->v;
    for (size_t i = n0 + 1; i < s->n; i++)
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
    long slot[CP_CC__COUNT];
    for (size_t k = 0; k < CP_CC__COUNT; k++)
        slot[k] = -1;
    size_t n0 = out->n;
    struct cc_chains ch;
    bool override = classes & (1u << CP_CC_OVERRIDE_TEXT);
    bool ascii = override && !cc_has_high(text, len);
    cc_chains_build(&ch, classes, ascii);
    c.ch = &ch;
    cc_begin(&c);
    cc_anchors(&c, slot, ascii);
    cc_begin(&c);
    cc_assignments(&c, classes, slot);
    if (override && !ascii) {
        cc_begin(&c);
        cc_override(&c);
    }
    cc_class_order(out, n0);
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

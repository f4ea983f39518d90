/* SPDX-License-Identifier: MIT */
/* Content rules: what the file tools (Write, Edit, MultiEdit, NotebookEdit)
 * are about to write is scanned by built-in detectors (private keys, access
 * tokens, injected override text) and by the policy's own `content deny`
 * patterns (spec/gate.md, "Content").  A finding names its class or rule
 * and the line numbers, never the bytes that matched.
 * Pure functions: no I/O, no globals. */
#ifndef CP_CONTENT_H
#define CP_CONTENT_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "source.h"

/* The built-in detector classes, in the order they are reported. */
enum cp_cc {
    CP_CC_PRIVATE_KEY,  /* PEM / OpenSSH / PGP / PuTTY private key blocks */
    CP_CC_AWS_KEY,      /* AKIA/ASIA... key ids, aws_secret_access_key = ... */
    CP_CC_GITHUB_TOKEN, /* ghp_ gho_ ghs_ ghu_ ghr_ github_pat_ */
    CP_CC_GITLAB_TOKEN, /* glpat- */
    CP_CC_SLACK_TOKEN,  /* xoxa- xoxb- xoxp- xoxo- xoxr- xoxs- */
    CP_CC_GOOGLE_API_KEY,     /* AIza + 35 */
    CP_CC_ANTHROPIC_KEY,      /* sk-ant- */
    CP_CC_OPENAI_KEY,         /* sk-, sk-proj-, sk-svcacct-, sk-admin- */
    CP_CC_STRIPE_KEY,         /* sk_live_ rk_live_ */
    CP_CC_NPM_TOKEN,          /* npm_ + 36 */
    CP_CC_PYPI_TOKEN,         /* pypi-AgEIcHlwaS5vcmc... */
    CP_CC_DOCKER_TOKEN,       /* dckr_pat_ */
    CP_CC_HUGGINGFACE_TOKEN,  /* hf_ + 34 */
    CP_CC_DIGITALOCEAN_TOKEN, /* dop_v1_ doo_v1_ dor_v1_ + 64 hex */
    CP_CC_AZURE_KEY,          /* AccountKey=...==, SharedAccessKey=...= */
    CP_CC_SENDGRID_KEY,       /* SG.<22>.<43> */
    CP_CC_TWILIO_KEY,         /* SK + 32 hex; twilio ..._TOKEN = 32 hex */
    CP_CC_MAILGUN_KEY,        /* key- + 32 hex; mailgun ... = 32 hex */
    CP_CC_DATADOG_KEY,        /* datadog / dd_ ... key = 32 or 40 hex */
    CP_CC_SHOPIFY_TOKEN,      /* shpat_ shpca_ shppa_ shpss_ + 32 hex */
    CP_CC_TELEGRAM_TOKEN,     /* bot id : AA + 33 */
    CP_CC_VAULT_TOKEN,        /* hvs. hvb. hvr. */
    CP_CC_AGE_KEY,            /* AGE-SECRET-KEY-1 + 58 bech32 */
    CP_CC_HEROKU_KEY,         /* HRKU-; heroku ... = UUID */
    CP_CC_WEBHOOK_URL,        /* Slack, Discord and Teams webhook URLs */
    CP_CC_CREDENTIAL_URL,     /* scheme://user:password@host */
    CP_CC_PASSWORD,           /* password = literal */
    CP_CC_JWT,                /* eyJ...eyJ...[.sig] */
    CP_CC_GENERIC_SECRET,     /* secret/token/api_key = high-entropy literal */
    CP_CC_OTHER_TOKEN,        /* other providers' prefixed tokens */
    CP_CC_OVERRIDE_TEXT,      /* "ignore previous instructions" and its kin */
    CP_CC__COUNT,
};

_Static_assert(CP_CC__COUNT <= 31, "one bit per class in an unsigned");
#define CP_CC_ALL ((1u << CP_CC__COUNT) - 1u)

/* "private-key", ... */
const char *cp_content_class_name(unsigned c);
/* A class name, or a group: "access-token" (every class but private-key
 * and override-text) or "all".  false for an unknown name. */
bool cp_content_class_mask(const char *name, size_t len, unsigned *mask);
/* Every name cp_content_class_mask accepts, NULL-terminated (did-you-mean). */
extern const char *const cp_content_names[];

/* A `content deny PATTERN` rule of the policy. */
struct cp_content_rule {
    const char *id;    /* "content#N" */
    const char *where; /* "FILE:LINE" */
    bool regex;        /* re"...": POSIX ERE, per line; else literal bytes */
    const char *text;  /* the pattern, unescaped */
    size_t len;
    void *re; /* compiled struct cp_rx * (not in the arena) or NULL */
    struct cp_loc loc;
};

/* Compiles a regex rule with confpol's engine (compiler/rx.c, as
 * REG_EXTENDED | REG_NEWLINE).  NULL, or a message in the arena. */
const char *cp_content_rule_compile(struct cp_arena *a,
                                    struct cp_content_rule *r);
void cp_content_rule_free(struct cp_content_rule *r);

/* Line numbers listed per finding; the total is counted beyond it. */
#define CP_CONTENT_MAX_LINES 16

struct cp_content_finding {
    const char *what;                   /* class name or rule id */
    const struct cp_content_rule *rule; /* author rule, or NULL */
    const char *field; /* "content", "new_string", "edits[2].new_string" ... */
    unsigned lines[CP_CONTENT_MAX_LINES];
    size_t nlines; /* listed */
    size_t total;  /* matches in all */
};

struct cp_content_scan {
    struct cp_content_finding *v;
    size_t n, cap;
};

/* Scans one text (len bytes, NUL bytes allowed) with the enabled classes
 * (bit per enum cp_cc) and the rules; appends one finding per class or
 * rule that matches.  Regex rules must be compiled. */
void cp_content_scan(struct cp_arena *a, unsigned classes,
                     const struct cp_content_rule *rules, size_t nrules,
                     const char *field, const char *text, size_t len,
                     struct cp_content_scan *out);

/* "line 3" or "lines 3, 5" (sorted; ", ..." when more were found). */
const char *cp_content_lines_text(struct cp_arena *a,
                                  const struct cp_content_finding *f);
/* The deny reason: "content check: private-key in content (line 3); ...;
 * the content is not shown" (arena). */
const char *cp_content_reason(struct cp_arena *a,
                              const struct cp_content_scan *s);
/* The findings as a JSON array for the decision log:
 * [{"class": "private-key", "field": "content", "lines": [3]}] ("class" is
 * the rule id for author rules). */
void cp_content_findings_json(struct cp_buf *b,
                              const struct cp_content_scan *s);

#endif

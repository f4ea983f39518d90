/* SPDX-License-Identifier: MIT */
/* Gate (command) patterns: parsing, splitting a command line, matching,
 * containment (spec/patterns.md, "Gate patterns"). */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"

const char *cp_gate_parse(struct cp_arena *a, const char *text, size_t len,
                          bool is_regex, struct cp_gate_pat *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        return "empty pattern";
    if (memchr(text, '\0', len))
        return "NUL byte in pattern";
    out->text = cp_arena_strndup(a, text, len);
    if (is_regex) {
        regex_t *re = cp_xmalloc(sizeof *re);
        int rc = regcomp(re, out->text, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char buf[256];
            regerror(rc, re, buf, sizeof buf);
            free(re);
            memset(out, 0, sizeof *out);
            return cp_arena_strdup(a, buf);
        }
        out->kind = CP_GATE_REGEX;
        out->regex = re;
        return NULL;
    }
    out->kind = CP_GATE_WORDS;
    return NULL;
}

void cp_gate_free(struct cp_gate_pat *g)
{
    if (g->kind == CP_GATE_REGEX && g->regex) {
        regfree(g->regex);
        free(g->regex);
        g->regex = NULL;
    }
}

size_t cp_gate_split(struct cp_arena *a, const char *line,
                     const char ****parts)
{
    (void)a;
    (void)line;
    *parts = NULL;
    return 0;
}

bool cp_gate_matches(const struct cp_gate_pat *g, const char *line,
                     struct cp_arena *a)
{
    (void)a;
    if (g->kind == CP_GATE_REGEX)
        return regexec(g->regex, line, 0, NULL, 0) == 0;
    return false;
}

enum cp_rel cp_gate_contains(const struct cp_gate_pat *outer,
                             const struct cp_gate_pat *inner)
{
    (void)outer;
    (void)inner;
    return CP_REL_MAY;
}

enum cp_rel cp_gate_overlaps(const struct cp_gate_pat *a,
                             const struct cp_gate_pat *b)
{
    (void)a;
    (void)b;
    return CP_REL_MAY;
}

/* SPDX-License-Identifier: MIT */
/* hook/gate_rx.c, the gate's regex prefilter: (1) every pattern the
 * scanner accepts compiles with regcomp(REG_EXTENDED); (2) whenever regexec
 * matches a line, the necessary condition holds on it.  Patterns: the seed
 * and example gate tables, hand-written edge cases and thousands of random
 * mutations of them; lines: strings generated from each pattern (so that
 * many of them match), with random case changes and surroundings. */
#include <check.h>
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"

static const char *const base_patterns[] = {
    "abc",
    "a|b|cd",
    "(^|[^[:alnum:]_])[gG][iI][tT].*[pP][uU][sS][hH].*--[fF][oO][rR][cC][eE]",
    "ab+c",
    "x(yz)+w",
    "x(yz)?w|q",
    "[]a]b",
    "[^]a]b",
    "[a-]x",
    "[-a]x",
    "[a-cx-z]+k",
    "[.][|]",
    "^rm[[:space:]]+-[rR]f?",
    "(a|(b|(c|d)e)f)g",
    "s.*u.*d.*o$",
    "([sS]|\xc5\xbf)[uU]",
    "[cpCP][[:alnum:]_-]*--x",
    "a]b",
    "(a)(b)(c)",
    "git( +)push",
};

/* ---- a small ERE subset parser and a generator of candidate matches -- */

enum nk { N_ALT, N_CAT, N_REP, N_CHR, N_SET, N_ANY, N_BOL, N_EOL };

struct node {
    enum nk k;
    struct node *kid[64];
    int nkid;
    int min, max; /* N_REP; max -1: unbounded */
    unsigned char c;
    bool set[256];
};

static struct node *nnew(enum nk k)
{
    struct node *n = calloc(1, sizeof *n);
    ck_assert_ptr_nonnull(n);
    n->k = k;
    return n;
}

static void nfree(struct node *n)
{
    for (int i = 0; i < n->nkid; i++)
        nfree(n->kid[i]);
    free(n);
}

static struct node *p_alt(const char *p, size_t *i);

static void p_bracket(const char *p, size_t *i, struct node *n)
{
    static const struct {
        const char *name;
        int (*fn)(int);
    } cls[] = {{"alpha", isalpha}, {"upper", isupper},   {"lower", islower},
               {"digit", isdigit}, {"xdigit", isxdigit}, {"space", isspace},
               {"print", isprint}, {"punct", ispunct},   {"graph", isgraph},
               {"cntrl", iscntrl}, {"blank", isblank},   {"alnum", isalnum}};
    bool neg = false, first = true, in[256] = {false};
    (*i)++;
    if (p[*i] == '^') {
        neg = true;
        (*i)++;
    }
    for (;;) {
        unsigned char c = (unsigned char)p[*i];
        if (c == ']' && !first) {
            (*i)++;
            break;
        }
        first = false;
        if (c == '[' && p[*i + 1] == ':') {
            const char *s = p + *i + 2, *e = strstr(s, ":]");
            for (size_t k = 0; k < sizeof cls / sizeof cls[0]; k++)
                if (strlen(cls[k].name) == (size_t)(e - s) &&
                    !memcmp(cls[k].name, s, (size_t)(e - s)))
                    for (int b = 1; b < 256; b++)
                        if (cls[k].fn(b))
                            in[b] = true;
            *i = (size_t)(e - p) + 2;
            continue;
        }
        (*i)++;
        if (p[*i] == '-' && p[*i + 1] != ']') {
            unsigned char hi = (unsigned char)p[*i + 1];
            for (int b = c; b <= hi; b++)
                in[b] = true;
            *i += 2;
        } else {
            in[c] = true;
        }
    }
    for (int b = 1; b < 256; b++)
        n->set[b] = neg ? !in[b] : in[b];
}

static struct node *p_branch(const char *p, size_t *i)
{
    struct node *cat = nnew(N_CAT);
    while (p[*i] && p[*i] != '|' && p[*i] != ')') {
        struct node *a;
        char c = p[*i];
        if (c == '(') {
            (*i)++;
            a = p_alt(p, i);
            (*i)++; /* ')' */
        } else if (c == '[') {
            a = nnew(N_SET);
            p_bracket(p, i, a);
        } else if (c == '.') {
            a = nnew(N_ANY);
            (*i)++;
        } else if (c == '^' || c == '$') {
            a = nnew(c == '^' ? N_BOL : N_EOL);
            (*i)++;
        } else {
            a = nnew(N_CHR);
            a->c = (unsigned char)c;
            (*i)++;
        }
        if (p[*i] == '*' || p[*i] == '+' || p[*i] == '?') {
            struct node *r = nnew(N_REP);
            r->kid[r->nkid++] = a;
            r->min = p[*i] == '+';
            r->max = p[*i] == '?' ? 1 : -1;
            (*i)++;
            a = r;
        }
        if (cat->nkid < 64)
            cat->kid[cat->nkid++] = a;
        else
            nfree(a);
    }
    return cat;
}

static struct node *p_alt(const char *p, size_t *i)
{
    struct node *alt = nnew(N_ALT);
    for (;;) {
        struct node *b = p_branch(p, i);
        if (alt->nkid < 64)
            alt->kid[alt->nkid++] = b;
        else
            nfree(b);
        if (p[*i] != '|')
            return alt;
        (*i)++;
    }
}

static unsigned rng_state = 12345;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static void gen(const struct node *n, char *out, size_t *len, size_t cap)
{
    if (*len + 8 >= cap)
        return;
    switch (n->k) {
    case N_ALT:
        gen(n->kid[rnd((unsigned)n->nkid)], out, len, cap);
        break;
    case N_CAT:
        for (int i = 0; i < n->nkid; i++)
            gen(n->kid[i], out, len, cap);
        break;
    case N_REP: {
        int k = n->min +
                (int)rnd(n->max < 0 ? 3 : (unsigned)(n->max - n->min + 1));
        for (int i = 0; i < k; i++)
            gen(n->kid[0], out, len, cap);
        break;
    }
    case N_CHR:
        out[(*len)++] = (char)n->c;
        break;
    case N_SET:
        for (int t = 0; t < 2000; t++) {
            int b = 1 + (int)rnd(255);
            if (n->set[b]) {
                out[(*len)++] = (char)b;
                break;
            }
        }
        break;
    case N_ANY:
        out[(*len)++] = (char)(' ' + rnd(95));
        break;
    case N_BOL:
    case N_EOL:
        break;
    }
}

static void random_case(char *s)
{
    for (; *s; s++)
        if (isalpha((unsigned char)*s) && rnd(4) == 0)
            *s = (char)(isupper((unsigned char)*s)
                            ? tolower((unsigned char)*s)
                            : toupper((unsigned char)*s));
}

/* Checks (1) and (2) for one pattern; returns whether it was scanned. */
static bool check_pattern(struct cp_arena *a, const char *pat, int nlines)
{
    const struct cp_gate_rx_req *r = cp_gate_rx_scan(a, pat);
    if (!r)
        return false;
    regex_t re;
    int rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
    ck_assert_msg(rc == 0, "scanned pattern does not compile: %s", pat);
    size_t i = 0;
    struct node *n = p_alt(pat, &i);
    static const char pool[] = "git push --force rm -rf sudo | ; & ( ) aZ.";
    for (int k = 0; k < nlines; k++) {
        char line[1024];
        size_t len = 0;
        for (unsigned j = rnd(4); j > 0; j--)
            line[len++] = pool[rnd(sizeof pool - 1)];
        gen(n, line, &len, sizeof line - 8);
        for (unsigned j = rnd(4); j > 0; j--)
            line[len++] = pool[rnd(sizeof pool - 1)];
        line[len] = '\0';
        if (strlen(line) != len)
            continue; /* a generated NUL: not a command line */
        if (k % 2)
            random_case(line);
        const char *f = cp_gate_rx_fold_line(a, line);
        bool may = cp_gate_rx_may_match(r, f, strlen(f));
        if (regexec(&re, line, 0, NULL, 0) == 0)
            ck_assert_msg(may, "condition fails on a match: pattern %s line %s",
                          pat, line);
        /* the line's pairs only spare searches: the same answer */
        struct cp_gate_rx_line l;
        cp_gate_rx_line_of(a, line, true, &l);
        ck_assert_msg(cp_gate_rx_line_may_match(r, &l) == may,
                      "pairs change the answer: pattern %s line %s", pat, line);
    }
    nfree(n);
    regfree(&re);
    return true;
}

/* re"..." patterns of a policy file, without backslashes (not scanned). */
static size_t file_patterns(const char *path, char **out, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f), k = 0;
    fclose(f);
    text[n] = '\0';
    for (char *s = text; k < max && (s = strstr(s, "re\""));) {
        s += 3;
        char *e = strchr(s, '"');
        if (!e)
            break;
        out[k] = strndup(s, (size_t)(e - s));
        ck_assert_ptr_nonnull(out[k]);
        k++;
        s = e + 1;
    }
    return k;
}

START_TEST(rx_known_subset)
{
    struct cp_arena *a = cp_arena_new();
    static const char *const outside[] = {
        "",      "   ",     "a**",     "*a",         "a|",      "|a",
        "()",    "(a|)",    "a{2}",    "a}",         "\\.",     "[a",
        "[z-a]", "[[.a.]]", "[[=a=]]", "[[:nope:]]", "[a-z-9]", "a)",
        "(a",    "^*",      "a\tb",    "[\xc5\xbf]",
    };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        ck_assert_msg(cp_gate_rx_scan(a, outside[i]) == NULL, "scanned: %s",
                      outside[i]);
    for (size_t i = 0; i < sizeof base_patterns / sizeof base_patterns[0]; i++)
        ck_assert_msg(cp_gate_rx_scan(a, base_patterns[i]) != NULL,
                      "not scanned: %s", base_patterns[i]);
    /* conditions */
    const struct cp_gate_rx_req *r = cp_gate_rx_scan(a,
                                                     "[gG][iI][tT] +push|^svn");
    ck_assert(cp_gate_rx_may_match(r, "git  push", 9));
    ck_assert(cp_gate_rx_may_match(r, "svn", 3));
    ck_assert(!cp_gate_rx_may_match(r, "git pull", 8));
    r = cp_gate_rx_scan(a, "ab?c");
    ck_assert(cp_gate_rx_may_match(r, "xac", 3));
    ck_assert(!cp_gate_rx_may_match(r, "xab", 3));
    /* a literal whose pairs the line holds, but not in its order */
    struct cp_gate_rx_line l;
    r = cp_gate_rx_scan(a, "docker");
    cp_gate_rx_line_of(a, "do ock ck ke er Docke", true, &l);
    ck_assert(!cp_gate_rx_line_may_match(r, &l));
    cp_gate_rx_line_of(a, "x DOCKER", true, &l);
    ck_assert(cp_gate_rx_line_may_match(r, &l));
    cp_gate_rx_line_of(a, "dockr", true, &l);
    ck_assert(!cp_gate_rx_line_may_match(r, &l));
    cp_arena_free(a);
}
END_TEST

START_TEST(rx_sound_on_tables)
{
    char *pats[400];
    size_t n = file_patterns("tests/gate/seed-gates.confpol", pats, 200);
    n += file_patterns("examples/include/agentteams-gates.confpol", pats + n,
                       200);
    ck_assert_uint_gt(n, 10); /* run from the top of the tree */
    struct cp_arena *a = cp_arena_new();
    size_t scanned = 0;
    for (size_t i = 0; i < n; i++) {
        scanned += check_pattern(a, pats[i], 300);
        free(pats[i]);
    }
    ck_assert_uint_gt(scanned, 10);
    for (size_t i = 0; i < sizeof base_patterns / sizeof base_patterns[0]; i++)
        ck_assert(check_pattern(a, base_patterns[i], 300));
    cp_arena_free(a);
}
END_TEST

/* Random edits of the base and table patterns: whatever the scanner
 * accepts must compile and its condition must hold on every match. */
START_TEST(rx_sound_on_mutants)
{
    char *pats[400];
    size_t n = file_patterns("tests/gate/seed-gates.confpol", pats, 200);
    for (size_t i = 0;
         i < sizeof base_patterns / sizeof base_patterns[0] && n < 400; i++)
        pats[n++] = strdup(base_patterns[i]);
    static const char ins[] = "()[]|*+?^$.-:{}\\aZ] _";
    struct cp_arena *a = cp_arena_new();
    size_t scanned = 0, total = 0;
    for (int round = 0; round < 40; round++)
        for (size_t i = 0; i < n; i++) {
            char m[2048];
            size_t len = strlen(pats[i]);
            if (len + 4 >= sizeof m)
                continue;
            memcpy(m, pats[i], len + 1);
            for (unsigned edits = 1 + rnd(3); edits > 0; edits--) {
                size_t at = len ? rnd((unsigned)len) : 0;
                switch (rnd(3)) {
                case 0: /* delete */
                    if (len) {
                        memmove(m + at, m + at + 1, len - at);
                        len--;
                    }
                    break;
                case 1: /* insert */
                    memmove(m + at + 1, m + at, len - at + 1);
                    m[at] = ins[rnd(sizeof ins - 1)];
                    len++;
                    break;
                default: /* swap */
                    if (at + 1 < len) {
                        char t = m[at];
                        m[at] = m[at + 1];
                        m[at + 1] = t;
                    }
                }
            }
            total++;
            scanned += check_pattern(a, m, 20);
        }
    for (size_t i = 0; i < n; i++)
        free(pats[i]);
    ck_assert_uint_gt(scanned, total / 20); /* the test reaches the subset */
    cp_arena_free(a);
}
END_TEST

/* Every string of up to 4 characters over the ERE metacharacters and a
 * few ordinary ones (54,240 patterns; up to 6 characters, 12 million, were
 * checked the same way once): whatever the scanner accepts compiles, and
 * its condition holds on generated matches. */
START_TEST(rx_exhaustive_short)
{
    static const char al[] = "()|*+?^$.[]a-:A";
    const size_t k = sizeof al - 1;
    size_t accepted = 0;
    for (int len = 1; len <= 4; len++) {
        size_t n = 1;
        for (int i = 0; i < len; i++)
            n *= k;
        for (size_t c = 0; c < n; c++) {
            char s[8];
            size_t x = c;
            for (int i = 0; i < len; i++, x /= k)
                s[i] = al[x % k];
            s[len] = '\0';
            struct cp_arena *a = cp_arena_new();
            accepted += check_pattern(a, s, 4);
            cp_arena_free(a);
        }
    }
    ck_assert_uint_gt(accepted, 1000);
}
END_TEST

/* The table compiles a scanned regex only when a line meets its condition,
 * and decides as before. */
START_TEST(rx_table_lazy)
{
    struct cp_arena *a = cp_arena_new();
    const char *j =
        "{\"confpol\": {\"version\": 1, \"stem\": \"s\", \"failClosed\": true, "
        "\"gates\": ["
        "{\"id\": \"gate#1\", \"verdict\": \"deny\", \"kind\": \"regex\", "
        "\"pattern\": \"[rR][mM] +-[rR]\", \"where\": \"p:1\"},"
        "{\"id\": \"gate#2\", \"verdict\": \"ask\", \"kind\": \"regex\", "
        "\"pattern\": \"git.*push\", \"where\": \"p:2\"},"
        "{\"id\": \"gate#3\", \"verdict\": \"ask\", \"kind\": \"regex\", "
        "\"pattern\": \"a{2}\", \"where\": \"p:3\"},"
        "{\"id\": \"gate#4\", \"verdict\": \"ask\", \"kind\": \"words\", "
        "\"pattern\": \"make *\", \"where\": \"p:4\"}]}}";
    struct cp_gate_table t;
    ck_assert_ptr_null(cp_gate_table_parse(a, j, strlen(j), &t));
    ck_assert_uint_eq(t.ngates, 4);
    ck_assert_ptr_nonnull(t.gates[0].req);
    ck_assert_ptr_null(t.gates[0].pat.regex);    /* deferred */
    ck_assert_ptr_null(t.gates[2].req);          /* outside the subset */
    ck_assert_ptr_nonnull(t.gates[2].pat.regex); /* compiled at load */
    struct cp_gate_answer ans;
    cp_gate_table_decide(&t, "ls -l", a, &ans);
    ck_assert_int_eq(ans.verdict, CP_ALLOW);
    ck_assert_ptr_null(ans.error);
    ck_assert_ptr_null(
        t.gates[0].pat.regex); /* condition failed: not compiled */
    ck_assert_ptr_null(t.gates[1].pat.regex);
    cp_gate_table_decide(&t, "GIT pull; git Push", a, &ans);
    ck_assert_int_eq(ans.verdict, CP_ALLOW); /* "git Push": regexec is exact */
    ck_assert_ptr_nonnull(t.gates[1].pat.regex); /* condition held: compiled */
    cp_gate_table_decide(&t, "cd x && git push", a, &ans);
    ck_assert_int_eq(ans.verdict, CP_ASK);
    ck_assert_str_eq(ans.rule, "gate#2");
    ck_assert_str_eq(ans.reason, "rule gate#2 (p:2): re\"git.*push\"");
    cp_gate_table_decide(&t, "git push && RM  -rf /", a, &ans);
    ck_assert_int_eq(ans.verdict, CP_DENY);
    ck_assert_str_eq(ans.rule, "gate#1");
    cp_gate_table_decide(&t, "x; make all", a, &ans);
    ck_assert_int_eq(ans.verdict, CP_ASK);
    ck_assert_str_eq(ans.rule, "gate#4");
    cp_gate_table_free(&t);
    cp_arena_free(a);
}
END_TEST

Suite *cp_test_gate_rx_suite(void); /* collected by the Makefile */
Suite *cp_test_gate_rx_suite(void)
{
    Suite *s = suite_create("gate_rx");
    TCase *tc = tcase_create("prefilter");
    tcase_add_test(tc, rx_known_subset);
    tcase_add_test(tc, rx_sound_on_tables);
    tcase_add_test(tc, rx_sound_on_mutants);
    tcase_add_test(tc, rx_table_lazy);
    tcase_add_test(tc, rx_exhaustive_short);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

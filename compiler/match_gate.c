/* SPDX-License-Identifier: MIT */
/* Gate (command) patterns: parsing, matching against a command line read
 * by the shell reader (compiler/shell_read.c), containment
 * (spec/patterns.md, "Command patterns").
 *
 * A word pattern is read into elements: positional words matched in place
 * against the command's positional words, options matched anywhere among
 * its arguments in their spellings, redirection targets.  Every reading the
 * shell reader gives (each command with and without its wrappers, nested
 * code) is tried; a pattern matches the line if it matches one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "hash.h"
#include "match.h"
#include "match_int.h"
#include "cmd_tables.h"
#include "rx.h"
#include "shell_read.h"

/* ---- parsing ------------------------------------------------------------ */

static bool gate_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

/* Why the ERE t is refused before regcomp sees it, or NULL.  POSIX leaves
 * a repetition of a repetition ("a**", "(x)++", "a{2}+") undefined.  And
 * glibc's regcomp copies a repeated subexpression once per '+' and per
 * interval count, so repetitions of repetitions, adjacent or nested
 * ("((x{200}){200}){200}"), grow the compiled regex multiplicatively: the
 * size with every repetition expanded is bounded. */
#define CP_GATE_RE_EXPANDED_MAX 200000.0
#define CP_MAX_GROUP_DEPTH 64
static bool re_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The factor of the duplication symbol at t[*ip]: '*' and '?' 1, '+' 2, an
 * interval {m}, {m,}, {m,n} its larger count + 1 ({m,}: m copies and a
 * star); 0 if there is none there.  An interval is read up to its '}'
 * (*ip is left on it). */
static double re_dup_factor(const char *t, size_t n, size_t *ip)
{
    size_t i = *ip;
    char c = t[i];
    if (c == '*' || c == '?')
        return 1;
    if (c == '+')
        return 2;
    if (!(c == '{' && i + 1 < n && re_digit(t[i + 1])))
        return 0;
    double lo = 0, hi = -1;
    for (i++; i < n && re_digit(t[i]); i++)
        lo = lo * 10 + (t[i] - '0');
    if (i < n && t[i] == ',') {
        hi = 0;
        for (i++; i < n && re_digit(t[i]); i++)
            hi = hi * 10 + (t[i] - '0');
        if (hi == 0)
            hi = lo + 1;
    }
    while (i < n && t[i] != '}')
        i++;
    *ip = i;
    return (hi > lo ? hi : lo) + 1;
}

/* The index of the ']' that closes the bracket expression opening at t[i]
 * (n if none): a leading '^' and ']' are members, and [:class:], [.coll.]
 * and [=equiv=] are skipped whole. */
static size_t re_bracket_end(const char *t, size_t n, size_t i)
{
    size_t j = i + 1;
    if (j < n && t[j] == '^')
        j++;
    if (j < n && t[j] == ']')
        j++;
    while (j < n && t[j] != ']') {
        if (t[j] == '[' && j + 1 < n &&
            (t[j + 1] == ':' || t[j + 1] == '.' || t[j + 1] == '=')) {
            char e = t[j + 1];
            j += 2;
            while (j + 1 < n && !(t[j] == e && t[j + 1] == ']'))
                j++;
            j += 2;
        } else {
            j++;
        }
    }
    return j;
}

/* The expanded size of an ERE read so far, per open group: sum[d] is the
 * size of group d's alternative so far, last[d] that of its last atom. */
struct re_size {
    double sum[CP_MAX_GROUP_DEPTH + 1], last[CP_MAX_GROUP_DEPTH + 1];
    size_t d;
};

/* Reads the token at t[*ip] that is not a duplication symbol: an atom (an
 * escape, a bracket expression, a closing group), an opening group or a
 * '|'.  Returns why the ERE is refused, or NULL. */
static const char *re_atom(struct re_size *z, const char *t, size_t n,
                           size_t *ip)
{
    char c = t[*ip];
    double atom = 1;
    if (c == '\\') {
        ++*ip;
    } else if (c == '[') {
        *ip = re_bracket_end(t, n, *ip);
    } else if (c == '(') {
        if (z->d == CP_MAX_GROUP_DEPTH)
            return "groups nested too deeply";
        z->d++;
        z->sum[z->d] = z->last[z->d] = 0;
        return NULL;
    } else if (c == ')' && z->d > 0) {
        atom = z->sum[z->d] ? z->sum[z->d] : 1;
        z->d--;
    } else if (c == '|') {
        z->last[z->d] = 0;
        return NULL;
    }
    z->last[z->d] = atom;
    z->sum[z->d] += atom;
    return NULL;
}

static const char *gate_regex_refused(const char *t, size_t n)
{
    struct re_size z;
    z.d = 0;
    z.sum[0] = z.last[0] = 0;
    bool dup = false; /* the previous token was a duplication symbol */
    for (size_t i = 0; i < n; i++) {
        double mult = re_dup_factor(t, n, &i);
        if (!mult) {
            dup = false;
            const char *msg = re_atom(&z, t, n, &i);
            if (msg)
                return msg;
            continue;
        }
        if (dup)
            return "repetition of a repetition ('**', '+?', '{2}+'...): "
                   "undefined in POSIX ERE; write a single operator";
        dup = true;
        z.sum[z.d] += z.last[z.d] * (mult - 1);
        z.last[z.d] *= mult;
        if (z.sum[z.d] > CP_GATE_RE_EXPANDED_MAX)
            return "too large once its repetitions are expanded (nested "
                   "or large repetition counts); simplify it";
    }
    return NULL;
}

/* ---- word patterns -------------------------------------------------------- */

enum el_kind {
    EL_WORD,  /* a positional word: alternatives of globs */
    EL_ONE,   /* '*' (not last): exactly one positional word */
    EL_ANY,   /* '**', or a trailing '*': any run of positional words */
    EL_OPT,   /* an option, anywhere among the arguments: alternatives */
    EL_REDIR, /* '>GLOB' or '<GLOB': a redirection target */
};

struct gopt {
    bool lng;          /* --name (else a one-letter -X) */
    bool dash1;        /* -name=GLOB: a long option written with one dash
                          (Go's flag package: terraform -chdir=DIR) */
    const char *name;  /* without the dashes */
    const char *value; /* glob the option's value must match, or NULL */
};

/* 32 bytes: a policy of many gates holds one per word of each.  A word or
 * redirection with one glob keeps it in `one` (alts points there), without
 * an array of its own. */
struct cp_gate_el {
    const char **alts;       /* EL_WORD, EL_REDIR: globs */
    const struct gopt *opts; /* EL_OPT */
    const char *one;         /* the glob, when there is one */
    uint32_t nalts;
    unsigned char kind; /* enum el_kind */
    char dir;           /* EL_REDIR: '>' output, '<' input */
    /* EL_WORD, EL_REDIR: the first bytes the alternatives can match, so
     * that a static word is refused with one look (a line of 200,000
     * words met an element of 18 alternatives with each); any_first when
     * an alternative starts with '*'. */
    bool any_first;
    uint64_t first[4];
    /* per alternative, what a static word must have to match it
     * (alternatives such as "*.bashrc" start with '*' and pass the
     * first-byte test) */
    struct alt_need *need;
};

/* What every word matching one alternative has: its bytes besides '*',
 * the pairs of adjacent bytes in its literal runs (a 64-bit Bloom filter:
 * a word missing a pair's bit lacks the pair), at least its length less
 * its stars (exactly, without a star) and its first and last byte where
 * the glob fixes them.  Refusing with these is exact: each is implied by
 * a match.  A line of 22,000 words that hold every byte the library's
 * alternatives need, each tried against their 80-odd globs, was 58% glob
 * matching; a pair or an end now refuses nearly every one. */
struct alt_need {
    uint64_t bytes[4];
    uint64_t pairs;
    uint32_t min;        /* bytes besides '*' */
    unsigned char first; /* the first byte, '*' when any */
    unsigned char last;  /* the last byte, '*' when any */
    bool star;           /* holds a '*' */
};

static void byte_add(uint64_t *set, unsigned char c)
{
    set[c >> 6] |= (uint64_t)1 << (c & 63);
}

/* The Bloom bit of the adjacent bytes x, y. */
static uint64_t pair_bit(unsigned char x, unsigned char y)
{
    return (uint64_t)1 << ((((unsigned)x * 0x9e37u) ^ y) * 0x2f1du >> 10 & 63);
}

/* What a word matching the glob p must have (struct alt_need). */
static void alt_need_of(const unsigned char *p, struct alt_need *n)
{
    memset(n, 0, sizeof *n);
    n->first = p[0];
    for (size_t i = 0; p[i]; i++) {
        n->last = p[i];
        if (p[i] == '*') {
            n->star = true;
            continue;
        }
        byte_add(n->bytes, p[i]);
        n->min++;
        if (i > 0 && p[i - 1] != '*')
            n->pairs |= pair_bit(p[i - 1], p[i]);
    }
}

/* The first-byte set of E's alternatives and what each needs. */
static void el_first_bytes(struct cp_arena *a, struct cp_gate_el *e)
{
    e->need = cp_arena_alloc(a, (e->nalts ? e->nalts : 1) * sizeof *e->need);
    for (size_t i = 0; i < e->nalts; i++) {
        const unsigned char *p = (const unsigned char *)e->alts[i];
        if (*p == '*')
            e->any_first = true;
        byte_add(e->first, *p);
        alt_need_of(p, &e->need[i]);
    }
}

static bool is_opt_text(const char *t)
{
    return t[0] == '-' && t[1] && strcmp(t, "--") != 0;
}

/* "{a|b|c}" into its alternatives; any other word is one alternative. */
static const char *gp_alts(struct cp_arena *a, const char *w,
                           struct cp_vec *out)
{
    size_t len = strlen(w);
    if (!(len >= 2 && w[0] == '{' && w[len - 1] == '}' && strchr(w, '|'))) {
        if (strchr(w, '|'))
            return "'|' outside '{...|...}' (alternatives are written "
                   "{a|b}; each simple command is matched on its own)";
        cp_vec_push(a, out, (void *)w);
        return NULL;
    }
    const char *p = w + 1, *end = w + len - 1;
    while (p <= end) {
        const char *q = p;
        while (q < end && *q != '|')
            q++;
        if (q == p)
            return "empty alternative in '{...|...}'";
        char *alt = cp_arena_strndup(a, p, (size_t)(q - p));
        if (strpbrk(alt, "{}"))
            return "alternatives do not nest";
        cp_vec_push(a, out, alt);
        p = q + 1;
    }
    return NULL;
}

/* The elements of one word pattern while it is read, and its options: on
 * the stack (the heap past GP_FEW), so that only the finished
 * arrays go into the arena (the lists built on the way were half of a
 * gate's memory, and a policy of many gates paid for them in page faults:
 * `confpol check` of the 10,000-rule bench policy faulted 530 pages in
 * reading its gate patterns, 110 now, and 2,415 in all, 2,107 now). */
enum { GP_FEW = 8 }; /* elements or options most patterns stay within */

struct gp_scratch {
    struct cp_gate_el *els; /* els_few until there are more */
    size_t nels, elcap;
    struct gopt *opts; /* opts_few until there are more */
    size_t nopts, optcap;
    struct cp_gate_el els_few[GP_FEW];
    struct gopt opts_few[GP_FEW];
};

static void gp_scratch_init(struct gp_scratch *sc)
{
    sc->els = sc->els_few;
    sc->elcap = GP_FEW;
    sc->opts = sc->opts_few;
    sc->optcap = GP_FEW;
    sc->nels = sc->nopts = 0;
}

static void gp_scratch_free(struct gp_scratch *sc)
{
    if (sc->els != sc->els_few)
        free(sc->els);
    if (sc->opts != sc->opts_few)
        free(sc->opts);
}

/* Room for one more of N items of SIZE bytes at *V (capacity *CAP), which
 * starts in FEW, the scratch's own storage. */
static void gp_grow(void **v, size_t n, size_t *cap, size_t size, void *few)
{
    if (n < *cap)
        return;
    *cap *= 2;
    if (*v == few) {
        void *p = cp_xmalloc(*cap * size);
        memcpy(p, few, n * size);
        *v = p;
    } else {
        *v = cp_xrealloc(*v, *cap * size);
    }
}

/* One option alternative ("--force", "--output=*", "-f", "-rf",
 * "-chdir=*"), appended to SC's options. */
static const char *gp_opt(struct cp_arena *a, const char *t, bool single,
                          struct gp_scratch *sc)
{
    const char *eq = strchr(t, '=');
    const char *value = eq ? eq + 1 : NULL;
    if (value && !*value)
        return "empty value after '=' in an option (write the option "
               "alone to match any value)";
    bool lng = t[1] == '-';
    const char *name = t + (lng ? 2 : 1);
    size_t nl = eq ? (size_t)(eq - name) : strlen(name);
    if (nl == 0)
        return "option without a name";
    if (memchr(name, '*', nl))
        return "'*' in an option name (options are matched by name)";
    /* A name of two or more letters after one dash: with a value, one long
     * option (-chdir=DIR); without, one element per letter (-rf). */
    bool dash1 = !lng && nl > 1 && value;
    if (!lng && nl > 1 && !value && single)
        return "a short option with a value, or in alternatives, is one "
               "letter (write -f, not -rf)";
    bool whole = lng || dash1; /* one element for the whole name */
    size_t n = whole ? 1 : nl;
    for (size_t k = 0; k < n; k++) {
        gp_grow((void **)&sc->opts, sc->nopts, &sc->optcap, sizeof *sc->opts,
                sc->opts_few);
        struct gopt *o = &sc->opts[sc->nopts++];
        o->lng = lng;
        o->dash1 = dash1;
        o->name = cp_arena_strndup(a, whole ? name : name + k, whole ? nl : 1);
        o->value = value ? cp_arena_strdup(a, value) : NULL;
    }
    return NULL;
}

/* Appends an element of kind K: the globs ALTS (EL_WORD, EL_REDIR), or the
 * N options of SC from FIRST on (EL_OPT). */
static void gp_push(struct cp_arena *a, struct gp_scratch *sc, enum el_kind k,
                    const struct cp_vec *alts, size_t first, size_t n, char dir)
{
    struct cp_gate_el e = {0};
    e.kind = (unsigned char)k;
    e.dir = dir;
    if (k == EL_OPT) {
        struct gopt *o = cp_arena_alloc(a, (n ? n : 1) * sizeof *o);
        memcpy(o, sc->opts + first, n * sizeof *o);
        e.opts = o;
        e.nalts = (uint32_t)n;
    } else if (alts && alts->len == 1) {
        e.one = alts->items[0]; /* alts is set where the element stays */
        e.nalts = 1;
    } else if (alts) {
        e.alts = (const char **)alts->items;
        e.nalts = (uint32_t)alts->len;
    }
    gp_grow((void **)&sc->els, sc->nels, &sc->elcap, sizeof *sc->els,
            sc->els_few);
    sc->els[sc->nels++] = e;
}

static char *gp_lower(struct cp_arena *a, const char *s)
{
    char *l = cp_arena_strdup(a, s);
    for (char *p = l; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return l;
}

/* S lower-cased: S itself when it has no upper-case letter. */
static const char *gp_lower_some(struct cp_arena *a, const char *s)
{
    const char *u = s;
    while (*u && !(*u >= 'A' && *u <= 'Z'))
        u++;
    return *u ? gp_lower(a, s) : s;
}

/* The redirection element of the word W ('>GLOB', '>>GLOB', '<GLOB',
 * '<>GLOB'). */
static const char *gp_redir(struct cp_arena *a, const char *w,
                            struct gp_scratch *sc)
{
    char dir = w[0];
    const char *t = w + 1;
    if (dir == '>' && *t == '>')
        t++;
    else if (dir == '<' && *t == '>')
        t++, dir = 'b'; /* "<>": read or write */
    if (!*t)
        return "a redirection pattern needs a target ('>*.bashrc')";
    if (strpbrk(t, "<>"))
        return "shell operator in a word pattern (each simple "
               "command is matched on its own)";
    void *one[1]; /* most have one glob: no array in the arena */
    struct cp_vec alts = {.items = one, .cap = 1};
    const char *why = gp_alts(a, t, &alts);
    if (why)
        return why;
    gp_push(a, sc, EL_REDIR, &alts, 0, 0, dir);
    return NULL;
}

/* The option elements of the alternatives ALTS (all options): one element
 * for alternatives, one per letter of a cluster (-rf: -r and -f). */
static const char *gp_opts(struct cp_arena *a, const struct cp_vec *alts,
                           struct gp_scratch *sc)
{
    size_t first = sc->nopts;
    for (size_t i = 0; i < alts->len; i++) {
        const char *why = gp_opt(a, alts->items[i], alts->len > 1, sc);
        if (why)
            return why;
    }
    if (alts->len > 1)
        gp_push(a, sc, EL_OPT, NULL, first, sc->nopts - first, 0);
    else
        for (size_t i = first; i < sc->nopts; i++)
            gp_push(a, sc, EL_OPT, NULL, i, 1, 0);
    sc->nopts = first;
    return NULL;
}

/* The element of the word W, neither '*', '**', '--' nor a redirection:
 * positional words (the first one, the program, lower-cased) or options
 * (before a '--': AFTER_DD). */
static const char *gp_word(struct cp_arena *a, const char *w, bool after_dd,
                           bool *first_pos, struct gp_scratch *sc)
{
    if (strpbrk(w, "<>"))
        return "shell operator in a word pattern (a redirection is "
               "written as one word starting with '>' or '<')";
    void *one[1]; /* most have one glob: no array in the arena */
    struct cp_vec alts = {.items = one, .cap = 1};
    const char *why = gp_alts(a, w, &alts);
    if (why)
        return why;
    size_t nopt = 0;
    for (size_t i = 0; i < alts.len && !after_dd; i++)
        nopt += is_opt_text(alts.items[i]);
    if (nopt && nopt != alts.len)
        return "alternatives mix options and words";
    if (nopt)
        return gp_opts(a, &alts, sc);
    if (*first_pos)
        for (size_t i = 0; i < alts.len; i++)
            alts.items[i] = (void *)gp_lower_some(a, alts.items[i]);
    *first_pos = false;
    gp_push(a, sc, EL_WORD, &alts, 0, 0, 0);
    return NULL;
}

/* out->words reordered in place: the positional words first, then options
 * and redirections, each as written: a command starting with these words in
 * this order is matched (the claude back end's Bash rules rely on it), and
 * the analysis indexes the leading literal positional words. */
static void gp_order_words(struct cp_gate_pat *out)
{
    const char *few[2 * GP_FEW];
    const char **ws = out->nwords <= 2 * GP_FEW
                          ? few
                          : cp_xmalloc(out->nwords * sizeof *ws);
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < out->nwords; k++) {
            const char *w = out->words[k];
            /* alternatives are all options or all words: the first tells */
            bool alt = w[0] == '{' && strchr(w, '|');
            bool pos = !(is_opt_text(alt ? w + 1 : w) || w[0] == '<' ||
                         w[0] == '>');
            if (pos == (pass == 0))
                ws[n++] = w;
        }
    if (n)
        memcpy((void *)out->words, ws, n * sizeof *ws);
    if (ws != few)
        free(ws);
}

/* The elements of the words of OUT into SC. */
static const char *gp_read_words(struct cp_arena *a,
                                 const struct cp_gate_pat *out,
                                 struct gp_scratch *sc)
{
    bool first_pos = true, after_dd = false;
    for (size_t k = 0; k < out->nwords; k++) {
        const char *w = out->words[k];
        const char *why = NULL;
        if (strcmp(w, "*") == 0 || strcmp(w, "**") == 0) {
            gp_push(a, sc, w[1] ? EL_ANY : EL_ONE, NULL, 0, 0, 0);
            first_pos = false;
        } else if (strcmp(w, "--") == 0) {
            after_dd = true; /* then words starting with '-' are positional,
                                as in the command */
        } else if (w[0] == '<' || w[0] == '>') {
            why = gp_redir(a, w, sc);
        } else {
            why = gp_word(a, w, after_dd, &first_pos, sc);
        }
        if (why)
            return why;
    }
    return NULL;
}

/* The elements of a word pattern (spec/patterns.md 2.1); with `tables`,
 * what matching refuses words by (el_first_bytes), which a pattern that
 * is only checked does not need. */
static const char *gp_elements(struct cp_arena *a, struct cp_gate_pat *out,
                               bool tables)
{
    struct gp_scratch sc;
    gp_scratch_init(&sc);
    const char *why = gp_read_words(a, out, &sc);
    if (!why) {
        struct cp_gate_el *arr = cp_arena_alloc(a, (sc.nels ? sc.nels : 1) *
                                                       sizeof *arr);
        if (sc.nels)
            memcpy(arr, sc.els, sc.nels * sizeof *arr);
        for (size_t i = 0; i < sc.nels; i++) {
            if (arr[i].one)
                arr[i].alts = &arr[i].one;
            if (tables && arr[i].kind != EL_OPT)
                el_first_bytes(a, &arr[i]);
        }
        out->els = arr;
        out->nels = sc.nels;
        gp_order_words(out);
    }
    gp_scratch_free(&sc);
    return why;
}

/* A regex pattern T (LEN bytes): refused shapes first, then the engine's
 * own compilation (compiler/rx.c: linear-time search). */
static const char *gp_regex(struct cp_arena *a, const char *t, size_t len,
                            struct cp_gate_pat *out)
{
    (void)a;
    const char *why = gate_regex_refused(t, len);
    if (why)
        return why;
    struct cp_rx *re;
    why = cp_rx_compile(t, len, 0, &re);
    if (why)
        return why;
    out->kind = CP_GATE_REGEX;
    out->text = t;
    out->regex = re;
    return NULL;
}

/* Why the text of a word pattern is refused before it is split: quotes
 * and shell operators; NULL if it is not. */
static const char *gp_words_refused(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\'' || c == '"' || c == '\\' || c == '`')
            return "quote or backslash in a word pattern (commands are "
                   "matched after quote removal; use a regex for such text)";
        if (c == ';' || c == '&' || c == '(' || c == ')')
            return "shell operator in a word pattern (each simple command "
                   "is matched on its own; use a regex to match across "
                   "commands)";
    }
    return NULL;
}

/* TEXT split at white space: an array of exactly as many words. */
static struct cp_vec gp_split(struct cp_arena *a, const char *text, size_t len)
{
    struct cp_vec words = {0};
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            words.items = cp_arena_alloc(a, (words.cap ? words.cap : 1) *
                                                sizeof *words.items);
        for (size_t i = 0; i < len;) {
            while (i < len && gate_space(text[i]))
                i++;
            if (i >= len)
                break;
            size_t s = i;
            while (i < len && !gate_space(text[i]))
                i++;
            if (pass == 0)
                words.cap++;
            else
                words.items[words.len++] = cp_arena_strndup(a, text + s, i - s);
        }
    }
    return words;
}

static const char *gp_parse(struct cp_arena *a, const char *text, size_t len,
                            bool is_regex, bool tables, struct cp_gate_pat *out)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return "NUL byte in pattern";
    size_t i = 0;
    while (i < len && gate_space(text[i]))
        i++;
    if (i == len)
        return "empty pattern";
    const char *t = cp_arena_strndup(a, text, len);
    if (is_regex)
        return gp_regex(a, t, len, out);
    const char *why = gp_words_refused(text, len);
    if (why)
        return why;
    struct cp_vec words = gp_split(a, text, len);
    out->kind = CP_GATE_WORDS;
    out->text = t;
    if (words.len > 0 && strcmp(words.items[words.len - 1], "*") == 0) {
        out->trailing_any = true;
        words.len--;
    }
    out->words = (const char **)words.items;
    out->nwords = words.len;
    why = gp_elements(a, out, tables);
    if (why) {
        memset(out, 0, sizeof *out);
        return why;
    }
    return NULL;
}

const char *cp_gate_parse(struct cp_arena *a, const char *text, size_t len,
                          bool is_regex, struct cp_gate_pat *out)
{
    return gp_parse(a, text, len, is_regex, true, out);
}

void cp_gate_unknown(struct cp_gate_pat *out)
{
    memset(out, 0, sizeof *out);
    out->kind = CP_GATE_UNKNOWN;
    out->text = "unknown";
}

void cp_gate_free(struct cp_gate_pat *g)
{
    if (g->kind == CP_GATE_REGEX && g->regex) {
        cp_rx_free(g->regex);
        g->regex = NULL;
    }
}

/* ---- matching ------------------------------------------------------------- */

/* '*' matches any run of bytes; every other byte itself.  The glob is
 * PREFIX*SEG*...*SEG*SUFFIX: the word must start with PREFIX and end with
 * SUFFIX without the two overlapping, and hold the middle segments in
 * order between them, where the leftmost place of each is as good as any
 * (what is left after it is the longest): one comparison for each end and
 * one memmem per segment, linear in the word.  (Backtracking byte by byte
 * cost the length of the word times the pattern's: 58% of a 1 MiB line of
 * 22,000 words, each tried against the library's alternatives.) */
static bool word_glob(const char *p, const char *s)
{
    while (*p && *p != '*') {
        if (*p != *s)
            return false;
        p++;
        s++;
    }
    if (!*p)
        return !*s;
    const char *last = strrchr(p, '*'), *suf = last + 1;
    size_t n = strlen(s), sl = strlen(suf);
    if (n < sl || memcmp(s + n - sl, suf, sl) != 0)
        return false;
    const char *end = s + n - sl;
    for (const char *q = p + 1; q < last;) {
        const char *e = strchr(q, '*');
        size_t k = (size_t)(e - q);
        if (k) {
            const char *at = memmem(s, (size_t)(end - s), q, k);
            if (!at)
                return false;
            s = at + k;
        }
        q = e + 1;
    }
    return true;
}

/* A static word matches a glob; a word holding expansions matches when some
 * value it may take does (the two globs share a string). */
static bool word_match(const char *pat, const struct cp_sh_word *w)
{
    if (!w->glob)
        return word_glob(pat, w->text);
    /* a glob of '*' alone (an expansion, a brace expansion) takes every
     * value: it shares a string with every pattern, so the automata need
     * not be built (a line of 100,000 such words met each pattern word) */
    if (w->glob[strspn(w->glob, "*")] == '\0')
        return true;
    return cp_match_word_overlaps(pat, w->glob) != 0;
}

/* The bytes and adjacent pairs of a static word, read once for all the
 * alternatives of an element, and only when one of them gets that far. */
struct word_have {
    uint64_t bytes[4];
    uint64_t pairs;
};

static void word_have_of(const unsigned char *t, struct word_have *h)
{
    memset(h, 0, sizeof *h);
    for (size_t i = 0; t[i]; i++) {
        byte_add(h->bytes, t[i]);
        if (i > 0)
            h->pairs |= pair_bit(t[i - 1], t[i]);
    }
}

/* Can a static word of length n, first byte c0 and last byte cl, with
 * the bytes and pairs h (read on first need), match the alternative of
 * need an?  false: it cannot; true: the glob decides. */
static bool alt_may(const struct alt_need *an, size_t n, unsigned char c0,
                    unsigned char cl, const unsigned char *t,
                    struct word_have *h, bool *read)
{
    if (n < an->min || (!an->star && n != an->min) ||
        (an->first != '*' && an->first != c0) ||
        (an->last != '*' && an->last != cl))
        return false;
    if (!*read) {
        word_have_of(t, h);
        *read = true;
    }
    const uint64_t *b = an->bytes;
    return !((b[0] & ~h->bytes[0]) | (b[1] & ~h->bytes[1]) |
             (b[2] & ~h->bytes[2]) | (b[3] & ~h->bytes[3]) |
             (an->pairs & ~h->pairs));
}

static bool alts_match(const struct cp_gate_el *e, const struct cp_sh_word *w)
{
    if (w->glob || !e->need) {
        for (size_t i = 0; i < e->nalts; i++)
            if (word_match(e->alts[i], w))
                return true;
        return false;
    }
    const unsigned char *t = (const unsigned char *)w->text;
    unsigned char c = t[0];
    if (!e->any_first && !(e->first[c >> 6] & ((uint64_t)1 << (c & 63))))
        return false;
    size_t n = strlen(w->text);
    unsigned char cl = n ? t[n - 1] : 0;
    struct word_have h;
    bool read = false;
    for (size_t i = 0; i < e->nalts; i++)
        if (alt_may(&e->need[i], n, c, cl, t, &h, &read) &&
            word_glob(e->alts[i], w->text))
            return true;
    return false;
}

struct vop {
    const struct cp_sh_word *w;
    unsigned char kind; /* 0 one word, 1 a word that may be absent, 2 any
                           run of words (an unquoted expansion) */
};

/* A reading as the matcher sees it: the positional words (the program
 * first, lower case, without its directory) and the option words. */
struct view {
    struct cp_sh_word prog;
    struct vop *ops;
    size_t nops;
    size_t *optidx;
    size_t nopt;
    bool wild; /* an expansion may supply any option */
};

struct cp_gate_subject {
    const char *line;
    struct cp_sh_read rd;
    struct view **views; /* built on first need */
    /* readings by program name (static programs only) */
    struct slot {
        const char *name;
        struct cp_vec idx; /* (void *)(uintptr_t)reading index */
    } * slots;
    size_t cap, nslots;
    struct cp_vec other;  /* readings without a static program */
    struct cp_vec redirs; /* readings with redirections */
    struct cp_vec all;    /* every reading, duplicates left out */
    bool home_set;        /* the line mentions HOME (it may set it) */
};

static bool same_glob(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

static const char *lower_base(struct cp_arena *a, const char *w)
{
    const char *b = strrchr(w, '/');
    if (b && b[1])
        w = b + 1;
    const char *u = w;
    while (*u && !(*u >= 'A' && *u <= 'Z'))
        u++;
    return *u ? gp_lower(a, w) : w;
}

static bool view_takes_value(const char *const *vt, const char *t)
{
    bool optional = false;
    for (const char *const *o = vt; o && *o; o++)
        if (strcmp(*o, t) == 0)
            optional = true;
    return optional;
}

/* Adds the static word W, word I of the command, to V: an option (before
 * '--') is indexed and may make the next word optional (*optional); the
 * word after such an option is positional and may be absent. */
static void view_static_word(struct view *v, const struct cp_sh_word *w,
                             size_t i, const char *const *vt, bool *after_dd,
                             bool *optional)
{
    const char *t = w->text;
    bool opt = !*after_dd && t[0] == '-' && t[1];
    if (opt && strcmp(t, "--") == 0) {
        *after_dd = true;
        *optional = false;
        return;
    }
    if (opt)
        v->optidx[v->nopt++] = i;
    if (*optional) { /* the value of the option before, or an operand */
        v->ops[v->nops++] = (struct vop){w, 1};
        *optional = false;
        return;
    }
    if (opt) {
        *optional = view_takes_value(vt, t);
        return;
    }
    v->ops[v->nops++] = (struct vop){w, 0};
}

/* May the word W, which holds an expansion, become an option?  Not when
 * it starts with a literal byte other than '-'; nor when it starts with
 * "~/": the home directory then comes first, and it is an absolute path
 * unless the line sets HOME itself (HOME_SET: the line mentions HOME at
 * all), as in "HOME=--upload-pack=x git clone ~/r". */
static bool maybe_option(const struct cp_sh_word *w, bool home_set)
{
    if (w->glob[0] != '*')
        return w->glob[0] == '-';
    return !(w->text[0] == '~' && w->text[1] == '/' && !home_set);
}

static void view_build(struct cp_gate_subject *s, size_t k, struct cp_arena *a)
{
    struct view *v = s->views[k] = cp_arena_alloc(a, sizeof *v);
    const struct cp_sh_cmd *c = &s->rd.cmds[k];
    v->ops = cp_arena_alloc(a, (c->n ? c->n : 1) * sizeof *v->ops);
    v->optidx = cp_arena_alloc(a, (c->n ? c->n : 1) * sizeof *v->optidx);
    if (c->n == 0)
        return;
    v->prog.text = lower_base(a, c->w[0].text);
    v->prog.glob = c->w[0].glob ? lower_base(a, c->w[0].glob) : NULL;
    v->ops[v->nops++] = (struct vop){&v->prog, 0};
    const char *const *vt = cp_cmd_value_opts(v->prog.text);
    bool plus = cp_cmd_plus_word(v->prog.text);
    bool after_dd = false, optional = false;
    for (size_t i = 1; i < c->n; i++) {
        const struct cp_sh_word *w = &c->w[i];
        if (plus && !w->glob && w->text[0] == '+' && v->nops == 1) {
            v->ops[v->nops++] = (struct vop){w, 1}; /* cargo +nightly */
            continue;
        }
        if (!w->glob) {
            view_static_word(v, w, i, vt, &after_dd, &optional);
            continue;
        }
        bool maybe_opt = !after_dd && maybe_option(w, s->home_set);
        v->wild |= maybe_opt;
        v->ops[v->nops++] = (struct vop){w, w->split                  ? 2
                                            : (maybe_opt || optional) ? 1
                                                                      : 0};
        optional = false;
    }
}

/* Positional words: a pattern element per step, against the reading's
 * positional words, by dynamic programming over (element, word) with
 * words that may be absent and expansions that may be any run. */
static bool el_pos(const struct cp_gate_el *e)
{
    return e->kind == EL_WORD || e->kind == EL_ONE || e->kind == EL_ANY;
}

static bool el_word_ok(const struct cp_gate_el *e, const struct cp_sh_word *w)
{
    return e->kind == EL_ONE || alts_match(e, w);
}

static void dp_close(const struct cp_gate_el **p, size_t m, bool *col,
                     const struct vop *op)
{
    for (size_t i = 0; i < m; i++) {
        if (!col[i])
            continue;
        if (p[i]->kind == EL_ANY)
            col[i + 1] = true;
        else if (op && op->kind == 2 && el_word_ok(p[i], op->w))
            col[i + 1] = true; /* the run makes this word and more */
    }
}

/* The positional elements of a pattern, a trailing '*' as an EL_ANY. */
struct pos {
    const struct cp_gate_el **p;
    size_t m;
    bool *cur, *nxt; /* m + 1 each */
};

static void pos_prepare(const struct cp_gate_pat *g, struct pos *ps,
                        struct cp_arena *a)
{
    static const struct cp_gate_el any = {.kind = EL_ANY};
    size_t m = 0;
    for (size_t i = 0; i < g->nels; i++)
        m += el_pos(&g->els[i]);
    ps->p = cp_arena_alloc(a, (m + 2) * sizeof *ps->p);
    m = 0;
    for (size_t i = 0; i < g->nels; i++)
        if (el_pos(&g->els[i]))
            ps->p[m++] = &g->els[i];
    if (g->trailing_any || m == 0)
        ps->p[m++] = &any; /* no positional element: any command */
    ps->m = m;
    ps->cur = cp_arena_alloc(a, (m + 1) * sizeof *ps->cur);
    ps->nxt = cp_arena_alloc(a, (m + 1) * sizeof *ps->nxt);
}

static bool positional_match(const struct pos *ps, const struct view *v)
{
    const struct cp_gate_el **p = ps->p;
    size_t m = ps->m;
    bool *cur = ps->cur, *nxt = ps->nxt;
    memset(cur, 0, (m + 1) * sizeof *cur);
    cur[0] = true;
    for (size_t j = 0; j < v->nops; j++) {
        const struct vop *op = &v->ops[j];
        dp_close(p, m, cur, op);
        memset(nxt, 0, (m + 1) * sizeof *nxt);
        bool live = false;
        for (size_t i = 0; i <= m; i++) {
            if (!cur[i])
                continue;
            if (op->kind != 0)
                nxt[i] = true;
            if (i < m) {
                if (p[i]->kind == EL_ANY)
                    nxt[i] = true;
                else if (el_word_ok(p[i], op->w))
                    nxt[i + 1] = true;
            }
        }
        bool *t = cur;
        cur = nxt;
        nxt = t;
        for (size_t i = 0; i <= m; i++)
            live |= cur[i];
        if (!live)
            return false;
    }
    dp_close(p, m, cur, NULL);
    return cur[m];
}

static bool value_ok(const char *glob, const char *attached,
                     const struct cp_sh_cmd *c, size_t next)
{
    if (attached)
        return word_glob(glob, attached);
    return next < c->n && word_match(glob, &c->w[next]);
}

/* Does the option word whose name (after its dashes) is NAME, word IDX of
 * C, satisfy the long option O?  The value follows '=' or is the next
 * word. */
static bool long_sat(const struct gopt *o, const char *name,
                     const struct cp_sh_cmd *c, size_t idx)
{
    size_t nl = strcspn(name, "=");
    /* "--forc" is "--force" to getopt_long and git: a prefix */
    if (nl == 0 || nl > strlen(o->name) || strncmp(name, o->name, nl))
        return false;
    return !o->value ||
           value_ok(o->value, name[nl] == '=' ? name + nl + 1 : NULL, c,
                    idx + 1);
}

static bool opt_sat(const struct gopt *o, const struct cp_sh_cmd *c,
                    const struct view *v)
{
    for (size_t k = 0; k < v->nopt; k++) {
        size_t idx = v->optidx[k];
        const char *t = c->w[idx].text;
        if (o->dash1) {
            /* Go's flag package takes -name and --name alike */
            if (long_sat(o, t + (t[1] == '-' ? 2 : 1), c, idx))
                return true;
            continue;
        }
        if (o->lng) {
            if (t[1] == '-' && long_sat(o, t + 2, c, idx))
                return true;
            continue;
        }
        if (t[1] == '-')
            continue;
        for (const char *p = t + 1; *p; p++) {
            if (*p != o->name[0])
                continue;
            if (!o->value ||
                value_ok(o->value, p[1] ? p + 1 : NULL, c, idx + 1))
                return true;
        }
    }
    return v->wild;
}

static bool redir_sat(const struct cp_gate_el *e, const struct cp_sh_cmd *c)
{
    for (size_t k = 0; k < c->nr; k++) {
        enum cp_sh_rdir op = c->r[k].op;
        bool ok = op == CP_SH_INOUT ||
                  ((e->dir == '>' || e->dir == 'b') && op == CP_SH_OUT) ||
                  ((e->dir == '<' || e->dir == 'b') && op == CP_SH_IN);
        if (ok && alts_match(e, &c->r[k].target))
            return true;
    }
    return false;
}

static bool reading_matches(const struct cp_gate_pat *g, const struct pos *ps,
                            struct cp_gate_subject *s, size_t k,
                            struct cp_arena *a)
{
    if (!s->views[k])
        view_build(s, k, a);
    const struct view *v = s->views[k];
    const struct cp_sh_cmd *c = &s->rd.cmds[k];
    for (size_t i = 0; i < g->nels; i++) {
        const struct cp_gate_el *e = &g->els[i];
        if (e->kind == EL_REDIR && !redir_sat(e, c))
            return false;
        if (e->kind == EL_OPT) {
            bool ok = false;
            for (size_t j = 0; j < e->nalts && !ok; j++)
                ok = opt_sat(&e->opts[j], c, v);
            if (!ok)
                return false;
        }
    }
    return positional_match(ps, v);
}

static uint32_t name_hash(const char *s)
{
    return cp_fnv32(CP_FNV32_OFFSET, s, strlen(s));
}

static struct slot *subject_slot(struct cp_gate_subject *s, const char *name);

/* Room for one more name: the table doubles at half load. */
static void subject_grow(struct cp_gate_subject *s, struct cp_arena *a)
{
    if (2 * (s->nslots + 1) <= s->cap)
        return;
    struct slot *old = s->slots;
    size_t ocap = s->cap;
    s->cap *= 2;
    s->slots = cp_arena_alloc(a, s->cap * sizeof *s->slots);
    for (size_t i = 0; i < ocap; i++)
        if (old[i].name)
            *subject_slot(s, old[i].name) = old[i];
}

static struct slot *subject_slot(struct cp_gate_subject *s, const char *name)
{
    size_t h = name_hash(name) & (s->cap - 1);
    for (;; h = (h + 1) & (s->cap - 1))
        if (!s->slots[h].name || strcmp(s->slots[h].name, name) == 0)
            return &s->slots[h];
}

static uint32_t word_hash(uint32_t h, const struct cp_sh_word *w)
{
    h = cp_fnv32(h, w->text, strlen(w->text));
    return (h ^ (w->glob ? 1u : 2u)) * CP_FNV32_PRIME;
}

/* The first words and the counts: the readings of one command share their
 * tails, so hashing every word would cost words x readings. */
static uint32_t cmd_hash(const struct cp_sh_cmd *c)
{
    uint32_t h = (CP_FNV32_OFFSET ^ (uint32_t)c->n ^ ((uint32_t)c->nr << 20)) *
                 CP_FNV32_PRIME;
    for (size_t i = 0; i < c->n && i < 8; i++)
        h = word_hash(h, &c->w[i]);
    for (size_t i = 0; i < c->nr && i < 8; i++)
        h = word_hash(h ^ (uint32_t)c->r[i].op, &c->r[i].target);
    return h;
}

static bool word_equal(const struct cp_sh_word *x, const struct cp_sh_word *y)
{
    return strcmp(x->text, y->text) == 0 && same_glob(x->glob, y->glob) &&
           x->split == y->split;
}

static bool cmd_equal(const struct cp_sh_cmd *x, const struct cp_sh_cmd *y)
{
    if (x->n != y->n || x->nr != y->nr)
        return false;
    for (size_t i = 0; i < x->n; i++)
        if (!word_equal(&x->w[i], &y->w[i]))
            return false;
    for (size_t i = 0; i < x->nr; i++)
        if (x->r[i].op != y->r[i].op ||
            !word_equal(&x->r[i].target, &y->r[i].target))
            return false;
    return true;
}

struct cp_gate_subject *cp_gate_subject_new(struct cp_arena *a,
                                            const char *line)
{
    struct cp_gate_subject *s = cp_arena_alloc(a, sizeof *s);
    s->line = line;
    s->home_set = strstr(line, "HOME") != NULL;
    cp_sh_read(a, line, strlen(line), &s->rd);
    size_t n = s->rd.error ? 0 : s->rd.ncmds; /* unreadable: denied unmatched */
    s->views = cp_arena_alloc(a, (n ? n : 1) * sizeof *s->views);
    s->cap = 64;
    s->slots = cp_arena_alloc(a, s->cap * sizeof *s->slots);
    /* identical readings (a line of many equal commands) are matched once */
    size_t dcap = 16;
    while (dcap < 2 * n)
        dcap *= 2;
    size_t *dup = cp_arena_alloc(a, dcap * sizeof *dup); /* index + 1 */
    for (size_t k = 0; k < n; k++) {
        const struct cp_sh_cmd *c = &s->rd.cmds[k];
        uint32_t h = cmd_hash(c);
        size_t d = h & (dcap - 1);
        bool seen = false;
        for (; dup[d]; d = (d + 1) & (dcap - 1))
            if (cmd_equal(&s->rd.cmds[dup[d] - 1], c)) {
                seen = true;
                break;
            }
        if (seen)
            continue;
        dup[d] = k + 1;
        cp_vec_push(a, &s->all, (void *)(uintptr_t)k);
        if (c->nr)
            cp_vec_push(a, &s->redirs, (void *)(uintptr_t)k);
        if (c->n == 0 || c->w[0].glob) {
            cp_vec_push(a, &s->other, (void *)(uintptr_t)k);
            continue;
        }
        const char *name = lower_base(a, c->w[0].text);
        subject_grow(s, a);
        struct slot *sl = subject_slot(s, name);
        if (!sl->name)
            s->nslots++;
        sl->name = name;
        cp_vec_push(a, &sl->idx, (void *)(uintptr_t)k);
    }
    return s;
}

const struct cp_sh_read *cp_gate_subject_read(const struct cp_gate_subject *s)
{
    return &s->rd;
}

static bool try_list(const struct cp_gate_pat *g, const struct pos *ps,
                     struct cp_gate_subject *s, const struct cp_vec *v,
                     struct cp_arena *a)
{
    for (size_t i = 0; i < v->len; i++)
        if (reading_matches(g, ps, s, (size_t)(uintptr_t)v->items[i], a))
            return true;
    return false;
}

/* The readings a word pattern is tried on (its candidates): a pattern
 * with a redirection element only sees readings with redirections
 * (CP_GATE_KEY_REDIR); one whose program is a word, only the readings of
 * the programs its alternatives name (a glob alternative is tried on each
 * distinct name) and those of unknown programs (CP_GATE_KEY_PROGRAMS,
 * *first that word); any other, every reading. */
static enum cp_gate_key_kind gate_candidates(const struct cp_gate_pat *g,
                                             const struct cp_gate_el **first)
{
    bool redir = false;
    *first = NULL;
    if (g->nwords == 0 && g->trailing_any)
        return CP_GATE_KEY_ALL; /* "*": every command line, even empty */
    for (size_t i = 0; i < g->nels; i++) {
        if (el_pos(&g->els[i]) && !*first)
            *first = &g->els[i];
        redir |= g->els[i].kind == EL_REDIR;
    }
    if (redir)
        return CP_GATE_KEY_REDIR;
    if (!*first || (*first)->kind != EL_WORD)
        return CP_GATE_KEY_READINGS;
    return CP_GATE_KEY_PROGRAMS;
}

void cp_gate_key_of(struct cp_arena *a, const struct cp_gate_pat *g,
                    struct cp_gate_key *k)
{
    const struct cp_gate_el *first;
    memset(k, 0, sizeof *k);
    k->kind = gate_candidates(g, &first);
    if (k->kind != CP_GATE_KEY_PROGRAMS)
        return;
    const char **v = cp_arena_alloc(a, first->nalts * sizeof *v);
    for (size_t i = 0; i < first->nalts; i++)
        v[i] = cp_arena_strdup(a, first->alts[i]);
    k->names = v;
    k->n = first->nalts;
}

const char *cp_gate_check_words(struct cp_arena *a, struct cp_arena *ka,
                                const char *text, size_t len,
                                struct cp_gate_key *k)
{
    struct cp_gate_pat g;
    const char *why = gp_parse(a, text, len, false, false, &g);
    if (!why)
        cp_gate_key_of(ka, &g, k);
    return why;
}

/* Has s a reading of a program named alt (a glob: of any name it
 * matches)? */
static bool subject_names(struct cp_gate_subject *s, const char *alt)
{
    if (!strchr(alt, '*')) {
        const struct slot *sl = subject_slot(s, alt);
        return sl->name && sl->idx.len;
    }
    for (size_t k = 0; k < s->cap; k++)
        if (s->slots[k].name && word_glob(alt, s->slots[k].name))
            return true;
    return false;
}

bool cp_gate_subject_may(const struct cp_gate_key *k, struct cp_gate_subject *s)
{
    switch (k->kind) {
    case CP_GATE_KEY_ALL:
        return true;
    case CP_GATE_KEY_REDIR:
        return s->redirs.len > 0;
    case CP_GATE_KEY_READINGS:
        return s->all.len > 0;
    case CP_GATE_KEY_PROGRAMS:
        break;
    }
    if (s->other.len)
        return true;
    for (size_t i = 0; i < k->n; i++)
        if (subject_names(s, k->names[i]))
            return true;
    return false;
}

bool cp_gate_subject_matches(const struct cp_gate_pat *g,
                             struct cp_gate_subject *s, struct cp_arena *a)
{
    if (g->kind == CP_GATE_REGEX)
        return cp_rx_search(g->regex, s->line, strlen(s->line));
    if (g->kind == CP_GATE_UNKNOWN)
        return s->rd.unknown != NULL;
    const struct cp_gate_el *first;
    enum cp_gate_key_kind kind = gate_candidates(g, &first);
    if (kind == CP_GATE_KEY_ALL)
        return true;
    struct pos ps;
    pos_prepare(g, &ps, a);
    if (kind == CP_GATE_KEY_REDIR)
        return try_list(g, &ps, s, &s->redirs, a);
    if (kind == CP_GATE_KEY_READINGS)
        return try_list(g, &ps, s, &s->all, a);
    for (size_t i = 0; i < first->nalts; i++) {
        const char *alt = first->alts[i];
        if (!strchr(alt, '*')) {
            struct slot *sl = subject_slot(s, alt);
            if (sl->name && try_list(g, &ps, s, &sl->idx, a))
                return true;
            continue;
        }
        for (size_t k = 0; k < s->cap; k++)
            if (s->slots[k].name && word_glob(alt, s->slots[k].name) &&
                try_list(g, &ps, s, &s->slots[k].idx, a))
                return true;
    }
    return try_list(g, &ps, s, &s->other, a);
}

bool cp_gate_matches(const struct cp_gate_pat *g, const char *line,
                     struct cp_arena *a)
{
    if (g->kind == CP_GATE_REGEX)
        return cp_rx_search(g->regex, line, strlen(line));
    return cp_gate_subject_matches(g, cp_gate_subject_new(a, line), a);
}

/* The rows of verdict V that match, into out (the first only unless
 * ALL); false when a row failed (out->error set). */
static bool gate_scan(const struct cp_gate_rows *rows, enum cp_verdict v,
                      struct cp_gate_subject *s, bool all, struct cp_arena *a,
                      struct cp_gate_result *out)
{
    for (size_t i = 0; i < rows->n; i++) {
        if (rows->verdict(rows->ctx, i) != v)
            continue;
        const char *err = NULL;
        int m = rows->match(rows->ctx, i, s, a, &err);
        if (m < 0) {
            out->error = err;
            return false;
        }
        if (!m)
            continue;
        if (!out->rows)
            out->rows = cp_arena_alloc(a,
                                       (all ? rows->n : 1) * sizeof *out->rows);
        out->rows[out->nrows++] = i;
        if (!all)
            break;
    }
    return true;
}

void cp_gate_decide(const struct cp_gate_rows *rows, struct cp_gate_subject *s,
                    bool all, struct cp_arena *a, struct cp_gate_result *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = CP_DENY;
    if (s->rd.error) { /* fail closed: what cannot be read is not run */
        out->unreadable = true;
        out->why = cp_gate_unreadable_reason(a, s->rd.error);
        return;
    }
    out->why = s->rd.unknown;
    static const enum cp_verdict order[] = {CP_DENY, CP_ASK};
    for (size_t k = 0; k < 2; k++) {
        if (!gate_scan(rows, order[k], s, all, a, out)) {
            out->nrows = 0;
            out->verdict = CP_DENY;
            return;
        }
        if (out->nrows) {
            out->verdict = order[k];
            return;
        }
    }
    out->verdict = CP_ALLOW;
}

const char *cp_gate_unreadable_reason(struct cp_arena *a, const char *why)
{
    return cp_arena_printf(a,
                           "the command line cannot be read as the shell "
                           "would run it: %s",
                           why);
}

/* ---- relations ------------------------------------------------------------ */

size_t cp_gate_literal_prefix(const struct cp_gate_pat *g)
{
    if (g->kind != CP_GATE_WORDS)
        return 0;
    size_t i = 0;
    while (i < g->nwords && !strpbrk(g->words[i], "*{|<>") &&
           !is_opt_text(g->words[i]))
        i++;
    return i;
}

/* Only single-alternative positional words, '*' and a trailing '*': the
 * language is a product of word sets, decided exactly below. */
static bool simple_positional(const struct cp_gate_pat *g)
{
    for (size_t i = 0; i < g->nels; i++)
        if (g->els[i].kind == EL_ANY ||
            (g->els[i].kind == EL_WORD && g->els[i].nalts != 1))
            return false;
    return true;
}

static bool simple_pat(const struct cp_gate_pat *g)
{
    for (size_t i = 0; i < g->nels; i++)
        if (g->els[i].kind == EL_ANY || g->els[i].kind == EL_OPT ||
            g->els[i].kind == EL_REDIR ||
            (g->els[i].kind == EL_WORD && g->els[i].nalts != 1))
            return false;
    return true;
}

/* The positional word of element i ('*' for EL_ONE). */
static const char *pos_word(const struct cp_gate_el *e)
{
    return e->kind == EL_ONE ? "*" : e->alts[0];
}

static size_t npos(const struct cp_gate_pat *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->nels; i++)
        n += el_pos(&g->els[i]);
    return n;
}

static const struct cp_gate_el *nth_pos(const struct cp_gate_pat *g, size_t k)
{
    for (size_t i = 0; i < g->nels; i++)
        if (el_pos(&g->els[i]) && k-- == 0)
            return &g->els[i];
    return NULL;
}

/* Positional containment of simple patterns (lengths, then word by word). */
static enum cp_rel pos_contains(const struct cp_gate_pat *outer,
                                const struct cp_gate_pat *inner)
{
    size_t m = npos(outer), n = npos(inner);
    if (inner->trailing_any && !outer->trailing_any)
        return CP_REL_NO;
    if (outer->trailing_any ? m > n : m != n)
        return CP_REL_NO;
    enum cp_rel r = CP_REL_YES;
    for (size_t i = 0; i < m; i++) {
        int t = cp_match_word_contains(pos_word(nth_pos(outer, i)),
                                       pos_word(nth_pos(inner, i)));
        if (t == 0)
            return CP_REL_NO;
        if (t < 0)
            r = CP_REL_MAY;
    }
    return r;
}

static bool same_str(const char *x, const char *y)
{
    return x == y || (x && y && strcmp(x, y) == 0);
}

static bool same_pos(const struct cp_gate_pat *x, const struct cp_gate_pat *y)
{
    size_t m = npos(x);
    if (m != npos(y) || x->trailing_any != y->trailing_any)
        return false;
    for (size_t i = 0; i < m; i++) {
        const struct cp_gate_el *a = nth_pos(x, i), *b = nth_pos(y, i);
        if (a->kind != b->kind || a->nalts != b->nalts)
            return false;
        for (size_t k = 0; k < a->nalts; k++)
            if (strcmp(a->alts[k], b->alts[k]) != 0)
                return false;
    }
    return true;
}

/* Is every alternative of element `in` also one of `out`'s? */
static bool alts_subset(const struct cp_gate_el *out,
                        const struct cp_gate_el *in)
{
    if (out->kind != in->kind || (out->kind == EL_REDIR && out->dir != in->dir))
        return false;
    for (size_t i = 0; i < in->nalts; i++) {
        bool found = false;
        for (size_t j = 0; j < out->nalts && !found; j++) {
            if (out->kind == EL_OPT) {
                const struct gopt *p = &in->opts[i], *q = &out->opts[j];
                found = p->lng == q->lng && p->dash1 == q->dash1 &&
                        strcmp(p->name, q->name) == 0 &&
                        same_str(p->value, q->value);
            } else {
                found = strcmp(in->alts[i], out->alts[j]) == 0;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

/* Every option and redirection element of `outer` is implied by one of
 * `inner`'s: a command inner matches then satisfies it. */
static bool extras_implied(const struct cp_gate_pat *outer,
                           const struct cp_gate_pat *inner)
{
    for (size_t i = 0; i < outer->nels; i++) {
        const struct cp_gate_el *e = &outer->els[i];
        if (el_pos(e))
            continue;
        bool ok = false;
        for (size_t j = 0; j < inner->nels && !ok; j++)
            ok = alts_subset(e, &inner->els[j]);
        if (!ok)
            return false;
    }
    return true;
}

enum cp_rel cp_gate_contains(const struct cp_gate_pat *outer,
                             const struct cp_gate_pat *inner)
{
    if (outer->kind == CP_GATE_UNKNOWN && inner->kind == CP_GATE_UNKNOWN)
        return CP_REL_YES;
    if (outer->kind != CP_GATE_WORDS || inner->kind != CP_GATE_WORDS)
        return CP_REL_MAY;
    if (simple_pat(outer) && simple_pat(inner))
        return pos_contains(outer, inner);
    /* Options and redirections only narrow a pattern: containment holds
     * when the positional words contain and every extra requirement of
     * outer is one of inner's.  Anything else is not decided. */
    enum cp_rel pos = CP_REL_MAY;
    if (same_pos(outer, inner))
        pos = CP_REL_YES;
    else if (simple_positional(outer) && simple_positional(inner))
        pos = pos_contains(outer, inner);
    if (pos == CP_REL_YES && extras_implied(outer, inner))
        return CP_REL_YES;
    return CP_REL_MAY;
}

enum cp_rel cp_gate_overlaps(const struct cp_gate_pat *a,
                             const struct cp_gate_pat *b)
{
    if (a->kind == CP_GATE_UNKNOWN && b->kind == CP_GATE_UNKNOWN)
        return CP_REL_YES;
    if (a->kind != CP_GATE_WORDS || b->kind != CP_GATE_WORDS)
        return CP_REL_MAY;
    if (!simple_pat(a) || !simple_pat(b))
        return CP_REL_MAY;
    size_t m = npos(a), n = npos(b);
    if (!a->trailing_any && !b->trailing_any && m != n)
        return CP_REL_NO;
    if (!a->trailing_any && b->trailing_any && m < n)
        return CP_REL_NO;
    if (a->trailing_any && !b->trailing_any && n < m)
        return CP_REL_NO;
    size_t k = m < n ? m : n;
    enum cp_rel r = CP_REL_YES;
    for (size_t i = 0; i < k; i++) {
        int t = cp_match_word_overlaps(pos_word(nth_pos(a, i)),
                                       pos_word(nth_pos(b, i)));
        if (t == 0)
            return CP_REL_NO;
        if (t < 0)
            r = CP_REL_MAY;
    }
    return r;
}

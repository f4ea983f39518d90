/* SPDX-License-Identifier: MIT */
/* Gate (command) patterns: parsing, splitting a command line into simple
 * commands, matching, containment (spec/patterns.md, "Gate patterns").
 *
 * Splitting reads the line the way a POSIX shell would as far as it matters
 * for gates: quotes, escapes, control operators, redirections, command
 * substitutions.  Wherever the reading is uncertain it takes the strictest
 * one, i.e. the one under which more patterns match: the contents of
 * substitutions are further commands, here-document bodies are read as
 * commands, and matching also tries each command with its wrappers
 * (sudo, env, timeout, ...) stripped. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "match_int.h"

/* Nesting limits: command substitutions inside substitutions (deeper ones
 * are read with '$(', '`' and ')' as plain separators, so their words
 * still form commands), and wrapper, eval or `sh -c` unwrapping (deeper
 * nesting counts as a match: the strictest answer). */
#define GATE_MAX_DEPTH 16

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
static const char *gate_regex_refused(const char *t, size_t n)
{
    double sum[CP_MAX_GROUP_DEPTH + 1], last[CP_MAX_GROUP_DEPTH + 1];
    size_t d = 0;
    sum[0] = last[0] = 0;
    bool dup = false; /* the previous token was a duplication symbol */
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        double mult = 0; /* a duplication symbol's factor, 0 for none */
        if (c == '*' || c == '?') {
            mult = 1;
        } else if (c == '+') {
            mult = 2;
        } else if (c == '{' && i + 1 < n && t[i + 1] >= '0' && t[i + 1] <= '9') {
            double lo = 0, hi = -1;
            for (i++; i < n && t[i] >= '0' && t[i] <= '9'; i++)
                lo = lo * 10 + (t[i] - '0');
            if (i < n && t[i] == ',') {
                hi = 0;
                for (i++; i < n && t[i] >= '0' && t[i] <= '9'; i++)
                    hi = hi * 10 + (t[i] - '0');
                if (hi == 0)
                    hi = lo + 1; /* {m,}: m copies and a star */
            }
            mult = (hi > lo ? hi : lo) + 1;
            while (i < n && t[i] != '}')
                i++;
        }
        if (mult) {
            if (dup)
                return "repetition of a repetition ('**', '+?', '{2}+'...): "
                       "undefined in POSIX ERE; write a single operator";
            dup = true;
            sum[d] += last[d] * (mult - 1);
            last[d] *= mult;
            if (sum[d] > CP_GATE_RE_EXPANDED_MAX)
                return "too large once its repetitions are expanded (nested "
                       "or large repetition counts); simplify it";
            continue;
        }
        dup = false;
        double atom = 1;
        if (c == '\\') {
            i++;
        } else if (c == '[') {
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
            i = j;
        } else if (c == '(') {
            if (d == CP_MAX_GROUP_DEPTH)
                return "groups nested too deeply";
            d++;
            sum[d] = last[d] = 0;
            continue;
        } else if (c == ')' && d > 0) {
            atom = sum[d] ? sum[d] : 1;
            d--;
        } else if (c == '|') {
            last[d] = 0;
            continue;
        }
        last[d] = atom;
        sum[d] += atom;
    }
    return NULL;
}

const char *cp_gate_parse(struct cp_arena *a, const char *text, size_t len,
                          bool is_regex, struct cp_gate_pat *out)
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
    if (is_regex) {
        const char *why = gate_regex_refused(t, len);
        if (why)
            return why;
        regex_t *re = cp_xmalloc(sizeof *re);
        int rc = regcomp(re, t, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char buf[256];
            regerror(rc, re, buf, sizeof buf);
            free(re);
            return cp_arena_strdup(a, buf);
        }
        out->kind = CP_GATE_REGEX;
        out->text = t;
        out->regex = re;
        return NULL;
    }

    for (i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\'' || c == '"' || c == '\\' || c == '`')
            return "quote or backslash in a word pattern (commands are "
                   "matched after quote removal; use a regex for such text)";
        if (c == ';' || c == '|' || c == '&' || c == '<' || c == '>' ||
            c == '(' || c == ')')
            return "shell operator in a word pattern (each simple command "
                   "is matched on its own; use a regex to match across "
                   "commands)";
    }
    struct cp_vec words = {0};
    for (i = 0; i < len;) {
        while (i < len && gate_space(text[i]))
            i++;
        if (i >= len)
            break;
        size_t s = i;
        while (i < len && !gate_space(text[i]))
            i++;
        cp_vec_push(a, &words, cp_arena_strndup(a, text + s, i - s));
    }
    out->kind = CP_GATE_WORDS;
    out->text = t;
    if (words.len > 0 && strcmp(words.items[words.len - 1], "*") == 0) {
        out->trailing_any = true;
        words.len--;
    }
    out->words = (const char **)words.items;
    out->nwords = words.len;
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

/* ---- splitting ---------------------------------------------------------- */

struct splitter {
    struct cp_arena *a;
    struct cp_vec parts; /* const char ** (NULL-terminated) */
};

/* State of one command list being split (one per substitution level). */
struct level {
    struct splitter *sp;
    int depth;
    struct cp_vec words; /* words of the current simple command */
    struct cp_buf w;     /* bytes of the current word */
    bool inword;         /* a word has begun (even an empty quoted one) */
    bool quoted;         /* some byte of the word was quoted */
    bool drop_next;      /* the next word is a redirection target */
};

static void split_text(struct splitter *sp, const char *s, size_t len,
                       int depth);

static void lv_end_word(struct level *lv)
{
    if (!lv->inword)
        return;
    if (lv->drop_next) {
        lv->drop_next = false;
    } else {
        cp_vec_push(lv->sp->a, &lv->words,
                    cp_arena_strndup(lv->sp->a, lv->w.data ? lv->w.data : "",
                                     lv->w.len));
    }
    cp_buf_reset(&lv->w);
    lv->inword = false;
    lv->quoted = false;
}

static void lv_end_part(struct level *lv)
{
    lv_end_word(lv);
    lv->drop_next = false;
    if (lv->words.len == 0)
        return;
    cp_vec_push(lv->sp->a, &lv->words, NULL);
    cp_vec_push(lv->sp->a, &lv->sp->parts, lv->words.items);
    memset(&lv->words, 0, sizeof lv->words);
}

static void lv_add(struct level *lv, const char *p, size_t n)
{
    cp_buf_add(&lv->w, p, n);
    lv->inword = true;
}

/* Index just past the ')' closing a "$(" or "(" whose body starts at i,
 * honouring quotes and nesting; len when unterminated. */
static size_t skip_paren(const char *s, size_t len, size_t i)
{
    int nest = 1;
    while (i < len) {
        char c = s[i];
        if (c == '\\') {
            i += 2;
        } else if (c == '\'') {
            const char *q = memchr(s + i + 1, '\'', len - i - 1);
            i = q ? (size_t)(q - s) + 1 : len;
        } else if (c == '"') {
            i++;
            while (i < len && s[i] != '"')
                i += s[i] == '\\' ? 2 : 1;
            i++;
        } else if (c == '`') {
            i++;
            while (i < len && s[i] != '`')
                i += s[i] == '\\' ? 2 : 1;
            i++;
        } else if (c == '(') {
            nest++;
            i++;
        } else if (c == ')') {
            if (--nest == 0)
                return i + 1;
            i++;
        } else {
            i++;
        }
    }
    return len;
}

/* A command substitution body: its commands are parts too. */
static void lv_subst(struct level *lv, const char *body, size_t n)
{
    split_text(lv->sp, body, n, lv->depth + 1);
}

/* Backquoted body: '\' keeps its meaning only before '$', '`' and '\'. */
static void lv_backquote(struct level *lv, const char *body, size_t n)
{
    struct cp_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (body[i] == '\\' && i + 1 < n &&
            (body[i + 1] == '$' || body[i + 1] == '`' || body[i + 1] == '\\'))
            i++;
        cp_buf_addc(&b, body[i]);
    }
    lv_subst(lv, b.data ? b.data : "", b.len);
    cp_buf_free(&b);
}

/* Handles "$(", "`" at s[i]; returns the index after it, or i when there
 * is none. The raw text stays in the word (its value is unknown). */
static size_t lv_try_subst(struct level *lv, const char *s, size_t len,
                           size_t i)
{
    if (lv->depth >= GATE_MAX_DEPTH)
        return i;
    if (s[i] == '$' && i + 1 < len && s[i + 1] == '(') {
        size_t e = skip_paren(s, len, i + 2);
        size_t body_end = (e <= len && e > i + 2 && s[e - 1] == ')') ? e - 1 : e;
        lv_subst(lv, s + i + 2, body_end - (i + 2));
        lv_add(lv, s + i, e - i);
        return e;
    }
    if (s[i] == '`') {
        size_t j = i + 1;
        while (j < len && s[j] != '`')
            j += (s[j] == '\\' && j + 1 < len) ? 2 : 1;
        size_t end = j < len ? j : len;
        lv_backquote(lv, s + i + 1, end - (i + 1));
        size_t e = j < len ? j + 1 : len;
        lv_add(lv, s + i, e - i);
        return e;
    }
    return i;
}

static bool word_is_digits(const struct level *lv)
{
    if (!lv->inword || lv->quoted || lv->w.len == 0)
        return false;
    for (size_t k = 0; k < lv->w.len; k++)
        if (lv->w.data[k] < '0' || lv->w.data[k] > '9')
            return false;
    return true;
}

/* A redirection operator starting at s[i] ('<' or '>', or '&' before '>').
 * Returns the index after the operator. */
static size_t lv_redirect(struct level *lv, const char *s, size_t len,
                          size_t i)
{
    if (word_is_digits(lv)) { /* "2>": the digits name a descriptor */
        cp_buf_reset(&lv->w);
        lv->inword = false;
    } else {
        lv_end_word(lv);
    }
    char c = s[i];
    if (c == '&') { /* &> or &>> */
        i += 2;
        if (i < len && s[i] == '>')
            i++;
    } else if (c == '>') {
        i++;
        if (i < len && (s[i] == '>' || s[i] == '&' || s[i] == '|'))
            i++;
    } else { /* '<' */
        i++;
        if (i < len && s[i] == '<') {
            i++;
            if (i < len && (s[i] == '<' || s[i] == '-'))
                i++;
        } else if (i < len && (s[i] == '&' || s[i] == '>')) {
            i++;
        }
    }
    lv->drop_next = true;
    return i;
}

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* $'...' (ANSI-C quoting) from its body at s[i]: decodes the escapes bash
 * knows (\a \b \e \E \f \n \r \t \v \\ \' \" \? \xHH \NNN \cX; \u and
 * \U are kept as written).  Returns the index after the closing quote. */
static size_t lv_ansi_c(struct level *lv, const char *s, size_t len, size_t i)
{
    lv->inword = true;
    lv->quoted = true;
    while (i < len && s[i] != '\'') {
        char c = s[i];
        if (c != '\\' || i + 1 >= len) {
            lv_add(lv, s + i, 1);
            i++;
            continue;
        }
        char e = s[i + 1], out;
        i += 2;
        switch (e) {
        case 'a': out = '\a'; break;
        case 'b': out = '\b'; break;
        case 'e':
        case 'E': out = 0x1b; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'v': out = '\v'; break;
        case 'c':
            out = i < len ? (char)(s[i++] & 0x1f) : 'c';
            break;
        case 'x': {
            int v = 0, nd = 0;
            while (nd < 2 && i < len && hex_val(s[i]) >= 0)
                v = v * 16 + hex_val(s[i++]), nd++;
            out = nd ? (char)v : 'x';
            if (!nd) {
                lv_add(lv, "\\", 1);
            }
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                int v = e - '0', nd = 1;
                while (nd < 3 && i < len && s[i] >= '0' && s[i] <= '7')
                    v = v * 8 + (s[i++] - '0'), nd++;
                out = (char)v;
            } else if (e == 'u' || e == 'U') {
                lv_add(lv, s + i - 2, 1);
                out = e;
            } else {
                out = e; /* \\ \' \" \? and unknown escapes */
                if (e != '\\' && e != '\'' && e != '"' && e != '?')
                    lv_add(lv, "\\", 1);
            }
        }
        if (out != '\0')
            lv_add(lv, &out, 1);
    }
    return i < len ? i + 1 : len;
}

static void split_text(struct splitter *sp, const char *s, size_t len,
                       int depth)
{
    struct level lv = {.sp = sp, .depth = depth};
    size_t i = 0;
    while (i < len) {
        char c = s[i];
        if (c == '\\') {
            if (i + 1 < len && s[i + 1] == '\n') {
                i += 2; /* line continuation */
                continue;
            }
            if (i + 1 < len) {
                lv_add(&lv, s + i + 1, 1);
                lv.quoted = true;
                i += 2;
            } else {
                lv_add(&lv, s + i, 1);
                i++;
            }
            continue;
        }
        if (c == '$' && i + 1 < len && s[i + 1] == '\'') {
            i = lv_ansi_c(&lv, s, len, i + 2);
            continue;
        }
        if (c == '$' && i + 1 < len && s[i + 1] == '"') {
            i++; /* $"...": a translated string, read as "..." */
            continue;
        }
        if (c == '\'') {
            const char *q = memchr(s + i + 1, '\'', len - i - 1);
            size_t e = q ? (size_t)(q - s) : len;
            lv_add(&lv, s + i + 1, e - i - 1);
            lv.quoted = true;
            i = q ? e + 1 : len;
            continue;
        }
        if (c == '"') {
            lv.inword = true;
            lv.quoted = true;
            i++;
            while (i < len && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < len &&
                    (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$' ||
                     s[i + 1] == '`' || s[i + 1] == '\n')) {
                    if (s[i + 1] != '\n')
                        lv_add(&lv, s + i + 1, 1);
                    i += 2;
                    continue;
                }
                size_t e = lv_try_subst(&lv, s, len, i);
                if (e != i) {
                    i = e;
                    continue;
                }
                lv_add(&lv, s + i, 1);
                i++;
            }
            i++;
            continue;
        }
        size_t e = lv_try_subst(&lv, s, len, i);
        if (e != i) {
            i = e;
            continue;
        }
        if ((c == '<' || c == '>') && i + 1 < len && s[i + 1] == '(' &&
            depth < GATE_MAX_DEPTH) {
            /* process substitution <(...) >(...) */
            e = skip_paren(s, len, i + 2);
            size_t body_end = (e > i + 2 && s[e - 1] == ')') ? e - 1 : e;
            lv_subst(&lv, s + i + 2, body_end - (i + 2));
            lv_add(&lv, s + i, e - i);
            i = e;
            continue;
        }
        if (gate_space(c) && c != '\n') {
            lv_end_word(&lv);
            i++;
            continue;
        }
        if (c == '#' && !lv.inword) {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '<' || c == '>' ||
            (c == '&' && i + 1 < len && s[i + 1] == '>')) {
            i = lv_redirect(&lv, s, len, i);
            continue;
        }
        if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
            c == ')' || c == '`') {
            lv_end_part(&lv);
            i++;
            if ((c == '&' || c == '|') && i < len &&
                (s[i] == c || (c == '|' && s[i] == '&')))
                i++;
            continue;
        }
        lv_add(&lv, s + i, 1);
        i++;
    }
    lv_end_part(&lv);
    cp_buf_free(&lv.w);
}

size_t cp_gate_split(struct cp_arena *a, const char *line,
                     const char ****parts)
{
    struct splitter sp = {.a = a};
    split_text(&sp, line, strlen(line), 0);
    *parts = (const char ***)sp.parts.items;
    return sp.parts.len;
}

/* ---- matching ----------------------------------------------------------- */

/* '*' matches any run of bytes; every other byte itself. */
static bool word_glob(const char *p, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    while (*s) {
        if (*p == '*') {
            star_p = ++p;
            star_s = s;
            continue;
        }
        if (*p && *p == *s) {
            p++;
            s++;
            continue;
        }
        if (!star_p)
            return false;
        p = star_p;
        s = ++star_s;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* Length of the parameter expansion or substitution at w ('$' or '`'),
 * 0 when the '$' is a plain byte. */
static size_t expansion_len(const char *w)
{
    if (*w == '`') {
        const char *e = strchr(w + 1, '`');
        return e ? (size_t)(e - w) + 1 : strlen(w);
    }
    char c = w[1];
    if (c == '{' || c == '(') {
        char close = c == '{' ? '}' : ')';
        int nest = 0;
        size_t i = 1;
        for (; w[i]; i++) {
            if (w[i] == c)
                nest++;
            else if (w[i] == close && --nest == 0)
                return i + 1;
        }
        return i;
    }
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
        size_t i = 2;
        while ((w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= 'a' && w[i] <= 'z') ||
               (w[i] >= '0' && w[i] <= '9') || w[i] == '_')
            i++;
        return i;
    }
    if ((c >= '0' && c <= '9') || (c && strchr("@*#?$!-", c)))
        return 2;
    return 0;
}

/* A command word holding expansions ($X, ${X}, $(cmd), `cmd`) could be
 * any text there: it is read as a glob with '*' in their place, and it
 * matches a pattern word when the two globs share a string (strictest
 * reading; an undecidable case counts as a match). */
static bool word_match(const char *pat, const char *w, struct cp_arena *a)
{
    if (!strpbrk(w, "$`"))
        return word_glob(pat, w);
    size_t n = strlen(w);
    char *g = cp_arena_alloc(a, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t e = (w[i] == '$' || w[i] == '`') ? expansion_len(w + i) : 0;
        if (e) {
            g[k++] = '*';
            i += e;
        } else {
            g[k++] = w[i++];
        }
    }
    g[k] = '\0';
    return cp_match_word_overlaps(pat, g) != 0;
}

/* Matches the word list (first, rest[0..nrest)) against the pattern. */
static bool words_match(const struct cp_gate_pat *g, const char *first,
                        const char *const *rest, size_t nrest,
                        struct cp_arena *a)
{
    size_t n = nrest + 1;
    if (g->trailing_any ? n < g->nwords : n != g->nwords)
        return false;
    for (size_t i = 0; i < g->nwords; i++)
        if (!word_match(g->words[i], i == 0 ? first : rest[i - 1], a))
            return false;
    return true;
}

static bool is_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    for (w++; *w && *w != '='; w++)
        if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') ||
              (*w >= '0' && *w <= '9') || *w == '_'))
            return false;
    return *w == '=';
}

static const char *base_name(const char *w)
{
    const char *b = strrchr(w, '/');
    return b && b[1] ? b + 1 : w;
}

/* Wrappers that run their operands as a command.  `arg_opts`: options
 * that take a separate argument ("-u" in "sudo -u root"); `skip`: operands
 * before the command ("timeout 5 cmd"). */
static const struct wrapper {
    const char *name;
    const char *const *arg_opts;
    int skip;
    bool assigns; /* VAR=value operands before the command (env) */
} wrappers[] = {
    {"builtin", NULL, 0, false},
    {"command", NULL, 0, false},
    {"doas", (const char *const[]){"-u", "-C", NULL}, 0, false},
    {"env",
     (const char *const[]){"-u", "-C", "-S", "--unset", "--chdir",
                           "--split-string", NULL},
     0, true},
    {"exec", (const char *const[]){"-a", NULL}, 0, false},
    {"ionice", (const char *const[]){"-c", "-n", "-p", "--class",
                                     "--classdata", NULL},
     0, false},
    {"nice", (const char *const[]){"-n", "--adjustment", NULL}, 0, false},
    {"nohup", NULL, 0, false},
    {"stdbuf",
     (const char *const[]){"-i", "-o", "-e", "--input", "--output", "--error",
                           NULL},
     0, false},
    {"sudo",
     (const char *const[]){"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t",
                           "-T", "-U", "--user", "--group", "--close-from",
                           "--chdir", "--host", "--prompt", "--role", "--type",
                           "--command-timeout", "--other-user", NULL},
     0, false},
    {"time", (const char *const[]){"-f", "-o", "--format", "--output", NULL},
     0, false},
    {"timeout",
     (const char *const[]){"-s", "-k", "--signal", "--kill-after", NULL}, 1,
     false},
    {"xargs",
     (const char *const[]){"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s",
                           "--arg-file", "--delimiter", "--max-args",
                           "--max-procs", "--max-chars", "--max-lines", NULL},
     0, false},
};

/* Reserved words and operators that may begin a simple command as the
 * shell reads it ("if git push ...", "! git push", "{ git push; }"). */
static const char *const lead_words[] = {"!",    "{",     "}",    "if",
                                         "then", "else",  "elif", "do",
                                         "while", "until", NULL};

static bool in_list(const char *const *l, const char *w)
{
    for (; l && *l; l++)
        if (strcmp(*l, w) == 0)
            return true;
    return false;
}

static bool try_words(const struct cp_gate_pat *g, const char *first,
                      const char *const *rest, size_t nrest,
                      struct cp_arena *a, int depth);

static bool try_parts(const struct cp_gate_pat *g, const char ***parts,
                      size_t n, struct cp_arena *a, int depth)
{
    for (size_t i = 0; i < n; i++) {
        size_t nw = 0;
        while (parts[i][nw])
            nw++;
        if (nw && try_words(g, parts[i][0], parts[i] + 1, nw - 1, a, depth))
            return true;
    }
    return false;
}

static bool try_string(const struct cp_gate_pat *g, const char *text,
                       struct cp_arena *a, int depth)
{
    const char ***parts;
    size_t n = cp_gate_split(a, text, &parts);
    return try_parts(g, parts, n, a, depth);
}

/* Tries the words after index `j` of rest as a command of their own. */
static bool try_from(const struct cp_gate_pat *g, const char *const *rest,
                     size_t nrest, size_t j, struct cp_arena *a, int depth)
{
    if (j >= nrest)
        return false;
    return try_words(g, rest[j], rest + j + 1, nrest - j - 1, a, depth + 1);
}

static bool try_words(const struct cp_gate_pat *g, const char *first,
                      const char *const *rest, size_t nrest,
                      struct cp_arena *a, int depth)
{
    /* Each reading below is tried once per level and they exclude each
     * other (an assignment is no wrapper, a wrapper no shell), so the work
     * is linear in the line for each of the GATE_MAX_DEPTH levels. */
    const char *name = base_name(first);
    if (words_match(g, first, rest, nrest, a) ||
        (name != first && words_match(g, name, rest, nrest, a)))
        return true;
    if (depth >= GATE_MAX_DEPTH)
        return true; /* hostile nesting: strictest answer */
    if (is_assignment(first) || in_list(lead_words, first))
        return try_from(g, rest, nrest, 0, a, depth);

    for (size_t k = 0; k < sizeof wrappers / sizeof wrappers[0]; k++) {
        const struct wrapper *wr = &wrappers[k];
        if (strcmp(name, wr->name) != 0)
            continue;
        size_t j = 0;
        while (j < nrest && rest[j][0] == '-' && rest[j][1]) {
            if (strcmp(rest[j], "--") == 0) {
                j++;
                break;
            }
            j += in_list(wr->arg_opts, rest[j]) ? 2 : 1;
        }
        for (int s = 0; s < wr->skip && j < nrest; s++)
            j++;
        while (wr->assigns && j < nrest && is_assignment(rest[j]))
            j++;
        return try_from(g, rest, nrest, j, a, depth);
    }

    /* sh -c 'STRING' and eval ARGS: the string is a command line. */
    static const char *const shells[] = {"sh",  "bash", "dash", "zsh",
                                         "ksh", "mksh", "ash",  NULL};
    if (in_list(shells, name)) {
        bool c_opt = false;
        size_t j = 0;
        for (; j < nrest && rest[j][0] == '-' && rest[j][1]; j++) {
            if (strcmp(rest[j], "--") == 0) {
                j++;
                break;
            }
            if (rest[j][1] != '-' && strchr(rest[j] + 1, 'c'))
                c_opt = true;
            if (strcmp(rest[j], "-o") == 0 || strcmp(rest[j], "-O") == 0)
                j++; /* option name operand */
        }
        if (c_opt && j < nrest && try_string(g, rest[j], a, depth + 1))
            return true;
    }
    if (strcmp(name, "eval") == 0 && nrest > 0) {
        struct cp_buf b = {0};
        for (size_t j = 0; j < nrest; j++) {
            if (j)
                cp_buf_addc(&b, ' ');
            cp_buf_adds(&b, rest[j]);
        }
        const char *text = cp_arena_strndup(a, b.data, b.len);
        cp_buf_free(&b);
        if (try_string(g, text, a, depth + 1))
            return true;
    }
    return false;
}

bool cp_gate_matches_parts(const struct cp_gate_pat *g, const char *line,
                           const char ***parts, size_t nparts,
                           struct cp_arena *a)
{
    if (g->kind == CP_GATE_REGEX)
        return regexec(g->regex, line, 0, NULL, 0) == 0;
    if (g->nwords == 0 && g->trailing_any)
        return true; /* "*": every command line, even an empty one */
    return try_parts(g, parts, nparts, a, 0);
}

bool cp_gate_matches(const struct cp_gate_pat *g, const char *line,
                     struct cp_arena *a)
{
    if (g->kind == CP_GATE_REGEX)
        return regexec(g->regex, line, 0, NULL, 0) == 0;
    const char ***parts;
    size_t n = cp_gate_split(a, line, &parts);
    return cp_gate_matches_parts(g, line, parts, n, a);
}

/* ---- relations ---------------------------------------------------------- */

size_t cp_gate_literal_prefix(const struct cp_gate_pat *g)
{
    if (g->kind != CP_GATE_WORDS)
        return 0;
    size_t i = 0;
    while (i < g->nwords && !strchr(g->words[i], '*'))
        i++;
    return i;
}

enum cp_rel cp_gate_contains(const struct cp_gate_pat *outer,
                             const struct cp_gate_pat *inner)
{
    if (outer->kind == CP_GATE_REGEX || inner->kind == CP_GATE_REGEX)
        return CP_REL_MAY;
    size_t m = outer->nwords, n = inner->nwords;
    if (inner->trailing_any && !outer->trailing_any)
        return CP_REL_NO;
    if (outer->trailing_any ? m > n : m != n)
        return CP_REL_NO;
    enum cp_rel r = CP_REL_YES;
    for (size_t i = 0; i < m; i++) {
        int t = cp_match_word_contains(outer->words[i], inner->words[i]);
        if (t == 0)
            return CP_REL_NO;
        if (t < 0)
            r = CP_REL_MAY;
    }
    return r;
}

enum cp_rel cp_gate_overlaps(const struct cp_gate_pat *a,
                             const struct cp_gate_pat *b)
{
    if (a->kind == CP_GATE_REGEX || b->kind == CP_GATE_REGEX)
        return CP_REL_MAY;
    size_t m = a->nwords, n = b->nwords;
    if (!a->trailing_any && !b->trailing_any && m != n)
        return CP_REL_NO;
    if (!a->trailing_any && b->trailing_any && m < n)
        return CP_REL_NO;
    if (a->trailing_any && !b->trailing_any && n < m)
        return CP_REL_NO;
    size_t k = m < n ? m : n;
    enum cp_rel r = CP_REL_YES;
    for (size_t i = 0; i < k; i++) {
        int t = cp_match_word_overlaps(a->words[i], b->words[i]);
        if (t == 0)
            return CP_REL_NO;
        if (t < 0)
            r = CP_REL_MAY;
    }
    return r;
}

/* SPDX-License-Identifier: MIT */
/* Path patterns: parsing, matching, ordering, and the exact containment and
 * overlap relations (table of pairs plus a brute-force cross-check). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

/* "q:/a b" parses quoted. */
static struct cp_path P(const char *text) {
    struct cp_path p;
    size_t off;
    bool quoted = strncmp(text, "q:", 2) == 0;
    if (quoted)
        text += 2;
    const char *msg = cp_path_parse(ar, text, strlen(text), quoted, &p, &off);
    ck_assert_msg(msg == NULL, "parse '%s': %s", text, msg);
    return p;
}

/* ---- parsing ----------------------------------------------------------- */

START_TEST(parse_forms)
{
    struct cp_path p = P("/");
    ck_assert_ptr_null(p.root);
    ck_assert_uint_eq(p.nsegs, 0);
    ck_assert(!p.has_glob);

    p = P("//usr///lib//");
    ck_assert_ptr_null(p.root);
    ck_assert_uint_eq(p.nsegs, 2);
    ck_assert_uint_eq(p.segs[0].len, 3);
    ck_assert(memcmp(p.segs[0].s, "usr", 3) == 0);
    ck_assert(memcmp(p.segs[1].s, "lib", 3) == 0);
    ck_assert_int_eq(p.segs[1].kind, CP_SEG_LIT);

    p = P("~");
    ck_assert_ptr_eq(p.root, cp_arena_intern(ar, "HOME", 4));
    ck_assert_uint_eq(p.nsegs, 0);
    p = P("~/");
    ck_assert_ptr_eq(p.root, cp_arena_intern(ar, "HOME", 4));
    ck_assert_uint_eq(p.nsegs, 0);
    p = P("~/.ssh");
    ck_assert_str_eq(p.root, "HOME");
    ck_assert_uint_eq(p.nsegs, 1);

    p = P("${PROJECT}");
    ck_assert_ptr_eq(p.root, cp_arena_intern(ar, "PROJECT", 7));
    ck_assert_uint_eq(p.nsegs, 0);
    p = P("${_x9}/a//b/");
    ck_assert_str_eq(p.root, "_x9");
    ck_assert_uint_eq(p.nsegs, 2);

    p = P("/a/*/b?c/**/d");
    ck_assert(p.has_glob);
    ck_assert_uint_eq(p.nsegs, 5);
    ck_assert_int_eq(p.segs[0].kind, CP_SEG_LIT);
    ck_assert_int_eq(p.segs[1].kind, CP_SEG_GLOB);
    ck_assert_int_eq(p.segs[2].kind, CP_SEG_GLOB);
    ck_assert_uint_eq(p.segs[2].len, 3);
    ck_assert_int_eq(p.segs[3].kind, CP_SEG_ANY);
    ck_assert_int_eq(p.segs[4].kind, CP_SEG_LIT);

    /* quoted: globs and backslashes are literal bytes */
    p = P("q:/a b/c*/**/d\\e?");
    ck_assert(!p.has_glob);
    ck_assert_uint_eq(p.nsegs, 4);
    for (size_t i = 0; i < 4; i++)
        ck_assert_int_eq(p.segs[i].kind, CP_SEG_LIT);
    ck_assert_uint_eq(p.segs[0].len, 3);
    ck_assert(memcmp(p.segs[2].s, "**", 2) == 0);
    ck_assert(memcmp(p.segs[3].s, "d\\e?", 4) == 0);
    /* unquoted escapes: a segment left without globs is literal */
    p = P("/a/b\\*c/\\*\\*/x\\\\y");
    ck_assert(!p.has_glob);
    ck_assert_uint_eq(p.nsegs, 4);
    ck_assert_int_eq(p.segs[1].kind, CP_SEG_LIT);
    ck_assert_uint_eq(p.segs[1].len, 3);
    ck_assert(memcmp(p.segs[1].s, "b*c", 3) == 0);
    ck_assert_int_eq(p.segs[2].kind, CP_SEG_LIT);
    ck_assert(memcmp(p.segs[2].s, "**", 2) == 0);
    ck_assert_uint_eq(p.segs[3].len, 3);
    ck_assert(memcmp(p.segs[3].s, "x\\y", 3) == 0);
    p = P("/a/x\\?*");
    ck_assert(p.has_glob);
    ck_assert_int_eq(p.segs[1].kind, CP_SEG_GLOB);
    ck_assert_uint_eq(p.segs[1].len, 4);
    p = P("q:${HOME}/x y");
    ck_assert_str_eq(p.root, "HOME");
    p = P("/a$b/c$"); /* '$' not followed by '{' is a plain byte */
    ck_assert_uint_eq(p.nsegs, 2);
}
END_TEST

static const struct {
    const char *text;
    bool quoted;
    const char *msg;
    size_t off;
} parse_errors[] = {
    {"", false, "empty path", 0},
    {"a/b", false, "relative path", 0},
    {"./a", false, "relative path", 0},
    {"*", false, "relative path", 0},
    {"/a/./b", false, "'.' segment in path", 3},
    {"/a/..", false, "'..' segment in path", 3},
    {"/..", true, "'..' segment in path", 1},
    {"/a/\0b", false, "NUL byte in path", 3},
    {"~root/x", false, "'~user' paths are not supported (use '~/' or a param)",
     1},
    {"/a/${HOME}", false, "'${NAME}' is only allowed at the start of a path",
     3},
    {"/a/x${B}", true, "'${NAME}' is only allowed at the start of a path", 4},
    {"${1A}/x", false, "bad param name after '${'", 2},
    {"${}", false, "bad param name after '${'", 2},
    {"${A", false, "expected '}' after the param name", 3},
    {"${A-B}", false, "expected '}' after the param name", 3},
    {"${A}x", false, "expected '/' after '${NAME}'", 4},
    {"/a/b\\x", false,
     "backslash must be followed by '*', '?' or '\\' (quote the path to "
     "make it literal)",
     4},
    {"/a/b\\", false,
     "backslash must be followed by '*', '?' or '\\' (quote the path to "
     "make it literal)",
     4},
    {"/a/\\.", false,
     "backslash must be followed by '*', '?' or '\\' (quote the path to "
     "make it literal)",
     3},
    {"/a/x**", false, "'**' must be a whole segment", 3},
    {"/***", false, "'**' must be a whole segment", 1},
    {"/a/**b/c", false, "'**' must be a whole segment", 3},
};

START_TEST(parse_error)
{
    struct cp_path p;
    size_t off = 99;
    const char *t = parse_errors[_i].text;
    size_t len = strlen(t);
    if (strcmp(t, "/a/") == 0)
        len = 5; /* the NUL case: "/a/\0b" */
    const char *msg = cp_path_parse(ar, t, len, parse_errors[_i].quoted, &p,
                                    &off);
    ck_assert_ptr_nonnull(msg);
    ck_assert_str_eq(msg, parse_errors[_i].msg);
    ck_assert_uint_eq(off, parse_errors[_i].off);
}
END_TEST

START_TEST(parse_too_long)
{
    size_t n = CP_MAX_PATH_LEN + 1;
    char *t = malloc(n);
    memset(t, 'a', n);
    t[0] = '/';
    struct cp_path p;
    size_t off;
    ck_assert_str_eq(cp_path_parse(ar, t, n, false, &p, &off),
                     "path longer than 4096 bytes");
    ck_assert_uint_eq(off, CP_MAX_PATH_LEN);
    ck_assert_ptr_null(cp_path_parse(ar, t, n - 1, false, &p, &off));
    ck_assert_uint_eq(p.nsegs, 1);
    free(t);
}
END_TEST

/* ---- covers ------------------------------------------------------------ */

static bool covers(const char *pat, const char *root, const char *path)
{
    struct cp_path p = P(pat);
    return cp_path_covers(&p, root, path, strlen(path));
}

START_TEST(covers_cases)
{
    ck_assert(covers("/", NULL, "/"));
    ck_assert(covers("/", NULL, "/x/y"));
    ck_assert(covers("/a", NULL, "/a"));
    ck_assert(covers("/a", NULL, "/a/b/c"));
    ck_assert(!covers("/a", NULL, "/ab"));
    ck_assert(!covers("/a/b", NULL, "/a"));
    ck_assert(covers("/a/*.txt", NULL, "/a/x.txt"));
    ck_assert(covers("/a/*.txt", NULL, "/a/.txt"));
    ck_assert(covers("/a/*.txt", NULL, "/a/x.txt/inner"));
    ck_assert(!covers("/a/*.txt", NULL, "/a/b/x.txt"));
    ck_assert(covers("/a/?", NULL, "/a/b"));
    ck_assert(!covers("/a/?", NULL, "/a/bc"));
    ck_assert(covers("/**/.git", NULL, "/.git"));
    ck_assert(covers("/**/.git", NULL, "/r/s/.git/config"));
    ck_assert(!covers("/**/.git", NULL, "/r/s/.gitignore"));
    ck_assert(covers("/a/**/b", NULL, "/a/b"));
    ck_assert(covers("/a/**/b", NULL, "/a/x/y/b"));
    ck_assert(!covers("/a/**/b", NULL, "/a/x/y"));
    ck_assert(covers("/a/**", NULL, "/a"));
    ck_assert(!covers("/a/*", NULL, "/a"));
    ck_assert(covers("q:/a/*", NULL, "/a/*"));
    ck_assert(!covers("q:/a/*", NULL, "/a/b"));
    ck_assert(covers("/a/x\\?*", NULL, "/a/x?yz"));
    ck_assert(!covers("/a/x\\?*", NULL, "/a/xayz"));
    ck_assert(covers("/a/\\*", NULL, "/a/*"));
    ck_assert(!covers("/a/\\*", NULL, "/a/b"));
    ck_assert(!covers("/a", NULL, "a"));
    ck_assert(!covers("/a", NULL, ""));

    ck_assert(covers("~/.ssh", "/home/u", "/home/u/.ssh/id"));
    ck_assert(covers("~/.ssh", "/home/u/", "/home/u/.ssh"));
    ck_assert(!covers("~/.ssh", "/home/u", "/home/uu/.ssh"));
    ck_assert(!covers("~/.ssh", "/home/u", "/home/u"));
    ck_assert(covers("~", "/home/u", "/home/u"));
    ck_assert(!covers("~", "/home/u", "/home"));
    ck_assert(covers("${P}/x", "/", "/x/y"));
    ck_assert(!covers("${P}/x", NULL, "/x/y"));
}
END_TEST

/* ---- ordering ---------------------------------------------------------- */

START_TEST(cmp_and_prefix)
{
    struct cp_path a = P("/a/b"), b = P("/a/b/"), c = P("/a/*"),
                   d = P("/a/b/c"), e = P("~/a"), f = P("${PROJECT}/a"),
                   g = P("/a/**"), h = P("/a/ba");
    ck_assert_int_eq(cp_path_cmp(&a, &b), 0);
    ck_assert_int_lt(cp_path_cmp(&a, &c), 0); /* literal before glob */
    ck_assert_int_lt(cp_path_cmp(&c, &g), 0); /* glob before ** */
    ck_assert_int_lt(cp_path_cmp(&a, &d), 0); /* prefix first */
    ck_assert_int_lt(cp_path_cmp(&a, &h), 0);
    ck_assert_int_lt(cp_path_cmp(&d, &h), 0); /* segment-wise order */
    ck_assert_int_lt(cp_path_cmp(&a, &e), 0); /* absolute first */
    ck_assert_int_lt(cp_path_cmp(&e, &f), 0); /* then by root name */
    ck_assert_int_gt(cp_path_cmp(&f, &e), 0);
    ck_assert_uint_eq(cp_path_literal_prefix(&d), 3);
    ck_assert_uint_eq(cp_path_literal_prefix(&c), 1);
    struct cp_path r = P("/**/x");
    ck_assert_uint_eq(cp_path_literal_prefix(&r), 0);
}
END_TEST

START_TEST(bind)
{
    struct cp_path p = P("${PROJECT}/src/*.c"), out;
    ck_assert_ptr_null(cp_path_bind(ar, &p, "/home/u/proj", &out));
    ck_assert_ptr_null(out.root);
    ck_assert_uint_eq(out.nsegs, 5);
    ck_assert(out.has_glob);
    ck_assert(cp_path_covers(&out, NULL, "/home/u/proj/src/a.c", 20));
    ck_assert_ptr_null(cp_path_bind(ar, &p, "/", &out));
    ck_assert_uint_eq(out.nsegs, 2);
    ck_assert_ptr_nonnull(cp_path_bind(ar, &p, "rel/x", &out));
    ck_assert_ptr_nonnull(cp_path_bind(ar, &p, "/a/../b", &out));
}
END_TEST

/* ---- the relation table ------------------------------------------------ */

/* expect: contains(a,b), contains(b,a), overlaps(a,b) as Y/N/M; `param`
 * the param named by every M answer. */
static const struct {
    const char *a, *b, *expect, *param;
} rel_table[] = {
    /* literal */
    {"/a", "/a", "YYY", NULL},
    {"/a", "/a/b", "YNY", NULL},
    {"/a", "/b", "NNN", NULL},
    {"/a/b", "/a/c", "NNN", NULL},
    {"/", "/a/b", "YNY", NULL},
    {"/ab", "/a", "NNN", NULL},
    {"/a/b/c", "/a/b", "NYY", NULL},
    {"q:/a/*", "/a/*", "NYY", NULL},
    {"q:/a/**", "/a/b", "NNN", NULL},
    {"/a/\\*", "/a/*", "NYY", NULL},
    {"/a/x\\?*", "/a/x\\?", "YNY", NULL},
    {"/a/x\\?*", "/a/x?", "NNY", NULL},
    {"/a/x\\?*", "/a/x?*", "NYY", NULL},
    /* glob versus literal */
    {"/a/*", "/a/b", "YNY", NULL},
    {"/a/*", "/a", "NYY", NULL},
    {"/a/?", "/a/bc", "NNN", NULL},
    {"/a/b*", "/a/bcd", "YNY", NULL},
    {"/a/*.txt", "/a/x.txt", "YNY", NULL},
    {"/a/*.txt", "/a/x.md", "NNN", NULL},
    {"/**", "/x/y", "YNY", NULL},
    {"/**/b", "/a/b", "YNY", NULL},
    {"/**/b", "/a/c", "NNY", NULL},
    {"/a/**", "/a", "YYY", NULL},
    {"/a/**", "/a/b/**", "YNY", NULL},
    {"/*", "/a", "YNY", NULL},
    {"/*a*", "/a", "YNY", NULL},
    {"/a/*/c", "/a/b/c", "YNY", NULL},
    {"/a/**/b/**/c", "/a/b/c", "YNY", NULL},
    /* glob versus glob */
    {"/a/*", "/a/?", "YNY", NULL},
    {"/a/?*", "/a/*", "YYY", NULL},
    {"/a/??", "/a/?*", "NYY", NULL},
    {"/a/**", "/a/*", "YNY", NULL},
    {"/a/**/b", "/a/*/b", "YNY", NULL},
    {"/a/*.txt", "/a/b*", "NNY", NULL},
    {"/a/*.txt", "/a/*", "NYY", NULL},
    {"/**/x", "/a/**", "NNY", NULL},
    {"/*/b", "/a/*", "NNY", NULL},
    {"/*", "/**", "NYY", NULL},
    {"/**", "/", "YYY", NULL},
    {"/*/*", "/**/*/*", "YYY", NULL},
    {"/**/a/**", "/**/a", "YYY", NULL},
    {"/a*", "/*a", "NNY", NULL},
    {"/a*b", "/ab*", "NNY", NULL},
    {"/?", "/.*", "NNN", NULL},   /* only "." would be common */
    {"/.*", "/..*", "YNY", NULL}, /* ".." is no segment; "..a" is */
    {"/??", "/.*", "NNY", NULL},
    {"/?", "/*", "NYY", NULL},
    {"/**/*.c", "/src/*.c", "YNY", NULL},
    {"/src/**/*.c", "/src/*.c", "YNY", NULL},
    {"/src/**/*.c", "/**/lib/*.c", "NNY", NULL},
    {"/a/**/b", "/a/b/**", "YNY", NULL},
    {"/*/**", "/*", "YYY", NULL},
    {"/x/*", "/y/**", "NNN", NULL},
    {"/a/*/c", "/a/b/*", "NNY", NULL},
    {"/**/a", "/**/b", "NNY", NULL},
    {"/*a", "/*b", "NNN", NULL},
    {"/a?", "/?b", "NNY", NULL},
    {"/**/a?", "/**/?a", "NNY", NULL},
    {"/a/**", "/a/**/b", "YNY", NULL},
    {"/*/*/*", "/**/a/b/c", "YNY", NULL},
    {"/a/*/**", "/a/?*", "YYY", NULL},
    {"/a/*", "/a/*/b", "YNY", NULL},
    {"/x*y*z", "/x*z", "NYY", NULL},
    {"/?/?", "/*/*", "NYY", NULL},
    {"/**/a/*", "/**/*/a", "NNY", NULL},
    {"/a/b/**/c", "/a/*/x/**", "NNY", NULL},
    {"/**/**", "/**", "YYY", NULL},
    {"/*/**/*", "/?*/*/**", "YYY", NULL},
    {"/*.*", "/*.", "YNY", NULL},
    {"/.?", "/?.", "NNN", NULL}, /* only ".." would be common */
    /* roots and params */
    {"${PROJECT}/a", "${PROJECT}/a/b", "YNY", NULL},
    {"~/.ssh", "${HOME}/.ssh", "YYY", NULL},
    {"${PROJECT}/a", "~/a", "MMM", "HOME"},
    {"/", "${PROJECT}/x", "YNY", NULL},
    {"/home/**", "${PROJECT}/x", "MNM", "PROJECT"},
    {"~", "/etc", "MMM", "HOME"},
    {"/**/.ssh", "~/.ssh", "YNY", NULL},
    {"/*", "~/x", "YNY", NULL},
    {"/a", "~", "MMM", "HOME"},
    {"${A}/x/**", "${A}/x/y", "YNY", NULL},
    {"/**/x/**", "${P}/**/x", "YMY", "P"},
    {"/**/x", "${P}", "MMY", "P"},
    {"/a/*", "${P}/b", "MNM", "P"},
};

static char rel_char(enum cp_rel r)
{
    return r == CP_REL_YES ? 'Y' : r == CP_REL_NO ? 'N' : 'M';
}

START_TEST(rel_pairs)
{
    struct cp_path a = P(rel_table[_i].a), b = P(rel_table[_i].b);
    const char *p1 = "x", *p2 = "x", *p3 = "x";
    char got[4] = {rel_char(cp_path_contains(&a, &b, &p1)),
                   rel_char(cp_path_contains(&b, &a, &p2)),
                   rel_char(cp_path_overlaps(&a, &b, &p3)), 0};
    ck_assert_msg(strcmp(got, rel_table[_i].expect) == 0,
                  "'%s' vs '%s': got %s, want %s", rel_table[_i].a,
                  rel_table[_i].b, got, rel_table[_i].expect);
    const char *ps[3] = {p1, p2, p3};
    for (int k = 0; k < 3; k++) {
        if (got[k] == 'M')
            ck_assert_str_eq(ps[k], rel_table[_i].param);
        else
            ck_assert_ptr_null(ps[k]);
    }
    /* overlap is symmetric */
    const char *p4;
    ck_assert_int_eq(rel_char(cp_path_overlaps(&b, &a, &p4)), got[2]);
}
END_TEST

/* ---- brute force ------------------------------------------------------- */

/* An independent reference: naive recursive matching over segment lists. */
static bool ref_glob(const char *p, size_t pl, const char *s, size_t sl)
{
    if (pl == 0)
        return sl == 0;
    if (p[0] == '*')
        return ref_glob(p + 1, pl - 1, s, sl) ||
               (sl > 0 && ref_glob(p, pl, s + 1, sl - 1));
    if (sl == 0)
        return false;
    if (p[0] == '?' || p[0] == s[0])
        return ref_glob(p + 1, pl - 1, s + 1, sl - 1);
    return false;
}

/* Does some prefix of segs[j..n) match items[i..m)? */
static bool ref_seq(const struct cp_seg *it, size_t i, size_t m,
                    const char *const *segs, size_t j, size_t n)
{
    if (i == m)
        return true;
    if (it[i].kind == CP_SEG_ANY)
        return ref_seq(it, i + 1, m, segs, j, n) ||
               (j < n && ref_seq(it, i, m, segs, j + 1, n));
    if (j == n)
        return false;
    size_t sl = strlen(segs[j]);
    bool ok = it[i].kind == CP_SEG_LIT
                  ? (it[i].len == sl && memcmp(it[i].s, segs[j], sl) == 0)
                  : ref_glob(it[i].s, it[i].len, segs[j], sl);
    return ok && ref_seq(it, i + 1, m, segs, j + 1, n);
}

/* Concrete segments: every valid string of 1..3 bytes over {a, x, .}
 * ('x' stands for any byte no pattern names).  For the items of bf_items
 * this is a complete set of representatives: whether a segment matches an
 * item depends only on its length up to 3, its first, second and last
 * bytes and whether it holds an 'a', and every combination that a longer
 * segment shows is shown by one of these. */
static const char *bf_segs[40];
static size_t bf_nseg;

static void bf_init_segs(void)
{
    static char store[40][4];
    static const char al[3] = {'a', 'x', '.'};
    bf_nseg = 0;
    for (int len = 1; len <= 3; len++) {
        int tot = len == 1 ? 3 : len == 2 ? 9 : 27;
        for (int v = 0; v < tot; v++) {
            char *s = store[bf_nseg];
            int x = v;
            for (int k = 0; k < len; k++, x /= 3)
                s[k] = al[x % 3];
            s[len] = '\0';
            if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                continue;
            bf_segs[bf_nseg++] = s;
        }
    }
}
#define BF_NSEG bf_nseg
#define BF_DEPTH 3

struct bf {
    size_t npaths;
    const char *(*paths)[BF_DEPTH]; /* per path: its segments */
    size_t *depth;
};

static void bf_enum(struct bf *b)
{
    size_t total = 0, pw = 1;
    for (int d = 0; d <= BF_DEPTH; d++) {
        total += pw;
        pw *= BF_NSEG;
    }
    b->paths = malloc(total * sizeof *b->paths);
    b->depth = malloc(total * sizeof *b->depth);
    b->npaths = 0;
    for (int d = 0; d <= BF_DEPTH; d++) {
        size_t idx[BF_DEPTH] = {0};
        for (;;) {
            for (int k = 0; k < d; k++)
                b->paths[b->npaths][k] = bf_segs[idx[k]];
            b->depth[b->npaths++] = (size_t)d;
            int k = d - 1;
            while (k >= 0 && ++idx[k] == BF_NSEG)
                idx[k--] = 0;
            if (k < 0)
                break;
        }
    }
}

static uint64_t *bf_lang(const struct bf *b, const struct cp_path *p)
{
    uint64_t *bits = calloc((b->npaths + 63) / 64, sizeof *bits);
    for (size_t i = 0; i < b->npaths; i++)
        if (ref_seq(p->segs, 0, p->nsegs, b->paths[i], 0, b->depth[i]))
            bits[i / 64] |= (uint64_t)1 << (i % 64);
    return bits;
}

/* A second reference without a depth bound: breadth-first search over the
 * pattern positions reached by both patterns, one representative segment
 * at a time (patterns of at most 3 items).  Returns whether a path exists
 * with inner and not outer (what = 0) or with both (what = 1). */
static unsigned ref_close(const struct cp_path *p, unsigned set)
{
    for (size_t k = 0; k < p->nsegs; k++)
        if ((set >> k) & 1 && p->segs[k].kind == CP_SEG_ANY)
            set |= 1u << (k + 1);
    return set;
}

static unsigned ref_step(const struct cp_path *p, unsigned set, const char *s)
{
    unsigned next = 0;
    size_t sl = strlen(s);
    for (size_t k = 0; k < p->nsegs; k++) {
        if (!((set >> k) & 1))
            continue;
        const struct cp_seg *g = &p->segs[k];
        if (g->kind == CP_SEG_ANY)
            next |= 1u << k;
        else if (g->kind == CP_SEG_LIT
                     ? (g->len == sl && memcmp(g->s, s, sl) == 0)
                     : ref_glob(g->s, g->len, s, sl))
            next |= 1u << (k + 1);
    }
    return ref_close(p, next);
}

static bool ref_search(const struct cp_path *in, const struct cp_path *out,
                       int what)
{
    /* state: inner set (4 bits), inner accepted, outer set, outer accepted */
    static unsigned queue[1024];
    static bool seen[1024];
    memset(seen, 0, sizeof seen);
    size_t qh = 0, qt = 0;
    unsigned si = ref_close(in, 1), so = ref_close(out, 1);
    unsigned st = si | (unsigned)((si >> in->nsegs) & 1) << 4 | so << 5 |
                  (unsigned)((so >> out->nsegs) & 1) << 9;
    seen[st] = true;
    queue[qt++] = st;
    while (qh < qt) {
        st = queue[qh++];
        bool ai = (st >> 4) & 1, ao = (st >> 9) & 1;
        if (what == 0 && ai && !ao)
            return true;
        if (what == 1 && ai && ao)
            return true;
        if (what == 0 && ao)
            continue;
        for (size_t k = 0; k < BF_NSEG; k++) {
            unsigned ni = ref_step(in, st & 15, bf_segs[k]);
            unsigned no = ref_step(out, (st >> 5) & 15, bf_segs[k]);
            bool nai = ai || ((ni >> in->nsegs) & 1);
            bool nao = ao || ((no >> out->nsegs) & 1);
            unsigned ns = ni | (unsigned)nai << 4 | no << 5 |
                          (unsigned)nao << 9;
            if (!seen[ns]) {
                seen[ns] = true;
                queue[qt++] = ns;
            }
        }
    }
    return false;
}

static const char *const bf_items[] = {
    "a",  "aa", ".a", "a.", "..a", "*",  "?",  "a*", "*a", "?a", "a?",
    "??", ".*", "*.", "?*", "*a*", ".?", "**", "**", "*",  "a",
};

static uint32_t bf_rand(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void bf_pattern(uint32_t *seed, size_t maxitems, char *buf)
{
    size_t n = bf_rand(seed) % (maxitems + 1);
    buf[0] = '\0';
    if (n == 0)
        strcpy(buf, "/");
    for (size_t i = 0; i < n; i++) {
        strcat(buf, "/");
        strcat(
            buf,
            bf_items[bf_rand(seed) % (sizeof bf_items / sizeof bf_items[0])]);
    }
}

START_TEST(brute_force_same_root)
{
    struct bf b;
    bf_init_segs();
    bf_enum(&b);
    enum { NPAT = 90 };
    static char texts[NPAT][64];
    struct cp_path pats[NPAT];
    uint64_t *lang[NPAT];
    uint32_t seed = 20261201;
    static char longt[NPAT][160];
    char glob70[72] = "/";
    memset(glob70 + 1, '?', 70);
    glob70[71] = '\0';
    for (int i = 0; i < NPAT; i++) {
        bf_pattern(&seed, 3, texts[i]);
        snprintf(longt[i], sizeof longt[i], "%s%s", glob70,
                 strcmp(texts[i], "/") ? texts[i] : "");
        pats[i] = P(texts[i]);
        lang[i] = bf_lang(&b, &pats[i]);
    }
    size_t words = (b.npaths + 63) / 64;
    unsigned ncontain = 0, noverlap = 0, ndeep = 0;
    for (int i = 0; i < NPAT; i++) {
        for (int j = 0; j < NPAT; j++) {
            bool sub = true, meet = false;
            for (size_t w = 0; w < words; w++) {
                if (lang[j][w] & ~lang[i][w])
                    sub = false;
                if (lang[j][w] & lang[i][w])
                    meet = true;
            }
            /* the search has no depth bound; the enumeration is bounded,
             * so a counterexample it finds is final, a containment it
             * sees must be confirmed by the search */
            bool sub_all = !ref_search(&pats[j], &pats[i], 0);
            bool meet_all = ref_search(&pats[j], &pats[i], 1);
            ck_assert(sub_all ? sub : true);
            ck_assert(meet ? meet_all : true);
            const char *pr;
            enum cp_rel c = cp_path_contains(&pats[i], &pats[j], &pr);
            ck_assert_msg(c == (sub_all ? CP_REL_YES : CP_REL_NO),
                          "contains('%s', '%s') = %c, enumeration says %c, "
                          "search says %c",
                          texts[i], texts[j], rel_char(c), sub ? 'Y' : 'N',
                          sub_all ? 'Y' : 'N');
            enum cp_rel o = cp_path_overlaps(&pats[i], &pats[j], &pr);
            ck_assert_msg(o == (meet_all ? CP_REL_YES : CP_REL_NO),
                          "overlaps('%s', '%s') = %c, enumeration says %c, "
                          "search says %c",
                          texts[i], texts[j], rel_char(o), meet ? 'Y' : 'N',
                          meet_all ? 'Y' : 'N');
            ndeep += sub != sub_all || meet != meet_all;
            /* the same question behind one long glob segment takes the
             * multi-word engine (more than 64 states) */
            if ((i * NPAT + j) % 5 == 0) {
                struct cp_path li = P(longt[i]), lj = P(longt[j]);
                ck_assert_int_eq(cp_path_contains(&li, &lj, &pr), c);
                ck_assert_int_eq(cp_path_overlaps(&li, &lj, &pr), o);
            }
            ncontain += sub;
            noverlap += meet;
        }
    }
    /* the sample must exercise both answers */
    ck_assert_uint_gt(ncontain, NPAT);
    ck_assert_uint_lt(ncontain, NPAT * NPAT / 2);
    ck_assert_uint_gt(noverlap, ncontain);
    ck_assert_uint_lt(noverlap, NPAT * NPAT);
    if (getenv("CP_TEST_VERBOSE"))
        fprintf(stderr,
                "brute force: %u contain, %u overlap, %u beyond "
                "depth %d\n",
                ncontain, noverlap, ndeep, BF_DEPTH);
    for (int i = 0; i < NPAT; i++)
        free(lang[i]);
    free(b.paths);
    free(b.depth);
}
END_TEST

/* Param roots: compare the three-valued answer with the answers for
 * concrete bindings (each decided by the same-root procedure checked
 * above).  YES/NO must hold for every binding; MAY must have a binding of
 * each kind. */
static const char *const bf_root_segs[] = {"a", "aa", ".a", "a.", "..a", "x"};
#define BF_NRSEG (sizeof bf_root_segs / sizeof bf_root_segs[0])
#define BF_NROOT (1 + BF_NRSEG + BF_NRSEG * BF_NRSEG + 2)

static void bf_root(size_t i, char *buf)
{
    if (i == 0) {
        strcpy(buf, "/");
    } else if (i <= BF_NRSEG) {
        sprintf(buf, "/%s", bf_root_segs[i - 1]);
    } else if (i <= BF_NRSEG + BF_NRSEG * BF_NRSEG) {
        size_t k = i - 1 - BF_NRSEG;
        sprintf(buf, "/%s/%s", bf_root_segs[k / BF_NRSEG],
                bf_root_segs[k % BF_NRSEG]);
    } else {
        strcpy(buf, i == BF_NROOT - 1 ? "/x/x/x" : "/a/a/a");
    }
}

/* p with its root replaced by the parsed root r (segments in buf). */
static struct cp_path bf_bind(const struct cp_path *p, const struct cp_path *r,
                              struct cp_seg *buf)
{
    if (!p->root)
        return *p;
    struct cp_path out = {.segs = buf,
                          .nsegs = r->nsegs + p->nsegs,
                          .has_glob = p->has_glob};
    if (r->nsegs) /* segs may be NULL when empty: memcpy(NULL) is undefined */
        memcpy(buf, r->segs, r->nsegs * sizeof *buf);
    if (p->nsegs)
        memcpy(buf + r->nsegs, p->segs, p->nsegs * sizeof *buf);
    return out;
}

static enum cp_rel bound_rel(int what, const struct cp_path *a,
                             const struct cp_path *ra, const struct cp_path *b,
                             const struct cp_path *rb)
{
    struct cp_seg sa[16], sb[16];
    struct cp_path ba = bf_bind(a, ra, sa), bb = bf_bind(b, rb, sb);
    const char *pr;
    return what == 0 ? cp_path_contains(&ba, &bb, &pr)
                     : cp_path_overlaps(&ba, &bb, &pr);
}

static struct cp_path bf_rooted(const char *root, const char *t, char *buf)
{
    if (!root)
        strcpy(buf, t);
    else
        sprintf(buf, "${%s}%s", root, strcmp(t, "/") ? t : "");
    return P(buf);
}

START_TEST(brute_force_params)
{
    uint32_t seed = 4242;
    char ta[64], tb[64], sa[80], sb[80], rt[32];
    struct cp_path rp[BF_NROOT];
    for (size_t i = 0; i < BF_NROOT; i++) {
        bf_root(i, rt);
        rp[i] = P(rt);
    }
    static const char *const roots[3][2] = {{NULL, "P"},
                                            {"P", NULL},
                                            {"Q", "P"}};
    for (int n = 0; n < 240; n++) {
        bf_pattern(&seed, 2, ta);
        bf_pattern(&seed, 2, tb);
        int kind = n % 3;
        struct cp_path a = bf_rooted(roots[kind][0], ta, sa);
        struct cp_path b = bf_rooted(roots[kind][1], tb, sb);
        for (int what = 0; what < 2; what++) {
            for (int dir = 0; dir < 2; dir++) {
                const struct cp_path *x = dir ? &b : &a, *y = dir ? &a : &b;
                const char *pr = "?";
                enum cp_rel r = what == 0 ? cp_path_contains(x, y, &pr)
                                          : cp_path_overlaps(x, y, &pr);
                bool seen_yes = false, seen_no = false;
                for (size_t i = 0; i < BF_NROOT; i++) {
                    if (!x->root && i > 0)
                        break;
                    for (size_t j = 0; j < BF_NROOT; j++) {
                        if (!y->root && j > 0)
                            break;
                        enum cp_rel c = bound_rel(what, x, &rp[i], y, &rp[j]);
                        ck_assert(c != CP_REL_MAY);
                        seen_yes |= c == CP_REL_YES;
                        seen_no |= c == CP_REL_NO;
                    }
                }
                char want = seen_yes && seen_no ? 'M' : seen_yes ? 'Y' : 'N';
                ck_assert_msg(rel_char(r) == want,
                              "%s('%s', '%s') = %c, bindings say %c",
                              what ? "overlaps" : "contains", dir ? sb : sa,
                              dir ? sa : sb, rel_char(r), want);
                if (r == CP_REL_MAY)
                    ck_assert(pr && (pr == x->root || pr == y->root));
                else
                    ck_assert_ptr_null(pr);
            }
        }
    }
}
END_TEST

/* Long patterns take the general path with multi-word state sets. */
START_TEST(long_patterns)
{
    char a[1200], b[1200];
    strcpy(a, "");
    strcpy(b, "");
    for (int i = 0; i < 100; i++) {
        strcat(a, i % 7 == 3 ? "/**" : "/s*");
        strcat(b, "/s1");
    }
    struct cp_path pa = P(a), pb = P(b);
    const char *pr;
    ck_assert_int_eq(cp_path_contains(&pa, &pb, &pr), CP_REL_YES);
    ck_assert_int_eq(cp_path_contains(&pb, &pa, &pr), CP_REL_NO);
    ck_assert_int_eq(cp_path_overlaps(&pa, &pb, &pr), CP_REL_YES);
    strcat(b, "/**/t?");
    pb = P(b);
    ck_assert_int_eq(cp_path_contains(&pa, &pb, &pr), CP_REL_YES);
    ck_assert_int_eq(cp_path_overlaps(&pb, &pa, &pr), CP_REL_YES);
    char c[1200];
    strcpy(c, a);
    c[1] = 't';
    struct cp_path pc = P(c);
    ck_assert_int_eq(cp_path_overlaps(&pb, &pc, &pr), CP_REL_NO);
    ck_assert_int_eq(cp_path_contains(&pc, &pa, &pr), CP_REL_NO);
}
END_TEST

/* The subset construction is exponential on "**, a, then k stars" as the
 * outer pattern when the question needs every subset: the work is capped
 * and the answer is "unknown" (MAY without a param), never a guess. */
START_TEST(budget)
{
    char o[200] = "/**/a", in[200];
    for (int i = 0; i < 22; i++)
        strcat(o, "/*");
    strcpy(in, o);
    strcat(in, "/x");
    struct cp_path po = P(o), pi = P(in);
    const char *pr = "x";
    ck_assert_int_eq(cp_path_contains(&po, &pi, &pr), CP_REL_MAY);
    ck_assert_ptr_null(pr);
    /* the counterexample lies 23 segments deep behind a wide frontier */
    ck_assert_int_ne(cp_path_contains(&pi, &po, &pr), CP_REL_YES);
    ck_assert_int_eq(cp_path_overlaps(&po, &pi, &pr), CP_REL_YES);
    ck_assert_int_eq(cp_path_contains(&po, &po, &pr), CP_REL_YES);
}
END_TEST

Suite *cp_test_match_path_suite(void); /* collected by the Makefile */
Suite *cp_test_match_path_suite(void)
{
    Suite *s = suite_create("match_path");
    TCase *tc = tcase_create("parse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, parse_forms);
    tcase_add_loop_test(tc, parse_error, 0,
                        sizeof parse_errors / sizeof parse_errors[0]);
    tcase_add_test(tc, parse_too_long);
    tcase_add_test(tc, covers_cases);
    tcase_add_test(tc, cmp_and_prefix);
    tcase_add_test(tc, bind);
    suite_add_tcase(s, tc);

    tc = tcase_create("relations");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, rel_pairs, 0,
                        sizeof rel_table / sizeof rel_table[0]);
    tcase_add_test(tc, brute_force_same_root);
    tcase_add_test(tc, brute_force_params);
    tcase_add_test(tc, long_patterns);
    tcase_add_test(tc, budget);
    suite_add_tcase(s, tc);
    return s;
}

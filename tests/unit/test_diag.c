/* SPDX-License-Identifier: MIT */
/* Diagnostics: records, -W switches, -Werror, and the exact text rendering
 * (caret under the span, tabs copied, multi-line spans, notes, summary). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"
#include "sema.h"

static struct cp_arena *ar;
static struct cp_diags d;

static void setup(void)
{
    ar = cp_arena_new();
    cp_diags_init(&d);
}

static void teardown(void)
{
    cp_diags_free(&d);
    cp_arena_free(ar);
}

static const char *render(void)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cp_diags_render_text(&d, f);
    fclose(f);
    const char *r = cp_arena_strdup(ar, p);
    free(p);
    return r;
}

static struct cp_loc loc(const struct cp_source *s, unsigned l, unsigned c,
                         unsigned el, unsigned ec)
{
    struct cp_loc x = {s, l, c, el, ec};
    return x;
}

START_TEST(caret_under_span)
{
    const char *t = "confpol 1\n\n\n\n\n\nprofile confinded\n";
    const struct cp_source *s = cp_source_from_memory(ar, "policy.confpol", t,
                                                      strlen(t));
    struct cp_loc l = loc(s, 7, 9, 7, 17);
    cp_diag_report(&d, CP0201, &l, "unknown profile '%s'", "confinded");
    ck_assert_str_eq(
        render(),
        "policy.confpol:7:9: error: unknown profile 'confinded' [CP0201]\n"
        "    7 | profile confinded\n"
        "      |         ^~~~~~~~~\n"
        "1 error\n");
    ck_assert_uint_eq(cp_diag_errors(&d), 1);
}
END_TEST

START_TEST(tabs_are_copied)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t.confpol",
                                                      "\twrite\t/a /b\n", 13);
    struct cp_loc l = loc(s, 1, 8, 1, 9);
    cp_diag_report(&d, CP0201, &l, "x");
    ck_assert_str_eq(render(), "t.confpol:1:8: error: x [CP0201]\n"
                               "    1 | \twrite\t/a /b\n"
                               "      | \t     \t^~\n"
                               "1 error\n");
}
END_TEST

START_TEST(multi_line_span)
{
    const char *t = "deny write {\n    /a\n}\n";
    const struct cp_source *s = cp_source_from_memory(ar, "t.confpol", t,
                                                      strlen(t));
    struct cp_loc l = loc(s, 1, 1, 3, 1);
    cp_diag_report(&d, CP0201, &l, "x");
    ck_assert_str_eq(render(), "t.confpol:1:1: error: x [CP0201]\n"
                               "    1 | deny write {\n"
                               "      | ^~~~~~~~~~~~\n"
                               "    2 |     /a\n"
                               "      |     ~~\n"
                               "    3 | }\n"
                               "      | ~\n"
                               "1 error\n");
}
END_TEST

START_TEST(long_span_elided)
{
    const char *t = "deny write {\n/a\n/b\n/c\n}\n";
    const struct cp_source *s = cp_source_from_memory(ar, "t.confpol", t,
                                                      strlen(t));
    struct cp_loc l = loc(s, 1, 6, 5, 1);
    cp_diag_report(&d, CP0201, &l, "x");
    ck_assert_str_eq(render(), "t.confpol:1:6: error: x [CP0201]\n"
                               "    1 | deny write {\n"
                               "      |      ^~~~~~~\n"
                               "  ... |\n"
                               "    5 | }\n"
                               "      | ~\n"
                               "1 error\n");
}
END_TEST

START_TEST(caret_after_end_of_line)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t.confpol",
                                                      "write\n", 6);
    struct cp_loc l = loc(s, 1, 6, 1, 6);
    cp_diag_report(&d, CP0203, &l, "expected a path after 'write'");
    ck_assert_str_eq(
        render(),
        "t.confpol:1:6: error: expected a path after 'write' [CP0203]\n"
        "    1 | write\n"
        "      |      ^\n"
        "1 error\n");
}
END_TEST

START_TEST(wide_line_numbers)
{
    struct cp_buf b = {0};
    for (int i = 0; i < 12344; i++)
        cp_buf_addc(&b, '\n');
    cp_buf_adds(&b, "write x\n");
    const struct cp_source *s = cp_source_from_memory(ar, "t", b.data, b.len);
    cp_buf_free(&b);
    struct cp_loc l = loc(s, 12345, 7, 12345, 7);
    cp_diag_report(&d, CP0201, &l, "x");
    ck_assert_str_eq(render(), "t:12345:7: error: x [CP0201]\n"
                               " 12345 | write x\n"
                               "       |       ^\n"
                               "1 error\n");
}
END_TEST

START_TEST(control_bytes_echoed_as_question_marks)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t", "write /a\0b\n",
                                                      11);
    struct cp_loc l = loc(s, 1, 9, 1, 9);
    cp_diag_report(&d, CP0101, &l, "NUL byte in the source");
    ck_assert_str_eq(render(), "t:1:9: error: NUL byte in the source [CP0101]\n"
                               "    1 | write /a?b\n"
                               "      |         ^\n"
                               "1 error\n");
}
END_TEST

START_TEST(notes_and_suggestion)
{
    const char *t = "confpol 1\nconfpol 1\n";
    const struct cp_source *s = cp_source_from_memory(ar, "t.confpol", t,
                                                      strlen(t));
    struct cp_loc l = loc(s, 2, 1, 2, 7), h = loc(s, 1, 1, 1, 9);
    struct cp_diag *g = cp_diag_report(&d, CP0209, &l, "duplicate header");
    cp_diag_add_note(g, &h, "the header is here");
    cp_diag_add_note(g, NULL, "unlocated note");
    cp_diag_set_suggestion(g, "delete line %d", 2);
    ck_assert_str_eq(render(),
                     "t.confpol:2:1: error: duplicate header [CP0209]\n"
                     "    2 | confpol 1\n"
                     "      | ^~~~~~~\n"
                     "t.confpol:1:1: note: the header is here\n"
                     "    1 | confpol 1\n"
                     "      | ^~~~~~~~~\n"
                     "confpol: note: unlocated note\n"
                     "t.confpol:2:1: note: delete line 2\n"
                     "1 error\n");
}
END_TEST

START_TEST(summary_counts)
{
    cp_diag_report(&d, CP0301, NULL, "one");
    ck_assert_str_eq(render(), "confpol: error: one [CP0301]\n"
                               "1 error\n");
    cp_diag_report(&d, CP0301, NULL, "two");
    ck_assert_str_eq(render(), "confpol: error: one [CP0301]\n"
                               "confpol: error: two [CP0301]\n"
                               "2 errors\n");
    cp_diag_report(&d, CP0420, NULL, "w");
    ck_assert_str_eq(render(),
                     "confpol: error: one [CP0301]\n"
                     "confpol: error: two [CP0301]\n"
                     "confpol: warning: w [CP0420] [-Wdefaulted-profile]\n"
                     "2 errors, 1 warning\n");
    d.werror = true;
    cp_diag_report(&d, CP0420, NULL, "w2");
    ck_assert_str_eq(render(),
                     "confpol: error: one [CP0301]\n"
                     "confpol: error: two [CP0301]\n"
                     "confpol: warning: w [CP0420] [-Wdefaulted-profile]\n"
                     "confpol: error: w2 [CP0420] [-Werror=defaulted-profile]\n"
                     "3 errors, 1 warning\n");
}
END_TEST

START_TEST(code_tables)
{
    ck_assert_str_eq(cp_diag_code_id(CP0101), "CP0101");
    ck_assert_str_eq(cp_diag_code_name(CP0101), "nul-byte");
    ck_assert_int_eq(cp_diag_code_default(CP0304), CP_SEV_ERROR);
    ck_assert_str_eq(cp_diag_code_summary(CP0205),
                     "a '{' list not closed before the end of the file");
    /* Errors cannot be switched off. */
    ck_assert(!cp_diags_set_warning(&d, "nul-byte", false));
    ck_assert(!cp_diags_set_warning(&d, "no-such-warning", false));
}
END_TEST

/* Warnings: find any code whose default is a warning, so that the test does
 * not depend on one other phase's table. */
static int first_warning(void)
{
    for (int c = 0; c < CP_DIAG__COUNT; c++)
        if (cp_diag_code_default((enum cp_diag_code)c) == CP_SEV_WARNING)
            return c;
    return -1;
}

START_TEST(warning_switches)
{
    int w = first_warning();
    if (w < 0)
        return; /* no warning codes defined yet */
    enum cp_diag_code c = (enum cp_diag_code)w;
    const char *name = cp_diag_code_name(c);
    ck_assert_ptr_nonnull(cp_diag_report(&d, c, NULL, "w"));
    ck_assert_uint_eq(d.nwarnings, 1);
    ck_assert_uint_eq(d.nerrors, 0);
    ck_assert(cp_diags_set_warning(&d, name, false));
    ck_assert_ptr_null(cp_diag_report(&d, c, NULL, "w"));
    ck_assert_uint_eq(d.len, 1);
    ck_assert(cp_diags_set_warning(&d, name, true));
    d.werror = true;
    struct cp_diag *g = cp_diag_report(&d, c, NULL, "w");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->sev, CP_SEV_ERROR);
    ck_assert_uint_eq(d.nerrors, 1);
}
END_TEST

/* -W, -Wno- and -Werror= accept the code as well as the name; errors have
 * no switch. */
START_TEST(switch_by_code)
{
    ck_assert(cp_diags_set_warning(&d, "CP0502", false));
    ck_assert_int_eq(d.wstate[CP0502], -1);
    ck_assert(cp_diags_set_warning(&d, "cp0502", true));
    ck_assert_int_eq(d.wstate[CP0502], 1);
    ck_assert(cp_diags_set_werror(&d, "redundant"));
    ck_assert_int_eq(d.wstate[CP0502], 2);
    ck_assert(!cp_diags_set_warning(&d, "CP0202", false));
    ck_assert_ptr_null(cp_diag_code_flag(CP0202));
    ck_assert_str_eq(cp_diag_code_flag(CP0759), "claude-net-prompt");
    ck_assert_int_eq(cp_diag_code_lookup("CP0759"), CP0759);
    ck_assert_int_eq(cp_diag_code_lookup("claude-net-prompt"), CP0759);
    ck_assert_int_eq(cp_diag_code_lookup("nope"), -1);
    struct cp_diag *g = cp_diag_report(&d, CP0502, NULL, "r");
    ck_assert_int_eq(g->sev, CP_SEV_ERROR);
    ck_assert_str_eq(render(),
                     "confpol: error: r [CP0502] [-Werror=redundant]\n"
                     "1 error\n");
}
END_TEST

/* The same backend record under two targets is one record naming both;
 * another target's different message stays its own; errors are never
 * merged (a backend's error count decides whether it writes). */
START_TEST(dedupe_across_targets)
{
    const struct cp_source *s = cp_source_from_memory(
        ar, "t", "net allow *.github.com\n", 23);
    struct cp_loc l = loc(s, 1, 11, 1, 22);
    cp_diag_report(&d, CP0730, &l, "sbpl: cannot allow '%s'", "*.github.com");
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l, "bwrap: cannot allow '*.github.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l, "bwrap: cannot allow '*.github.com'"));
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0754, &l, "claude: cannot allow '*.github.com'"));
    cp_diag_report(&d, CP0701, &l, "sbpl: bad");
    cp_diag_report(&d, CP0701, &l, "bwrap: bad");
    ck_assert_uint_eq(d.nwarnings, 2);
    ck_assert_uint_eq(d.nerrors, 2);
    ck_assert_str_eq(d.items[0].msg,
                     "sbpl, bwrap: cannot allow '*.github.com'");
    /* Once printed, a repeat is dropped: the first text stands. */
    FILE *f = fopen("/dev/null", "w");
    cp_diags_flush_text(&d, f);
    fclose(f);
    ck_assert_ptr_null(cp_diag_report(&d, CP0754, &l,
                                      "landlock: cannot allow '*.github.com'"));
    ck_assert_uint_eq(d.nwarnings, 2);
}
END_TEST

/* Source order: by source (in the order sources first occur: b, a, then
 * none), line and column; records of one place in the order reported. */
START_TEST(sort_source_order)
{
    const struct cp_source *a = cp_source_from_memory(ar, "a", "x\n", 2);
    const struct cp_source *b = cp_source_from_memory(ar, "b", "x\n", 2);
    static const struct {
        int src; /* 0 a, 1 b, 2 none */
        unsigned line, col;
        const char *msg;
    } in[] = {
        {1, 5, 1, "b5"},  {0, 9, 2, "a9"}, {0, 3, 1, "a3"},  {2, 0, 0, "n"},
        {0, 9, 1, "a9c"}, {1, 2, 7, "b2"}, {0, 3, 1, "a3b"}, {1, 1, 1, "b1"},
    };
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        const struct cp_source *s = in[i].src == 0   ? a
                                    : in[i].src == 1 ? b
                                                     : NULL;
        struct cp_loc l = loc(s, in[i].line, in[i].col, in[i].line, in[i].col);
        cp_diag_report(&d, CP0706, s ? &l : NULL, "%s", in[i].msg);
    }
    cp_diags_sort(&d);
    const char *want[] = {"b1", "b2", "b5", "a3", "a3b", "a9c", "a9", "n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_str_eq(d.items[i].msg, want[i]);
    cp_diags_sort(&d); /* sorted already: unchanged */
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_str_eq(d.items[i].msg, want[i]);
}
END_TEST

/* Many records in random order, runs and reversed runs: sorted by source
 * (first occurrence), line, column, then the order reported, each once. */
START_TEST(sort_random)
{
    const struct cp_source *src[3] = {
        cp_source_from_memory(ar, "a", "x\n", 2),
        cp_source_from_memory(ar, "b", "x\n", 2),
        cp_source_from_memory(ar, "c", "x\n", 2),
    };
    enum { N = 5000 };
    const struct cp_source *order[3]; /* as the sources first occur */
    size_t norder = 0;
    unsigned seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        unsigned line = i < 1000   ? (unsigned)i          /* a run */
                        : i < 2000 ? (unsigned)(3000 - i) /* reversed */
                                   : r % 50;
        const struct cp_source *s = src[r % 3];
        bool known = false;
        for (size_t k = 0; k < norder; k++)
            known = known || order[k] == s;
        if (!known)
            order[norder++] = s;
        struct cp_loc l = loc(s, line + 1, (r >> 4) % 7 + 1, line + 1, 9);
        cp_diag_report(&d, CP0706, &l, "%d", i);
    }
    cp_diags_sort(&d);
    ck_assert_uint_eq(d.len, N);
    static bool seen[N];
    size_t block = 0;
    for (int i = 0; i < N; i++) {
        const struct cp_diag *q = &d.items[i];
        int seq = atoi(q->msg);
        ck_assert(!seen[seq]);
        seen[seq] = true;
        if (i > 0 && q->loc.src != d.items[i - 1].loc.src)
            block++;
        ck_assert_uint_lt(block, norder);
        ck_assert_ptr_eq(q->loc.src, order[block]);
        if (i == 0 || q->loc.src != d.items[i - 1].loc.src)
            continue;
        const struct cp_diag *p = &d.items[i - 1];
        ck_assert(p->loc.line < q->loc.line ||
                  (p->loc.line == q->loc.line &&
                   (p->loc.col < q->loc.col || (p->loc.col == q->loc.col &&
                                                atoi(p->msg) < atoi(q->msg)))));
    }
    ck_assert_uint_eq(block + 1, norder);
}
END_TEST

/* Records are told apart by their whole message, not only by its length:
 * while held (compared byte for byte) and once printed (by hash). */
START_TEST(dedupe_same_length)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t", "x\n", 2);
    struct cp_loc l = loc(s, 1, 1, 1, 1);
    cp_diag_report(&d, CP0730, &l, "sbpl: cannot allow 'a.com'");
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0730, &l, "bwrap: cannot allow 'b.com'"));
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0730, NULL, "bwrap: cannot allow 'a.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l, "bwrap: cannot allow 'a.com'"));
    ck_assert_str_eq(d.items[0].msg, "sbpl, bwrap: cannot allow 'a.com'");
    ck_assert_str_eq(d.items[1].msg, "bwrap: cannot allow 'b.com'");
    FILE *f = fopen("/dev/null", "w");
    cp_diags_flush_text(&d, f);
    fclose(f);
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0730, &l, "claude: cannot allow 'c.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l, "claude: cannot allow 'b.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l, "landlock: cannot allow 'c.com'"));
    ck_assert_uint_eq(d.nwarnings, 4);
}
END_TEST

/* A finding built by concatenation is cut to CP_CAT_MAX bytes, like the
 * formatted ones. */
START_TEST(report_cat_cut)
{
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    struct cp_diag *g = cp_diag_report_cat(&d, CP0730, NULL, "sbpl: '", big,
                                           "'", (char *)NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert_uint_eq(strlen(g->msg), CP_CAT_MAX);
    ck_assert(strncmp(g->msg, "sbpl: 'xxx", 10) == 0);
    ck_assert_int_eq(g->msg[CP_CAT_MAX - 1], 'x');
    g = cp_diag_report_cat(&d, CP0730, NULL, "bwrap: ", "a", "b", "c", "d", "e",
                           "f", "g", "h", "i", (char *)NULL);
    ck_assert_str_eq(g->msg, "bwrap: abcdefghi");
}
END_TEST

/* The index chains records per source line: lines far apart that share a
 * chain (past its 2^20 heads), and the same line of two sources, are told
 * apart; a repeat on either is still found. */
START_TEST(dedupe_lines_apart)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t", "x\n", 2);
    const struct cp_source *t = cp_source_from_memory(ar, "u", "x\n", 2);
    struct cp_loc l1 = loc(s, 3, 1, 3, 1);
    struct cp_loc l2 = loc(s, 3 + (1u << 20), 1, 3 + (1u << 20), 1);
    struct cp_loc l3 = loc(t, 3, 1, 3, 1);
    cp_diag_report(&d, CP0730, &l1, "sbpl: cannot allow 'a.com'");
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0730, &l2, "bwrap: cannot allow 'a.com'"));
    ck_assert_ptr_nonnull(
        cp_diag_report(&d, CP0730, &l3, "bwrap: cannot allow 'a.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l1, "bwrap: cannot allow 'a.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l2, "claude: cannot allow 'a.com'"));
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l3, "sbpl: cannot allow 'a.com'"));
    ck_assert_str_eq(d.items[0].msg, "sbpl, bwrap: cannot allow 'a.com'");
    ck_assert_str_eq(d.items[1].msg, "bwrap, claude: cannot allow 'a.com'");
    ck_assert_str_eq(d.items[2].msg, "bwrap, sbpl: cannot allow 'a.com'");
    ck_assert_uint_eq(d.nwarnings, 3);
}
END_TEST

/* Sorting the held records keeps them matched: a repeat reported after the
 * sort still names its target in the right record. */
START_TEST(dedupe_after_sort)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t", "x\ny\n", 4);
    struct cp_loc l1 = loc(s, 1, 1, 1, 1), l2 = loc(s, 2, 1, 2, 1);
    cp_diag_report(&d, CP0730, &l2, "sbpl: cannot allow 'b.com'");
    cp_diag_report(&d, CP0730, &l1, "sbpl: cannot allow 'a.com'");
    cp_diags_sort(&d);
    ck_assert_ptr_null(
        cp_diag_report(&d, CP0730, &l2, "bwrap: cannot allow 'b.com'"));
    ck_assert_str_eq(d.items[0].msg, "sbpl: cannot allow 'a.com'");
    ck_assert_str_eq(d.items[1].msg, "sbpl, bwrap: cannot allow 'b.com'");
}
END_TEST

/* Eleven warnings of one cause (the same code and message but for the
 * quoted parts) print the first and a count; --all-diagnostics prints all;
 * ten print all; errors are never grouped. */
START_TEST(grouping)
{
    for (int i = 0; i < 11; i++)
        cp_diag_report(&d, CP0706, NULL, "'/p/%d' cannot be renamed", i);
    cp_diag_report(&d, CP0706, NULL, "other cause");
    ck_assert_str_eq(render(),
                     "confpol: warning: '/p/0' cannot be renamed [CP0706] "
                     "[-Wfidelity-glob-expand]\n"
                     "confpol: note: and 10 more like this; --all-diagnostics "
                     "shows them\n"
                     "confpol: warning: other cause [CP0706] "
                     "[-Wfidelity-glob-expand]\n"
                     "12 warnings\n");
    d.all = true;
    const char *all = render();
    ck_assert_ptr_null(strstr(all, "more like this"));
    ck_assert_ptr_nonnull(strstr(all, "'/p/10'"));
    d.all = false;
    cp_diags_free(&d);
    cp_diags_init(&d);
    for (int i = 0; i < 10; i++)
        cp_diag_report(&d, CP0706, NULL, "'/p/%d' cannot be renamed", i);
    ck_assert_ptr_null(strstr(render(), "more like this"));
    cp_diags_free(&d);
    cp_diags_init(&d);
    for (int i = 0; i < 11; i++)
        cp_diag_report(&d, CP0202, NULL, "'x%d'", i);
    ck_assert_ptr_null(strstr(render(), "more like this"));
}
END_TEST

/* Causes of one code interleaved (more of them than the renderer remembers
 * per code), and the same text with and without a location, are counted
 * apart. */
START_TEST(grouping_interleaved)
{
    for (int i = 0; i < 11; i++)
        for (int c = 0; c < 6; c++)
            cp_diag_report(&d, CP0706, NULL, "'/p/%d' cause %d, '%d'", i, c, i);
    const struct cp_source *s = cp_source_from_memory(ar, "t", "x\n", 2);
    struct cp_loc l = loc(s, 1, 1, 1, 1);
    for (int i = 0; i < 3; i++)
        cp_diag_report(&d, CP0706, &l, "'/p/%d' cause 5, '%d'", i, i);
    const char *r = render();
    for (int c = 0; c < 6; c++) {
        char want[128];
        snprintf(want, sizeof want,
                 "confpol: warning: '/p/0' cause %d, '0' [CP0706] "
                 "[-Wfidelity-glob-expand]\n"
                 "confpol: note: and 10 more like this",
                 c);
        ck_assert_ptr_nonnull(strstr(r, want));
    }
    ck_assert_ptr_nonnull(strstr(r, "t:1:1: warning: '/p/2' cause 5, '2'"));
    ck_assert_ptr_null(strstr(r, "'/p/1' cause 3"));
}
END_TEST

/* 10,000 of one cause: the count is grouped by thousands. */
START_TEST(grouping_large_count)
{
    for (int i = 0; i < 10000; i++)
        cp_diag_report(&d, CP0706, NULL, "'/p/%d' cannot be renamed", i);
    ck_assert_str_eq(render(),
                     "confpol: warning: '/p/0' cannot be renamed [CP0706] "
                     "[-Wfidelity-glob-expand]\n"
                     "confpol: note: and 9,999 more like this; "
                     "--all-diagnostics shows them\n"
                     "10000 warnings\n");
}
END_TEST

/* --color: escapes around the locus, the severity, the caret and the
 * option; none without it. */
START_TEST(colour)
{
    const struct cp_source *s = cp_source_from_memory(ar, "t", "write x\n", 8);
    struct cp_loc l = loc(s, 1, 7, 1, 7);
    cp_diag_report(&d, CP0420, &l, "w");
    d.color = true;
    ck_assert_str_eq(
        render(), "\033[1mt:1:7: \033[0m\033[1;35mwarning:\033[0m w [CP0420] "
                  "[\033[1;35m-Wdefaulted-profile\033[0m]\n"
                  "    1 | write x\n"
                  "      |       \033[1;32m^\033[0m\n"
                  "1 warning\n");
}
END_TEST

/* Did you mean: the nearest word within the allowed edits, none beyond
 * them or for words of two bytes. */
START_TEST(nearest_words)
{
    static const char *const w[] = {"cooperative", "confined", "exclusive",
                                    "read",        "-D",       NULL};
    ck_assert_str_eq(cp_nearest_word("confinde", w), "confined");
    ck_assert_str_eq(cp_nearest_word("CONFINED", w), "confined");
    ck_assert_str_eq(cp_nearest_word("raed", w), "read");
    ck_assert_ptr_null(cp_nearest_word("rxyz", w));
    ck_assert_ptr_null(cp_nearest_word("-x", w));
    ck_assert_ptr_null(cp_nearest_word("inclusive-ish", w));
}
END_TEST

/* The offending byte of a regex regcomp rejected. */
START_TEST(regex_locate)
{
    ck_assert_uint_eq(cp_rx_locate("((", 2), 0);
    ck_assert_uint_eq(cp_rx_locate("git (push|pull", 14), 4);
    ck_assert_uint_eq(cp_rx_locate("a(b)(c", 6), 4);
    ck_assert_uint_eq(cp_rx_locate("[abc", 4), 0);
    ck_assert_uint_eq(cp_rx_locate("[]abc", 5), 0);
    ck_assert_uint_eq(cp_rx_locate("x[[:alpha:]", 11), 1);
    ck_assert_uint_eq(cp_rx_locate("*x", 2), 0);
    ck_assert_uint_eq(cp_rx_locate("a|+", 3), 2);
    ck_assert_uint_eq(cp_rx_locate("a**", 3), 2);
    ck_assert_uint_eq(cp_rx_locate("a{1,x}", 6), 4);
    ck_assert_uint_eq(cp_rx_locate("ab\\", 3), 2);
    ck_assert_uint_eq(cp_rx_locate("a)b", 3), 1);
    ck_assert_uint_eq(cp_rx_locate("[a]b(c)", 7), 7);
}
END_TEST

Suite *cp_test_diag_suite(void); /* collected by the Makefile */
Suite *cp_test_diag_suite(void)
{
    Suite *s = suite_create("diag");
    TCase *tc = tcase_create("text");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, caret_under_span);
    tcase_add_test(tc, tabs_are_copied);
    tcase_add_test(tc, multi_line_span);
    tcase_add_test(tc, long_span_elided);
    tcase_add_test(tc, caret_after_end_of_line);
    tcase_add_test(tc, wide_line_numbers);
    tcase_add_test(tc, control_bytes_echoed_as_question_marks);
    tcase_add_test(tc, notes_and_suggestion);
    tcase_add_test(tc, summary_counts);
    tcase_add_test(tc, code_tables);
    tcase_add_test(tc, warning_switches);
    tcase_add_test(tc, switch_by_code);
    tcase_add_test(tc, dedupe_across_targets);
    tcase_add_test(tc, dedupe_same_length);
    tcase_add_test(tc, dedupe_after_sort);
    tcase_add_test(tc, dedupe_lines_apart);
    tcase_add_test(tc, report_cat_cut);
    tcase_add_test(tc, sort_source_order);
    tcase_add_test(tc, sort_random);
    tcase_add_test(tc, grouping);
    tcase_add_test(tc, grouping_large_count);
    tcase_add_test(tc, grouping_interleaved);
    tcase_add_test(tc, colour);
    tcase_add_test(tc, nearest_words);
    tcase_add_test(tc, regex_locate);
    suite_add_tcase(s, tc);
    return s;
}

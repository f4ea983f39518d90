/* SPDX-License-Identifier: MIT */
/* The parser: AST dumps of every statement, comment attachment, recovery
 * (every syntax error of a file in one run), headers, includes, fmt. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confpol.h"

#include "ast.h"

static struct cp_ctx cx;

static void setup(void)
{
    cp_ctx_init(&cx);
}

static void teardown(void)
{
    cp_ctx_free(&cx);
}

static int parse(const char *text)
{
    return cp_parse_memory(&cx, "t.confpol", text, strlen(text));
}

static const char *dump(void)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cp_ast_dump(cx.ast, f);
    fclose(f);
    const char *r = cp_arena_strdup(cx.arena, p);
    free(p);
    return r;
}

/* "LINE:COL CODE" for every diagnostic, space-separated. */
static const char *codes(void)
{
    struct cp_buf b = {0};
    for (size_t i = 0; i < cx.diags.len; i++)
        cp_buf_printf(&b, "%s%u:%u %s", i ? " " : "",
                      cx.diags.items[i].loc.line, cx.diags.items[i].loc.col,
                      cp_diag_code_id(cx.diags.items[i].code));
    const char *r = cp_arena_strdup(cx.arena, b.data ? b.data : "");
    cp_buf_free(&b);
    return r;
}

static const char *fmt(void)
{
    struct cp_buf b = {0};
    cp_fmt_file(cx.ast, &b);
    const char *r = cp_arena_strdup(cx.arena, b.data ? b.data : "");
    cp_buf_free(&b);
    return r;
}

START_TEST(every_statement)
{
    ck_assert_int_eq(parse("confpol 1\n"
                           "profile confined\n"
                           "fail closed\n"
                           "param CACHE\n"
                           "let K = ~/.keys\n"
                           "write ${PROJECT} \"/a b\"\n"
                           "exec /usr/bin/git\n"
                           "deny read ~/.ssh\n"
                           "gate ask \"git push *\" re\"rm -rf\"\n"
                           "net allow example.com\n"
                           "net deny\n"
                           "expect deny read ~/.ssh/id\n"),
                     0);
    ck_assert_str_eq(
        dump(),
        "(file \"t.confpol\" (version 1 @1:1-1:9)\n"
        "  (profile @2:1-2:16 (word \"confined\" @2:9-2:16))\n"
        "  (fail @3:1-3:11 (word \"closed\" @3:6-3:11))\n"
        "  (param @4:1-4:11 (name \"CACHE\" @4:7-4:11))\n"
        "  (let @5:1-5:15 (name \"K\" @5:5-5:5) (bare \"~/.keys\" @5:9-5:15))\n"
        "  (write @6:1-6:23 (bare \"${PROJECT}\" @6:7-6:16) "
        "(quoted \"/a b\" @6:18-6:23))\n"
        "  (exec @7:1-7:17 (bare \"/usr/bin/git\" @7:6-7:17))\n"
        "  (deny @8:1-8:16 (word \"read\" @8:6-8:9) (bare \"~/.ssh\" "
        "@8:11-8:16))\n"
        "  (gate @9:1-9:32 (word \"ask\" @9:6-9:8) (quoted \"git push *\" "
        "@9:10-9:21) (regex \"rm -rf\" @9:23-9:32))\n"
        "  (net @10:1-10:21 (word \"allow\" @10:5-10:9) (bare \"example.com\" "
        "@10:11-10:21))\n"
        "  (net @11:1-11:8 (word \"deny\" @11:5-11:8))\n"
        "  (expect @12:1-12:26 (verdict \"deny\" @12:8-12:11) (access \"read\" "
        "@12:13-12:16) (bare \"~/.ssh/id\" @12:18-12:26)))\n");
}
END_TEST

START_TEST(braced_list_and_comments)
{
    ck_assert_int_eq(parse("# top\n"
                           "\n"
                           "confpol 1\n"
                           "\n"
                           "# about\n"
                           "deny write { # first\n"
                           "    /a # ta\n"
                           "    # lb\n"
                           "    /b\n"
                           "    # end\n"
                           "} # after\n"
                           "# tail\n"),
                     0);
    ck_assert_str_eq(
        dump(),
        "(file \"t.confpol\" (version 1 @3:1-3:9) (leading (comment \"# top\" "
        "@1:1-1:5))\n"
        "  (deny @6:1-11:1 braced (leading (comment \"# about\" @5:1-5:7)) "
        "(word \"write\" @6:6-6:10) (bare \"/a\" @7:5-7:6 (leading (comment "
        "\"# first\" @6:14-6:20)) (trailing (comment \"# ta\" @7:8-7:11))) "
        "(bare \"/b\" @9:5-9:6 (leading (comment \"# lb\" @8:5-8:8))) (inner "
        "(comment \"# end\" @10:5-10:9)) (trailing (comment \"# after\" "
        "@11:3-11:9)))\n"
        "  (trailing (comment \"# tail\" @12:1-12:6)))\n");
    ck_assert_uint_eq(cx.ast->stmts[0]->nleading, 1);
    ck_assert(cx.ast->stmts[0]->leading[0]->blank_before);
    ck_assert(cx.ast->header_blank_before);
}
END_TEST

START_TEST(semicolons_separate_statements)
{
    ck_assert_int_eq(parse("confpol 1; write /a; exec /b # c\n"), 0);
    ck_assert_uint_eq(cx.ast->nstmts, 2);
    ck_assert_ptr_null(cx.ast->stmts[0]->trailing);
    ck_assert_str_eq(cx.ast->stmts[1]->trailing->text, "# c");
}
END_TEST

START_TEST(last_line_without_newline)
{
    ck_assert_int_eq(parse("confpol 1\nwrite /a"), 0);
    ck_assert_uint_eq(cx.ast->nstmts, 1);
    ck_assert_uint_eq(cx.ast->stmts[0]->nargs, 1);
}
END_TEST

START_TEST(byte_order_mark_rejected)
{
    /* Reported once, then skipped: the rest of the file parses. */
    ck_assert_int_eq(parse("\xef\xbb\xbf"
                           "confpol 1\nwrite /a\n"),
                     1);
    ck_assert_str_eq(codes(), "1:1 CP0109");
    ck_assert_uint_eq(cx.ast->header.col, 4);
    ck_assert_uint_eq(cx.ast->stmts[0]->n.loc.col, 1);
}
END_TEST

START_TEST(recovery_reports_every_error)
{
    /* Three independent mistakes on lines 2, 4 and 6; the good statements
     * around them are kept. */
    ck_assert_int_eq(parse("confpol 1\n"
                           "wirte /a\n"
                           "write /ok1\n"
                           "deny\n"
                           "write /ok2\n"
                           "profile a b\n"
                           "write /ok3\n"),
                     3);
    ck_assert_str_eq(codes(), "2:1 CP0202 4:5 CP0203 6:11 CP0201");
    ck_assert_uint_eq(cx.ast->nstmts, 3);
    ck_assert_str_eq(cx.ast->stmts[2]->args[0]->text, "/ok3");
}
END_TEST

START_TEST(recovery_skips_braced_list)
{
    ck_assert_int_eq(parse("confpol 1\n"
                           "deny write {\n"
                           "  /a = /b\n"
                           "  /c\n"
                           "}\n"
                           "write /ok\n"
                           "exec\n"),
                     2);
    ck_assert_str_eq(codes(), "3:6 CP0201 7:5 CP0203");
    ck_assert_uint_eq(cx.ast->nstmts, 1);
}
END_TEST

START_TEST(lexical_error_reported_once)
{
    ck_assert_int_eq(parse("confpol 1\nwrite \"a\\q\" /b\nwrite /ok\n"), 1);
    ck_assert_str_eq(codes(), "2:9 CP0105");
    ck_assert_uint_eq(cx.ast->nstmts, 1);
}
END_TEST

START_TEST(missing_header)
{
    ck_assert_int_eq(parse("# c\n\nwrite /a\n"), 1);
    ck_assert_str_eq(codes(), "3:1 CP0207");
}
END_TEST

START_TEST(empty_file_missing_header)
{
    ck_assert_int_eq(parse(""), 1);
    ck_assert_str_eq(codes(), "1:1 CP0207");
}
END_TEST

START_TEST(wrong_version)
{
    ck_assert_int_eq(parse("confpol 2\nwrite /a\n"), 1);
    ck_assert_str_eq(codes(), "1:9 CP0208");
    ck_assert_uint_eq(cx.ast->version, 0);
}
END_TEST

START_TEST(header_after_statement)
{
    ck_assert_int_eq(parse("write /a\nconfpol 1\n"), 2);
    ck_assert_str_eq(codes(), "1:1 CP0207 2:1 CP0209");
}
END_TEST

START_TEST(error_limit)
{
    struct cp_buf b = {0};
    cp_buf_adds(&b, "confpol 1\n");
    for (int i = 0; i < 150; i++)
        cp_buf_adds(&b, "wirte /x\n");
    ck_assert_int_eq(cp_parse_memory(&cx, "t.confpol", b.data, b.len), 101);
    cp_buf_free(&b);
    ck_assert_uint_eq(cx.diags.items[99].code, CP0202);
    ck_assert_uint_eq(cx.diags.items[100].code, CP0210);
    ck_assert_uint_eq(cx.diags.items[100].loc.line, 101);
}
END_TEST

START_TEST(nested_braces_reported_once)
{
    ck_assert_int_eq(parse("confpol 1\ndeny write { { { /a } } ; }\n"), 1);
    ck_assert_str_eq(codes(), "2:14 CP0206");
}
END_TEST

START_TEST(empty_braces)
{
    ck_assert_int_eq(parse("confpol 1\nwrite { }\n"), 1);
    ck_assert_str_eq(codes(), "2:7 CP0204");
}
END_TEST

START_TEST(unclosed_brace)
{
    ck_assert_int_eq(parse("confpol 1\nwrite {\n/a\nwrite /b\n"), 1);
    ck_assert_str_eq(codes(), "2:7 CP0205");
}
END_TEST

START_TEST(fmt_canonical_layout)
{
    ck_assert_int_eq(parse("# policy\n"
                           "confpol   1\n"
                           "\n\n\n"
                           "write   /a    \"b c\";exec /x\n"
                           "deny read { /1 /2 /3 /4 /5 }\n"
                           "deny write { /1 /2 }\n"
                           "net allow {\n"
                           "  a.com # why\n"
                           "}\n"
                           "let   X=/y   # c\n"),
                     0);
    const char *want = "# policy\n"
                       "confpol 1\n"
                       "\n"
                       "write /a \"b c\"\n"
                       "exec /x\n"
                       "deny read {\n"
                       "    /1\n"
                       "    /2\n"
                       "    /3\n"
                       "    /4\n"
                       "    /5\n"
                       "}\n"
                       "deny write /1 /2\n"
                       "net allow {\n"
                       "    a.com # why\n"
                       "}\n"
                       "let X = /y # c\n";
    ck_assert_str_eq(fmt(), want);
    /* Idempotent. */
    cp_ctx_free(&cx);
    cp_ctx_init(&cx);
    ck_assert_int_eq(parse(want), 0);
    ck_assert_str_eq(fmt(), want);
}
END_TEST

/* ---- includes ---------------------------------------------------------- */

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void inc_setup(void)
{
    setup();
    strcpy(dir, "/tmp/confpol-parser-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void inc_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    teardown();
}

static int parse_main(const char *name)
{
    cx.main_path = cp_arena_printf(cx.arena, "%s/%s", dir, name);
    return cp_parse(&cx);
}

START_TEST(include_parsed_into_own_file)
{
    write_file("main.confpol", "confpol 1\ninclude \"sub/a.confpol\"\n");
    char p[128];
    snprintf(p, sizeof(p), "%s/sub", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    write_file("sub/a.confpol", "confpol 1\nwrite /a\n");
    ck_assert_int_eq(parse_main("main.confpol"), 0);
    const struct cp_file *inc = cx.ast->stmts[0]->included;
    ck_assert_ptr_nonnull(inc);
    ck_assert_uint_eq(inc->nstmts, 1);
    ck_assert_str_eq(inc->src->path,
                     cp_arena_printf(cx.arena, "%s/sub/a.confpol", dir));
    ck_assert_ptr_eq(inc->src->includer, cx.ast->src);
    ck_assert_uint_eq(inc->src->include_line, 2);
}
END_TEST

START_TEST(include_cycle_with_notes)
{
    write_file("a.confpol", "confpol 1\ninclude \"b.confpol\"\n");
    write_file("b.confpol", "confpol 1\n\ninclude \"a.confpol\"\n");
    ck_assert_int_eq(parse_main("a.confpol"), 1);
    ck_assert_str_eq(codes(), "3:9 CP0304");
    const struct cp_diag *g = &cx.diags.items[0];
    ck_assert_str_eq(g->loc.src->path,
                     cp_arena_printf(cx.arena, "%s/b.confpol", dir));
    ck_assert_uint_eq(g->nnotes, 1);
    ck_assert_uint_eq(g->notes[0].loc.line, 2);
    ck_assert_str_eq(g->notes[0].loc.src->path,
                     cp_arena_printf(cx.arena, "%s/a.confpol", dir));
}
END_TEST

START_TEST(self_include)
{
    write_file("a.confpol", "confpol 1\ninclude \"a.confpol\"\n");
    ck_assert_int_eq(parse_main("a.confpol"), 1);
    ck_assert_str_eq(codes(), "2:9 CP0304");
}
END_TEST

START_TEST(include_depth_limit)
{
    /* d0 includes d1 ... each file one deeper: the include that would
     * open file number CP_MAX_INCLUDE_DEPTH + 1 below the main file fails. */
    for (int i = 0; i <= CP_MAX_INCLUDE_DEPTH + 1; i++) {
        char name[32], text[64];
        snprintf(name, sizeof(name), "d%d.confpol", i);
        snprintf(text, sizeof(text), "confpol 1\ninclude \"d%d.confpol\"\n",
                 i + 1);
        write_file(name, text);
    }
    ck_assert_int_eq(parse_main("d0.confpol"), 1);
    ck_assert_uint_eq(cx.diags.items[0].code, CP0305);
    char want[128];
    snprintf(want, sizeof(want), "%s/d%d.confpol", dir, CP_MAX_INCLUDE_DEPTH);
    ck_assert_str_eq(cx.diags.items[0].loc.src->path, want);
}
END_TEST

START_TEST(main_file_missing)
{
    cx.main_path = "/nonexistent/confpol/x.confpol";
    ck_assert_int_eq(cp_parse(&cx), 1);
    ck_assert_ptr_null(cx.ast);
    ck_assert_uint_eq(cx.diags.items[0].code, CP0301);
    ck_assert_ptr_null(cx.diags.items[0].loc.src);
}
END_TEST

START_TEST(file_too_large)
{
    /* A sparse file one byte over the limit: rejected before reading. */
    write_file("big.confpol", "confpol 1\n");
    char p[128];
    snprintf(p, sizeof(p), "%s/big.confpol", dir);
    ck_assert_int_eq(truncate(p, (off_t)CP_MAX_FILE_SIZE + 1), 0);
    write_file("a.confpol", "confpol 1\ninclude \"big.confpol\"\n");
    ck_assert_int_eq(parse_main("a.confpol"), 1);
    ck_assert_str_eq(codes(), "2:9 CP0303");
}
END_TEST

START_TEST(no_includes_option)
{
    write_file("a.confpol", "confpol 1\ninclude \"missing.confpol\"\n");
    cx.opts.no_includes = true;
    ck_assert_int_eq(parse_main("a.confpol"), 0);
    ck_assert_ptr_null(cx.ast->stmts[0]->included);
}
END_TEST

Suite *cp_test_parser_suite(void); /* collected by the Makefile */
Suite *cp_test_parser_suite(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("ast");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, every_statement);
    tcase_add_test(tc, braced_list_and_comments);
    tcase_add_test(tc, semicolons_separate_statements);
    tcase_add_test(tc, last_line_without_newline);
    tcase_add_test(tc, byte_order_mark_rejected);
    tcase_add_test(tc, fmt_canonical_layout);
    suite_add_tcase(s, tc);
    tc = tcase_create("recovery");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, recovery_reports_every_error);
    tcase_add_test(tc, recovery_skips_braced_list);
    tcase_add_test(tc, lexical_error_reported_once);
    tcase_add_test(tc, missing_header);
    tcase_add_test(tc, empty_file_missing_header);
    tcase_add_test(tc, wrong_version);
    tcase_add_test(tc, header_after_statement);
    tcase_add_test(tc, empty_braces);
    tcase_add_test(tc, error_limit);
    tcase_add_test(tc, nested_braces_reported_once);
    tcase_add_test(tc, unclosed_brace);
    suite_add_tcase(s, tc);
    tc = tcase_create("include");
    tcase_add_checked_fixture(tc, inc_setup, inc_teardown);
    tcase_add_test(tc, include_parsed_into_own_file);
    tcase_add_test(tc, include_cycle_with_notes);
    tcase_add_test(tc, self_include);
    tcase_add_test(tc, include_depth_limit);
    tcase_add_test(tc, main_file_missing);
    tcase_add_test(tc, no_includes_option);
    tcase_add_test(tc, file_too_large);
    suite_add_tcase(s, tc);
    return s;
}

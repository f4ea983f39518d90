/* SPDX-License-Identifier: MIT */
/* The scanner: token kinds, exact byte locations, keywords only at the start
 * of a statement, newlines inside braces, lexical errors reported once. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "confpol.h"

#include "parser.h"
#include "lexer.h"

static struct cp_ctx cx;

static void setup(void)
{
    cp_ctx_init(&cx);
}

static void teardown(void)
{
    cp_ctx_free(&cx);
}

static const char *tok_name(int t)
{
    switch (t) {
    case NL:
        return "NL";
    case SEMI:
        return "SEMI";
    case LBRACE:
        return "LBRACE";
    case RBRACE:
        return "RBRACE";
    case EQ:
        return "EQ";
    case WORD:
        return "WORD";
    case STRING:
        return "STRING";
    case REGEX:
        return "REGEX";
    case KW_CONFPOL:
        return "CONFPOL";
    case KW_PROFILE:
        return "PROFILE";
    case KW_FAIL:
        return "FAIL";
    case KW_PARAM:
        return "PARAM";
    case KW_LET:
        return "LET";
    case KW_INCLUDE:
        return "INCLUDE";
    case KW_WRITE:
        return "WRITE";
    case KW_EXEC:
        return "EXEC";
    case KW_DENY:
        return "DENY";
    case KW_GATE:
        return "GATE";
    case KW_NET:
        return "NET";
    case KW_EXPECT:
        return "EXPECT";
    case CP_YYerror:
        return "ERROR";
    default:
        return "?";
    }
}

/* Lexes `text` (n bytes) and returns "KIND@l:c-l:c[=text] ..." for every
 * token up to the end of file. */
static const char *lex_n(const char *text, size_t n)
{
    const struct cp_source *src = cp_source_from_memory(cx.arena, "t.confpol",
                                                        text, n);
    struct cp_lex st;
    memset(&st, 0, sizeof(st));
    st.arena = cx.arena;
    st.diags = &cx.diags;
    st.src = src;
    st.line = st.col = 1;
    st.bol = true;
    st.last_end = (size_t)-1;
    yyscan_t sc;
    ck_assert_int_eq(cp_yylex_init_extra(&st, &sc), 0);
    YY_BUFFER_STATE b = cp_yy_scan_bytes(src->text, (int)src->len, sc);
    struct cp_buf out = {0};
    for (;;) {
        CP_YYSTYPE v;
        CP_YYLTYPE l;
        memset(&v, 0, sizeof(v));
        int t = cp_yylex(&v, &l, sc);
        if (t == END)
            break;
        if (out.len)
            cp_buf_addc(&out, ' ');
        cp_buf_printf(&out, "%s@%u:%u-%u:%u", tok_name(t), l.line, l.col,
                      l.end_line, l.end_col);
        if (t == WORD || t == STRING || t == REGEX)
            cp_buf_printf(&out, "=%.*s", (int)v.tok.len, v.tok.text);
    }
    cp_yy_delete_buffer(b, sc);
    cp_yylex_destroy(sc);
    const char *r = cp_arena_strdup(cx.arena, out.data ? out.data : "");
    cp_buf_free(&out);
    return r;
}

static const char *lex(const char *text)
{
    return lex_n(text, strlen(text));
}

static const char *diag0(void)
{
    ck_assert_uint_ge(cx.diags.len, 1);
    const struct cp_diag *g = &cx.diags.items[0];
    return cp_arena_printf(cx.arena, "%u:%u-%u:%u %s %s", g->loc.line,
                           g->loc.col, g->loc.end_line, g->loc.end_col,
                           cp_diag_code_id(g->code), g->msg);
}

START_TEST(header_and_statement)
{
    ck_assert_str_eq(lex("confpol 1\nwrite /a/b \"c d\"\n"),
                     "CONFPOL@1:1-1:7 WORD@1:9-1:9=1 NL@1:10-1:10 "
                     "WRITE@2:1-2:5 WORD@2:7-2:10=/a/b "
                     "STRING@2:12-2:16=c d NL@2:17-2:17");
    ck_assert_uint_eq(cx.diags.len, 0);
}
END_TEST

START_TEST(keywords_only_at_statement_start)
{
    /* 'write' after 'deny' is a word; 'deny' after ';' is a keyword. */
    ck_assert_str_eq(lex("deny write write; deny exec"),
                     "DENY@1:1-1:4 WORD@1:6-1:10=write WORD@1:12-1:16=write "
                     "SEMI@1:17-1:17 DENY@1:19-1:22 WORD@1:24-1:27=exec "
                     "NL@1:28-1:28");
}
END_TEST

START_TEST(braces_swallow_newlines)
{
    ck_assert_str_eq(lex("deny read {\n  /a # c\n\n  /b\n}\n"),
                     "DENY@1:1-1:4 WORD@1:6-1:9=read LBRACE@1:11-1:11 "
                     "WORD@2:3-2:4=/a WORD@4:3-4:4=/b RBRACE@5:1-5:1 "
                     "NL@5:2-5:2");
    ck_assert_uint_eq(cx.diags.len, 0);
}
END_TEST

START_TEST(blank_lines_and_comments_give_no_tokens)
{
    ck_assert_str_eq(lex("\n\n# c\n  \t\nnet deny # x\n\n"),
                     "NET@5:1-5:3 WORD@5:5-5:8=deny NL@5:13-5:13");
}
END_TEST

START_TEST(interpolation_is_part_of_a_word)
{
    ck_assert_str_eq(lex("write ${PROJECT}/a${X}b $x ~/.ssh"),
                     "WRITE@1:1-1:5 WORD@1:7-1:23=${PROJECT}/a${X}b "
                     "WORD@1:25-1:26=$x WORD@1:28-1:33=~/.ssh NL@1:34-1:34");
}
END_TEST

START_TEST(let_and_equals)
{
    ck_assert_str_eq(lex("let X=/a"), "LET@1:1-1:3 WORD@1:5-1:5=X EQ@1:6-1:6 "
                                      "WORD@1:7-1:8=/a NL@1:9-1:9");
}
END_TEST

START_TEST(strings_keep_raw_text)
{
    ck_assert_str_eq(lex("gate ask \"a \\\"b\\\" \\\\ \\x41\" re\"x\\\"y\""),
                     "GATE@1:1-1:4 WORD@1:6-1:8=ask "
                     "STRING@1:10-1:26=a \\\"b\\\" \\\\ \\x41 "
                     "REGEX@1:28-1:35=x\\\"y NL@1:36-1:36");
    ck_assert_uint_eq(cx.diags.len, 0);
}
END_TEST

START_TEST(tabs_count_one_byte)
{
    ck_assert_str_eq(lex("\twrite\t/a"),
                     "WRITE@1:2-1:6 WORD@1:8-1:9=/a NL@1:10-1:10");
}
END_TEST

START_TEST(utf8_columns_are_bytes)
{
    ck_assert_str_eq(lex("write /caf\xc3\xa9 /b"),
                     "WRITE@1:1-1:5 WORD@1:7-1:12=/caf\xc3\xa9 "
                     "WORD@1:14-1:15=/b NL@1:16-1:16");
    ck_assert_uint_eq(cx.diags.len, 0);
}
END_TEST

START_TEST(invalid_escape_at_backslash)
{
    ck_assert_str_eq(lex("write \"a\\qb\""),
                     "WRITE@1:1-1:5 ERROR@1:7-1:12 NL@1:13-1:13");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:9-1:10 CP0105 invalid escape '\\q' in a "
                              "quoted string; only \\\", \\\\ and \\xHH are "
                              "allowed");
}
END_TEST

START_TEST(bad_hex_escape)
{
    lex("write \"\\x4g\"");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:8-1:11 CP0105 invalid escape: '\\x' must be "
                              "followed by two hexadecimal digits");
}
END_TEST

START_TEST(unterminated_string_at_quote)
{
    ck_assert_str_eq(lex("write /a \"abc\nwrite /b\n"),
                     "WRITE@1:1-1:5 WORD@1:7-1:8=/a ERROR@1:10-1:13 "
                     "NL@1:14-1:14 WRITE@2:1-2:5 WORD@2:7-2:8=/b NL@2:9-2:9");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:10-1:10 CP0104 missing closing '\"' of this "
                              "string before the end of the line");
}
END_TEST

START_TEST(nul_byte_at_its_column)
{
    lex_n("write /ab\0c\n", 12);
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:10-1:10 CP0101 NUL byte in the source");
}
END_TEST

START_TEST(nul_byte_in_comment)
{
    lex_n("# a\0\n", 5);
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:4-1:4 CP0101 NUL byte in the source");
}
END_TEST

START_TEST(invalid_utf8)
{
    lex("write /a\xc3(");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:9-1:9 CP0103 invalid UTF-8 byte 0xc3; a "
                              "policy file must be UTF-8");
}
END_TEST

START_TEST(overlong_utf8_rejected)
{
    lex("# \xc0\xaf");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_uint_eq(cx.diags.items[0].code, CP0103);
    ck_assert_uint_eq(cx.diags.items[0].loc.col, 3);
}
END_TEST

START_TEST(control_character)
{
    lex("write /a\x1b[0m");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_uint_eq(cx.diags.items[0].code, CP0102);
    ck_assert_uint_eq(cx.diags.items[0].loc.col, 9);
}
END_TEST

START_TEST(unterminated_interpolation)
{
    ck_assert_str_eq(lex("write /a/${HOME"),
                     "WRITE@1:1-1:5 ERROR@1:7-1:15 NL@1:16-1:16");
    ck_assert_str_eq(diag0(), "1:10-1:11 CP0106 missing '}' after '${'");
}
END_TEST

START_TEST(missing_space_between_arguments)
{
    ck_assert_str_eq(lex("write /a\"b\""),
                     "WRITE@1:1-1:5 WORD@1:7-1:8=/a ERROR@1:9-1:11 "
                     "NL@1:12-1:12");
    ck_assert_str_eq(diag0(),
                     "1:9-1:11 CP0107 missing space before this argument");
}
END_TEST

START_TEST(unclosed_brace_at_eof)
{
    ck_assert_str_eq(lex("deny read {\n/a\n"),
                     "DENY@1:1-1:4 WORD@1:6-1:9=read LBRACE@1:11-1:11 "
                     "WORD@2:1-2:2=/a ERROR@3:1-3:1 NL@3:1-3:1");
    ck_assert_str_eq(diag0(),
                     "1:11-1:11 CP0205 missing '}' to close this list");
}
END_TEST

START_TEST(nested_brace)
{
    lex("deny read { { /a } }");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:13-1:13 CP0206 '{' inside a braced list; "
                              "lists do not nest");
}
END_TEST

START_TEST(semicolon_in_braces)
{
    lex("deny read { /a; /b }");
    ck_assert_uint_eq(cx.diags.len, 1);
    ck_assert_str_eq(diag0(), "1:15-1:15 CP0108 ';' inside a braced list; the "
                              "list ends at its '}'");
}
END_TEST

START_TEST(crlf_line_endings)
{
    ck_assert_str_eq(lex("confpol 1\r\nwrite /a # c\r\n# d\r\n"),
                     "CONFPOL@1:1-1:7 WORD@1:9-1:9=1 NL@1:11-1:11 "
                     "WRITE@2:1-2:5 WORD@2:7-2:8=/a NL@2:14-2:14");
    ck_assert_uint_eq(cx.diags.len, 0);
}
END_TEST

START_TEST(comments_recorded)
{
    const char *t = "confpol 1 # h\n# one  \nwrite /a # two\n";
    ck_assert_int_eq(cp_parse_memory(&cx, "t.confpol", t, strlen(t)), 0);
    ck_assert_ptr_nonnull(cx.ast);
    ck_assert_ptr_nonnull(cx.ast->header_trailing);
    ck_assert_str_eq(cx.ast->header_trailing->text, "# h");
    ck_assert_uint_eq(cx.ast->nstmts, 1);
    ck_assert_uint_eq(cx.ast->stmts[0]->nleading, 1);
    /* Trailing blanks are not part of a comment. */
    ck_assert_str_eq(cx.ast->stmts[0]->leading[0]->text, "# one");
    ck_assert_uint_eq(cx.ast->stmts[0]->leading[0]->loc.end_col, 5);
    ck_assert_str_eq(cx.ast->stmts[0]->trailing->text, "# two");
}
END_TEST

Suite *cp_test_lexer_suite(void); /* collected by the Makefile */
Suite *cp_test_lexer_suite(void)
{
    Suite *s = suite_create("lexer");
    TCase *tc = tcase_create("tokens");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, header_and_statement);
    tcase_add_test(tc, keywords_only_at_statement_start);
    tcase_add_test(tc, braces_swallow_newlines);
    tcase_add_test(tc, blank_lines_and_comments_give_no_tokens);
    tcase_add_test(tc, interpolation_is_part_of_a_word);
    tcase_add_test(tc, let_and_equals);
    tcase_add_test(tc, strings_keep_raw_text);
    tcase_add_test(tc, tabs_count_one_byte);
    tcase_add_test(tc, utf8_columns_are_bytes);
    tcase_add_test(tc, crlf_line_endings);
    tcase_add_test(tc, comments_recorded);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, invalid_escape_at_backslash);
    tcase_add_test(tc, bad_hex_escape);
    tcase_add_test(tc, unterminated_string_at_quote);
    tcase_add_test(tc, nul_byte_at_its_column);
    tcase_add_test(tc, nul_byte_in_comment);
    tcase_add_test(tc, invalid_utf8);
    tcase_add_test(tc, overlong_utf8_rejected);
    tcase_add_test(tc, control_character);
    tcase_add_test(tc, unterminated_interpolation);
    tcase_add_test(tc, missing_space_between_arguments);
    tcase_add_test(tc, unclosed_brace_at_eof);
    tcase_add_test(tc, nested_brace);
    tcase_add_test(tc, semicolon_in_braces);
    suite_add_tcase(s, tc);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* The project's one JSON reader and writer (util/json.h): the plain rules
 * the settings wiring reads with, the strict options of the gate's inputs
 * and the reason each refusal gives through the hook's input path, the
 * artifact's gate table and the early end of a bounded read; the compact
 * writer's exact bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "json.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

static const struct cp_json_opts strict = {.no_dup_keys = true, .no_nul = true};

static enum cp_json_err kind_of(const char *s, size_t len,
                                const struct cp_json_opts *o)
{
    struct cp_jnode *v;
    enum cp_json_err k;
    const char *err = cp_json_read(ar, s, len, o, &v, &k);
    ck_assert((err == NULL) == (k == CP_JSON_OK));
    ck_assert((v != NULL) == (k == CP_JSON_OK));
    return k;
}

/* n arrays nested in each other: "[[...]]". */
static char *nested(size_t n)
{
    char *s = cp_arena_alloc(ar, 2 * n + 1);
    memset(s, '[', n);
    memset(s + n, ']', n);
    return s;
}

/* ---- the reader --------------------------------------------------------- */

START_TEST(plain_rules_keep_settings_reading)
{
    /* A key twice and \u0000 are the settings wiring's to judge: the plain
     * reader keeps both, the NUL with its length. */
    struct cp_jnode *v;
    const char *s = "{\"a\":\"x\\u0000y\",\"a\":2}";
    ck_assert_ptr_null(cp_json_parse(ar, s, strlen(s), &v));
    ck_assert_uint_eq(v->n, 2);
    ck_assert_uint_eq(v->members[0].val->len, 3);
    ck_assert_int_eq(memcmp(v->members[0].val->s, "x\0y", 3), 0);
    bool dup;
    ck_assert_ptr_nonnull(cp_json_get(v, "a", &dup));
    ck_assert(dup);
    /* the same text under the strict options: refused, each for its reason */
    ck_assert_int_eq(kind_of(s, strlen(s), &strict), CP_JSON_E_NUL);
    s = "{\"a\":1,\"b\":{\"c\":1,\"c\":1}}";
    ck_assert_int_eq(kind_of(s, strlen(s), NULL), CP_JSON_OK);
    ck_assert_int_eq(kind_of(s, strlen(s), &strict), CP_JSON_E_DUP);
}
END_TEST

static const struct {
    const char *in;
    enum cp_json_err kind;
} kinds[] = {
    {"", CP_JSON_E_END},
    {"{\"a\":", CP_JSON_E_END},
    {"{\"a\":\"xy", CP_JSON_E_END},
    {"[1,", CP_JSON_E_END},
    {"\"\\u12", CP_JSON_E_END},
    {"{} x", CP_JSON_E_TRAILING},
    {"{}{}", CP_JSON_E_TRAILING},
    {"\xef\xbb\xbf{}", CP_JSON_E_SYNTAX}, /* byte order mark */
    {"\v{}", CP_JSON_E_SYNTAX},           /* whitespace: 4 bytes only */
    {"{\f}", CP_JSON_E_SYNTAX},
    {"[+1]", CP_JSON_E_SYNTAX},
    {"[01]", CP_JSON_E_SYNTAX},
    {"[.5]", CP_JSON_E_SYNTAX},
    {"[1.]", CP_JSON_E_SYNTAX},
    {"[1e]", CP_JSON_E_SYNTAX},
    {"[\"a\tb\"]", CP_JSON_E_SYNTAX},    /* raw control in a string */
    {"[\"\\ud800\"]", CP_JSON_E_SYNTAX}, /* lone surrogates */
    {"[\"\\udc00\"]", CP_JSON_E_SYNTAX},
    {"[\"\\ud800\\u0041\"]", CP_JSON_E_SYNTAX},
    {"[\"\\x41\"]", CP_JSON_E_SYNTAX},
    {"[True]", CP_JSON_E_SYNTAX},
    {"{'a':1}", CP_JSON_E_SYNTAX},
    {"[1,]", CP_JSON_E_SYNTAX},
    {"{\"a\":1,}", CP_JSON_E_SYNTAX},
    {"[\"\xff\"]", CP_JSON_E_UTF8},
    {"[\"\xc0\xaf\"]", CP_JSON_E_UTF8},         /* overlong '/' */
    {"[\"\xed\xa0\x80\"]", CP_JSON_E_UTF8},     /* an encoded surrogate */
    {"[\"\xf4\x90\x80\x80\"]", CP_JSON_E_UTF8}, /* above U+10FFFF */
    {"[\"\xe2\x82\"]", CP_JSON_E_UTF8},         /* cut short */
    {"[\"\\u0000\"]", CP_JSON_E_NUL},
    {"{\"\\u0000\":1}", CP_JSON_E_NUL},
    {"{\"a\":1,\"a\":1}", CP_JSON_E_DUP},
    {"{\"a\":1,\"\\u0061\":1}", CP_JSON_E_DUP}, /* equal once decoded */
    {"[{\"k\":[{\"x\":0,\"y\":0,\"x\":0}]}]", CP_JSON_E_DUP},
    {"{\"\\u00e9\":1,\"\xc3\xa9\":1}", CP_JSON_E_DUP}, /* escaped or not */
    {"{\"a\":1,\"A\":1,\"a \":1,\"\\u00e9\":1,\"e\":1}", CP_JSON_OK},
    {"[\"\\\\u0000\"]", CP_JSON_OK}, /* an escaped backslash, then "u0000" */
    {"{\"\\ud83d\\udd11\":[-0.5e+3,0,true,false,null]}", CP_JSON_OK},
};

START_TEST(strict_kinds)
{
    const char *s = kinds[_i].in;
    size_t len = strlen(s);
    ck_assert_msg(kind_of(s, len, &strict) == kinds[_i].kind,
                  "%s: kind %d, want %d", s, (int)kind_of(s, len, &strict),
                  (int)kinds[_i].kind);
}
END_TEST

START_TEST(strict_limits)
{
    /* 256 levels are read, 257 are not (with or without options) */
    ck_assert_int_eq(kind_of(nested(256), 512, &strict), CP_JSON_OK);
    ck_assert_int_eq(kind_of(nested(257), 514, &strict), CP_JSON_E_DEPTH);
    ck_assert_int_eq(kind_of(nested(257), 514, NULL), CP_JSON_E_DEPTH);
    /* the size limit counts every byte, whitespace included */
    struct cp_json_opts o = strict;
    o.max_bytes = 4;
    ck_assert_int_eq(kind_of("[1] ", 4, &o), CP_JSON_OK);
    ck_assert_int_eq(kind_of("[1]  ", 5, &o), CP_JSON_E_SIZE);
    /* a key twice among many: found in linear time, at its second place */
    enum { N = 200000 };
    struct cp_buf b = {0};
    cp_buf_addc(&b, '{');
    for (int i = 0; i < N; i++)
        cp_buf_printf(&b, "%s\"k%d\":0", i ? "," : "", i);
    cp_buf_adds(&b, ",\"k123456\":1}");
    struct cp_jnode *v;
    clock_t t0 = clock();
    const char *err = cp_json_read(ar, b.data, b.len, &strict, &v, NULL);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, "duplicate key at byte ") != NULL, "%s", err);
    ck_assert_int_eq(atol(strstr(err, "byte ") + 5), (long)b.len - 12);
    ck_assert_msg(clock() - t0 < 2 * CLOCKS_PER_SEC, "duplicate check is slow");
    cp_buf_free(&b);
}
END_TEST

/* ---- through the hook's input path (exact reasons) ----------------------- */

static const char *gate_parse(const char *s, size_t len)
{
    struct cp_gate_input in;
    return cp_gate_parse_input(ar, s, len, &in);
}

#define BASH(rest)                                                             \
    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"" rest "}}"

/* Inputs a reader that is not strict would pass to the decision: every one
 * is malformed input, with its reason (spec/gate.md). */
static const struct {
    const char *in;
    const char *err;
} gate_bad[] = {
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
     "\"session_id\":\"a\",\"session_id\":\"b\"}",
     "input has a duplicate key"},
    {BASH(",\"x\":{\"a\":1,\"a\":2}"), "input has a duplicate key"},
    {BASH(",\"description\":\"a\",\"description\":\"b\""),
     "input has a duplicate key"},
    {"{\"tool_name\":\"Write\",\"tool_input\":{\"content\":\"a\",\"content\":"
     "\"b\"}}",
     "input has a duplicate key"},
    {"{\"tool_name\":\"MultiEdit\",\"tool_input\":{\"edits\":[{\"new_string\":"
     "\"a\","
     "\"new_string\":\"b\"}]}}",
     "input has a duplicate key"},
    {BASH(",\"a\\u0000b\":1"), "input contains an escaped NUL character"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xff\"}}",
     "input is not valid UTF-8"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \xc0\xaf\"}}",
     "input is not valid UTF-8"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls "
     "\xed\xa0\x80\"}}",
     "input is not valid UTF-8"},
    {"\xef\xbb\xbf" BASH(""), "input is not JSON"},
    {"\v" BASH(""), "input is not JSON"},
    {BASH(",\"timeout\":+1"), "input is not JSON"},
    {BASH(",\"timeout\":01"), "input is not JSON"},
    {BASH(",\"timeout\":1."), "input is not JSON"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\nrm -rf /\"}}",
     "input is not JSON"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls \\ud800\"}}",
     "input is not JSON"},
    {BASH("") " x", "input has data after the JSON value"},
};

START_TEST(gate_input_strict)
{
    const char *err = gate_parse(gate_bad[_i].in, strlen(gate_bad[_i].in));
    ck_assert_msg(err != NULL, "accepted %s", gate_bad[_i].in);
    ck_assert_str_eq(err, gate_bad[_i].err);
}
END_TEST

START_TEST(gate_input_limits)
{
    /* nesting: 256 levels in total are read, one more is not */
    struct cp_buf b = {0};
    cp_buf_adds(&b, BASH(",\"x\":"));
    b.len -= 2; /* before the closing "}}" */
    cp_buf_adds(&b, nested(254));
    cp_buf_adds(&b, "}}");
    ck_assert_ptr_null(gate_parse(b.data, b.len));
    b.len = 0;
    cp_buf_adds(&b, BASH(",\"x\":"));
    b.len -= 2;
    cp_buf_adds(&b, nested(255));
    cp_buf_adds(&b, "}}");
    ck_assert_str_eq(gate_parse(b.data, b.len),
                     "input is nested deeper than 256 levels");
    /* size: the reader's limit is the gate's, also when called directly */
    b.len = 0;
    cp_buf_adds(&b, "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"");
    while (b.len < CP_GATE_MAX_INPUT - 4)
        cp_buf_addc(&b, 'x');
    cp_buf_adds(&b, "\"}}");
    ck_assert_uint_eq(b.len, CP_GATE_MAX_INPUT - 1);
    ck_assert_ptr_null(gate_parse(b.data, b.len));
    cp_buf_addc(&b, ' ');
    ck_assert_ptr_null(gate_parse(b.data, b.len));
    cp_buf_addc(&b, ' ');
    ck_assert_str_eq(gate_parse(b.data, b.len), "input larger than 1 MiB");
    cp_buf_free(&b);
}
END_TEST

/* The command and texts come from the strict tree unchanged. */
START_TEST(gate_input_values)
{
    struct cp_gate_input in;
    const char *s = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
                    "\"echo \\u00e9\\ud83d\\udd11 \\\"q\\\" \\\\u0000\"}}";
    ck_assert_ptr_null(cp_gate_parse_input(ar, s, strlen(s), &in));
    ck_assert_str_eq(in.command, "echo \xc3\xa9\xf0\x9f\x94\x91 \"q\" \\u0000");
    s = "{\"tool_name\":\"MultiEdit\",\"tool_input\":{\"file_path\":\"/"
        "x\",\"edits\":[{\"new_"
        "string\":"
        "\"a\"},{\"new_string\":\"bc\"}]}}";
    ck_assert_ptr_null(cp_gate_parse_input(ar, s, strlen(s), &in));
    ck_assert_uint_eq(in.ntexts, 2);
    ck_assert_str_eq(in.texts[1].field, "edits[1].new_string");
    ck_assert_str_eq(in.texts[1].text, "bc");
    ck_assert_uint_eq(in.texts[1].len, 2);
}
END_TEST

/* ---- the artifact's gate table ------------------------------------------ */

#define TABLE(extra)                                                           \
    "{\"confpol\":{\"version\":1,\"stem\":\"t\",\"failClosed\":true," extra    \
    "\"gates\":[{\"id\":\"gate#1\",\"verdict\":\"ask\",\"kind\":\"words\","    \
    "\"pattern\":\"sudo *\",\"where\":\"t.confpol:3\"}]}}"

START_TEST(gate_table_strict)
{
    struct cp_gate_table t;
    const char *s = TABLE("");
    ck_assert_ptr_null(cp_gate_table_parse(ar, s, strlen(s), &t));
    ck_assert_uint_eq(t.ngates, 1);
    cp_gate_table_free(&t);
    s = TABLE("\"failClosed\":false,");
    ck_assert_str_eq(cp_gate_table_parse(ar, s, strlen(s), &t),
                     "artifact has a duplicate key");
    s = TABLE("\"x\\u0000\":1,");
    ck_assert_str_eq(cp_gate_table_parse(ar, s, strlen(s), &t),
                     "artifact contains an escaped NUL character");
    s = TABLE("") "x";
    ck_assert_str_eq(cp_gate_table_parse(ar, s, strlen(s), &t),
                     "artifact is not JSON");
    s = "{\"confpol\":{\"version\":1.0,\"stem\":\"t\",\"failClosed\":false,"
        "\"gates\":[]}}";
    ck_assert_ptr_null(cp_gate_table_parse(ar, s, strlen(s), &t));
    ck_assert(!t.fail_closed);
    s = "{\"confpol\":{\"version\":\"1\",\"stem\":\"t\",\"failClosed\":false,"
        "\"gates\":[]}}";
    ck_assert_str_eq(cp_gate_table_parse(ar, s, strlen(s), &t),
                     "gate table version is not 1");
}
END_TEST

/* ---- bounded reading: bytes that cannot become JSON end the read -------- */

START_TEST(read_stops_at_permanent_error)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    const char *s = BASH(",\"a\":1,\"a\":2");
    ck_assert_int_eq(write(p[1], s, strlen(s)), (ssize_t)strlen(s));
    struct cp_buf b = {0};
    /* the writer stays open: no wait for the time limit */
    time_t w0 = time(NULL);
    ck_assert_int_eq(cp_gate_read_input(p[0], 1024, 5000, &b), CP_GATE_RD_OK);
    ck_assert(time(NULL) - w0 <= 2);
    ck_assert_str_eq(gate_parse(b.data, b.len), "input has a duplicate key");
    cp_buf_free(&b);
    close(p[0]);
    close(p[1]);
}
END_TEST

/* ---- the compact writer ------------------------------------------------- */

START_TEST(writer_bytes)
{
    struct cp_buf b = {0};
    struct cp_jw w = {.b = &b};
    cp_jw_open(&w, '{');
    cp_jw_kint(&w, "n", -12);
    cp_jw_kstr(&w, "s", "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xc3\xa9");
    cp_jw_kstr(&w, "none", NULL);
    cp_jw_key(&w, "a");
    cp_jw_open(&w, '[');
    cp_jw_open(&w, '[');
    cp_jw_close(&w, ']');
    cp_jw_open(&w, '{');
    cp_jw_close(&w, '}');
    cp_jw_bool(&w, true);
    cp_jw_bool(&w, false);
    cp_jw_null(&w);
    cp_jw_str(&w, "");
    cp_jw_close(&w, ']');
    cp_jw_close(&w, '}');
    ck_assert_str_eq(
        b.data, "{\"n\":-12,\"s\":\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f"
                "\x7f\xc3\xa9\",\"none\":null,\"a\":[[],{},true,false,null,"
                "\"\"]}");
    /* what it writes, the reader reads back */
    struct cp_jnode *v;
    ck_assert_ptr_null(cp_json_read(ar, b.data, b.len, &strict, &v, NULL));
    ck_assert(cp_json_str_is(cp_json_get(v, "s", NULL),
                             "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xc3\xa9", 16));
    cp_buf_free(&b);
}
END_TEST

/* The one string writer: the same escapes and the same U+FFFD for bytes
 * that are not UTF-8 in both forms (a stray continuation byte, an overlong
 * form, a surrogate, a cut sequence, above U+10FFFF), and what it writes
 * the strict reader accepts. */
START_TEST(quote_forms)
{
    static const char in[] = "a\"\\\b\x01\x7f\xc3\xa9\xf0\x9f\x98\x80"
                             "\x80\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82";
    size_t n = sizeof in - 1;
    struct cp_buf a = {0}, u = {0};
    cp_json_quote(&a, in, n);
    cp_json_quote_utf8(&u, in, n);
    ck_assert_str_eq(a.data, "\"a\\\"\\\\\\b\\u0001\x7f\\u00e9\\ud83d\\ude00"
                             "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
                             "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
    ck_assert_str_eq(u.data, "\"a\\\"\\\\\\b\\u0001\x7f\xc3\xa9\xf0\x9f\x98\x80"
                             "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
                             "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
    struct cp_jnode *va, *vu;
    ck_assert_ptr_null(cp_json_read(ar, a.data, a.len, &strict, &va, NULL));
    ck_assert_ptr_null(cp_json_read(ar, u.data, u.len, &strict, &vu, NULL));
    ck_assert(cp_json_equal(va, vu));
    cp_buf_free(&a);
    cp_buf_free(&u);
}
END_TEST

/* Reading in place gives the tree and the refusal that reading with
 * copies gives: escapes of every length, surrogate pairs, strings after
 * strings (each NUL lands on a closing quote already read), keys, and
 * errors met before and after escapes were decoded. */
static const char *const in_place_docs[] = {
    "{\"a\": \"x\\ny\\tz\", \"b\\u00e9\": [\"\\\"q\\\\\", \"plain\", \"\"]}",
    "[\"\\ud83d\\ude00 and \\u2028\", \"\\/\\b\\f\\r\", 1, null, \"e\"]",
    "{\"content\": \"line 1\\nline 2\\n\\u0041\\u00e9\\u20ac\\ud800\\udc00!\"}",
    "{\"k\": \"a\\\\\\\\\\\"b\", \"l\": \"\\\\\"}",
    "[\"ok\\n\", \"bad\\x\"]",
    "[\"ok\", \"\\ud800 lone\"]",
    "[\"unterminated\\n",
    "[\"control\\n\001\"]",
    "{\"a\": \"x\\n\", \"a\": \"y\"}",
    "[\"nul \\u0000\"]",
};

/* Every string of v and every key ends with a NUL at its length. */
static bool terminated(const struct cp_jnode *v)
{
    if (v->type == CP_J_STR && strlen(v->s) != v->len)
        return false;
    for (size_t i = 0; v->type == CP_J_ARR && i < v->n; i++)
        if (!terminated(v->items[i]))
            return false;
    for (size_t i = 0; v->type == CP_J_OBJ && i < v->n; i++)
        if (strlen(v->members[i].key) != v->members[i].klen ||
            !terminated(v->members[i].val))
            return false;
    return true;
}

START_TEST(in_place_same_tree)
{
    const char *doc = in_place_docs[_i];
    size_t len = strlen(doc);
    char *w = malloc(len + 1);
    memcpy(w, doc, len + 1);
    struct cp_jnode *x, *y;
    enum cp_json_err kx, ky;
    const char *ex = cp_json_read(ar, doc, len, &strict, &x, &kx);
    const char *ey = cp_json_read_in_place(ar, w, len, &strict, &y, &ky);
    ck_assert_int_eq(kx, ky);
    ck_assert_int_eq(ex == NULL, ey == NULL);
    if (ex)
        ck_assert_str_eq(ex, ey);
    else
        ck_assert_msg(cp_json_equal(x, y) && terminated(y),
                      "trees differ for %s", doc);
    free(w);
}
END_TEST

Suite *cp_test_json_suite(void);
Suite *cp_test_json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("reader");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, plain_rules_keep_settings_reading);
    tcase_add_loop_test(tc, strict_kinds, 0, sizeof kinds / sizeof kinds[0]);
    tcase_add_test(tc, strict_limits);
    suite_add_tcase(s, tc);
    tc = tcase_create("gate");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, gate_input_strict, 0,
                        sizeof gate_bad / sizeof gate_bad[0]);
    tcase_add_test(tc, gate_input_limits);
    tcase_add_test(tc, gate_input_values);
    tcase_add_test(tc, gate_table_strict);
    tcase_add_test(tc, read_stops_at_permanent_error);
    tcase_add_loop_test(tc, in_place_same_tree, 0,
                        sizeof in_place_docs / sizeof in_place_docs[0]);
    suite_add_tcase(s, tc);
    tc = tcase_create("writer");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, writer_bytes);
    tcase_add_test(tc, quote_forms);
    suite_add_tcase(s, tc);
    return s;
}

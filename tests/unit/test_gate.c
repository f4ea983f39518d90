/* SPDX-License-Identifier: MIT */
/* Gate hook runtime: input reading and checks, the gate table, the answer
 * JSON and the hash-chained decision log. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

/* ---- input checks ----------------------------------------------------- */

static const char *parse(const char *s, struct cp_gate_input *in)
{
    return cp_gate_parse_input(ar, s, strlen(s), in);
}

START_TEST(input_bash)
{
    struct cp_gate_input in;
    const char
        *s = "{\"session_id\":\"x\",\"hook_event_name\":\"PreToolUse\","
             "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
             "\"git push --force\\norigin\",\"timeout\":5},\"extra\":[1]}";
    ck_assert_ptr_null(parse(s, &in));
    ck_assert_str_eq(in.tool, "Bash");
    ck_assert_str_eq(in.command, "git push --force\norigin");
}
END_TEST

START_TEST(input_other_tool)
{
    struct cp_gate_input in;
    ck_assert_ptr_null(parse("{\"tool_name\":\"Write\",\"tool_input\":"
                             "{\"file_path\":\"/x\",\"content\":\"rm -rf /\"}}",
                             &in));
    ck_assert_str_eq(in.tool, "Write");
    ck_assert_ptr_null(in.command);
    /* another tool needs no command */
    ck_assert_ptr_null(
        parse("{\"tool_name\":\"Read\",\"tool_input\":{}}", &in));
}
END_TEST

static const struct {
    const char *in;
    const char *err;
} bad_inputs[] = {
    {"", "input is not JSON"},
    {"   \n", "input is not JSON"},
    {"{\"tool_name\":\"Bash\",", "input is not JSON"},
    {"not json", "input is not JSON"},
    {"{} {}", "input has data after the JSON value"},
    {"[1,2]", "input is not a JSON object"},
    {"\"Bash\"", "input is not a JSON object"},
    {"null", "input is not a JSON object"},
    {"{\"tool_input\":{\"command\":\"ls\"}}",
     "tool_name is missing or not a string"},
    {"{\"tool_name\":7,\"tool_input\":{}}",
     "tool_name is missing or not a string"},
    {"{\"tool_name\":\"Bash\"}", "tool_input is missing or not an object"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":\"ls\"}",
     "tool_input is missing or not an object"},
    {"{\"tool_name\":\"Write\",\"tool_input\":[]}",
     "tool_input is missing or not an object"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{}}",
     "tool_input.command is missing or not a string"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":[\"rm\"]}}",
     "tool_input.command is missing or not a string"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":null}}",
     "tool_input.command is missing or not a string"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\",\"command\":"
     "\"rm -rf /\"}}",
     "input has a duplicate key"},
    {"{\"tool_name\":\"Read\",\"tool_name\":\"Bash\",\"tool_input\":{}}",
     "input has a duplicate key"},
    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\\u0000; sudo "
     "x\"}}",
     "input contains an escaped NUL character"},
    {"{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_"
     "input\":{\"command\":\"ls\"}}",
     "hook_event_name is not \"PreToolUse\""},
};

START_TEST(input_malformed)
{
    struct cp_gate_input in;
    const char *err = parse(bad_inputs[_i].in, &in);
    ck_assert_msg(err != NULL, "accepted %s", bad_inputs[_i].in);
    ck_assert_str_eq(err, bad_inputs[_i].err);
}
END_TEST

START_TEST(input_nul_byte)
{
    struct cp_gate_input in;
    static const char s[] =
        "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\0 rm\"}}";
    ck_assert_str_eq(cp_gate_parse_input(ar, s, sizeof s - 1, &in),
                     "input contains a NUL byte");
    /* an escaped backslash before u0000 is not a NUL escape */
    ck_assert_ptr_null(parse("{\"tool_name\":\"Bash\",\"tool_input\":"
                             "{\"command\":\"echo \\\\u0000\"}}",
                             &in));
    ck_assert_str_eq(in.command, "echo \\u0000");
}
END_TEST

/* ---- bounded reading -------------------------------------------------- */

static long ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

START_TEST(read_complete_object_with_stdin_open)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    const char
        *s = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}\n";
    ck_assert_int_eq(write(p[1], s, strlen(s)), (ssize_t)strlen(s));
    struct cp_buf b = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* the writer stays open: reading must stop at the complete object */
    ck_assert_int_eq(cp_gate_read_input(p[0], 1024, 2000, &b), CP_GATE_RD_OK);
    ck_assert_int_lt(ms_since(&t0), 1000);
    ck_assert_str_eq(b.data, s);
    cp_buf_free(&b);
    close(p[0]);
    close(p[1]);
}
END_TEST

/* Strings holding quotes, backslashes and brackets: an input whose last
 * bracket is inside a string is not complete (the writer stays open, so
 * reading waits for the timeout), one whose brackets close outside every
 * string is complete at once. */
START_TEST(read_complete_reads_strings)
{
    static const struct {
        const char *in;
        bool complete;
    } v[] = {
        {"{\"a\":\"}\"}", true},
        {"{\"a\":\"\\\"}\"}", true},   /* "\"}" */
        {"{\"a\":\"\\\\\"}", true},    /* "\\\\" then } */
        {"{\"a\":\"\\\"}", false},     /* "\"} still open */
        {"{\"a\":\"\\\\\\\"}", false}, /* "\\\\\"} still open */
        {"[{\"a\":[\"]\"]}", false},   /* the outer [ still open */
        {"{\"a\":[\"]\",{}]}", true},
        {"{\"a\":1}}", true},         /* an extra }: no continuation */
        {"{\"a\" x \"b\":{}}", true}, /* bad JSON before the end */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        size_t n = strlen(v[i].in);
        ck_assert_int_eq(write(p[1], v[i].in, n), (ssize_t)n);
        struct cp_buf b = {0};
        enum cp_gate_rd r = cp_gate_read_input(p[0], 1024, 150, &b);
        if (r != (v[i].complete ? CP_GATE_RD_OK : CP_GATE_RD_TIMEOUT))
            ck_abort_msg("case %zu (%s): read %d", i, v[i].in, (int)r);
        cp_buf_free(&b);
        close(p[0]);
        close(p[1]);
    }
}
END_TEST

START_TEST(read_incomplete_times_out)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "{\"tool_name\":", 13), 13);
    struct cp_buf b = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(cp_gate_read_input(p[0], 1024, 200, &b),
                     CP_GATE_RD_TIMEOUT);
    long ms = ms_since(&t0);
    ck_assert_int_ge(ms, 150);
    ck_assert_int_lt(ms, 1500);
    cp_buf_free(&b);
    /* nothing more at all, writer open: also a timeout, not a hang */
    ck_assert_int_eq(cp_gate_read_input(p[0], 1024, 100, &b),
                     CP_GATE_RD_TIMEOUT);
    cp_buf_free(&b);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(read_eof_and_oversize)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "12", 2), 2);
    close(p[1]);
    struct cp_buf b = {0};
    ck_assert_int_eq(cp_gate_read_input(p[0], 1024, 2000, &b), CP_GATE_RD_OK);
    ck_assert_uint_eq(b.len, 2);
    cp_buf_free(&b);
    close(p[0]);

    ck_assert_int_eq(pipe(p), 0);
    char big[300];
    memset(big, ' ', sizeof big);
    big[0] = '{';
    ck_assert_int_eq(write(p[1], big, sizeof big), (ssize_t)sizeof big);
    close(p[1]);
    ck_assert_int_eq(cp_gate_read_input(p[0], 256, 2000, &b),
                     CP_GATE_RD_TOOBIG);
    cp_buf_free(&b);
    close(p[0]);
    /* exactly at the cap is fine */
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], big, 256), 256);
    close(p[1]);
    ck_assert_int_eq(cp_gate_read_input(p[0], 256, 2000, &b), CP_GATE_RD_OK);
    cp_buf_free(&b);
    close(p[0]);
    /* a closed descriptor is an error, not a hang */
    ck_assert_int_eq(cp_gate_read_input(p[0], 256, 2000, &b), CP_GATE_RD_ERROR);
    cp_buf_free(&b);
}
END_TEST

/* ---- answers ---------------------------------------------------------- */

START_TEST(answer_text)
{
    struct cp_buf b = {0};
    cp_gate_format_answer(&b, CP_ALLOW, "ignored");
    ck_assert_uint_eq(b.len, 0);
    cp_gate_format_answer(&b, CP_ASK,
                          "rule gate#2 (p.confpol:7): re\"\\bsudo\"");
    ck_assert_str_eq(
        b.data,
        "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
        "\"permissionDecision\": \"ask\", \"permissionDecisionReason\": "
        "\"rule gate#2 (p.confpol:7): re\\\"\\\\bsudo\\\"\"}}\n");
    cp_buf_reset(&b);
    cp_gate_format_answer(&b, CP_DENY, "a\nb\x01 \xff\xc3\xa9");
    ck_assert_str_eq(
        b.data,
        "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
        "\"permissionDecision\": \"deny\", \"permissionDecisionReason\": "
        "\"a\\nb\\u0001 \\ufffd\xc3\xa9\"}}\n");
    cp_buf_free(&b);
}
END_TEST

/* ---- gate table ------------------------------------------------------- */

static const char table_json[] =
    "{\"sandbox\": {}, \"confpol\": {\"version\": 1, \"stem\": \"p\", "
    "\"failClosed\": true, \"gates\": ["
    "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"regex\", "
    "\"pattern\": \"(^|[^[:alnum:]_])sudo([^[:alnum:]_]|$)\", \"where\": "
    "\"p.confpol:3\"},"
    "{\"id\": \"gate#2\", \"verdict\": \"deny\", \"kind\": \"regex\", "
    "\"pattern\": \"rm -rf /\", \"where\": \"p.confpol:4\"},"
    "{\"id\": \"gate#3\", \"verdict\": \"ask\", \"kind\": \"regex\", "
    "\"pattern\": \"^rm \", \"where\": \"p.confpol:5\"}]}}";

START_TEST(table_decide)
{
    struct cp_gate_table t;
    ck_assert_ptr_null(
        cp_gate_table_parse(ar, table_json, sizeof table_json - 1, &t));
    ck_assert_str_eq(t.stem, "p");
    ck_assert(t.fail_closed);
    ck_assert_uint_eq(t.ngates, 3);
    struct cp_gate_answer ans;
    cp_gate_table_decide(&t, "ls -l", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ALLOW);
    ck_assert_ptr_null(ans.rule);
    ck_assert_ptr_null(ans.reason);
    cp_gate_table_decide(&t, "sudo ls", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ASK);
    ck_assert_str_eq(ans.rule, "gate#1");
    ck_assert_str_eq(ans.reason,
                     "rule gate#1 (p.confpol:3): "
                     "re\"(^|[^[:alnum:]_])sudo([^[:alnum:]_]|$)\"");
    cp_gate_table_decide(&t, "pseudonym", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ALLOW);
    /* deny wins over an earlier ask, whatever the order */
    cp_gate_table_decide(&t, "sudo rm -rf /", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_DENY);
    ck_assert_str_eq(ans.rule, "gate#2");
    cp_gate_table_decide(&t, "rm x", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ASK);
    ck_assert_str_eq(ans.rule, "gate#3");
    cp_gate_table_free(&t);
}
END_TEST

/* A word row is parsed at its first use and kept in the table: in the
 * table's arena, not in the arena of the decision that parsed it (a second
 * decision after that arena is freed and its memory reused reads the row;
 * AddressSanitizer sees the use after free). */
static const char words_json[] =
    "{\"sandbox\": {}, \"confpol\": {\"version\": 1, \"stem\": \"p\", "
    "\"failClosed\": true, \"gates\": ["
    "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
    "\"pattern\": \"git push *\", \"where\": \"p.confpol:3\"}]}}";

START_TEST(table_words_outlive_decision)
{
    struct cp_gate_table t;
    ck_assert_ptr_null(
        cp_gate_table_parse(ar, words_json, sizeof words_json - 1, &t));
    for (int round = 0; round < 3; round++) {
        struct cp_arena *d = cp_arena_new();
        struct cp_gate_answer ans;
        cp_gate_table_decide(&t, "git push origin main", d, &ans);
        ck_assert_int_eq(ans.verdict, CP_ASK);
        ck_assert_str_eq(ans.rule, "gate#1");
        cp_gate_table_decide(&t, "git pull", d, &ans);
        ck_assert_int_eq(ans.verdict, CP_ALLOW);
        /* the freed arena's memory taken and overwritten */
        for (int k = 0; k < 64; k++)
            memset(cp_arena_alloc(d, 4096), 0xa5, 4096);
        cp_arena_free(d);
        struct cp_arena *junk = cp_arena_new();
        for (int k = 0; k < 64; k++)
            memset(cp_arena_alloc(junk, 4096), 0x5a, 4096);
        cp_arena_free(junk);
    }
    cp_gate_table_free(&t);
}
END_TEST

/* A words row that carries its programs is not parsed when the table is
 * read, only when a command line runs one of them; its parse must then
 * succeed and give the same programs, else the call is denied as by a
 * table that failed to load.  Row 1's pattern is invalid; row 2 names
 * programs its pattern does not (a hand-made artifact: the compiler writes
 * the pattern's own); row 3 is the compiler's. */
static const char keyed_json[] =
    "{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": true, "
    "\"gates\": ["
    "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
    "\"pattern\": \"make {a|\", \"programs\": [\"make\"], "
    "\"where\": \"p:1\"},"
    "{\"id\": \"gate#2\", \"verdict\": \"deny\", \"kind\": \"words\", "
    "\"pattern\": \"{curl|wget} *\", \"programs\": [\"curl\", \"fetch\"], "
    "\"where\": \"p:2\"},"
    "{\"id\": \"gate#3\", \"verdict\": \"ask\", \"kind\": \"words\", "
    "\"pattern\": \"{git|hub} push *\", \"programs\": [\"git\", \"hub\"], "
    "\"where\": \"p:3\"}]}}";

START_TEST(table_keyed_rows)
{
    struct cp_gate_table t;
    ck_assert_ptr_null(
        cp_gate_table_parse(ar, keyed_json, sizeof keyed_json - 1, &t));
    ck_assert_uint_eq(t.ngates, 3);
    struct cp_gate_answer ans;
    cp_gate_table_decide(&t, "ls -l", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ALLOW);
    ck_assert_ptr_null(ans.error);
    cp_gate_table_decide(&t, "hub push origin", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_ASK);
    ck_assert_str_eq(ans.rule, "gate#3");
    cp_gate_table_decide(&t, "make all", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_DENY);
    ck_assert_ptr_nonnull(ans.error);
    ck_assert_msg(strncmp(ans.error, "gate#1: invalid pattern: ", 25) == 0,
                  "%s", ans.error);
    cp_gate_table_decide(&t, "curl -fsSL https://example.com", ar, &ans);
    ck_assert_int_eq(ans.verdict, CP_DENY);
    ck_assert_str_eq(ans.error, "gate#2: invalid pattern: its programs are "
                                "not the names its first word takes");
    cp_gate_table_free(&t);
}
END_TEST

static const struct {
    const char *json;
    const char *err;
} bad_tables[] = {
    {"{\"confpol\": ", "artifact is not JSON"},
    {"{\"sandbox\": {}}", "artifact has no \"confpol\" gate table object"},
    {"{\"confpol\": []}", "artifact has no \"confpol\" gate table object"},
    {"{\"confpol\": {\"version\": 2, \"stem\": \"p\", \"failClosed\": true, "
     "\"gates\": []}}",
     "gate table version is not 1"},
    {"{\"confpol\": {\"version\": 1, \"failClosed\": true, \"gates\": []}}",
     "gate table has no \"stem\" string"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": \"yes\", "
     "\"gates\": []}}",
     "gate table has no \"failClosed\" boolean"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false}}",
     "gate table has no \"gates\" array"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": [7]}}",
     "gate table entry 1 is not an object with string id, verdict, kind, "
     "pattern and where"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"allow\", \"kind\": \"regex\", "
     "\"pattern\": \"x\", \"where\": \"p:1\"}]}}",
     "gate#1: verdict is not \"ask\" or \"deny\""},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"glob\", "
     "\"pattern\": \"x\", \"where\": \"p:1\"}]}}",
     "gate#1: kind is not \"words\", \"regex\" or \"unknown\""},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"regex\", "
     "\"pattern\": \"x\", \"where\": \"p:1\"},"
     "{\"id\": \"gate#2\", \"verdict\": \"ask\", \"kind\": \"regex\", "
     "\"pattern\": \"\", \"where\": \"p:2\"}]}}",
     "gate#2: invalid pattern: empty pattern"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
     "\"pattern\": \"git *\", \"programs\": \"git\", \"where\": \"p:1\"}]}}",
     "gate#1: programs is not a non-empty array of names of a words row"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
     "\"pattern\": \"git *\", \"programs\": [], \"where\": \"p:1\"}]}}",
     "gate#1: programs is not a non-empty array of names of a words row"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
     "\"pattern\": \"git *\", \"programs\": [\"git\", \"\"], "
     "\"where\": \"p:1\"}]}}",
     "gate#1: programs is not a non-empty array of names of a words row"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"words\", "
     "\"pattern\": \"git *\", \"programs\": [\"git\", 7], "
     "\"where\": \"p:1\"}]}}",
     "gate#1: programs is not a non-empty array of names of a words row"},
    {"{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": false, "
     "\"gates\": ["
     "{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"regex\", "
     "\"pattern\": \"git\", \"programs\": [\"git\"], \"where\": \"p:1\"}]}}",
     "gate#1: programs is not a non-empty array of names of a words row"},
};

START_TEST(table_invalid)
{
    struct cp_gate_table t;
    const char *err = cp_gate_table_parse(ar, bad_tables[_i].json,
                                          strlen(bad_tables[_i].json), &t);
    ck_assert_msg(err != NULL, "accepted %s", bad_tables[_i].json);
    ck_assert_str_eq(err, bad_tables[_i].err);
    cp_gate_table_free(&t);
}
END_TEST

START_TEST(table_bad_regex)
{
    struct cp_gate_table t;
    const char
        *j = "{\"confpol\": {\"version\": 1, \"stem\": \"p\", \"failClosed\": "
             "false, "
             "\"gates\": [{\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": "
             "\"regex\", \"pattern\": \"a(b\", \"where\": \"p:1\"}]}}";
    const char *err = cp_gate_table_parse(ar, j, strlen(j), &t);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strncmp(err, "gate#1: invalid pattern: ", 25) == 0, "%s",
                  err);
    cp_gate_table_free(&t);
    ck_assert_ptr_nonnull(
        cp_gate_table_load(ar, "/nonexistent/x.claude.json", &t));
    ck_assert_ptr_nonnull(cp_gate_table_load(ar, "/", &t));
}
END_TEST

/* ---- decision log ----------------------------------------------------- */

START_TEST(sha256_known)
{
    char h[CP_SHA256_HEX];
    cp_sha256_hex("abc", 3, h);
    ck_assert_str_eq(
        h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

static char logdir[64];
static char logpath[96];

static void log_setup(void)
{
    setup();
    strcpy(logdir, "/tmp/cp-gatelog-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(logdir));
    snprintf(logpath, sizeof logpath, "%s/gate.log", logdir);
}

static void log_teardown(void)
{
    unlink(logpath);
    rmdir(logdir);
    teardown();
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(s, f);
    fclose(f);
}

/* cp_gatelog_append with an arena of its own: NULL, or why not. */
static const char *log_append(const char *path, const struct cp_gatelog_rec *r)
{
    static char msg[512];
    struct cp_arena *a = cp_arena_new();
    const char *e = cp_gatelog_append(a, path, r);
    if (e)
        snprintf(msg, sizeof msg, "%s", e);
    cp_arena_free(a);
    return e ? msg : NULL;
}

static void append3(void)
{
    struct cp_gatelog_rec r = {.time = 1796083200,
                               .decision = "ask",
                               .rule = "gate#2",
                               .cmd = "sudo secret-token",
                               .cmdlen = 17,
                               .tool = "Bash"};
    ck_assert_ptr_null(log_append(logpath, &r));
    r.decision = "allow", r.rule = NULL, r.cmd = "ls", r.cmdlen = 2;
    ck_assert_ptr_null(log_append(logpath, &r));
    r.decision = "allow", r.cmd = NULL, r.tool = "Write";
    ck_assert_ptr_null(log_append(logpath, &r));
}

static int verify(char *msg, size_t msglen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    FILE *o = fopen("/dev/null", "w");
    int rc = cp_gatelog_verify(logpath, o, m);
    fclose(m);
    fclose(o);
    snprintf(msg, msglen, "%s", buf ? buf : "");
    free(buf);
    return rc;
}

START_TEST(log_chain)
{
    append3();
    char *text = slurp(logpath);
    ck_assert_ptr_null(strstr(text, "secret-token"));
    ck_assert_ptr_null(strstr(text, "sudo"));
    char h[CP_SHA256_HEX];
    cp_sha256_hex("sudo secret-token", 17, h);
    char first[1024];
    snprintf(
        first, sizeof first,
        "{\"time\": \"2026-12-01T00:00:00Z\", \"decision\": \"ask\", "
        "\"rule\": \"gate#2\", \"cmd_sha256\": \"%s\", \"prev\": "
        "\"0000000000000000000000000000000000000000000000000000000000000000\", "
        "\"tool\": \"Bash\"}\n",
        h);
    ck_assert_int_eq(strncmp(text, first, strlen(first)), 0);
    /* line 2 carries the hash of line 1 without its newline */
    cp_sha256_hex(first, strlen(first) - 1, h);
    char *l2 = text + strlen(first);
    ck_assert_ptr_nonnull(strstr(l2, h));
    ck_assert_ptr_nonnull(strstr(l2, "\"rule\": null"));
    char *l3 = strchr(l2, '\n') + 1;
    ck_assert_ptr_nonnull(strstr(l3, "\"cmd_sha256\": null"));
    ck_assert_ptr_nonnull(strstr(l3, "\"tool\": \"Write\""));
    char msg[512];
    ck_assert_int_eq(verify(msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");
}
END_TEST

/* Each tamper edits the log text, then names the line verification must
 * report and its message. */
static const struct {
    const char *from, *to;
    unsigned line;
    const char *why;
} tampers[] = {
    /* changing line 1 breaks the link stored in line 2 */
    {"\"decision\": \"ask\"", "\"decision\": \"allow\"", 2,
     "\"prev\" does not match the SHA-256 of the line before (a line was "
     "changed, inserted or removed)"},
    {"\"tool\": \"Write\"}\n", "\"tool\": \"Write\"}", 3,
     "last line is not terminated by a newline (torn write)"},
    {"\"decision\": \"ask\"", "\"decision\": \"maybe\"", 1,
     "\"decision\" is not \"allow\", \"ask\" or \"deny\""},
    {"{\"time\": \"2026-12-01T00:00:00Z\", \"decision\": \"ask\"", "garbage", 1,
     "not a JSON object"},
    {"\"time\": \"2026-12-01T00:00:00Z\", \"decision\": \"ask\"",
     "\"time\": \"yesterday\", \"decision\": \"ask\"", 1,
     "\"time\" is missing or not an RFC 3339 UTC time"},
};

START_TEST(log_tamper)
{
    append3();
    char *text = slurp(logpath);
    char *at = strstr(text, tampers[_i].from);
    ck_assert_ptr_nonnull(at);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text,
             tampers[_i].to, at + strlen(tampers[_i].from));
    spit(logpath, edited);
    char msg[512], want[512];
    ck_assert_int_eq(verify(msg, sizeof msg), 1);
    snprintf(want, sizeof want, "%s:%u: %s\n", logpath, tampers[_i].line,
             tampers[_i].why);
    ck_assert_str_eq(msg, want);
}
END_TEST

START_TEST(log_delete_first_line)
{
    append3();
    char *text = slurp(logpath);
    spit(logpath, strchr(text, '\n') + 1);
    char msg[512], want[512];
    ck_assert_int_eq(verify(msg, sizeof msg), 1);
    snprintf(want, sizeof want,
             "%s:1: \"prev\" of the first line is not 64 zeros\n", logpath);
    ck_assert_str_eq(msg, want);
}
END_TEST

START_TEST(log_append_after_torn_line)
{
    spit(logpath, "{\"torn");
    struct cp_gatelog_rec r = {.time = 0, .decision = "deny", .tool = NULL};
    ck_assert_ptr_null(log_append(logpath, &r));
    char *text = slurp(logpath);
    /* the new record starts on a line of its own */
    ck_assert_int_eq(
        strncmp(text, "{\"torn\n{\"time\": \"1970-01-01T00:00:00Z\"", 38), 0);
    char msg[512], want[512];
    ck_assert_int_eq(verify(msg, sizeof msg), 1);
    snprintf(want, sizeof want, "%s:1: not a JSON object\n", logpath);
    ck_assert_str_eq(msg, want);
}
END_TEST

START_TEST(log_io_errors)
{
    struct cp_gatelog_rec r = {.time = 0, .decision = "allow"};
    const char *err = log_append("/nonexistent-dir/x.log", &r);
    ck_assert_ptr_nonnull(err);
    ck_assert_str_eq(
        err, "cannot open '/nonexistent-dir/x.log': No such file or directory");
    ck_assert_ptr_nonnull(log_append(logdir, &r));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_int_eq(cp_gatelog_verify("/nonexistent-dir/x.log", stdout, m), 2);
    fclose(m);
    ck_assert_str_eq(
        buf,
        "/nonexistent-dir/x.log: cannot open: No such file or directory\n");
    free(buf);
    /* an empty log is an intact chain of no lines */
    spit(logpath, "");
    char msg[64];
    ck_assert_int_eq(verify(msg, sizeof msg), 0);
}
END_TEST

START_TEST(log_concurrent_appends)
{
    /* 4 writers x 50 appends: the chain must stay intact */
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        ck_assert_int_ge(kids[k], 0);
        if (kids[k] == 0) {
            struct cp_gatelog_rec r = {.time = 0,
                                       .decision = "allow",
                                       .cmd = "x",
                                       .cmdlen = 1,
                                       .tool = "Bash"};
            for (int i = 0; i < 50; i++)
                if (log_append(logpath, &r))
                    _exit(1);
            _exit(0);
        }
    }
    for (int k = 0; k < 4; k++) {
        int st;
        ck_assert_int_eq(waitpid(kids[k], &st, 0), kids[k]);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    ck_assert_int_eq(cp_gatelog_verify(logpath, o, stderr), 0);
    fclose(o);
    ck_assert_ptr_nonnull(strstr(buf, ": 200 lines, chain intact"));
    free(buf);
}
END_TEST

Suite *cp_test_gate_suite(void); /* collected by the Makefile */
Suite *cp_test_gate_suite(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("input");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, input_bash);
    tcase_add_test(tc, input_other_tool);
    tcase_add_loop_test(tc, input_malformed, 0,
                        sizeof bad_inputs / sizeof bad_inputs[0]);
    tcase_add_test(tc, input_nul_byte);
    tcase_add_test(tc, read_complete_object_with_stdin_open);
    tcase_add_test(tc, read_complete_reads_strings);
    tcase_add_test(tc, read_incomplete_times_out);
    tcase_add_test(tc, read_eof_and_oversize);
    suite_add_tcase(s, tc);

    tc = tcase_create("answer");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, answer_text);
    tcase_add_test(tc, table_decide);
    tcase_add_test(tc, table_words_outlive_decision);
    tcase_add_test(tc, table_keyed_rows);
    tcase_add_loop_test(tc, table_invalid, 0,
                        sizeof bad_tables / sizeof bad_tables[0]);
    tcase_add_test(tc, table_bad_regex);
    suite_add_tcase(s, tc);

    tc = tcase_create("log");
    tcase_add_checked_fixture(tc, log_setup, log_teardown);
    tcase_add_test(tc, sha256_known);
    tcase_add_test(tc, log_chain);
    tcase_add_loop_test(tc, log_tamper, 0, sizeof tampers / sizeof tampers[0]);
    tcase_add_test(tc, log_delete_first_line);
    tcase_add_test(tc, log_append_after_torn_line);
    tcase_add_test(tc, log_io_errors);
    tcase_add_test(tc, log_concurrent_appends);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    return s;
}

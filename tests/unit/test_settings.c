/* SPDX-License-Identifier: MIT */
/* Settings wiring on memory buffers: the JSON reader and printer, install
 * (bytes of unrelated keys kept, idempotence, refusals), uninstall (exact
 * inverse) and verify (every gap named). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "settings.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

static const char ART[] =
    "{\n"
    "  \"confpol\": {\"failClosed\": true, \"gates\": [{\"id\": \"gate#1\", "
    "\"kind\": \"regex\", \"pattern\": \"sudo\", \"verdict\": \"ask\", "
    "\"where\": \"p.confpol:3\"}], \"profile\": \"confined\", "
    "\"projectRelative\": true, \"stem\": \"p\", \"version\": 1},\n"
    "  \"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"command\": \"confpol gate "
    "p.claude.json\", \"type\": \"command\"}], \"matcher\": \"Bash\"}]},\n"
    "  \"permissions\": {\"ask\": [\"Bash(npm test)\"], \"deny\": "
    "[\"Edit(/.claude)\", \"Edit(/.claude/**)\"]},\n"
    "  \"sandbox\": {\"allowUnsandboxedCommands\": false, "
    "\"autoAllowBashIfSandboxed\": false, \"enabled\": true, "
    "\"failIfUnavailable\": true, \"filesystem\": {\"allowWrite\": [\".\"], "
    "\"denyRead\": [\"~/.ssh\"], \"denyWrite\": [\"./.claude\"]}}\n"
    "}\n";

/* "--sha256 PIN " of an artifact, as install writes it (spec/gate.md). */
static const char *pin_of(const char *art)
{
    char pin[CP_SHA256_HEX];
    cp_gate_pin_digest(art, strlen(art), pin);
    return cp_arena_printf(ar, "--sha256 %s ", pin);
}

/* What the hook's artifact file holds, per test. */
static const char *hook_art = ART;
static const char *art_file = "/p/.claude/p.claude.json";

static bool rd(const char *path, struct cp_buf *out, void *ud)
{
    (void)ud;
    if (strcmp(path, art_file) != 0 &&
        strcmp(path, "/p/.claude/q.claude.json") != 0)
        return false;
    cp_buf_adds(out, hook_art);
    return true;
}

static bool ex(const char *path, void *ud)
{
    (void)ud;
    return strcmp(path, "/usr/local/bin/confpol") == 0 ||
           strcmp(path, "/usr/local/bin/confpol-gate") == 0 ||
           strcmp(path, "/opt/my confpol/confpol-gate") == 0;
}

static struct cp_settings_env env(void)
{
    struct cp_settings_env e = {
        .settings_path = "/p/.claude/settings.json",
        .artifact_path = art_file,
        .gate_path = "/usr/local/bin/confpol-gate",
        .home = "/home/u",
        .read_file = rd,
        .is_exec = ex,
    };
    hook_art = ART;
    return e;
}

/* install; returns the new document (arena) or NULL on refusal. */
static char *inst(const struct cp_settings_env *e, const char *live,
                  const char *art, char **err)
{
    struct cp_buf out = {0}, eb = {0};
    int rc = cp_settings_install(e, live, live ? strlen(live) : 0, art,
                                 strlen(art), &out, &eb);
    char *r = rc == 0 ? cp_arena_strndup(ar, out.data ? out.data : "", out.len)
                      : NULL;
    if (rc != 0)
        ck_assert_uint_eq(out.len, 0);
    if (err)
        *err = cp_arena_strdup(ar, eb.data ? eb.data : "");
    cp_buf_free(&out);
    cp_buf_free(&eb);
    return r;
}

static char *uninst(const struct cp_settings_env *e, const char *live,
                    size_t *removed)
{
    struct cp_buf out = {0}, eb = {0};
    size_t rm = 0;
    int rc = cp_settings_uninstall(e, live, strlen(live), &out, &rm, &eb);
    ck_assert_msg(rc == 0, "%s", eb.data ? eb.data : "");
    char *r = cp_arena_strndup(ar, out.data ? out.data : "", out.len);
    if (removed)
        *removed = rm;
    cp_buf_free(&out);
    cp_buf_free(&eb);
    return r;
}

static int verify(const struct cp_settings_env *e, const char *live,
                  const char *art, char **rep)
{
    struct cp_buf b = {0};
    int g = cp_settings_verify(e, live, strlen(live), art, strlen(art), &b);
    *rep = cp_arena_strdup(ar, b.data ? b.data : "");
    cp_buf_free(&b);
    return g;
}

/* ---- reader and printer ------------------------------------------------ */

START_TEST(json_reader)
{
    static const char *const bad[] = {
        "",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "{\"a\" 1}",
        "// c\n{}",
        "{} x",
        "\xef\xbb\xbf{}",
        "{\"a\":\"\x01\"}",
        "{\"a\":\"\\x\"}",
        "[01]",
        "[1.]",
        "[-]",
        "{\"a\":tru}",
        "[\"\\ud800\"]",
        "[\"\xff\"]",
        "{'a':1}",
        "[1e]",
    };
    static const char *const good[] = {
        "{}",
        " [ ] ",
        "{\"a\":[1,-2.5e+3,true,false,null,\"\\u00e9\\ud83d\\udd11\"]}",
        "\"x\"",
        "0",
        "{\"a\":{\"b\":{}}}",
    };
    struct cp_jnode *v;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(cp_json_parse(ar, bad[i], strlen(bad[i]), &v) != NULL,
                      "accepted %s", bad[i]);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(cp_json_parse(ar, good[i], strlen(good[i]), &v) == NULL,
                      "refused %s", good[i]);
    /* Nesting is bounded. */
    char deep[1200];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    ck_assert_ptr_nonnull(cp_json_parse(ar, deep, 1200, &v));
    ck_assert_ptr_null(cp_json_parse(ar, deep + 400, 400, &v));
}
END_TEST

START_TEST(json_printer)
{
    const char *in = "{\"b\":[1,2,{}],\"a\":\"\\u00e9\\n\\u0001\\\"/\","
                     "\"k\":\"\\ud83d\\udd11\",\"e\":[]}";
    struct cp_jnode *v;
    ck_assert_ptr_null(cp_json_parse(ar, in, strlen(in), &v));
    struct cp_buf b = {0};
    cp_json_print(&b, v, "", "  ", false);
    ck_assert_str_eq(b.data, "{\n"
                             "  \"b\": [\n"
                             "    1,\n"
                             "    2,\n"
                             "    {}\n"
                             "  ],\n"
                             "  \"a\": \"\\u00e9\\n\\u0001\\\"/\",\n"
                             "  \"k\": \"\\ud83d\\udd11\",\n"
                             "  \"e\": []\n"
                             "}");
    cp_buf_reset(&b);
    cp_json_print(&b, v, "", "  ", true);
    ck_assert_str_eq(b.data,
                     "{\"b\": [1, 2, {}], \"a\": \"\\u00e9\\n\\u0001\\\"/\", "
                     "\"k\": \"\\ud83d\\udd11\", \"e\": []}");
    cp_buf_free(&b);
}
END_TEST

/* ---- install / uninstall ------------------------------------------------- */

static const char LIVE[] = "{\n"
                           "    \"model\":\"opus\",\n"
                           "    \"permissions\" : { \"allow\" : [ \"Bash(ls)\" "
                           "] , \"deny\": [\"Read(./.env)\"] },\n"
                           "  \"env\": {\"A\": \"b\"},\n"
                           "    \"statusLine\": {\"type\": \"command\",\n"
                           "          \"command\": \"x\"}\n"
                           "}\n";

START_TEST(install_keeps_bytes)
{
    struct cp_settings_env e = env();
    char *err;
    char *out = inst(&e, LIVE, ART, &err);
    ck_assert_msg(out != NULL, "%s", err);
    /* Unrelated keys keep their exact text. */
    ck_assert_ptr_nonnull(strstr(out, "\"model\":\"opus\""));
    ck_assert_ptr_nonnull(strstr(out, "\"allow\" : [ \"Bash(ls)\" ] , "));
    ck_assert_ptr_nonnull(strstr(out, "  \"env\": {\"A\": \"b\"},\n"));
    ck_assert_ptr_nonnull(strstr(out,
                                 "\"statusLine\": {\"type\": \"command\",\n"
                                 "          \"command\": \"x\"}"));
    ck_assert_ptr_nonnull(strstr(out, "\"Read(./.env)\""));
    /* The hook command is absolute and bound to this artifact. */
    ck_assert_ptr_nonnull(strstr(
        out, cp_arena_printf(ar,
                             "\"command\": \"/usr/local/bin/confpol-gate %s"
                             "/p/.claude/p.claude.json\"",
                             pin_of(ART))));
    ck_assert_ptr_nonnull(
        strstr(out, "\"matcher\": \"" CP_GATE_HOOK_MATCHER "\""));
    ck_assert_ptr_nonnull(strstr(out, "\"" CP_SETTINGS_RECORD_KEY "\""));
    /* A second install changes nothing. */
    char *again = inst(&e, out, ART, NULL);
    ck_assert_str_eq(again, out);
    /* Verify holds. */
    char *rep;
    ck_assert_int_eq(verify(&e, out, ART, &rep), 0);
    ck_assert_str_eq(rep, "");
    /* Uninstall is the exact inverse. */
    size_t rm;
    char *back = uninst(&e, out, &rm);
    ck_assert_str_eq(back, LIVE);
    ck_assert_uint_gt(rm, 5);
    /* Uninstalling again finds nothing. */
    ck_assert_str_eq(uninst(&e, back, &rm), LIVE);
    ck_assert_uint_eq(rm, 0);
}
END_TEST

START_TEST(install_new_and_empty)
{
    struct cp_settings_env e = env();
    char *out = inst(&e, NULL, ART, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(uninst(&e, out, NULL), "{}\n");
    out = inst(&e, "{}", ART, NULL);
    ck_assert_str_eq(uninst(&e, out, NULL), "{}");
    out = inst(&e, "{\"a\": 1}", ART, NULL); /* one line: compact edits */
    ck_assert_ptr_null(strchr(out, '\n'));
    ck_assert_str_eq(uninst(&e, out, NULL), "{\"a\": 1}");
}
END_TEST

START_TEST(install_scalars)
{
    struct cp_settings_env e = env();
    /* A fail-open artifact never weakens what the user set. */
    char *art = cp_arena_strdup(ar, ART);
    char *f = strstr(art, "\"failIfUnavailable\": true");
    memcpy(f, "\"failIfUnavailable\":false", 25);
    hook_art = art;
    const char *live =
        "{\"sandbox\": {\"enabled\": false, "
        "\"failIfUnavailable\": true, \"autoAllowBashIfSandboxed\": true}}";
    char *out = inst(&e, live, art, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(strstr(out, "\"enabled\": true"));
    ck_assert_ptr_nonnull(strstr(out, "\"failIfUnavailable\": true"));
    /* The artifact's stricter value replaces the user's, recorded. */
    ck_assert_ptr_nonnull(strstr(out, "\"autoAllowBashIfSandboxed\": false"));
    ck_assert_ptr_nonnull(strstr(out, "\"previous\": false"));
    ck_assert_ptr_nonnull(strstr(out, "\"previous\": true"));
    ck_assert_str_eq(uninst(&e, out, NULL), live);
}
END_TEST

START_TEST(install_refuses)
{
    static const char *const bad[] = {
        "{\"a\":1,}",            /* not JSON */
        "[]",                    /* not an object */
        "{\"sandbox\": \"on\"}", /* wrong type */
        "{\"sandbox\": {\"enabled\": \"yes\"}}",
        "{\"sandbox\": {\"filesystem\": {\"denyWrite\": \"./.claude\"}}}",
        "{\"permissions\": {\"deny\": [1]}}",
        "{\"hooks\": {\"PreToolUse\": {}}}",
        "{\"sandbox\": {}, \"sandbox\": {}}", /* ambiguous */
        "{\"" CP_SETTINGS_RECORD_KEY "\": 3}",
        /* Would still not enforce the policy afterwards. */
        "{\"sandbox\": {\"filesystem\": {\"allowWrite\": [\"/\"]}}}",
        "{\"sandbox\": {\"excludedCommands\": [\"docker *\"]}}",
        "{\"permissions\": {\"allow\": [\"Edit(//etc/**)\"]}}",
        "{\"disableAllHooks\": true}",
    };
    struct cp_settings_env e = env();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *err;
        ck_assert_msg(inst(&e, bad[i], ART, &err) == NULL, "accepted %s",
                      bad[i]);
        ck_assert_msg(err[0] != '\0', "no reason for %s", bad[i]);
    }
    char *err;
    inst(&e, "{\"sandbox\": \"on\"}", ART, &err);
    ck_assert_str_eq(err, "'sandbox' is a string, expected an object\n");
    inst(&e, "{\"a\":1,}", ART, &err);
    ck_assert_str_eq(err, "settings file is not valid JSON: expected a string "
                          "key at byte 7\n");
    /* A bad artifact is refused too. */
    ck_assert_ptr_null(inst(&e, "{}", "{\"sandbox\": {}}", &err));
    ck_assert_ptr_nonnull(strstr(err, "no \"confpol\" object"));
    /* An artifact whose gate table the hook refuses (it would deny every
     * call) is refused by install: one reader of the rows for both. */
    static const char *const rows[][3] = {
        {"\"verdict\": \"ask\"", "\"verdict\": \"allow\"",
         "artifact: gate#1: verdict is not \"ask\" or \"deny\"\n"},
        {"\"kind\": \"regex\"", "\"kind\": \"glob\"",
         "artifact: gate#1: kind is not \"words\", \"regex\" or "
         "\"unknown\"\n"},
        {"\"where\": \"p.confpol:3\"", "\"where\": 3",
         "artifact: gate table entry 1 is not an object with string id, "
         "verdict, kind, pattern and where\n"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *at = strstr(ART, rows[i][0]);
        ck_assert_ptr_nonnull(at);
        const char *art = cp_arena_printf(ar, "%.*s%s%s", (int)(at - ART), ART,
                                          rows[i][1], at + strlen(rows[i][0]));
        ck_assert_msg(inst(&e, "{}", art, &err) == NULL, "accepted %s",
                      rows[i][1]);
        ck_assert_str_eq(err, rows[i][2]);
    }
}
END_TEST

START_TEST(project_relative)
{
    struct cp_settings_env e = env();
    char *err;
    e.settings_path = "/home/u/.claude/settings.json"; /* the user file */
    ck_assert_ptr_null(inst(&e, "{}", ART, &err));
    ck_assert_ptr_nonnull(strstr(err, "rebuild with -D PROJECT=/abs/dir"));
    e.settings_path = "/tmp/x.json";
    ck_assert_ptr_null(inst(&e, "{}", ART, &err));
    e.settings_path = "/home/u/proj/.claude/settings.local.json";
    ck_assert_ptr_nonnull(inst(&e, "{}", ART, &err));
    /* $CLAUDE_CONFIG_DIR holds the user settings instead of ~/.claude. */
    e.config_dir = "/home/u/proj/.claude/";
    ck_assert_ptr_null(inst(&e, "{}", ART, &err));
    e.config_dir = NULL;
    /* Absolute spellings go anywhere. */
    char *art = cp_arena_strdup(ar, ART);
    char *f = strstr(art, "\"projectRelative\": true");
    memcpy(f, "\"projectRelative\":false", 23);
    hook_art = art;
    e.settings_path = "/home/u/.claude/settings.json";
    ck_assert_ptr_nonnull(inst(&e, "{}", art, &err));
}
END_TEST

START_TEST(hook_quoting)
{
    struct cp_settings_env e = env();
    e.gate_path = "/opt/my confpol/confpol-gate";
    e.artifact_path = art_file = "/p/it's/.claude/p.claude.json";
    e.settings_path = "/p/it's/.claude/settings.json";
    char *err;
    char *out = inst(&e, "{}", ART, &err);
    art_file = "/p/.claude/p.claude.json";
    ck_assert_msg(out != NULL, "%s", err);
    ck_assert_ptr_nonnull(strstr(
        out, cp_arena_printf(ar,
                             "\"command\": \"'/opt/my confpol/confpol-gate' %s"
                             "'/p/it'\\\\''s/.claude/p.claude.json'\"",
                             pin_of(ART))));
    char *rep;
    art_file = "/p/it's/.claude/p.claude.json";
    ck_assert_int_eq(verify(&e, out, ART, &rep), 0);
    art_file = "/p/.claude/p.claude.json";
}
END_TEST

/* ---- verify -------------------------------------------------------------- */

START_TEST(verify_gaps)
{
    struct cp_settings_env e = env();
    char *rep;
    ck_assert_int_eq(verify(&e, "{}", ART, &rep), 5);
    ck_assert_str_eq(
        rep, "gap: no \"sandbox\" object: the Bash tool runs unconfined\n"
             "gap: permissions.deny lacks \"Edit(/.claude)\"\n"
             "gap: permissions.deny lacks \"Edit(/.claude/**)\"\n"
             "gap: permissions.ask lacks \"Bash(npm test)\"\n"
             "gap: no PreToolUse hook for Bash runs the gate (confpol-gate) on "
             "this policy's artifact\n");
    ck_assert_int_eq(verify(&e, "[1", ART, &rep), -1);

    char *out = inst(&e, "{}", ART, NULL);
    ck_assert_int_eq(verify(&e, out, ART, &rep), 0);
    /* Each weakening is named. */
    struct {
        const char *from, *to, *gap;
    } cases[] = {
        {"\"enabled\": true", "\"enabled\": false",
         "sandbox.enabled is not true"},
        {"\"failIfUnavailable\": true", "\"failIfUnavailable\": false",
         "sandbox.failIfUnavailable is not true"},
        {"\"allowUnsandboxedCommands\": false",
         "\"allowUnsandboxedCommands\": true",
         "sandbox.allowUnsandboxedCommands is not false"},
        {"\"./.claude\"\n", "\"./.clause\"\n",
         "sandbox.filesystem.denyWrite lacks \"./.claude\""},
        {"\"allowWrite\": [\n", "\"allowWrite\": [\"/\",\n",
         "sandbox.filesystem.allowWrite holds \"/\""},
        {"\"enabled\": true",
         "\"excludedCommands\": [\"git\"], \"enabled\": true",
         "sandbox.excludedCommands is set"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = strstr(out, cases[i].from);
        ck_assert_ptr_nonnull(s);
        char *mod = cp_arena_printf(ar, "%.*s%s%s", (int)(s - out), out,
                                    cases[i].to, s + strlen(cases[i].from));
        int g = verify(&e, mod, ART, &rep);
        ck_assert_msg(g > 0, "no gap for %s", cases[i].to);
        ck_assert_msg(strstr(rep, cases[i].gap), "%s", rep);
    }
    /* The hook must run an executable on an artifact with the same gates. */
    e.gate_path = "/nonexistent/confpol-gate";
    char *err;
    ck_assert_ptr_null(inst(&e, "{}", ART, &err));
    ck_assert_ptr_nonnull(strstr(err, "not an executable file"));
    e.gate_path = "/usr/local/bin/confpol-gate";
    char *other = cp_arena_strdup(ar, ART);
    memcpy(strstr(other, "\"sudo\""), "\"doas\"", 6);
    hook_art = other;
    ck_assert_int_eq(verify(&e, out, ART, &rep), 1);
    ck_assert_ptr_nonnull(strstr(rep, "pins a SHA-256 that"));
    /* A hook without the pin (an earlier install) is compared by table. */
    const char *pin = pin_of(ART);
    char *s = strstr(out, pin);
    ck_assert_ptr_nonnull(s);
    char *unpinned = cp_arena_printf(ar, "%.*s%s", (int)(s - out), out,
                                     s + strlen(pin));
    ck_assert_int_eq(verify(&e, unpinned, ART, &rep), 1);
    ck_assert_ptr_nonnull(strstr(rep, "whose gate table differs"));
    /* A hook whose matcher leaves out a file tool is a gap. */
    hook_art = ART;
    s = strstr(out, "|NotebookEdit\"");
    ck_assert_ptr_nonnull(s);
    char *narrow = cp_arena_printf(ar, "%.*s%s", (int)(s - out), out,
                                   s + strlen("|NotebookEdit"));
    ck_assert_int_eq(verify(&e, narrow, ART, &rep), 1);
    ck_assert_ptr_nonnull(strstr(rep, "does not cover the NotebookEdit tool"));
    /* The gate is confpol-gate, or confpol's own `gate` command (settings
     * wired by hand); another program, or confpol-gate given `gate` as its
     * artifact, runs no gate. */
    static const struct {
        const char *to;
        int gaps;
    } forms[] = {
        {"/usr/local/bin/confpol gate ", 0},
        {"/usr/local/bin/confpol ", 1},
        {"/usr/local/bin/confpol-gate gate ", 1},
        {"/usr/local/bin/confpol-gates ", 1},
    };
    const char *from = "/usr/local/bin/confpol-gate ";
    s = strstr(out, from);
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char *mod = cp_arena_printf(ar, "%.*s%s%s", (int)(s - out), out,
                                    forms[i].to, s + strlen(from));
        ck_assert_int_eq(verify(&e, mod, ART, &rep), forms[i].gaps);
        if (forms[i].gaps)
            ck_assert_ptr_nonnull(strstr(rep, "runs the gate (confpol-gate)"));
    }
}
END_TEST

START_TEST(two_artifacts)
{
    struct cp_settings_env a = env(), b = env();
    b.artifact_path = "/p/.claude/q.claude.json";
    char *one = inst(&a, "{\"x\": 1}\n", ART, NULL);
    ck_assert_ptr_nonnull(one);
    char *two = inst(&b, one, ART, NULL);
    ck_assert_ptr_nonnull(two);
    ck_assert_ptr_nonnull(
        strstr(two, cp_arena_printf(ar, "gate %s/p/.claude/q.claude.json",
                                    pin_of(ART))));
    /* Removing b leaves a's install as it was. */
    size_t rm;
    ck_assert_str_eq(uninst(&b, two, &rm), one);
    ck_assert_uint_eq(rm, 1); /* only the hook: the rest was a's already */
    ck_assert_str_eq(uninst(&a, one, &rm), "{\"x\": 1}\n");
    /* Nothing from an unknown artifact. */
    ck_assert_str_eq(uninst(&b, one, &rm), one);
    ck_assert_uint_eq(rm, 0);
}
END_TEST

START_TEST(uninstall_after_user_edits)
{
    struct cp_settings_env e = env();
    char *out = inst(&e, "{\"permissions\": {\"deny\": [\"Read(x)\"]}}", ART,
                     NULL);
    ck_assert_ptr_nonnull(out);
    /* The user appends an entry after confpol's and flips a switch. */
    char *s = strstr(out, "\"Edit(/.claude/**)\"");
    ck_assert_ptr_nonnull(s);
    s += strlen("\"Edit(/.claude/**)\"");
    char *mod = cp_arena_printf(ar, "%.*s, \"Bash(mine)\"%s", (int)(s - out),
                                out, s);
    char *en = strstr(mod, "\"enabled\": true");
    memcpy(en, "\"enabled\":false", 15);
    char *back = uninst(&e, mod, NULL);
    ck_assert_ptr_nonnull(strstr(back, "\"Read(x)\""));
    ck_assert_ptr_nonnull(strstr(back, "\"Bash(mine)\""));
    ck_assert_ptr_null(strstr(back, "Edit(/.claude"));
    /* A changed value is the user's now: it stays, and so does its object. */
    ck_assert_ptr_nonnull(strstr(back, "\"enabled\":false"));
    ck_assert_ptr_null(strstr(back, CP_SETTINGS_RECORD_KEY));
    struct cp_jnode *v;
    ck_assert_ptr_null(cp_json_parse(ar, back, strlen(back), &v));
}
END_TEST

/* Linear list operations: a large artifact installs and uninstalls fast
 * (seconds would mean a quadratic step). */
START_TEST(large_lists)
{
    enum { N = 10000 };
    struct cp_buf art = {0};
    cp_buf_adds(
        &art, "{\"confpol\": {\"failClosed\": true, \"gates\": [], "
              "\"projectRelative\": false, \"stem\": \"big\", \"version\": 1}, "
              "\"permissions\": {\"deny\": [");
    for (int i = 0; i < N; i++)
        cp_buf_printf(&art, "%s\"Edit(//data/d%d)\"", i ? ", " : "", i);
    cp_buf_adds(&art, "]}, \"sandbox\": {\"enabled\": true, \"filesystem\": "
                      "{\"denyWrite\": [");
    for (int i = 0; i < N; i++)
        cp_buf_printf(&art, "%s\"//data/d%d\"", i ? ", " : "", i);
    cp_buf_adds(&art, "]}}}");
    struct cp_settings_env e = env();
    e.settings_path = "/home/u/.claude/settings.json";
    hook_art = art.data;
    char *err;
    char *out = inst(&e, "{\"model\": \"x\"}\n", art.data, &err);
    ck_assert_msg(out != NULL, "%s", err);
    char *rep;
    ck_assert_int_eq(verify(&e, out, art.data, &rep), 0);
    ck_assert_str_eq(uninst(&e, out, NULL), "{\"model\": \"x\"}\n");
    cp_buf_free(&art);
}
END_TEST

Suite *cp_test_settings_suite(void); /* collected by the Makefile */
Suite *cp_test_settings_suite(void)
{
    Suite *s = suite_create("settings");
    TCase *t = tcase_create("wiring");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, json_reader);
    tcase_add_test(t, json_printer);
    tcase_add_test(t, install_keeps_bytes);
    tcase_add_test(t, install_new_and_empty);
    tcase_add_test(t, install_scalars);
    tcase_add_test(t, install_refuses);
    tcase_add_test(t, project_relative);
    tcase_add_test(t, hook_quoting);
    tcase_add_test(t, verify_gaps);
    tcase_add_test(t, two_artifacts);
    tcase_add_test(t, uninstall_after_user_edits);
    tcase_add_test(t, large_lists);
    suite_add_tcase(s, t);
    return s;
}

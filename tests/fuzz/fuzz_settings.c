/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the settings merge of `confpol install`
 * (settings/settings.h).  The input is used twice: as the live settings
 * document against a fixed artifact, and as the artifact against a fixed
 * live document.  Besides "no crash, no leak", every accepted merge must
 * hold the properties spec/settings-wiring.md promises:
 *   - the result is valid JSON;
 *   - a second install changes nothing (byte-identical);
 *   - verify finds no gap in the result;
 *   - uninstall of the result gives back the live document (structurally)
 *     when the live document held no earlier install record;
 *   - a refusal leaves no output.
 * The JSON reader and printer are exercised on the raw input as well. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An artifact like the claude backend's for a confined policy with a
 * regex gate (so that install wires the hook). */
static const char cp_fuzz_art[] =
    "{\n"
    "  \"sandbox\": {\n"
    "    \"enabled\": true,\n"
    "    \"failIfUnavailable\": true,\n"
    "    \"allowUnsandboxedCommands\": false,\n"
    "    \"autoAllowBashIfSandboxed\": false,\n"
    "    \"filesystem\": {\n"
    "      \"allowWrite\": [\"./\"],\n"
    "      \"denyWrite\": [\"./.claude\", \"~/.config/confpol\"],\n"
    "      \"denyRead\": [\"~/.config/confpol\", \"~/.ssh\"]\n"
    "    },\n"
    "    \"network\": {\"allowedDomains\": [\"example.com\", "
    "\"*.example.org\"]}\n"
    "  },\n"
    "  \"permissions\": {\n"
    "    \"deny\": [\"Edit(./.claude/**)\", \"Read(~/.ssh/**)\", \"Bash(git "
    "push --force *)\"],\n"
    "    \"ask\": [\"Bash(rm -rf *)\"]\n"
    "  },\n"
    "  \"hooks\": {\n"
    "    \"PreToolUse\": [\n"
    "      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", "
    "\"command\": "
    "\"/usr/local/bin/confpol gate /etc/confpol/fuzz.claude.json\", "
    "\"timeout\": 30}]}\n"
    "    ]\n"
    "  },\n"
    "  \"confpol\": {\"version\": 1, \"stem\": \"fuzz\", \"failClosed\": true, "
    "\"gates\": [\n"
    "    {\"id\": \"gate#1\", \"verdict\": \"ask\", \"kind\": \"regex\", "
    "\"pattern\": "
    "\"curl[^|]*[|][[:space:]]*sh\", \"where\": \"fuzz.confpol:9\"}\n"
    "  ]}\n"
    "}\n";

static const char cp_fuzz_live[] =
    "{\n"
    "  \"model\": \"opus\",\n"
    "  \"permissions\": {\"allow\": [\"Bash(ls *)\"], \"deny\": "
    "[\"Read(~/.ssh/**)\"]},\n"
    "  \"hooks\": {\"PostToolUse\": [{\"matcher\": \"Edit\", \"hooks\": "
    "[{\"type\": \"command\", \"command\": \"/usr/bin/true\"}]}]},\n"
    "  \"env\": {\"A\": \"b\"}\n"
    "}\n";

static const char *cp_fuzz_art_text = cp_fuzz_art;
static size_t cp_fuzz_art_len = sizeof cp_fuzz_art - 1;

static bool cp_fuzz_read_file(const char *path, struct cp_buf *out, void *ud)
{
    (void)ud;
    if (strcmp(path, "/etc/confpol/fuzz.claude.json") != 0)
        return false;
    cp_buf_add(out, cp_fuzz_art_text, cp_fuzz_art_len);
    return true;
}

static bool cp_fuzz_is_exec(const char *path, void *ud)
{
    (void)ud;
    return strcmp(path, "/usr/local/bin/confpol") == 0;
}

static const struct cp_settings_env cp_fuzz_env = {
    .settings_path = "/home/fuzz/project/.claude/settings.json",
    .artifact_path = "/etc/confpol/fuzz.claude.json",
    .gate_path = "/usr/local/bin/confpol-gate",
    .home = "/home/fuzz",
    .read_file = cp_fuzz_read_file,
    .is_exec = cp_fuzz_is_exec,
};

static _Noreturn void cp_fuzz_fail(const char *what, const struct cp_buf *doc)
{
    fprintf(stderr, "fuzz_settings: %s\n%.*s\n", what, doc ? (int)doc->len : 0,
            doc && doc->data ? doc->data : "");
    abort();
}

static bool cp_fuzz_has_record(const char *text, size_t len)
{
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *root = NULL;
    bool has = true; /* unreadable: do not claim the round trip */
    if (!cp_json_parse(a, text, len, &root) && root && root->type == CP_J_OBJ) {
        bool dup = false;
        has = cp_json_get(root, CP_SETTINGS_RECORD_KEY, &dup) != NULL;
    }
    cp_arena_free(a);
    return has;
}

/* One install of art into live and the properties of its result. */
static void cp_fuzz_install(const char *live, size_t llen, const char *art,
                            size_t alen, bool fixed_art)
{
    struct cp_buf out = {0}, err = {0};
    int rc = cp_settings_install(&cp_fuzz_env, live, llen, art, alen, &out,
                                 &err);
    if (rc != 0) {
        if (out.len != 0)
            cp_fuzz_fail("install refused but produced output", &out);
        if (err.len == 0)
            cp_fuzz_fail("install refused without a reason", NULL);
        cp_buf_free(&out);
        cp_buf_free(&err);
        return;
    }
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *doc = NULL;
    if (cp_json_parse(a, out.data ? out.data : "", out.len, &doc))
        cp_fuzz_fail("install produced invalid JSON", &out);

    /* A second install changes nothing. */
    struct cp_buf out2 = {0}, err2 = {0};
    if (cp_settings_install(&cp_fuzz_env, out.data, out.len, art, alen, &out2,
                            &err2) != 0 ||
        out2.len != out.len || memcmp(out2.data, out.data, out.len) != 0)
        cp_fuzz_fail("a second install changed the document", &out2);

    /* Verify finds the policy enforced (the fixed artifact is what the
     * hook command points at, so only then is the hook checkable). */
    if (fixed_art) {
        struct cp_buf rep = {0};
        int gaps = cp_settings_verify(&cp_fuzz_env, out.data, out.len, art,
                                      alen, &rep);
        if (gaps != 0) {
            fprintf(stderr, "fuzz_settings: verify after install: %d\n%.*s\n",
                    gaps, (int)rep.len, rep.data ? rep.data : "");
            cp_fuzz_fail("verify reports gaps right after install", &out);
        }
        cp_buf_free(&rep);
    }

    /* Uninstall gives the live document back. */
    struct cp_buf back = {0}, err3 = {0};
    size_t removed = 0;
    if (cp_settings_uninstall(&cp_fuzz_env, out.data, out.len, &back, &removed,
                              &err3) != 0)
        cp_fuzz_fail("uninstall refused what install wrote", &err3);
    if (live && !cp_fuzz_has_record(live, llen)) {
        struct cp_jnode *orig = NULL, *round = NULL;
        if (cp_json_parse(a, live, llen, &orig) == NULL &&
            (cp_json_parse(a, back.data ? back.data : "", back.len, &round) ||
             !cp_json_equal(orig, round)))
            cp_fuzz_fail("uninstall(install(live)) differs from live", &back);
    }
    cp_buf_free(&back);
    cp_buf_free(&err3);
    cp_buf_free(&out2);
    cp_buf_free(&err2);
    cp_buf_free(&out);
    cp_buf_free(&err);
    cp_arena_free(a);
}

/* The reader and printer on the raw bytes: a document that parses prints
 * to a document that parses to an equal value, and printing is stable. */
static void cp_fuzz_json(const char *text, size_t len)
{
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *v = NULL;
    if (cp_json_parse(a, text, len, &v) == NULL) {
        for (int compact = 0; compact < 2; compact++) {
            struct cp_buf p1 = {0}, p2 = {0};
            cp_json_print(&p1, v, "", "  ", compact);
            struct cp_jnode *w = NULL;
            if (cp_json_parse(a, p1.data ? p1.data : "", p1.len, &w) ||
                !cp_json_equal(v, w))
                cp_fuzz_fail("printed JSON does not read back equal", &p1);
            cp_json_print(&p2, w, "", "  ", compact);
            if (p1.len != p2.len || memcmp(p1.data, p2.data, p1.len) != 0)
                cp_fuzz_fail("printing is not stable", &p2);
            cp_buf_free(&p1);
            cp_buf_free(&p2);
        }
    }
    (void)cp_utf8_valid(text, len);
    cp_arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    cp_fuzz_json(text, size);
    cp_fuzz_install(text, size, cp_fuzz_art, sizeof cp_fuzz_art - 1, true);
    cp_fuzz_install(cp_fuzz_live, sizeof cp_fuzz_live - 1, text, size, false);

    /* Verify and uninstall on arbitrary documents never crash either. */
    struct cp_buf rep = {0}, back = {0}, err = {0};
    size_t removed = 0;
    (void)cp_settings_verify(&cp_fuzz_env, text, size, cp_fuzz_art,
                             sizeof cp_fuzz_art - 1, &rep);
    (void)cp_settings_uninstall(&cp_fuzz_env, text, size, &back, &removed,
                                &err);
    cp_buf_free(&rep);
    cp_buf_free(&back);
    cp_buf_free(&err);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the gate hook's stdin handling (hook/gate.h).  The
 * input is the hook's stdin: it goes through the bounded reader over a
 * pipe, the input checks, the decision over a fixed gate table, and the
 * answer JSON, which must always be one valid JSON object line.  The same
 * bytes are also read as a gate-table artifact (the hook's other input).
 *
 * Properties checked beyond "no crash, no leak": the reader returns the
 * bytes unchanged; reading in place reads what reading with copies
 * reads; an answer is empty for allow and otherwise parses as
 * JSON with the expected decision; the decision is deterministic. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A gate table like the one the claude backend emits: word patterns and
 * regexes, ask and deny, including the seed's review triggers; word rows
 * with their programs (parsed when a line runs one) and one without. */
static const char cp_fuzz_artifact[] =
    "{\"confpol\": {\"version\": 1, \"stem\": \"fuzz\", \"failClosed\": true,"
    " \"gates\": ["
    "{\"id\": \"gate#1\", \"verdict\": \"deny\", \"kind\": \"words\","
    " \"pattern\": \"git push --force *\", \"programs\": [\"git\"],"
    " \"where\": \"fuzz.confpol:3\"},"
    "{\"id\": \"gate#2\", \"verdict\": \"ask\", \"kind\": \"words\","
    " \"pattern\": \"rm {-r|-R} {-f|--force} *\", \"where\": "
    "\"fuzz.confpol:4\"},"
    "{\"id\": \"gate#3\", \"verdict\": \"ask\", \"kind\": \"regex\","
    " \"pattern\": \"curl[^|]*[|][[:space:]]*(ba)?sh\", \"where\": "
    "\"fuzz.confpol:5\"},"
    "{\"id\": \"gate#4\", \"verdict\": \"deny\", \"kind\": \"words\","
    " \"pattern\": \"sudo *\", \"programs\": [\"sudo\"], \"where\":"
    " \"fuzz.confpol:6\"},"
    "{\"id\": \"gate#5\", \"verdict\": \"ask\", \"kind\": \"words\","
    " \"pattern\": \"g?t re*t --hard\", \"programs\": [\"g?t\"], \"where\":"
    " \"fuzz.confpol:7\"},"
    "{\"id\": \"gate#6\", \"verdict\": \"deny\", \"kind\": \"regex\","
    " \"pattern\": \"(^|[;&|])[[:space:]]*:[[:space:]]*>\", \"where\": "
    "\"fuzz.confpol:8\"}"
    "], \"paths\": {\"denyWrite\": [\"${PROJECT}/.git/hooks\","
    " \"~/.config/autostart\", \"/tmp/fuzz-*/\\\\*x\"], \"write\": "
    "[\"${PROJECT}\", \"/tmp/fuzz-*\", \"~/**/cache\"]}}}";

static struct cp_arena *cp_fuzz_table_arena;
static struct cp_gate_table cp_fuzz_table;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cp_fuzz_table_arena = cp_arena_new();
    const char *err = cp_gate_table_parse(cp_fuzz_table_arena, cp_fuzz_artifact,
                                          sizeof cp_fuzz_artifact - 1,
                                          &cp_fuzz_table);
    if (err) {
        fprintf(stderr, "fuzz_gate: fixed table rejected: %s\n", err);
        abort();
    }
    return 0;
}

/* The answer must be empty (allow) or one line of JSON with the verdict. */
static void cp_fuzz_check_answer(const struct cp_gate_answer *ans)
{
    struct cp_buf out = {0};
    cp_gate_format_answer(&out, ans->verdict, ans->reason);
    if (ans->verdict == CP_ALLOW) {
        if (out.len != 0)
            abort();
        cp_buf_free(&out);
        return;
    }
    if (out.len == 0 || out.data[out.len - 1] != '\n' ||
        memchr(out.data, '\n', out.len) != out.data + out.len - 1)
        abort();
    static const struct cp_json_opts strict = {.no_dup_keys = true,
                                               .no_nul = true};
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *j = NULL;
    cp_json_read(a, out.data, out.len, &strict, &j, NULL);
    const struct cp_jnode *h = cp_json_get(j, "hookSpecificOutput", NULL);
    const struct cp_jnode *d = cp_json_get(h, "permissionDecision", NULL);
    const char *want = ans->verdict == CP_DENY ? "deny" : "ask";
    if (!cp_json_str_is(d, want, strlen(want))) {
        fprintf(stderr,
                "fuzz_gate: answer is not valid JSON or has the wrong "
                "decision:\n%s",
                out.data);
        abort();
    }
    cp_arena_free(a);
    cp_buf_free(&out);
}

/* The bounded reader over a pipe (the input is below the pipe buffer,
 * so one write suffices and no second thread is needed). */
static void cp_fuzz_reader(const uint8_t *data, size_t size)
{
    int p[2];
    if (size > 60000 || pipe(p) != 0)
        return;
    if (size && write(p[1], data, size) != (ssize_t)size)
        abort();
    close(p[1]);
    struct cp_buf in = {0};
    enum cp_gate_rd r = cp_gate_read_input(p[0], CP_GATE_MAX_INPUT, 1000, &in);
    close(p[0]);
    (void)cp_gate_rd_text(r);
    /* EOF came with every byte: the reader returns them all, or stops
     * early only at a prefix that is a complete value or that no more
     * bytes can make one. */
    bool early_ok = true;
    if (r == CP_GATE_RD_OK && in.len < size) {
        struct cp_arena *a = cp_arena_new();
        struct cp_jnode *v;
        enum cp_json_err k;
        static const struct cp_json_opts gate = {.max_bytes = CP_GATE_MAX_INPUT,
                                                 .no_dup_keys = true,
                                                 .no_nul = true};
        cp_json_read(a, in.data, in.len, &gate, &v, &k);
        early_ok = k != CP_JSON_E_END;
        cp_arena_free(a);
    }
    if (r != CP_GATE_RD_OK || in.len > size || !early_ok ||
        (in.len && memcmp(in.data, data, in.len) != 0)) {
        fprintf(stderr, "fuzz_gate: reader returned %d with %zu of %zu bytes\n",
                (int)r, in.len, size);
        abort();
    }
    cp_buf_free(&in);
    /* Over the cap: refused, never truncated silently. */
    if (size > 8 && pipe(p) == 0) {
        if (write(p[1], data, size) != (ssize_t)size)
            abort();
        close(p[1]);
        r = cp_gate_read_input(p[0], size - 1, 1000, &in);
        close(p[0]);
        /* A complete JSON value may end before the cap; else too big. */
        if (r != CP_GATE_RD_OK && r != CP_GATE_RD_TOOBIG)
            abort();
        cp_buf_free(&in);
    }
}

/* Reading in place (the hook's path) gives the answer reading with
 * copies gives: the same refusal, or the same tool, command, path and
 * texts.  On an exact-size copy (no NUL after it), so that a write or a
 * read past the end is the sanitizer's to see. */
static void cp_fuzz_in_place(const char *text, size_t size,
                             const struct cp_gate_input *in, const char *err)
{
    char *w = malloc(size ? size : 1);
    if (!w)
        abort();
    memcpy(w, text, size);
    struct cp_arena *a = cp_arena_new();
    struct cp_gate_input ip;
    const char *e2 = cp_gate_parse_input_in_place(a, w, size, &ip);
    bool same = !err == !e2 && (!err || strcmp(err, e2) == 0);
    if (same && !err) {
        same = !in->command == !ip.command &&
               (!in->command || strcmp(in->command, ip.command) == 0) &&
               strcmp(in->tool, ip.tool) == 0 && in->ntexts == ip.ntexts &&
               !in->path == !ip.path &&
               (!in->path || strcmp(in->path, ip.path) == 0);
        for (size_t i = 0; same && i < in->ntexts; i++)
            same = in->texts[i].len == ip.texts[i].len &&
                   memcmp(in->texts[i].text, ip.texts[i].text,
                          in->texts[i].len) == 0;
    }
    if (!same) {
        fprintf(stderr, "fuzz_gate: the input read in place differs\n");
        abort();
    }
    cp_arena_free(a);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    cp_fuzz_reader(data, size);

    struct cp_arena *a = cp_arena_new();
    struct cp_gate_input in;
    const char *err = cp_gate_parse_input(a, text, size, &in);
    cp_fuzz_in_place(text, size, &in, err);
    if (!err && in.command) {
        struct cp_gate_answer ans, again;
        cp_gate_table_decide(&cp_fuzz_table, in.command, a, &ans);
        cp_gate_table_decide(&cp_fuzz_table, in.command, a, &again);
        if (ans.verdict != again.verdict ||
            (ans.rule != again.rule &&
             (!ans.rule || !again.rule || strcmp(ans.rule, again.rule) != 0)))
            abort();
        cp_fuzz_check_answer(&ans);
    } else if (err) {
        /* Malformed input: the hook answers deny under a fail-closed table;
         * the reason it gives must still be valid JSON. */
        struct cp_gate_answer ans = {.verdict = CP_DENY, .reason = err};
        cp_fuzz_check_answer(&ans);
    }
    /* What a file tool writes: scanned with every detector; the deny
     * reason must be valid JSON like every answer. */
    if (!err && in.file_tool) {
        struct cp_content_scan cs;
        if (cp_gate_scan_texts(a, &in, CP_CC_ALL, NULL, 0, &cs)) {
            struct cp_gate_answer ans = {.verdict = CP_DENY,
                                         .reason = cp_content_reason(a, &cs)};
            cp_fuzz_check_answer(&ans);
        }
    }
    /* A file tool's path: decided twice alike, its reason valid JSON. */
    if (!err && in.file_tool) {
        struct cp_gate_path_env env = {.home = "/nonexistent-home",
                                       .project = "/tmp/fuzz-project",
                                       .cwd = in.cwd};
        const char *w1 = cp_gate_path_decide(a, &cp_fuzz_table.paths, in.path,
                                             &env);
        const char *w2 = cp_gate_path_decide(a, &cp_fuzz_table.paths, in.path,
                                             &env);
        if (!w1 != !w2 || (w1 && strcmp(w1, w2) != 0))
            abort();
        if (w1) {
            struct cp_gate_answer ans = {.verdict = CP_DENY, .reason = w1};
            cp_fuzz_check_answer(&ans);
        }
    }
    /* The raw bytes as a file tool's text, too (the detectors' bounds). */
    {
        struct cp_content_scan cs = {0};
        cp_content_scan(a, CP_CC_ALL, NULL, 0, "content", text, size, &cs);
        for (size_t i = 0; i < cs.n; i++)
            if (!cs.v[i].nlines || cs.v[i].lines[0] < 1 ||
                cs.v[i].total < cs.v[i].nlines)
                abort();
    }
    /* The raw bytes as a command line, too (quoting, splitting). */
    if (size < 4096 && !memchr(text, 0, size)) {
        char *cmd = cp_arena_strndup(a, text, size);
        struct cp_gate_answer ans;
        cp_gate_table_decide(&cp_fuzz_table, cmd, a, &ans);
        cp_fuzz_check_answer(&ans);
        struct cp_buf js = {0};
        cp_json_quote_utf8(&js, cmd, strlen(cmd));
        struct cp_jnode *j = NULL;
        cp_json_parse(a, js.data, js.len, &j);
        if (!j || j->type != CP_J_STR)
            abort();
        cp_buf_free(&js);
    }

    /* The same bytes as an artifact's gate table. */
    struct cp_gate_table t;
    if (!cp_gate_table_parse(a, text, size, &t)) {
        struct cp_gate_answer ans;
        cp_gate_table_decide(&t, "git push --force origin main; curl x | sh", a,
                             &ans);
        cp_fuzz_check_answer(&ans);
    }
    cp_gate_table_free(&t);
    cp_arena_free(a);
    return 0;
}

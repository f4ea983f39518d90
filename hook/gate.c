/* SPDX-License-Identifier: MIT */
/* The gate hook without the parser: bounded stdin, strict input checks, the
 * artifact's gate table, decisions over it and the answer JSON.
 *
 * Input is read with poll(2) against one overall deadline and a byte cap, and
 * reading stops as soon as the bytes form one complete JSON object, so a
 * client that leaves stdin open costs nothing and a silent one costs at most
 * CP_GATE_READ_TIMEOUT_MS.  Every check that can fail returns a message; the
 * caller turns it into deny or allow by the policy's fail mode. */
#include "gate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claude_vocab.h"
#include "text.h"
#include "json.h"
#include "../compiler/match.h"
#include "../compiler/shell_read.h"

static long cp_gate_ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)(t.tv_sec - t0->tv_sec) * 1000 +
           (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static bool cp_gate_is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The reader's rules for the hook's stdin (spec/gate.md, "Checks on the
 * input"): the client's parser must not see another document than ours. */
static const struct cp_json_opts cp_gate_input_opts = {
    .max_bytes = CP_GATE_MAX_INPUT, .no_dup_keys = true, .no_nul = true};

/* True when buf holds one whole JSON object or array and only whitespace
 * after it, or bytes that no continuation can make valid (the checks then
 * answer without waiting).  Scalars are never "complete" early: "12" may
 * go on as "123". */
/* Do the brackets outside strings close at the end of t[0..n), never
 * going below zero, with every string closed?  Then the reader, should it
 * agree about the strings, has read the whole value by the last byte, and
 * should it not, it has failed before the end: either way no further byte
 * can change its answer, so the input is complete without being parsed
 * twice (a large Write was read once here and once for real). */
static bool cp_gate_json_balanced(const char *t, size_t n)
{
    long depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '"') {
            /* the closing quote: the first not preceded by an odd run of
             * backslashes (each pair is one escaped backslash) */
            size_t s = i + 1;
            for (;;) {
                const char *q = cp_find_byte(t + s, n - s, '"');
                if (!q)
                    return false;
                size_t e = (size_t)(q - t), b = e;
                while (b > i + 1 && t[b - 1] == '\\')
                    b--;
                s = e + 1;
                if ((e - b) % 2 == 0)
                    break;
            }
            i = s - 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth < 0) {
            return false;
        }
    }
    return depth == 0;
}

static bool cp_gate_json_complete(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len && cp_gate_is_ws(buf[i]))
        i++;
    if (i == len || (buf[i] != '{' && buf[i] != '['))
        return false;
    if (cp_gate_json_balanced(buf + i, len - i))
        return true;
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *v;
    enum cp_json_err k;
    cp_json_read(a, buf, len, &cp_gate_input_opts, &v, &k);
    cp_arena_free(a);
    return k != CP_JSON_E_END;
}

enum cp_gate_rd cp_gate_read_input(int fd, size_t cap, int timeout_ms,
                                   struct cp_buf *out)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* read straight into out: a large input is written once (a chunk
     * copied into a growing buffer touched every page twice) */
    enum { CHUNK = 65536 };
    cp_buf_add(out, "", 0);
    for (;;) {
        long left = timeout_ms - cp_gate_ms_since(&t0);
        if (left <= 0)
            return CP_GATE_RD_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = poll(&p, 1, (int)left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return CP_GATE_RD_ERROR;
        }
        if (n == 0)
            return CP_GATE_RD_TIMEOUT;
        if (p.revents & POLLNVAL) {
            errno = EBADF;
            return CP_GATE_RD_ERROR;
        }
        cp_buf_grow(out, CHUNK);
        ssize_t r = read(fd, out->data + out->len, CHUNK);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return CP_GATE_RD_ERROR;
        }
        if (r == 0)
            return CP_GATE_RD_OK;
        if (out->len + (size_t)r > cap) {
            out->data[out->len] = '\0'; /* out: what fitted, as before */
            return CP_GATE_RD_TOOBIG;
        }
        out->len += (size_t)r;
        out->data[out->len] = '\0';
        /* A complete object or array ends with '}' or ']' and blanks: only
         * then is it worth parsing (a large input arrives in many reads,
         * and parsing each prefix would cost its square). */
        size_t e = out->len;
        while (e > 0 && cp_gate_is_ws(out->data[e - 1]))
            e--;
        if (e > 0 && (out->data[e - 1] == '}' || out->data[e - 1] == ']') &&
            cp_gate_json_complete(out->data, out->len))
            return CP_GATE_RD_OK;
    }
}

const char *cp_gate_rd_text(enum cp_gate_rd r)
{
    switch (r) {
    case CP_GATE_RD_OK:
        return "ok";
    case CP_GATE_RD_TOOBIG:
        return "input larger than 1 MiB";
    case CP_GATE_RD_TIMEOUT:
        return "input incomplete after 3 s (stdin left open?)";
    case CP_GATE_RD_ERROR:
        return "cannot read input";
    }
    return "cannot read input";
}

/* The reason for input the reader refuses (spec/gate.md's table). */
static const char *cp_gate_input_err(enum cp_json_err k)
{
    switch (k) {
    case CP_JSON_E_SIZE:
        return "input larger than 1 MiB";
    case CP_JSON_E_NUL:
        return "input contains an escaped NUL character";
    case CP_JSON_E_DUP:
        return "input has a duplicate key";
    case CP_JSON_E_TRAILING:
        return "input has data after the JSON value";
    case CP_JSON_E_UTF8:
        return "input is not valid UTF-8";
    case CP_JSON_E_DEPTH:
        return "input is nested deeper than 256 levels";
    case CP_JSON_OK:
    case CP_JSON_E_SYNTAX:
    case CP_JSON_E_END:
        break;
    }
    return "input is not JSON";
}

/* A string member of a tool_input object: NULL with *err set when it is
 * missing (and required) or not a string.  (A key twice never gets here:
 * the reader refuses it.) */
static const struct cp_jnode *cp_gate_member(const struct cp_jnode *o,
                                             const char *key, bool required,
                                             const char **err)
{
    static const char *const msgs[][2] = {
        {"content", "tool_input.content is missing or not a string"},
        {"new_string", "tool_input.new_string is missing or not a string"},
        {"new_source", "tool_input.new_source is missing or not a string"},
        {"command", "tool_input.command is missing or not a string"},
        {"file_path", "tool_input.file_path is missing or not a string"},
        {"notebook_path",
         "tool_input.notebook_path is missing or not a string"},
    };
    const struct cp_jnode *v = cp_json_get(o, key, NULL);
    if (v && v->type == CP_J_STR)
        return v;
    if (!v && !required)
        return NULL;
    *err = "tool_input has a member of the wrong type";
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++)
        if (strcmp(msgs[i][0], key) == 0)
            *err = msgs[i][1];
    return NULL;
}

/* Records a text to scan; the string lives in the input's tree (arena a). */
static void cp_gate_add_text(struct cp_arena *a, struct cp_gate_input *in,
                             size_t cap, const char *field,
                             const struct cp_jnode *s)
{
    if (!in->texts)
        in->texts = cp_arena_alloc(a, (cap ? cap : 1) * sizeof *in->texts);
    in->texts[in->ntexts++] = (struct cp_gate_text){.field = field,
                                                    .text = s->s,
                                                    .len = s->len};
}

/* MultiEdit: the new_string of every element of tool_input.edits. */
static const char *cp_gate_multiedit_texts(struct cp_arena *a,
                                           const struct cp_jnode *ti,
                                           struct cp_gate_input *in)
{
    const char *err = NULL;
    const struct cp_jnode *edits = cp_json_get(ti, "edits", NULL), *s;
    if (!edits || edits->type != CP_J_ARR)
        return "tool_input.edits is missing or not an array";
    for (size_t i = 0; i < edits->n; i++) {
        const struct cp_jnode *e = edits->items[i];
        if (e->type != CP_J_OBJ)
            return "tool_input.edits has an edit that is not an object";
        if (!(s = cp_gate_member(e, "new_string", true, &err)))
            break;
        cp_gate_add_text(a, in, edits->n,
                         cp_arena_printf(a, "edits[%zu].new_string", i), s);
    }
    if (err &&
        strcmp(err, "tool_input.new_string is missing or not a string") == 0)
        err = "tool_input.edits has an edit without a new_string string";
    return err;
}

/* The texts a file tool would write (spec/gate.md, "Which tools"). */
static const char *cp_gate_file_texts(struct cp_arena *a,
                                      const struct cp_jnode *ti,
                                      struct cp_gate_input *in)
{
    const char *err = NULL;
    const struct cp_jnode *s;
    const char *tool = in->tool;
    in->file_tool = true;
    in->path_field = strcmp(tool, "NotebookEdit") == 0 ? "notebook_path"
                                                       : "file_path";
    if (!(s = cp_gate_member(ti, in->path_field, true, &err)))
        return err;
    in->path = s->s;
    if (strcmp(tool, "Write") == 0) {
        if ((s = cp_gate_member(ti, "content", true, &err)))
            cp_gate_add_text(a, in, 1, "content", s);
    } else if (strcmp(tool, "Edit") == 0) {
        if ((s = cp_gate_member(ti, "new_string", true, &err)))
            cp_gate_add_text(a, in, 1, "new_string", s);
    } else if (strcmp(tool, "NotebookEdit") == 0) {
        /* a deletion writes nothing and may leave new_source out */
        bool del = cp_json_str_is(cp_json_get(ti, "edit_mode", NULL), "delete",
                                  6);
        if ((s = cp_gate_member(ti, "new_source", !del, &err)))
            cp_gate_add_text(a, in, 1, "new_source", s);
    } else {
        err = cp_gate_multiedit_texts(a, ti, in);
    }
    return err;
}

static bool cp_gate_is_file_tool(const char *tool)
{
    return strcmp(tool, "Write") == 0 || strcmp(tool, "Edit") == 0 ||
           strcmp(tool, "MultiEdit") == 0 || strcmp(tool, "NotebookEdit") == 0;
}

/* Reads the input: in place when w (text itself, writable) is given. */
static const char *cp_gate_input_read(struct cp_arena *a, const char *text,
                                      char *w, size_t len,
                                      struct cp_gate_input *in)
{
    memset(in, 0, sizeof *in);
    if (cp_find_byte(text, len, '\0'))
        return "input contains a NUL byte";
    struct cp_jnode *root;
    enum cp_json_err k;
    if (w ? cp_json_read_in_place(a, w, len, &cp_gate_input_opts, &root, &k)
          : cp_json_read(a, text, len, &cp_gate_input_opts, &root, &k))
        return cp_gate_input_err(k);
    if (root->type != CP_J_OBJ)
        return "input is not a JSON object";
    const struct cp_jnode *ev = cp_json_get(root, "hook_event_name", NULL);
    if (ev && !cp_json_str_is(ev, "PreToolUse", 10))
        return "hook_event_name is not \"PreToolUse\"";
    const struct cp_jnode *tool = cp_json_get(root, "tool_name", NULL);
    if (!tool || tool->type != CP_J_STR)
        return "tool_name is missing or not a string";
    in->tool = tool->s;
    const struct cp_jnode *ti = cp_json_get(root, "tool_input", NULL);
    if (!ti || ti->type != CP_J_OBJ)
        return "tool_input is missing or not an object";
    /* Monitor runs its command through the shell as Bash does (in the
     * background, waking the model on each output line). */
    const char *err = NULL;
    if (strcmp(in->tool, "Bash") == 0 || strcmp(in->tool, "Monitor") == 0 ||
        strcmp(in->tool, "PowerShell") == 0) {
        const struct cp_jnode *cmd = cp_gate_member(ti, "command", true, &err);
        if (cmd)
            in->command = cmd->s;
    } else if (cp_gate_is_file_tool(in->tool)) {
        const struct cp_jnode *cwd = cp_json_get(root, "cwd", NULL);
        if (cwd && cwd->type == CP_J_STR)
            in->cwd = cwd->s;
        err = cp_gate_file_texts(a, ti, in);
    }
    return err;
}

const char *cp_gate_parse_input(struct cp_arena *a, const char *text,
                                size_t len, struct cp_gate_input *in)
{
    return cp_gate_input_read(a, text, NULL, len, in);
}

const char *cp_gate_parse_input_in_place(struct cp_arena *a, char *text,
                                         size_t len, struct cp_gate_input *in)
{
    return cp_gate_input_read(a, text, text, len, in);
}

/* ---- the artifact's gate table --------------------------------------- */

static const char *cp_gate_str(const struct cp_jnode *o, const char *key)
{
    const struct cp_jnode *v = cp_json_get(o, key, NULL);
    return v && v->type == CP_J_STR ? v->s : NULL;
}

static bool cp_gate_is(const struct cp_jnode *v, enum cp_jtype t)
{
    return v && v->type == t;
}

/* The classes of "content": one known class name per string. */
static const char *cp_gate_content_classes(const struct cp_jnode *cls,
                                           struct cp_gate_table *t)
{
    t->content_classes = 0;
    for (size_t i = 0; i < cls->n; i++) {
        const struct cp_jnode *x = cls->items[i];
        unsigned m;
        if (x->type != CP_J_STR || !cp_content_class_mask(x->s, x->len, &m) ||
            (m & (m - 1)) != 0)
            return "gate table \"content\".\"classes\" holds an unknown "
                   "class";
        t->content_classes |= m;
    }
    return NULL;
}

/* One rule of "content" into the next slot of t->content. */
static const char *cp_gate_content_rule(struct cp_arena *a,
                                        const struct cp_jnode *x,
                                        struct cp_gate_table *t)
{
    const char *id = cp_gate_str(x, CP_CV_ID),
               *kind = cp_gate_str(x, CP_CV_KIND);
    const char *pat = cp_gate_str(x, CP_CV_PATTERN),
               *where = cp_gate_str(x, CP_CV_WHERE);
    if (x->type != CP_J_OBJ || !id || !kind || !pat || !where ||
        (strcmp(kind, CP_CV_KIND_REGEX) != 0 &&
         strcmp(kind, CP_CV_KIND_TEXT) != 0) ||
        !*pat)
        return "gate table \"content\" has a rule that is not an object "
               "with string id, kind (\"regex\" or \"text\"), pattern "
               "and where";
    struct cp_content_rule *r = &t->content[t->ncontent];
    /* the tree's strings: it lives in the table's arena */
    *r = (struct cp_content_rule){.id = id,
                                  .where = where,
                                  .regex = kind[0] == 'r',
                                  .text = pat,
                                  .len = strlen(pat)};
    const char *perr = NULL;
    /* Checked with the same bounds as the compiler's (cp_gate_parse);
     * a regex in the prefilter's subset is known to compile, so it is
     * compiled only when a file tool's text is scanned (a Bash call
     * never pays for it). */
    if (r->regex && !cp_gate_rx_scan(a, pat)) {
        struct cp_gate_pat g;
        perr = cp_gate_parse(a, pat, strlen(pat), true, &g);
        if (!perr)
            cp_gate_free(&g);
        else
            perr = cp_arena_printf(a, "%s: invalid pattern: %s", id, perr);
    }
    if (perr)
        return perr;
    t->ncontent++;
    return NULL;
}

/* "content": {"classes": [NAME...], "rules": [{"id", "kind": "regex" |
 * "text", "pattern", "where"}...]}; absent: every built-in class, no rule
 * (an artifact built before content rules existed is judged by the
 * defaults, never by fewer checks). */
static const char *cp_gate_table_content(struct cp_arena *a,
                                         const struct cp_jnode *c,
                                         struct cp_gate_table *t)
{
    t->content_classes = CP_CC_ALL;
    const struct cp_jnode *ct = cp_json_get(c, CP_CV_CONTENT, NULL);
    if (!ct)
        return NULL;
    const struct cp_jnode *cls = cp_json_get(ct, CP_CV_CONTENT_CLASSES, NULL);
    const struct cp_jnode *rules = cp_json_get(ct, CP_CV_CONTENT_RULES, NULL);
    if (!cp_gate_is(ct, CP_J_OBJ) || !cp_gate_is(cls, CP_J_ARR) ||
        !cp_gate_is(rules, CP_J_ARR))
        return "gate table \"content\" is not an object with \"classes\" "
               "and \"rules\" arrays";
    const char *err = cp_gate_content_classes(cls, t);
    if (err)
        return err;
    size_t n = rules->n;
    t->content = cp_arena_alloc(a, (n ? n : 1) * sizeof *t->content);
    for (size_t i = 0; i < n && !err; i++)
        err = cp_gate_content_rule(a, rules->items[i], t);
    return err;
}

/* A word pattern of the artifact: parsed in the scratch arena (an invalid
 * one makes the table invalid, as ever), then only its key is kept; the
 * scratch's pages serve the next row.  Most rows name programs a given
 * line does not run, and are never parsed again (cp_gate_row_matches). */
static const char *cp_gate_table_words(struct cp_arena *a,
                                       struct cp_arena *scratch,
                                       const struct cp_cv_gate_row *r,
                                       struct cp_gate_entry *e)
{
    e->pat.kind = CP_GATE_WORDS;
    e->pat.text = r->pattern;
    e->deferred = true;
    if (r->programs) { /* the compiler's key: checked where it is used */
        e->key = (struct cp_gate_key){.kind = CP_GATE_KEY_PROGRAMS,
                                      .names = r->programs,
                                      .n = r->nprograms};
        e->key_given = true;
        return NULL;
    }
    const char *perr = cp_gate_check_words(scratch, a, r->pattern,
                                           r->pattern_len, &e->key);
    cp_arena_reset(scratch);
    return perr ? cp_arena_printf(a, "%s: invalid pattern: %s", r->id, perr)
                : NULL;
}

/* Does the key the parse of a row gives match the key the row carried? */
static bool cp_gate_key_same(const struct cp_gate_key *x,
                             const struct cp_gate_key *y)
{
    if (x->kind != y->kind || x->n != y->n)
        return false;
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->names[i], y->names[i]) != 0)
            return false;
    return true;
}

/* Row r of "gates" (read by cp_cv_gate_rows) into e.  The strings are
 * the artifact's tree's, which lives in the table's arena. */
static const char *cp_gate_table_entry(struct cp_arena *a,
                                       struct cp_arena *scratch,
                                       const struct cp_cv_gate_row *r,
                                       struct cp_gate_entry *e)
{
    e->verdict = r->deny ? CP_DENY : CP_ASK;
    e->id = r->id;
    e->where = r->where;
    if (r->kind == CP_CV_UNKNOWN) {
        cp_gate_unknown(&e->pat);
        return NULL;
    }
    if (r->kind == CP_CV_WORDS)
        return cp_gate_table_words(a, scratch, r, e);
    /* A regex in the scanner's subset is known to compile: its
     * regcomp waits until a command line meets its condition. */
    e->req = cp_gate_rx_scan(a, r->pattern);
    if (e->req) {
        e->pat.kind = CP_GATE_REGEX;
        e->pat.text = r->pattern;
        return NULL;
    }
    const char *perr = cp_gate_parse(a, r->pattern, r->pattern_len, true,
                                     &e->pat);
    return perr ? cp_arena_printf(a, "%s: invalid pattern: %s", r->id, perr)
                : NULL;
}

/* The reader's rules for an artifact: one meaning for every reader. */
static const struct cp_json_opts cp_gate_artifact_opts = {
    .max_bytes = CP_GATE_MAX_ARTIFACT, .no_dup_keys = true, .no_nul = true};

/* Reads the artifact (in place when w, text itself, is given) and finds
 * its "confpol" object. */
static const char *cp_gate_table_root(struct cp_arena *a, const char *text,
                                      char *w, size_t len,
                                      const struct cp_jnode **c)
{
    if (cp_find_byte(text, len, '\0'))
        return "artifact contains a NUL byte";
    struct cp_jnode *root;
    enum cp_json_err k;
    if (w ? cp_json_read_in_place(a, w, len, &cp_gate_artifact_opts, &root, &k)
          : cp_json_read(a, text, len, &cp_gate_artifact_opts, &root, &k))
        return k == CP_JSON_E_DUP ? "artifact has a duplicate key"
               : k == CP_JSON_E_NUL
                   ? "artifact contains an escaped NUL character"
                   : "artifact is not JSON";
    *c = cp_json_get(root, CP_CV_CONFPOL, NULL);
    if (!cp_gate_is(*c, CP_J_OBJ))
        return "artifact has no \"confpol\" gate table object";
    return NULL;
}

/* version, stem and failClosed of the table c. */
static const char *cp_gate_table_head(const struct cp_jnode *c,
                                      struct cp_gate_table *t)
{
    const struct cp_jnode *ver = cp_json_get(c, CP_CV_VERSION, NULL);
    if (!cp_gate_is(ver, CP_J_NUM) || strtod(ver->s, NULL) != 1)
        return "gate table version is not 1";
    const char *stem = cp_gate_str(c, CP_CV_STEM);
    if (!stem)
        return "gate table has no \"stem\" string";
    t->stem = stem; /* the tree lives in the table's arena */
    const struct cp_jnode *fc = cp_json_get(c, CP_CV_FAIL_CLOSED, NULL);
    if (!cp_gate_is(fc, CP_J_TRUE) && !cp_gate_is(fc, CP_J_FALSE))
        return "gate table has no \"failClosed\" boolean";
    t->fail_closed = fc->type == CP_J_TRUE;
    return NULL;
}

static const char *cp_gate_table_read(struct cp_arena *a, const char *text,
                                      char *w, size_t len,
                                      struct cp_gate_table *t)
{
    memset(t, 0, sizeof *t);
    const struct cp_jnode *c = NULL;
    const char *err = cp_gate_table_root(a, text, w, len, &c);
    if (!err)
        err = cp_gate_table_head(c, t);
    if (!err)
        err = cp_gate_table_content(a, c, t);
    if (!err)
        err = cp_gate_paths_parse(a, cp_json_get(c, CP_CV_PATHS, NULL),
                                  &t->paths);
    if (err)
        return err;
    struct cp_cv_gate_row *rows;
    size_t n;
    err = cp_cv_gate_rows(a, c, &rows, &n);
    if (err)
        return err;
    t->arena = a;
    t->gates = cp_arena_alloc(a, (n ? n : 1) * sizeof *t->gates);
    struct cp_arena *scratch = cp_arena_new();
    for (size_t i = 0; i < n && !err; i++) {
        err = cp_gate_table_entry(a, scratch, &rows[i], &t->gates[i]);
        if (!err)
            t->ngates = i + 1; /* counts compiled rows, also on a later
                                  error */
    }
    cp_arena_free(scratch);
    return err;
}

const char *cp_gate_table_parse(struct cp_arena *a, const char *text,
                                size_t len, struct cp_gate_table *t)
{
    return cp_gate_table_read(a, text, NULL, len, t);
}

void cp_gate_table_free(struct cp_gate_table *t)
{
    for (size_t i = 0; i < t->ngates; i++)
        cp_gate_free(&t->gates[i].pat);
    t->ngates = 0;
    for (size_t i = 0; i < t->ncontent; i++)
        cp_content_rule_free(&t->content[i]);
    t->ncontent = 0;
}

const char *cp_gate_table_load(struct cp_arena *a, const char *path,
                               struct cp_gate_table *t)
{
    return cp_gate_table_load_pinned(a, path, t, NULL);
}

const char *cp_gate_table_load_pinned(struct cp_arena *a, const char *path,
                                      struct cp_gate_table *t, char *digest)
{
    memset(t, 0, sizeof *t);
    if (digest)
        digest[0] = '\0';
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (never hang) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cp_arena_printf(a, "cannot open '%s': %s", path,
                               strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cp_arena_printf(a, "'%s' is not a regular file", path);
    }
    if ((unsigned long long)st.st_size > CP_GATE_MAX_ARTIFACT) {
        close(fd);
        return cp_arena_printf(a, "'%s' is larger than 64 MiB", path);
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = cp_arena_alloc(a, size + 1);
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            close(fd);
            return cp_arena_printf(a, "cannot read '%s': %s", path,
                                   strerror(e));
        }
        got += (size_t)r;
    }
    close(fd);
    if (digest)
        cp_gate_pin_digest(buf, size, digest);
    /* in place: the buffer is the arena's, as the table is */
    const char *err = cp_gate_table_read(a, buf, buf, size, t);
    if (err)
        return cp_arena_printf(a, "'%s': %s", path, err);
    return NULL;
}

const char *cp_gate_rule_id(struct cp_arena *a, const struct cp_policy *p,
                            const struct cp_rule *r)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *q = p->rules[i];
        if (q->kind == CP_R_GATE_ASK || q->kind == CP_R_GATE_DENY)
            n++;
        if (q == r)
            break;
    }
    return cp_arena_printf(a, "gate#%zu", n);
}

void cp_gate_table_from_policy(struct cp_arena *a, const struct cp_policy *p,
                               bool fail_closed, struct cp_gate_table *t)
{
    memset(t, 0, sizeof *t);
    t->stem = p->stem;
    t->fail_closed = fail_closed;
    t->gates = cp_arena_alloc(a,
                              (p->nrules ? p->nrules : 1) * sizeof *t->gates);
    size_t n = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_GATE_ASK && r->kind != CP_R_GATE_DENY)
            continue;
        struct cp_gate_entry *e = &t->gates[t->ngates++];
        e->id = cp_arena_printf(a, "gate#%zu", ++n);
        e->verdict = r->kind == CP_R_GATE_DENY ? CP_DENY : CP_ASK;
        e->pat = r->u.gate; /* compiled: the policy frees it */
        e->req = r->u.gate.kind == CP_GATE_REGEX
                     ? cp_gate_rx_scan(a, r->u.gate.text)
                     : NULL;
        /* as the Claude backend writes "where" into the artifact */
        e->where = r->loc.src ? cp_arena_printf(a, "%s:%u", r->loc.src->path,
                                                r->loc.line)
                              : "(implicit)";
    }
    t->content_classes = p->content_classes;
    t->content = p->content;
    t->ncontent = p->ncontent;
    cp_gate_paths_from_policy(a, p, &t->paths);
}

const char *cp_gate_reason(struct cp_arena *a, const char *id,
                           const char *where, enum cp_gate_pat_kind kind,
                           const char *pattern)
{
    if (kind == CP_GATE_REGEX)
        return cp_arena_printf(a, "rule %s (%s): re\"%s\"", id, where, pattern);
    if (kind == CP_GATE_UNKNOWN) /* pattern: the shell reader's reason */
        return cp_arena_printf(a, "rule %s (%s): unknown: %s", id, where,
                               pattern);
    return cp_arena_printf(a, "rule %s (%s): %s", id, where, pattern);
}

/* Does row e match?  Regexes are first tested against their necessary
 * condition, then compiled if need be and run; the rest go to the one
 * matcher (compiler/match_gate.c) with the line read once.  Returns -1
 * with *err set when a deferred regcomp fails. */
static int cp_gate_row_matches(struct cp_gate_entry *e,
                               const struct cp_gate_rx_line *line,
                               struct cp_gate_subject *s, struct cp_arena *ta,
                               struct cp_arena *a, const char **err)
{
    if (e->deferred) {
        if (!cp_gate_subject_may(&e->key, s))
            return 0;
        /* Kept in the row: parsed in the table's arena (ta), which lives
         * as long as the row, never in this decision's. */
        struct cp_gate_pat p;
        const char *perr = cp_gate_parse(ta, e->pat.text, strlen(e->pat.text),
                                         false, &p);
        struct cp_gate_key k;
        if (!perr && e->key_given) {
            cp_gate_key_of(a, &p, &k);
            if (!cp_gate_key_same(&k, &e->key))
                perr = "its programs are not the names its first word takes";
        }
        if (perr) { /* an invalid row is an invalid table, found late */
            *err = cp_arena_printf(a, "%s: invalid pattern: %s", e->id, perr);
            return -1;
        }
        e->pat = p;
        e->deferred = false;
    }
    if (e->pat.kind == CP_GATE_REGEX) {
        if (e->req && !cp_gate_rx_line_may_match(e->req, line))
            return 0;
        if (!e->pat.regex) {
            struct cp_gate_pat p;
            const char *perr = cp_gate_parse(a, e->pat.text,
                                             strlen(e->pat.text), true, &p);
            if (perr) {
                *err = cp_arena_printf(a, "%s: invalid pattern: %s", e->id,
                                       perr);
                return -1;
            }
            e->pat.regex = p.regex; /* the text stays the table's own */
        }
    }
    return cp_gate_subject_matches(&e->pat, s, a);
}

/* The table's rows for cp_gate_decide. */
struct cp_gate_tctx {
    const struct cp_gate_table *t;
    struct cp_gate_rx_line line;
};

static enum cp_verdict cp_gate_tverdict(void *ctx, size_t i)
{
    return ((struct cp_gate_tctx *)ctx)->t->gates[i].verdict;
}

static int cp_gate_tmatch(void *ctx, size_t i, struct cp_gate_subject *s,
                          struct cp_arena *a, const char **err)
{
    struct cp_gate_tctx *c = ctx;
    return cp_gate_row_matches(&c->t->gates[i], &c->line, s,
                               c->t->arena ? c->t->arena : a, a, err);
}

void cp_gate_table_decide(const struct cp_gate_table *t, const char *cmd,
                          struct cp_arena *a, struct cp_gate_answer *ans)
{
    struct cp_gate_tctx c = {.t = t};
    cp_gate_rx_line_of(a, cmd, strlen(cmd) >= CP_GATE_RX_PAIRS_MIN, &c.line);
    struct cp_gate_rows rows = {.n = t->ngates,
                                .ctx = &c,
                                .verdict = cp_gate_tverdict,
                                .match = cp_gate_tmatch};
    struct cp_gate_result g;
    cp_gate_decide(&rows, cp_gate_subject_new(a, cmd), false, a, &g);
    ans->verdict = g.verdict;
    ans->rule = NULL;
    ans->reason = g.unreadable ? g.why : g.error;
    ans->error = g.error;
    if (!g.nrows)
        return;
    const struct cp_gate_entry *e = &t->gates[g.rows[0]];
    ans->rule = e->id;
    ans->reason = cp_gate_reason(a, e->id, e->where, e->pat.kind,
                                 e->pat.kind == CP_GATE_UNKNOWN ? g.why
                                                                : e->pat.text);
}

const char *cp_gate_content_compile(struct cp_arena *a,
                                    struct cp_content_rule *rules, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *e = cp_content_rule_compile(a, &rules[i]);
        if (e)
            return cp_arena_printf(a, "%s: invalid pattern: %s", rules[i].id,
                                   e);
    }
    return NULL;
}

bool cp_gate_scan_texts(struct cp_arena *a, const struct cp_gate_input *in,
                        unsigned classes, const struct cp_content_rule *rules,
                        size_t nrules, struct cp_content_scan *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < in->ntexts; i++)
        cp_content_scan(a, classes, rules, nrules, in->texts[i].field,
                        in->texts[i].text, in->texts[i].len, s);
    return s->n > 0;
}

/* ---- answer JSON ------------------------------------------------------ */

void cp_gate_format_answer(struct cp_buf *out, enum cp_verdict v,
                           const char *reason)
{
    if (v == CP_ALLOW)
        return;
    cp_buf_adds(out, "{\"hookSpecificOutput\": {\"hookEventName\": "
                     "\"PreToolUse\", \"permissionDecision\": ");
    cp_buf_adds(out, v == CP_DENY ? "\"deny\"" : "\"ask\"");
    cp_buf_adds(out, ", \"permissionDecisionReason\": ");
    cp_json_quote_utf8(out, reason ? reason : "", reason ? strlen(reason) : 0);
    cp_buf_adds(out, "}}\n");
}

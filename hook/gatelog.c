/* SPDX-License-Identifier: MIT */
/* The gate's decision log: one JSON line per decision, each carrying the
 * SHA-256 of the line before it, so that editing, inserting or deleting a
 * line breaks the chain at a line `--verify-log` can name.
 *
 * Appends hold an exclusive flock(2) on the log while they hash the last
 * line and write the new one with a single write(2) on an O_APPEND
 * descriptor, so concurrent hooks serialise and never interleave.  The
 * command line itself is never written, only its hash. */
#include "gate.h"
#include "hmac.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define CP_GATELOG_ZEROS                                                       \
    "0000000000000000000000000000000000000000000000000000000000000000"

/* Waits for the lock at most this long: a hook must never hang, and a log
 * that cannot be locked is reported and skipped. */
#define CP_GATELOG_LOCK_MS 2000

static int cp_gatelog_lock(int fd)
{
    for (int waited = 0;; waited += 5) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (waited >= CP_GATELOG_LOCK_MS) {
            errno = ETIMEDOUT;
            return -1;
        }
        usleep(5000);
    }
}

/* Hashes the file's last line (without its newline) into out; *partial is
 * set when the file does not end with a newline.  Reads backwards in
 * blocks to find the line start, then forwards to hash it: cost linear in
 * the last line only. */
static int cp_gatelog_last_hash(int fd, off_t size, char out[CP_SHA256_HEX],
                                bool *partial)
{
    char blk[4096];
    *partial = false;
    if (size == 0) {
        memset(out, '0', 64);
        out[64] = '\0';
        return 0;
    }
    char last;
    if (pread(fd, &last, 1, size - 1) != 1)
        return -1;
    off_t end = last == '\n' ? size - 1 : size; /* line is [start, end) */
    *partial = last != '\n';
    off_t start = 0, pos = end;
    while (pos > 0) {
        size_t n = pos > (off_t)sizeof blk ? sizeof blk : (size_t)pos;
        if (pread(fd, blk, n, pos - (off_t)n) != (ssize_t)n)
            return -1;
        char *nl = memrchr(blk, '\n', n);
        if (nl) {
            start = pos - (off_t)n + (nl - blk) + 1;
            break;
        }
        pos -= (off_t)n;
    }
    struct cp_sha256 ctx;
    cp_sha256_init(&ctx);
    for (off_t at = start; at < end;) {
        size_t n = end - at > (off_t)sizeof blk ? sizeof blk
                                                : (size_t)(end - at);
        if (pread(fd, blk, n, at) != (ssize_t)n)
            return -1;
        cp_sha256_update(&ctx, blk, n);
        at += (off_t)n;
    }
    unsigned char md[CP_SHA256_LEN];
    cp_sha256_final(&ctx, md);
    cp_sha256_hex_encode(md, out);
    return 0;
}

static void cp_gatelog_nullable(struct cp_buf *b, const char *s)
{
    if (s)
        cp_json_quote_utf8(b, s, strlen(s));
    else
        cp_buf_adds(b, "null");
}

/* Opens the log for appending and takes its lock; *fd then holds it.
 * Returns NULL, or why not (the file closed). */
static const char *cp_gatelog_open(struct cp_arena *a, const char *path,
                                   int *fd)
{
    *fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK,
               0600);
    if (*fd < 0)
        return cp_arena_printf(a, "cannot open '%s': %s", path,
                               strerror(errno));
    struct stat st;
    const char *why = NULL;
    if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode))
        why = cp_arena_printf(a, "'%s' is not a regular file", path);
    else if (cp_gatelog_lock(*fd) < 0)
        why = cp_arena_printf(a, "cannot lock '%s': %s", path, strerror(errno));
    if (why)
        close(*fd);
    return why;
}

/* The line for record r after the line hashed to prev (on a line of its
 * own after a torn last line: partial), sealed when r has a key. */
static void cp_gatelog_line(struct cp_buf *b, const struct cp_gatelog_rec *r,
                            const char *prev, bool partial)
{
    struct tm tm;
    char tbuf[32];
    gmtime_r(&r->time, &tm);
    strftime(tbuf, sizeof tbuf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (partial) /* keep the torn line apart; verification will flag it */
        cp_buf_addc(b, '\n');
    cp_buf_printf(b, "{\"time\": \"%s\", \"decision\": ", tbuf);
    cp_json_quote_utf8(b, r->decision, strlen(r->decision));
    cp_buf_adds(b, ", \"rule\": ");
    cp_gatelog_nullable(b, r->rule);
    cp_buf_adds(b, ", \"cmd_sha256\": ");
    if (r->cmd) {
        char h[CP_SHA256_HEX];
        cp_sha256_hex(r->cmd, r->cmdlen, h);
        cp_buf_printf(b, "\"%s\"", h);
    } else {
        cp_buf_adds(b, "null");
    }
    cp_buf_printf(b, ", \"prev\": \"%s\", \"tool\": ", prev);
    cp_gatelog_nullable(b, r->tool);
    if (r->findings) /* classes, fields and line numbers only */
        cp_buf_printf(b, ", \"findings\": %s", r->findings);
    if (!r->keylen) {
        cp_buf_adds(b, "}\n");
        return;
    }
    cp_buf_printf(b, ", \"input_hmac\": \"%s\", \"line_hmac\": \"",
                  r->input_hmac ? r->input_hmac : CP_GATELOG_ZEROS);
    /* The seal covers the line with its own value as 64 zeros. */
    size_t at = b->len;
    cp_buf_adds(b, CP_GATELOG_ZEROS "\"}");
    size_t start = partial ? 1 : 0;
    char mac[CP_SHA256_HEX];
    cp_hmac_sha256_hex(r->key, r->keylen, b->data + start, b->len - start, mac);
    memcpy(b->data + at, mac, 64);
    cp_buf_addc(b, '\n');
}

const char *cp_gatelog_append(struct cp_arena *a, const char *path,
                              const struct cp_gatelog_rec *r)
{
    int fd;
    const char *why = cp_gatelog_open(a, path, &fd);
    if (why)
        return why;
    char prev[CP_SHA256_HEX];
    bool partial;
    struct stat st;
    if (fstat(fd, &st) < 0 ||
        cp_gatelog_last_hash(fd, st.st_size, prev, &partial) < 0) {
        why = cp_arena_printf(a, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return why;
    }
    struct cp_buf b = {0};
    cp_gatelog_line(&b, r, prev, partial);
    ssize_t w;
    do
        w = write(fd, b.data, b.len);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)b.len)
        why = cp_arena_printf(a, "cannot append to '%s': %s", path,
                              w < 0 ? strerror(errno) : "short write");
    cp_buf_free(&b);
    close(fd); /* releases the lock */
    return why;
}

/* ---- verification ------------------------------------------------------ */

static const char cp_hex[] = "0123456789abcdef";

static bool cp_is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return false;
    for (size_t i = 0; i < 64; i++)
        if (!strchr(cp_hex, s[i]) || s[i] == '\0')
            return false;
    return true;
}

static bool cp_is_rfc3339_utc(const char *s)
{
    /* YYYY-MM-DDTHH:MM:SSZ */
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
            return false;
    return true;
}

static bool cp_gatelog_is(const struct cp_jnode *v, enum cp_jtype t)
{
    return v && v->type == t;
}

static const struct cp_jnode *cp_gatelog_get(const struct cp_jnode *o,
                                             const char *key)
{
    return cp_json_get(o, key, NULL);
}

/* A string member's text, or NULL when absent or not a string. */
static const char *cp_gatelog_str(const struct cp_jnode *o, const char *key)
{
    const struct cp_jnode *v = cp_gatelog_get(o, key);
    return cp_gatelog_is(v, CP_J_STR) ? v->s : NULL;
}

static bool cp_gatelog_finding_ok(const struct cp_jnode *f)
{
    const struct cp_jnode *ln = cp_gatelog_get(f, "lines");
    if (!cp_gatelog_is(f, CP_J_OBJ) || !cp_gatelog_str(f, "class") ||
        !cp_gatelog_str(f, "field") || !cp_gatelog_is(ln, CP_J_ARR))
        return false;
    for (size_t i = 0; i < ln->n; i++)
        if (ln->items[i]->type != CP_J_NUM || strtod(ln->items[i]->s, NULL) < 1)
            return false;
    return true;
}

static bool cp_gatelog_findings_ok(const struct cp_jnode *v)
{
    if (!cp_gatelog_is(v, CP_J_ARR))
        return false;
    for (size_t i = 0; i < v->n; i++)
        if (!cp_gatelog_finding_ok(v->items[i]))
            return false;
    return true;
}

/* A string or null member. */
static bool cp_gatelog_str_or_null(const struct cp_jnode *o, const char *key)
{
    const struct cp_jnode *v = cp_gatelog_get(o, key);
    return cp_gatelog_is(v, CP_J_STR) || cp_gatelog_is(v, CP_J_NULL);
}

/* The optional members: findings and the two HMACs. */
static const char *cp_gatelog_check_extra(const struct cp_jnode *o)
{
    const struct cp_jnode *v = cp_gatelog_get(o, "findings");
    if (v && !cp_gatelog_findings_ok(v))
        return "\"findings\" is not an array of {class, field, lines}";
    static const char *const macs[] = {"input_hmac", "line_hmac"};
    for (size_t i = 0; i < 2; i++) {
        v = cp_gatelog_get(o, macs[i]);
        const char *s = cp_gatelog_str(o, macs[i]);
        if (v && !(s && cp_is_hex64(s)))
            return i ? "\"line_hmac\" is not an HMAC-SHA256 hex digest"
                     : "\"input_hmac\" is not an HMAC-SHA256 hex digest";
    }
    return NULL;
}

/* NULL if the record's fields are well-formed, else what is wrong. */
static const char *cp_gatelog_check_rec(const struct cp_jnode *o,
                                        const char **prev)
{
    *prev = NULL;
    if (!cp_gatelog_is(o, CP_J_OBJ))
        return "not a JSON object";
    const char *s = cp_gatelog_str(o, "time");
    if (!s || !cp_is_rfc3339_utc(s))
        return "\"time\" is missing or not an RFC 3339 UTC time";
    s = cp_gatelog_str(o, "decision");
    if (!s || (strcmp(s, "allow") != 0 && strcmp(s, "ask") != 0 &&
               strcmp(s, "deny") != 0))
        return "\"decision\" is not \"allow\", \"ask\" or \"deny\"";
    if (!cp_gatelog_str_or_null(o, "rule"))
        return "\"rule\" is missing or not a string or null";
    s = cp_gatelog_str(o, "cmd_sha256");
    if (!cp_gatelog_is(cp_gatelog_get(o, "cmd_sha256"), CP_J_NULL) &&
        !(s && cp_is_hex64(s)))
        return "\"cmd_sha256\" is missing or not a SHA-256 hex digest or null";
    if (!cp_gatelog_str_or_null(o, "tool"))
        return "\"tool\" is missing or not a string or null";
    s = cp_gatelog_str(o, "prev");
    if (!s || !cp_is_hex64(s))
        return "\"prev\" is missing or not a SHA-256 hex digest";
    *prev = s;
    return cp_gatelog_check_extra(o);
}

/* The reader's rules for a log line: one meaning for every reader (a key
 * twice could show a verifier one "prev" and another tool the other). */
static const struct cp_json_opts cp_gatelog_line_opts = {.no_dup_keys = true,
                                                         .no_nul = true};

/* Reads one line's record (arena a); NULL or why it is not one. */
static const char *cp_gatelog_read_line(struct cp_arena *a, const char *line,
                                        size_t len, struct cp_jnode **o)
{
    enum cp_json_err k;
    *o = NULL;
    if (memchr(line, 0, len))
        return "line contains a NUL byte";
    if (!cp_json_read(a, line, len, &cp_gatelog_line_opts, o, &k))
        return NULL;
    if (k == CP_JSON_E_DUP)
        return "line has a duplicate key";
    if (k == CP_JSON_E_NUL)
        return "line contains an escaped NUL character";
    return "not a JSON object";
}

/* With the key: the line carries input_hmac and a line_hmac equal to the
 * HMAC of the line with that value written as 64 zeros. */
static const char *cp_gatelog_check_seal(const struct cp_jnode *o,
                                         const char *line, size_t len,
                                         const char *key, size_t keylen)
{
    const struct cp_jnode *in = cp_gatelog_get(o, "input_hmac");
    const struct cp_jnode *lm = cp_gatelog_get(o, "line_hmac");
    if (!in || !lm)
        return "no \"input_hmac\" and \"line_hmac\" (the line was not "
               "written with the key)";
    static const char tail[] = "\"line_hmac\": \"";
    const size_t tl = sizeof tail - 1;
    /* the writer puts line_hmac last: '"line_hmac": "HEX"}' ends the line */
    if (len < tl + 66 || memcmp(line + len - 66 - tl, tail, tl) != 0)
        return "\"line_hmac\" is not the last member of the line";
    char *copy = cp_xmalloc(len + 1);
    memcpy(copy, line, len);
    memset(copy + len - 66, '0', 64);
    char mac[CP_SHA256_HEX];
    cp_hmac_sha256_hex(key, keylen, copy, len, mac);
    free(copy);
    if (memcmp(mac, line + len - 66, 64) != 0)
        return "\"line_hmac\" does not match the line under the key (the "
               "line was changed, or written with another key)";
    return NULL;
}

int cp_gatelog_verify(const char *path, FILE *out, FILE *msgs)
{
    return cp_gatelog_verify_keyed(path, NULL, 0, out, msgs);
}

int cp_gatelog_verify_keyed(const char *path, const char *key, size_t keylen,
                            FILE *out, FILE *msgs)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(msgs, "%s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    char expect[CP_SHA256_HEX];
    memset(expect, '0', 64);
    expect[64] = '\0';
    char *line = NULL;
    size_t cap = 0, n = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        n++;
        bool terminated = len > 0 && line[len - 1] == '\n';
        size_t body = terminated ? (size_t)len - 1 : (size_t)len;
        const char *why = NULL, *prev = NULL;
        struct cp_arena *a = cp_arena_new();
        struct cp_jnode *o = NULL;
        why = cp_gatelog_read_line(a, line, body, &o);
        if (!why)
            why = cp_gatelog_check_rec(o, &prev);
        if (!why && strcmp(prev, expect) != 0)
            why = n == 1 ? "\"prev\" of the first line is not 64 zeros"
                         : "\"prev\" does not match the SHA-256 of the line "
                           "before (a line was changed, inserted or removed)";
        if (!why && keylen)
            why = cp_gatelog_check_seal(o, line, body, key, keylen);
        if (!why && !terminated)
            why = "last line is not terminated by a newline (torn write)";
        cp_arena_free(a);
        if (why) {
            fprintf(msgs, "%s:%zu: %s\n", path, n, why);
            rc = 1;
            break;
        }
        cp_sha256_hex(line, body, expect);
    }
    if (rc == 0 && ferror(f)) {
        fprintf(msgs, "%s: cannot read: %s\n", path, strerror(errno));
        rc = 2;
    }
    free(line);
    fclose(f);
    if (rc == 0)
        fprintf(out, "%s: %zu lines, chain intact%s; last line sha256 %s\n",
                path, n, keylen ? ", every line sealed with the key" : "",
                expect);
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* Source files: read whole with fopen/fread (no mmap, so a file that changes
 * while we read it cannot fault us), index the line starts, hand out lines. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"

static void cp_source_index(struct cp_arena *a, struct cp_source *s)
{
    const char *t = s->text, *end = s->text + s->len, *p;
    size_t n = 1;
    for (p = t; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        n++;
    s->line_start = cp_arena_alloc(a, n * sizeof(*s->line_start));
    s->line_start[0] = 0;
    size_t k = 1;
    for (p = t; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        s->line_start[k++] = (size_t)(p - t) + 1;
    s->nlines = n;
}

static const char *cp_source_abspath(struct cp_arena *a, const char *path)
{
    char *r = realpath(path, NULL);
    if (!r)
        return cp_arena_strdup(a, path);
    const char *p = cp_arena_strdup(a, r);
    free(r);
    return p;
}

/* Opens the file PATH (*path: the name diagnostics use), reporting at AT
 * (NULL: the main file) why it cannot be; NULL then.
 * O_NONBLOCK: opening a FIFO must not hang; an included file must be a
 * regular file (the main file may also be a pipe, e.g. /dev/stdin).
 * "-" as the main file is standard input, named "<stdin>" in
 * diagnostics; its includes are relative to the working directory. */
static FILE *cp_source_open(struct cp_diags *d, const char **path,
                            const struct cp_loc *at)
{
    bool in = !at && strcmp(*path, "-") == 0;
    int fd = in ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
                : open(*path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (in)
        *path = "<stdin>";
    FILE *f = NULL;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && at && !S_ISREG(st.st_mode) &&
        !S_ISDIR(st.st_mode)) {
        cp_diag_report(d, CP0301, at, "cannot include '%s': not a regular file",
                       *path);
        close(fd);
        return NULL;
    }
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        f = fdopen(fd, "rb");
        if (!f)
            close(fd);
    }
    if (!f) {
        int e = errno;
        cp_diag_report(d, CP0301, at, "cannot open '%s': %s", *path,
                       strerror(e));
    }
    return f;
}

/* Refuses a directory and a regular file over the size limit. */
static bool cp_source_stat_ok(struct cp_diags *d, FILE *f, const char *path,
                              const struct cp_loc *at)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return true;
    if (S_ISDIR(st.st_mode)) {
        cp_diag_report(d, CP0302, at, "'%s' is a directory, not a file", path);
        return false;
    }
    if (S_ISREG(st.st_mode) &&
        (unsigned long long)st.st_size > (unsigned long long)CP_MAX_FILE_SIZE) {
        cp_diag_report(d, CP0303, at,
                       "'%s' is larger than the limit of %u bytes", path,
                       CP_MAX_FILE_SIZE);
        return false;
    }
    return true;
}

/* Reads F into *b in blocks: st_size is only a hint (pipes, growing
 * files).  False after reporting a read error or a file over the limit. */
static bool cp_source_read(struct cp_diags *d, FILE *f, const char *path,
                           const struct cp_loc *at, struct cp_buf *b)
{
    char block[65536];
    for (;;) {
        size_t n = fread(block, 1, sizeof(block), f);
        if (n)
            cp_buf_add(b, block, n);
        if (b->len > CP_MAX_FILE_SIZE) {
            cp_diag_report(d, CP0303, at,
                           "'%s' is larger than the limit of %u bytes", path,
                           CP_MAX_FILE_SIZE);
            return false;
        }
        if (n < sizeof(block)) {
            if (ferror(f)) {
                int e = errno;
                cp_diag_report(d, CP0301, at, "cannot read '%s': %s", path,
                               strerror(e ? e : EIO));
                return false;
            }
            return true;
        }
    }
}

struct cp_source *cp_source_load(struct cp_arena *a, struct cp_diags *d,
                                 const char *path, const struct cp_loc *at)
{
    FILE *f = cp_source_open(d, &path, at);
    if (!f)
        return NULL;
    if (!cp_source_stat_ok(d, f, path, at)) {
        fclose(f);
        return NULL;
    }
    struct cp_buf b = {0};
    if (!cp_source_read(d, f, path, at, &b)) {
        cp_buf_free(&b);
        fclose(f);
        return NULL;
    }
    fclose(f);
    struct cp_source *s = cp_arena_alloc(a, sizeof(*s));
    s->path = cp_arena_strdup(a, path);
    s->abspath = cp_source_abspath(a, path);
    char *text = cp_arena_alloc(a, b.len + 1);
    if (b.len)
        memcpy(text, b.data, b.len);
    text[b.len] = '\0';
    s->text = text;
    s->len = b.len;
    cp_buf_free(&b);
    cp_source_index(a, s);
    return s;
}

struct cp_source *cp_source_from_memory(struct cp_arena *a, const char *name,
                                        const char *text, size_t len)
{
    struct cp_source *s = cp_arena_alloc(a, sizeof(*s));
    s->path = cp_arena_strdup(a, name);
    s->abspath = cp_source_abspath(a, name);
    char *t = cp_arena_alloc(a, len + 1);
    if (len)
        memcpy(t, text, len);
    t[len] = '\0';
    s->text = t;
    s->len = len;
    cp_source_index(a, s);
    return s;
}

const char *cp_source_line(const struct cp_source *s, unsigned line,
                           size_t *len)
{
    if (!s || line == 0 || line > s->nlines) {
        if (len)
            *len = 0;
        return "";
    }
    size_t start = s->line_start[line - 1];
    size_t end = line < s->nlines ? s->line_start[line] - 1 : s->len;
    /* A CR before the LF is part of the line ending, not of the line. */
    if (end > start && s->text[end - 1] == '\r' && end < s->len)
        end--;
    if (len)
        *len = end - start;
    return s->text + start;
}

/* SPDX-License-Identifier: MIT */
/* Source files and locations: every node and diagnostic points into one. */
#ifndef CP_SOURCE_H
#define CP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct cp_arena;
struct cp_diags;

struct cp_source {
    const char *path; /* as given / as resolved from the includer (display) */
    const char *
        abspath; /* canonical absolute path (realpath), for cycles and control plane */
    const char *text; /* whole file, NUL-terminated; may contain NULs (len) */
    size_t len;
    size_t *line_start; /* byte offset of each line; nlines entries */
    size_t nlines;
    const struct cp_source *includer; /* NULL for the main file */
    unsigned include_line; /* line of the include statement in includer */
};

/* A span in a source, 1-based lines and 1-based byte columns, end inclusive
 * of the last byte (end_col >= col on one line).  src == NULL means an
 * implicit location (a rule added by a profile or the command line). */
struct cp_loc {
    const struct cp_source *src;
    unsigned line, col, end_line, end_col;
};

/* Limits that every front-end phase enforces (tested in tests/). */
#define CP_MAX_FILE_SIZE (64u * 1024 * 1024) /* bytes per source file */
#define CP_MAX_INCLUDE_DEPTH 32
#define CP_MAX_PATH_LEN 4096 /* bytes in one path after interpolation */

/* Loads a file into the arena.  On failure reports an error at `at` (or
 * without location when NULL) and returns NULL. */
struct cp_source *cp_source_load(struct cp_arena *a, struct cp_diags *d,
                                 const char *path, const struct cp_loc *at);
/* Wraps an in-memory buffer (fuzzers, tests, stdin). The text is copied. */
struct cp_source *cp_source_from_memory(struct cp_arena *a, const char *name,
                                        const char *text, size_t len);
/* The bytes of line `line` (1-based) without its newline. */
const char *cp_source_line(const struct cp_source *s, unsigned line,
                           size_t *len);

#endif

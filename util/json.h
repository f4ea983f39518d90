/* SPDX-License-Identifier: MIT */
/* The project's one JSON reader and its writers (util/json.c): values with
 * source spans, a reader with strict options for input that must mean one
 * thing to every reader, constructors, the canonical printer of the settings
 * wiring and the claude backend, and a compact streaming writer. */
#ifndef CP_JSON_H
#define CP_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"

/* ---- JSON values with source spans -------------------------------------- */

enum cp_jtype {
    CP_J_NULL,
    CP_J_FALSE,
    CP_J_TRUE,
    CP_J_NUM,
    CP_J_STR,
    CP_J_ARR,
    CP_J_OBJ,
};

struct cp_jnode;

struct cp_jmember {
    const char *key; /* decoded, NUL-terminated (may hold NULs: use klen) */
    size_t klen;
    size_t kstart; /* offset of the key's opening quote (parsed nodes) */
    struct cp_jnode *val;
};

struct cp_jnode {
    enum cp_jtype type;
    bool oneline;      /* printer: this value on one line (here: 64 bytes) */
    size_t start, end; /* [start, end) of the value in the text */
    const char *s;     /* STR: decoded bytes; NUM: the number text */
    size_t len;
    struct cp_jnode **items;    /* ARR */
    struct cp_jmember *members; /* OBJ, in document order */
    size_t n;                   /* number of items or members */
};

/* Nesting limit of the reader (documents deeper than this are refused). */
#define CP_JSON_MAX_DEPTH 256

/* Parses a whole document (RFC 8259: UTF-8, no BOM, no comments, no
 * trailing commas, one value with only whitespace around it).  Returns
 * NULL on success, else a message (arena) with the byte offset. */
const char *cp_json_parse(struct cp_arena *a, const char *text, size_t len,
                          struct cp_jnode **out);

/* What a reader refuses beyond RFC 8259 syntax, for input that must mean
 * one thing to every reader (the gate hook's stdin, the artifact's gate
 * table, the decision log).  Zero: cp_json_parse's rules. */
struct cp_json_opts {
    size_t max_bytes; /* refuse a longer text (0: no limit) */
    bool no_dup_keys; /* refuse an object with a key twice: readers disagree
                         on which one wins */
    bool no_nul;      /* refuse the escape \u0000: a C-string consumer
                         would see a shorter text than the client */
};

/* Why a read failed, for callers that answer each cause in their own
 * words (the gate's reasons) or must tell "not yet" from "never". */
enum cp_json_err {
    CP_JSON_OK,
    CP_JSON_E_SYNTAX,   /* not JSON (byte order mark included) */
    CP_JSON_E_END,      /* the text ends inside the value: more bytes
                           could still complete it */
    CP_JSON_E_TRAILING, /* one value, then more than whitespace */
    CP_JSON_E_UTF8,     /* invalid UTF-8 */
    CP_JSON_E_DEPTH,    /* nested deeper than CP_JSON_MAX_DEPTH */
    CP_JSON_E_SIZE,     /* longer than opts->max_bytes */
    CP_JSON_E_DUP,      /* a key twice in one object (no_dup_keys) */
    CP_JSON_E_NUL,      /* the escape \u0000 (no_nul) */
};

/* cp_json_parse with options (NULL: none); *kind (may be NULL) says why
 * it failed.  The first failure in reading order is the one reported. */
const char *cp_json_read(struct cp_arena *a, const char *text, size_t len,
                         const struct cp_json_opts *o, struct cp_jnode **out,
                         enum cp_json_err *kind);
/* The same, with the strings decoded in place: each points into text,
 * which the reader writes (a NUL where a string ends, decoded escapes) and
 * which must outlive the tree; only nodes go into the arena.  For a large
 * input read once (the gate hook's), where copying every string would
 * touch every page twice.  After a failure text is garbage. */
const char *cp_json_read_in_place(struct cp_arena *a, char *text, size_t len,
                                  const struct cp_json_opts *o,
                                  struct cp_jnode **out,
                                  enum cp_json_err *kind);

/* Member `key` of object `o` (NULL if absent).  *dup is set when the key
 * occurs more than once (the caller refuses such documents). */
struct cp_jnode *cp_json_get(const struct cp_jnode *o, const char *key,
                             bool *dup);

/* Constructors for building documents (the claude backend). */
struct cp_jnode *cp_json_new(struct cp_arena *a, enum cp_jtype t);
struct cp_jnode *cp_json_str(struct cp_arena *a, const char *s, size_t len);
struct cp_jnode *cp_json_bool(struct cp_arena *a, bool v);
/* Appends to an array / object (amortised growth in the arena). */
void cp_json_push(struct cp_arena *a, struct cp_jnode *arr, struct cp_jnode *v);
void cp_json_set(struct cp_arena *a, struct cp_jnode *obj, const char *key,
                 struct cp_jnode *v);

/* The project's one JSON string writer, in two forms.  Both escape \" \\
 * \b \f \n \r \t, the other controls below 0x20 as lower-case \u00XX, and
 * write each byte that does not start a well-formed UTF-8 sequence as
 * \ufffd, so that the output is valid JSON whatever the bytes (a file name
 * that is not UTF-8).  Where such a replacement would change what a
 * string means (a path in the settings), the caller refuses the bytes
 * first.
 * cp_json_quote: ASCII only, exactly as Python's json.dumps (ensure_ascii):
 * non-ASCII as lower-case \uXXXX (surrogate pairs above U+FFFF); the
 * settings wiring and the claude backend.
 * cp_json_quote_utf8: well-formed UTF-8 copied as it is; the diagnostics,
 * SARIF, explain and diff outputs (cp_jw_*), the gate's answer and its
 * decision log. */
void cp_json_quote(struct cp_buf *b, const char *s, size_t len);
void cp_json_quote_utf8(struct cp_buf *b, const char *s, size_t len);
/* Prints a value in the canonical layout: 2-space indent, "key": value,
 * one element per line, [] and {} for empty containers, members in their
 * order, no trailing newline.  `indent` is the indentation of the line
 * the value starts on (prefixed to continuation lines); `unit` the string
 * added per level; compact: one line, ", " and ": " separators. */
void cp_json_print(struct cp_buf *b, const struct cp_jnode *v,
                   const char *indent, const char *unit, bool compact);
/* Structural equality (objects: same members in any order). */
bool cp_json_equal(const struct cp_jnode *x, const struct cp_jnode *y);

/* The string of a node equals s[0..len)?  (false for NULL or a non-string) */
bool cp_json_str_is(const struct cp_jnode *n, const char *s, size_t len);
/* A deep copy of v in arena a (spans are not copied). */
struct cp_jnode *cp_json_copy(struct cp_arena *a, const struct cp_jnode *v);

/* A set of byte strings (open addressing) for linear-time list
 * operations: settings lists can hold many thousands of entries. */
struct cp_strset {
    const struct cp_jnode **slots;
    size_t cap, n;
};
bool cp_strset_has(const struct cp_strset *t, const char *s, size_t len);
/* Adds a string node; returns false when an equal one was there. */
bool cp_strset_add(struct cp_arena *a, struct cp_strset *t,
                   const struct cp_jnode *v);
/* The strings of an array (other elements are skipped). */
struct cp_strset cp_strset_of(struct cp_arena *a, const struct cp_jnode *arr);

/* A streaming writer of compact JSON (the diagnostics, SARIF and explain
 * outputs): no blanks at all, members in the order written, strings by
 * cp_json_quote_utf8; integers in decimal.  Open and close are given the bracket ('{', '}', '[', ']'). */
struct cp_jw {
    struct cp_buf *b;
    bool comma; /* a value was written at this level: the next needs ',' */
};
void cp_jw_open(struct cp_jw *w, char bracket);
void cp_jw_close(struct cp_jw *w, char bracket);
void cp_jw_key(struct cp_jw *w, const char *key);
void cp_jw_str(struct cp_jw *w, const char *s);
void cp_jw_bool(struct cp_jw *w, bool v);
void cp_jw_null(struct cp_jw *w);
/* "key":"s", or "key":null when s is NULL. */
void cp_jw_kstr(struct cp_jw *w, const char *key, const char *s);
void cp_jw_kint(struct cp_jw *w, const char *key, long long v);

/* "null", "a boolean", "a number", ... for messages. */
const char *cp_json_type_name(enum cp_jtype t);

#endif

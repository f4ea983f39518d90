/* SPDX-License-Identifier: MIT */
/* Claude Code settings wiring on memory buffers: a JSON reader that keeps
 * byte spans, a deterministic printer, and install / uninstall / verify of
 * a `.claude.json` artifact in a live settings document
 * (spec/settings-wiring.md).  No file I/O here: the callers (cli/cmd_install.c,
 * the fuzzers, the tests) read and write the files. */
#ifndef CP_SETTINGS_H
#define CP_SETTINGS_H

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
    size_t kstart;   /* offset of the key's opening quote (parsed nodes) */
    struct cp_jnode *val;
};

struct cp_jnode {
    enum cp_jtype type;
    size_t start, end;          /* [start, end) of the value in the text */
    const char *s;              /* STR: decoded bytes; NUM: the number text */
    size_t len;
    struct cp_jnode **items;    /* ARR */
    struct cp_jmember *members; /* OBJ, in document order */
    size_t n;                   /* number of items or members */
    bool oneline;               /* printer: this value on one line */
};

/* Nesting limit of the reader (documents deeper than this are refused). */
#define CP_JSON_MAX_DEPTH 256

/* Parses a whole document (RFC 8259: UTF-8, no BOM, no comments, no
 * trailing commas, one value with only whitespace around it).  Returns
 * NULL on success, else a message (arena) with the byte offset. */
const char *cp_json_parse(struct cp_arena *a, const char *text, size_t len,
                          struct cp_jnode **out);

/* Member `key` of object `o` (NULL if absent).  *dup is set when the key
 * occurs more than once (the caller refuses such documents). */
struct cp_jnode *cp_json_get(const struct cp_jnode *o, const char *key,
                             bool *dup);

/* Constructors for building documents (the claude backend). */
struct cp_jnode *cp_json_new(struct cp_arena *a, enum cp_jtype t);
struct cp_jnode *cp_json_str(struct cp_arena *a, const char *s, size_t len);
struct cp_jnode *cp_json_bool(struct cp_arena *a, bool v);
struct cp_jnode *cp_json_int(struct cp_arena *a, long v);
/* Appends to an array / object (amortised growth in the arena). */
void cp_json_push(struct cp_arena *a, struct cp_jnode *arr,
                  struct cp_jnode *v);
void cp_json_set(struct cp_arena *a, struct cp_jnode *obj, const char *key,
                 struct cp_jnode *v);
/* Appends a string to an array unless an equal one is already there.
 * Returns true when added. */
bool cp_json_push_unique(struct cp_arena *a, struct cp_jnode *arr,
                         const char *s, size_t len);

/* Is s[0..len) valid UTF-8 (no overlongs, no surrogates)? */
bool cp_json_utf8_valid(const char *s, size_t len);
/* Appends a JSON string literal: ASCII only, escapes exactly as Python's
 * json.dumps (ensure_ascii): \" \\ \b \f \n \r \t, other controls and all
 * non-ASCII as lower-case \uXXXX (surrogate pairs above U+FFFF).  The
 * bytes must be valid UTF-8 (checked by the caller). */
void cp_json_quote(struct cp_buf *b, const char *s, size_t len);
/* Prints a value in the canonical layout: 2-space indent, "key": value,
 * one element per line, [] and {} for empty containers, members in their
 * order, no trailing newline.  `indent` is the indentation of the line
 * the value starts on (prefixed to continuation lines); `unit` the string
 * added per level; compact: one line, ", " and ": " separators. */
void cp_json_print(struct cp_buf *b, const struct cp_jnode *v,
                   const char *indent, const char *unit, bool compact);
/* Structural equality (objects: same members in any order). */
bool cp_json_equal(const struct cp_jnode *x, const struct cp_jnode *y);

/* ---- settings wiring ------------------------------------------------------ */

/* The key under which install records what it added (top level). */
#define CP_SETTINGS_RECORD_KEY "confpolInstalled"

struct cp_settings_env {
    const char *settings_path; /* absolute path of the live settings file */
    const char *artifact_path; /* absolute canonical path of the artifact */
    const char *confpol_path;  /* absolute path of the confpol binary */
    const char *home;          /* $HOME (absolute), or NULL */
    const char *config_dir;    /* $CLAUDE_CONFIG_DIR (absolute: it holds the
                                  user settings instead of ~/.claude), or NULL */
    /* verify: reads a file the hook refers to; returns false if unreadable. */
    bool (*read_file)(const char *path, struct cp_buf *out, void *ud);
    /* verify: is path an executable regular file? */
    bool (*is_exec)(const char *path, void *ud);
    void *ud;
    /* install on a missing file: the target of the dangling symbolic link
     * that stood at settings_path, or NULL (nothing stood there). */
    const char *dangling_link;
};

/* Shell word quoting used in the hook command: the word unchanged when it
 * holds only [A-Za-z0-9_./:=+@%,-] (and does not start with '-'... or is
 * empty), else single-quoted with ' written as '\''. */
void cp_settings_shell_quote(struct cp_buf *b, const char *s);
/* The hook command install writes: 'BIN' gate --sha256 PIN 'ARTIFACT'
 * (quoted), PIN the artifact's pin digest (cp_gate_pin_digest of the `alen`
 * bytes at `art`); without the pin when art is NULL. */
char *cp_settings_hook_command(struct cp_arena *a, const char *confpol_path,
                               const char *artifact_path, const char *art,
                               size_t alen);

/* Merges the artifact into the live document.  On success returns 0 and
 * out holds the new document (byte-identical to `live` when there was
 * nothing to add).  On refusal returns -1 and err holds one line per
 * reason; out is empty.  `live` may be NULL (no such file yet). */
int cp_settings_install(const struct cp_settings_env *env, const char *live,
                        size_t llen, const char *art, size_t alen,
                        struct cp_buf *out, struct cp_buf *err);
/* Removes exactly what install recorded for env->artifact_path.  Returns
 * 0 (out = new document; identical when nothing was installed; *removed
 * counts undone changes), -1 on refusal (err). */
int cp_settings_uninstall(const struct cp_settings_env *env, const char *live,
                          size_t llen, struct cp_buf *out, size_t *removed,
                          struct cp_buf *err);
/* What stood at the settings path before the install of artifact_path
 * created the file: 0 unknown (the file existed), 1 nothing, 2 a dangling
 * symbolic link to *link (arena).  uninstall's caller restores it when
 * nothing but install's own bytes is left. */
int cp_settings_origin(struct cp_arena *a, const char *live, size_t llen,
                       const char *artifact_path, const char **link);
/* Checks that the live document enforces the artifact.  Returns the number
 * of gaps (each one line in `report`), or -1 when the live document cannot
 * be read as settings (reason in `report`). */
int cp_settings_verify(const struct cp_settings_env *env, const char *live,
                       size_t llen, const char *art, size_t alen,
                       struct cp_buf *report);

/* ---- what Claude Code loads (settings/settings_schema.c) ---------------- */

/* The client does not read a settings file larger than this (measured:
 * 2,097,152 bytes load, one byte more is "File exceeds maxBytes limit"). */
#define CP_SETTINGS_MAX_BYTES 2097152u

/* Checks a parsed settings document (and its size in bytes) against the
 * rules of the client: the Claude Code settings schema compiled into the
 * binary, with the client's own differences.  Appends one line
 * "gap: Claude Code skips this whole file: ..." per problem to report and
 * returns their number (0: the client loads the file). */
int cp_settings_schema_check(struct cp_arena *a, const struct cp_jnode *doc,
                             size_t len, struct cp_buf *report);

#endif

/* SPDX-License-Identifier: MIT */
/* What the files of settings/ share (not part of the public API: see
 * settings.h).  One file per concern, on the span-keeping JSON reader of
 * util/json.h:
 *   splice.c          editing a document by text splices (struct doc)
 *   artifact_load.c   loading and checking a `.claude.json` artifact
 *   scope.c           project or user settings file
 *   hook_command.c    the hook command line install writes
 *   install.c         install, uninstall, the record of what was added
 *   verify.c          does a live document enforce the artifact?
 *   settings_schema.c what the client loads (its settings schema)
 *   loosen.c          what the other files the client merges would loosen
 *   codex_toml.c      a codex artifact in a Codex config.toml
 *
 * Error idiom of this room: a function that can refuse returns false (or
 * -1 / NULL) and appends one line per reason, ending in '\n', to the
 * caller's struct cp_buf (err, report); it never prints and never exits.
 * The public entry points turn that into their documented return codes. */
#ifndef CP_SETTINGS_INT_H
#define CP_SETTINGS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "claude_vocab.h"
#include "settings.h"

/* ---- documents edited by splices (splice.c) ------------------------------ */

struct doc {
    struct cp_arena *a;  /* lives as long as the operation */
    struct cp_arena *ta; /* the current tree after a splice (NULL: the
                            first tree, which is in `a`) */
    struct cp_buf text;
    struct cp_jnode *root;
    char unit[64];
    bool compact;
    bool broken; /* a splice produced invalid JSON: internal error */
};

/* The longest key path install writes. */
#define MAXPATH 4

/* Kinds of place install writes to. */
enum want { W_OBJ, W_BOOL, W_STRARR, W_OBJARR };

/* Reads `live` (NULL: an empty object) into d; refuses (err) what is not a
 * JSON object. */
bool cp_doc_open(struct doc *d, struct cp_arena *a, const char *live,
                 size_t llen, struct cp_buf *err);
/* Replaces text[start, end) by r[0..rl) and re-reads the document (the
 * previous tree is freed: do not keep its nodes). */
bool cp_doc_splice(struct doc *d, size_t start, size_t end, const char *r,
                   size_t rl);
bool cp_doc_add_member(struct doc *d, struct cp_jnode *obj, const char *key,
                       struct cp_jnode *val);
bool cp_doc_append_items(struct doc *d, struct cp_jnode *arr,
                         struct cp_jnode **vals, size_t nv);
bool cp_doc_set_value(struct doc *d, struct cp_jnode *node,
                      const struct cp_jnode *val);
bool cp_doc_remove_item(struct doc *d, struct cp_jnode *arr, size_t i);
bool cp_doc_remove_member(struct doc *d, struct cp_jnode *obj, size_t i);
/* Index of the last member `key` of obj, SIZE_MAX when absent. */
size_t cp_doc_member_index(const struct cp_jnode *obj, const char *key);
/* The value at path[0..n) (objects only), NULL when absent. */
struct cp_jnode *cp_doc_at(const struct doc *d, const char *const *path,
                           size_t n);
/* Checks the place at path and every object on the way: right type when
 * present, no duplicate keys.  Appends a reason to err (once) and returns
 * false otherwise. */
bool cp_doc_check_place(const struct doc *d, const char *const *path, size_t n,
                        enum want w, struct cp_buf *err);

/* ---- the artifact (artifact_load.c) -------------------------------------- */

struct art {
    struct cp_arena *a;
    struct cp_jnode *root, *conf, *sandbox, *perm, *hooks;
    struct cp_cv_gate_row *gates; /* read by cp_cv_gate_rows */
    size_t ngates;
    bool project_relative, fail_closed;
};

/* The sandbox switches, their looser values (ORDER: as the names), the
 * filesystem lists and the permission lists install merges. */
extern const char *const cp_sandbox_bools[4];
extern const bool cp_sandbox_looser[4];
extern const char *const cp_fs_lists[3];
extern const char *const cp_perm_lists[2];

/* Reads and checks an artifact written by the claude backend. */
bool cp_art_load(struct cp_arena *a, const char *text, size_t len,
                 struct art *t, struct cp_buf *err);

/* ---- scope.c ------------------------------------------------------------- */

/* Is env->settings_path a project settings file? */
bool cp_settings_is_project(const struct cp_settings_env *env);

#endif

/* SPDX-License-Identifier: MIT */
/* Claude Code settings wiring on memory buffers: install / uninstall /
 * verify of a `.claude.json` artifact in a live settings document
 * (spec/settings-wiring.md), on the span-keeping JSON reader of
 * util/json.h.  No file I/O here: the callers (cli/cmd_install.c, the
 * fuzzers, the tests) read and write the files.
 *
 * Error idiom of this room: a function that can refuse returns false (the
 * entry points below: -1, or a count of gaps) and appends one line per
 * reason, ending in '\n', to the caller's buffer (err, report); nothing
 * here prints or exits.  The files of the room: settings_int.h. */
#ifndef CP_SETTINGS_H
#define CP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "json.h"

/* ---- settings wiring ------------------------------------------------------ */

/* The key under which install records what it added (top level). */
#define CP_SETTINGS_RECORD_KEY "confpolInstalled"

struct cp_settings_env {
    const char *settings_path; /* absolute path of the live settings file */
    const char *artifact_path; /* absolute canonical path of the artifact */
    const char *gate_path;     /* absolute path of confpol-gate, the hook
                                  program (beside the confpol binary) */
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

/* The hook command install writes: 'GATE' --sha256 PIN 'ARTIFACT' (quoted),
 * GATE the path of confpol-gate, PIN the artifact's pin digest
 * (cp_gate_pin_digest of the `alen` bytes at `art`); without the pin when
 * art is NULL. */
char *cp_settings_hook_command(struct cp_arena *a, const char *gate_path,
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

/* ---- the other files Claude Code merges (settings/loosen.c) ------------ */

/* Where a settings file stands in the client's merge (reference §5). */
enum cp_settings_source {
    CP_SETTINGS_USER,    /* ~/.claude/settings.json, $CLAUDE_CONFIG_DIR */
    CP_SETTINGS_PROJECT, /* PROJECT/.claude/settings.json */
    CP_SETTINGS_LOCAL,   /* PROJECT/.claude/settings.local.json */
    CP_SETTINGS_MANAGED  /* managed settings: above every other file */
};

/* What the document `doc`, merged by Claude Code with a file that holds
 * the artifact `art` (a --settings file), adds that would loosen it.
 * Appends one line per entry to report ("KEY holds ...", "KEY is true
 * ...", no prefix) and returns their number; a document that is not a
 * JSON object adds nothing (the client skips it). */
int cp_settings_loosening(const char *doc, size_t dlen,
                          enum cp_settings_source src, const char *art,
                          size_t alen, struct cp_buf *report);
/* The same for a client that runs whole inside confpol's confinement
 * (confpol claude --whole): only what turns the gate hook off. */
int cp_settings_loosening_whole(const char *doc, size_t dlen,
                                enum cp_settings_source src, const char *art,
                                size_t alen, struct cp_buf *report);

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

/* ---- a Codex config.toml (settings/codex_toml.c) ------------------------ */

/* Installs the `.codex.toml` artifact `art` (its path artp) into the live
 * config.toml (NULL: no such file): a block holding default_permissions at
 * the start, one holding the artifact's tables at the end, both delimited
 * by comment lines naming artp.  Blocks of artp already there are
 * replaced.  0 (out), or -1 (err: a conflict, a file it cannot read). */
int cp_codex_install(const char *artp, const char *live, size_t llen,
                     const char *art, size_t alen, struct cp_buf *out,
                     struct cp_buf *err);
/* Removes the blocks of artp: 1 (out; *created when install had created
 * the file), 0 when there are none (out = live). */
int cp_codex_uninstall(const char *artp, const char *live, size_t llen,
                       struct cp_buf *out, bool *created);
/* Codex's managed files: the first key of TOML text s (its dotted path,
 * quotes dropped; table headers, dotted keys, the keys of inline tables,
 * also in arrays) that contains one of words[0..nwords).  1, its path
 * appended to out and *word set; 0 when no key does; -1 and why appended
 * to out when s cannot be read as TOML (among it a quoted key with an
 * escape: it could spell a word another way). */
int cp_codex_toml_key(const char *s, size_t n, const char *const *words,
                      size_t nwords, struct cp_buf *out, const char **word);
/* Gaps between the live file and the artifact (one line each in report),
 * -1 when art is not a codex artifact. */
int cp_codex_verify(const char *artp, const char *live, size_t llen,
                    const char *art, size_t alen, struct cp_buf *report);

#endif

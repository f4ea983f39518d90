/* SPDX-License-Identifier: MIT */
/* Helpers shared by the semantic phases (resolve, decide, check, effective,
 * explain); not part of the public API. */
#ifndef CP_SEMA_H
#define CP_SEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "policy.h"

/* Parses a concrete subject ("/abs", "~", "~/x", "${NAME}", "${NAME}/x"; no
 * globs, every byte literal) and substitutes the params `p` binds.  Returns
 * NULL or a message. */
const char *cp_sema_subject(struct cp_arena *a, const struct cp_policy *p,
                            const char *text, size_t len, struct cp_path *out);

/* Replaces a bound param root by its value's segments (in the arena). */
void cp_sema_bind(struct cp_arena *a, const struct cp_policy *p,
                  struct cp_path *path);

/* Appends `s` as a confpol quoted string: "...", with \" \\ and \xHH. */
void cp_sema_quote(struct cp_buf *b, const char *s, size_t n);
/* compiler/rx_locate.c: the offset of the byte where the extended regex S
 * (N bytes, which regcomp rejected) goes wrong, or N when none stands out. */
size_t cp_rx_locate(const char *s, size_t n);

/* cp_decide for a parsed path subject (read, write, exec or socket). */
void cp_sema_decide_path(const struct cp_policy *p, enum cp_access acc,
                         const struct cp_path *subj, struct cp_arena *a,
                         struct cp_decision *out);

#endif

/* SPDX-License-Identifier: MIT */
/* The gate library shipped with confpol (the files of gates/, installed under
 * PREFIX/share/confpol/gates): a policy includes a set by name with
 * `include "<NAME>"` (spec/language.md, "Includes"). */
#ifndef CP_LIBRARY_H
#define CP_LIBRARY_H

#include <stddef.h>

struct cp_arena;

/* The file of library set `name` (name[0..len), letters, digits and '-'),
 * or NULL with *why set: a bad name, or no such set in any library
 * directory.  Directories searched, first hit wins: $CONFPOL_LIBRARY when
 * set, next to the running
 * executable (BIN/../share/confpol/gates, then BIN/../gates for a build
 * tree), then CP_DATADIR/gates fixed at build time. */
const char *cp_library_path(struct cp_arena *a, const char *name, size_t len,
                            const char **why);

/* The name of the library set nearest to name[0..len) (a misspelling:
 * "al" for "all"), from every library directory, or NULL. */
const char *cp_library_near(struct cp_arena *a, const char *name, size_t len);

#endif

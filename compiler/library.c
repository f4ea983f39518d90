/* SPDX-License-Identifier: MIT */
/* Finding a set of the gate library by name. */
#include "library.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"

#ifndef CP_DATADIR
#define CP_DATADIR "/usr/local/share/confpol"
#endif

static const char *lib_try(struct cp_arena *a, const char *dir,
                           const char *name, size_t len)
{
    const char *p = cp_arena_printf(a, "%s/%.*s.confpol", dir, (int)len, name);
    return access(p, R_OK) == 0 ? p : NULL;
}

const char *cp_library_path(struct cp_arena *a, const char *name, size_t len,
                            const char **why)
{
    *why = NULL;
    bool ok = len > 0 && len <= 64;
    for (size_t i = 0; ok && i < len; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') ||
             (name[i] >= '0' && name[i] <= '9') || name[i] == '-';
    if (!ok) {
        *why = "a gate library set is named by lower-case letters, digits and "
               "'-' ('<privilege>')";
        return NULL;
    }
    /* an explicit directory first: tests, and programs that link the
     * library from elsewhere */
    const char *env = getenv("CONFPOL_LIBRARY");
    if (env && *env) {
        const char *p = lib_try(a, env, name, len);
        if (p)
            return p;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            const char *p = lib_try(
                a, cp_arena_printf(a, "%s/../share/confpol/gates", exe), name,
                len);
            if (!p)
                p = lib_try(a, cp_arena_printf(a, "%s/../gates", exe), name,
                            len);
            if (p)
                return p;
        }
    }
    const char *p = lib_try(a, CP_DATADIR "/gates", name, len);
    if (!p)
        *why = cp_arena_printf(a,
                               "no gate library set '%.*s' (the sets are "
                               "the files of confpol's gates directory)",
                               (int)len, name);
    return p;
}

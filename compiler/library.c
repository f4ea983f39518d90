/* SPDX-License-Identifier: MIT */
/* Finding a set of the gate library by name. */
#include "library.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"

#ifndef CP_DATADIR
#define CP_DATADIR "/usr/local/share/confpol"
#endif

static const char *lib_try(struct cp_arena *a, const char *dir,
                           const char *name, size_t len)
{
    const char *p = cp_arena_printf(a, "%s/%.*s.confpol", dir, (int)len, name);
    return access(p, R_OK) == 0 ? p : NULL;
}

/* The library directories in the order they are searched (up to 4). */
static size_t lib_dirs(struct cp_arena *a, const char *dirs[4])
{
    size_t n = 0;
    /* an explicit directory first: tests, and programs that link the
     * library from elsewhere */
    const char *env = getenv("CONFPOL_LIBRARY");
    if (env && *env)
        dirs[n++] = env;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            dirs[n++] = cp_arena_printf(a, "%s/../share/confpol/gates", exe);
            dirs[n++] = cp_arena_printf(a, "%s/../gates", exe);
        }
    }
    dirs[n++] = CP_DATADIR "/gates";
    return n;
}

static bool lib_name_ok(const char *name, size_t len)
{
    bool ok = len > 0 && len <= 64;
    for (size_t i = 0; ok && i < len; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') ||
             (name[i] >= '0' && name[i] <= '9') || name[i] == '-';
    return ok;
}

const char *cp_library_path(struct cp_arena *a, const char *name, size_t len,
                            const char **why)
{
    *why = NULL;
    if (!lib_name_ok(name, len)) {
        *why = "a gate library set is named by lower-case letters, digits and "
               "'-' ('<privilege>')";
        return NULL;
    }
    const char *dirs[4];
    size_t nd = lib_dirs(a, dirs);
    for (size_t i = 0; i < nd; i++) {
        const char *p = lib_try(a, dirs[i], name, len);
        if (p)
            return p;
    }
    *why = cp_arena_printf(a,
                           "no gate library set '%.*s' (the sets are "
                           "the files of confpol's gates directory)",
                           (int)len, name);
    return NULL;
}

/* Adds the set names of directory DIR to *v (arena strings). */
static void lib_list(struct cp_arena *a, const char *dir, struct cp_vec *v)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 8 && strcmp(e->d_name + n - 8, ".confpol") == 0 &&
            lib_name_ok(e->d_name, n - 8))
            cp_vec_push(a, v, cp_arena_strndup(a, e->d_name, n - 8));
    }
    closedir(d);
}

static int lib_name_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

const char *cp_library_near(struct cp_arena *a, const char *name, size_t len)
{
    struct cp_vec v = {0};
    const char *dirs[4];
    size_t nd = lib_dirs(a, dirs);
    for (size_t i = 0; i < nd; i++)
        lib_list(a, dirs[i], &v);
    /* sorted: the directory's order must not pick between two as near */
    if (v.len > 1)
        qsort(v.items, v.len, sizeof *v.items, lib_name_cmp);
    return v.len ? cp_nearest(name, len, v.items, v.len, sizeof *v.items)
                 : NULL;
}

/* SPDX-License-Identifier: MIT */
/* The table of backends. */
#include "backend.h"

#include <string.h>

const struct cp_backend *const cp_backends[] = {
    &cp_backend_sbpl,
    &cp_backend_bwrap,
    &cp_backend_claude,
    NULL,
};

const struct cp_backend *cp_backend_find(const char *name)
{
    for (size_t i = 0; cp_backends[i]; i++)
        if (strcmp(cp_backends[i]->name, name) == 0)
            return cp_backends[i];
    return NULL;
}

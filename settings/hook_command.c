/* SPDX-License-Identifier: MIT */
/* The hook command install writes and verify reads back: shell quoting
 * and the pinned confpol-gate command line. */
#include "settings_int.h"

#include "gate_pin.h"
#include "text.h"

#include <string.h>

char *cp_settings_hook_command(struct cp_arena *a, const char *gate_path,
                               const char *artifact_path, const char *art,
                               size_t alen)
{
    struct cp_buf b = {0};
    cp_shell_quote(&b, gate_path);
    cp_buf_adds(&b, " ");
    if (art) {
        char pin[CP_SHA256_HEX];
        cp_gate_pin_digest(art, alen, pin);
        cp_buf_printf(&b, "--sha256 %s ", pin);
    }
    cp_shell_quote(&b, artifact_path);
    char *r = cp_arena_strdup(a, b.data);
    cp_buf_free(&b);
    return r;
}

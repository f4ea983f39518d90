/* SPDX-License-Identifier: MIT */
/* Which scope a settings file has: a project's or the user's
 * (spec/settings-wiring.md, project-relative paths). */
#include "settings_int.h"

#include <string.h>

/* A project settings file: DIR/.claude/settings.json or
 * DIR/.claude/settings.local.json with DIR not $HOME (whose .claude holds
 * the user settings, where "./x" means ~/.claude/x). */
static bool is_project_settings1(const char *path, const char *home);

/* Nor a file directly in $CLAUDE_CONFIG_DIR, the user settings then. */
bool cp_settings_is_project(const struct cp_settings_env *env)
{
    const char *path = env->settings_path, *cd = env->config_dir;
    if (cd && *cd) {
        size_t cl = strlen(cd);
        while (cl > 1 && cd[cl - 1] == '/')
            cl--;
        const char *slash = strrchr(path, '/');
        if (slash && (size_t)(slash - path) == cl && strncmp(path, cd, cl) == 0)
            return false;
    }
    return is_project_settings1(path, env->home);
}

static bool is_project_settings1(const char *path, const char *home)
{
    static const char *const tails[] = {"/.claude/settings.json",
                                        "/.claude/settings.local.json"};
    size_t pl = strlen(path);
    for (size_t i = 0; i < 2; i++) {
        size_t tl = strlen(tails[i]);
        if (pl <= tl || strcmp(path + pl - tl, tails[i]) != 0)
            continue;
        size_t dl = pl - tl;
        if (home) {
            size_t hl = strlen(home);
            while (hl > 1 && home[hl - 1] == '/')
                hl--;
            if (hl == dl && strncmp(home, path, dl) == 0)
                return false;
        }
        return true;
    }
    return false;
}

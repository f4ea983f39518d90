/* SPDX-License-Identifier: MIT */
/* The proxy's environment variables (spec/runtime.md §14.1): set by the
 * bridge inside the sandbox and by the macOS path, so linked by the stage
 * and the launcher without the proxy itself. */
#include <stdio.h>
#include <string.h>

#include "netproxy.h"

/* The variables, in the order they are set (spec/runtime.md 14.1). */
static const char *const px_env_names[] = {
    "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
    "ALL_PROXY",  "all_proxy",   "NO_PROXY",   "no_proxy"};

void cp_rt_proxy_env(char *const *env, unsigned port, struct cp_rt_strv *out)
{
    enum { N = sizeof px_env_names / sizeof *px_env_names };
    memset(out, 0, sizeof *out);
    for (size_t i = 0; env && env[i]; i++) {
        bool ours = false;
        for (size_t k = 0; k < N && !ours; k++) {
            size_t n = strlen(px_env_names[k]);
            ours = !strncmp(env[i], px_env_names[k], n) && env[i][n] == '=';
        }
        if (!ours)
            cp_rt_strv_push(out, env[i]);
    }
    char v[96];
    for (size_t k = 0; k < N; k++) {
        /* ALL_PROXY socks5h: the client sends names, the proxy resolves
         * them; NO_PROXY empty: nothing inherited goes around it. */
        if (k < 4)
            snprintf(v, sizeof v, "%s=http://127.0.0.1:%u", px_env_names[k],
                     port);
        else if (k < 6)
            snprintf(v, sizeof v, "%s=socks5h://127.0.0.1:%u", px_env_names[k],
                     port);
        else
            snprintf(v, sizeof v, "%s=", px_env_names[k]);
        cp_rt_strv_push(out, v);
    }
}

/* SPDX-License-Identifier: MIT */
/* The sandbox's side of the network (spec/runtime.md, "Network"): the
 * launch glue that starts the proxy and tells bwrap and the stage about
 * it (the loopback bridge inside the sandbox is bridge.c, linked by the
 * stage).  The seccomp filter that
 * closes Unix sockets is built with the runtime's other one (ll_seccomp.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sched.h>
#include <unistd.h>

#include "netaddr.h"
#include "netproxy.h"

/* ---- launch glue ----------------------------------------------------------- */

int cp_rt_net_prepare(const struct cp_rt_artifact *a, struct cp_rt_plan *pl,
                      const char *prog, struct cp_rt_proxy *px,
                      struct cp_rt_err *e)
{
    memset(px, 0, sizeof *px);
    bool has_net = false, unshared = false;
    for (size_t i = 0; i < a->nrecs; i++) {
        has_net |= a->recs[i].tag == CP_RT_T_NET;
        unshared |= a->recs[i].tag == CP_RT_T_ARG &&
                    !strcmp(a->recs[i].f1, "--unshare-net");
    }
    /* Every network rule other than "allow everything" closes Unix
     * sockets; the network namespace alone leaves filesystem sockets
     * reachable. */
    pl->unix_closed = unshared;
    pl->prog = prog;
    if (pl->sockets.n && !unshared) /* a socket rule comes with a net rule */
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "invalid artifact: 'socket' records without "
                          "--unshare-net");
    if (!has_net)
        return 0;
    if (!unshared) /* the proxy would be a detour, not a boundary */
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "invalid artifact: 'net' records without "
                          "--unshare-net");
    if (cp_rt_proxy_start(a, CP_RT_PROXY_UNIX, prog, px, e))
        return e->status;
    /* The direct path hands connect to the bridge; a supervisor of named
     * sockets would take it instead (the newest listener gets the call):
     * with `socket` records, the proxy alone. */
    if (!pl->sockets.n && cp_rt_direct_prepare(px->dir, &pl->words, e)) {
        cp_rt_proxy_stop(px, true);
        return e->status;
    }
    /* Read-only: the sandbox cannot replace the socket by its own. */
    cp_rt_strv_push(&pl->words, "--ro-bind");
    cp_rt_strv_push(&pl->words, px->dir);
    cp_rt_strv_push(&pl->words, px->dir);
    pl->proxy_sock = strdup(px->sock);
    if (!pl->proxy_sock) {
        cp_rt_proxy_stop(px, true);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "out of memory");
    }
    return 0;
}

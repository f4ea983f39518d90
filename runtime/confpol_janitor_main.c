/* SPDX-License-Identifier: MIT */
/* confpol-janitor: started by the launcher for the first placeholder
 * (runtime/janitor.c; spec/runtime.md §6, §11.1), with its socket as
 * descriptor 3.  Not meant to be started by hand. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

int main(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return CP_RT_EXIT_ERROR;
    struct stat st;
    if (fstat(CP_RT_JANITOR_FD, &st) < 0 || !S_ISSOCK(st.st_mode)) {
        fputs("confpol-janitor: started by confpol-run only\n", stderr);
        return CP_RT_EXIT_ERROR;
    }
    /* Its socket alone, whatever the starter left open. */
    int keep = CP_RT_JANITOR_FD;
    if (cp_rt_close_inherited(&keep, 1) < 0)
        return CP_RT_EXIT_ERROR;
    /* Its own name in ps (started through its descriptor, it would be the
     * descriptor's number). */
    prctl(PR_SET_NAME, "confpol-janitor", 0, 0, 0);
    static const int ign[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t i = 0; i < sizeof ign / sizeof ign[0]; i++)
        signal(ign[i], SIG_IGN);
    cp_rt_janitor_main(CP_RT_JANITOR_FD);
}

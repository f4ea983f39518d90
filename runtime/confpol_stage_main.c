/* SPDX-License-Identifier: MIT */
/* confpol-stage: run by bwrap inside the sandbox, before the command
 * (runtime/stage.c; spec/runtime.md §6, §11.1).  Not meant to be started
 * by hand: its arguments are three descriptors the launcher passes. */
#include <fcntl.h>
#include <unistd.h>

#include "runtime.h"

int main(int argc, char **argv)
{
    /* 0, 1 and 2 must be open so that no descriptor we create lands there. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return CP_RT_EXIT_ERROR;
    return cp_rt_stage_main(argc - 1, argv + 1);
}

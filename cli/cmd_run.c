/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol run. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol run: not implemented yet\n", stderr);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol build. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_build(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol build: not implemented yet\n", stderr);
    return 2;
}

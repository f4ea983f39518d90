/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol fmt. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_fmt(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol fmt: not implemented yet\n", stderr);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol check. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol check: not implemented yet\n", stderr);
    return 2;
}

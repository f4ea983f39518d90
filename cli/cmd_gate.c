/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol gate. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_gate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol gate: not implemented yet\n", stderr);
    return 2;
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol explain. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_explain(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol explain: not implemented yet\n", stderr);
    return 2;
}

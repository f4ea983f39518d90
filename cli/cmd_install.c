/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: confpol install, uninstall, verify. */
#include <stdio.h>

#include "cli.h"

int cp_cmd_install(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol install: not implemented yet\n", stderr);
    return 2;
}

int cp_cmd_uninstall(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol uninstall: not implemented yet\n", stderr);
    return 2;
}

int cp_cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("confpol verify: not implemented yet\n", stderr);
    return 2;
}

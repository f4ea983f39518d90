/* SPDX-License-Identifier: MIT */
/* main of `confpol`: dispatches to the subcommands of cli/cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} cp_cmds[] = {
    {"check", cp_cmd_check, "parse, type-check and analyse a policy"},
    {"fmt", cp_cmd_fmt, "print a policy in canonical layout"},
    {"explain", cp_cmd_explain, "decide one access and show the deciding rules"},
    {"build", cp_cmd_build, "emit SBPL, bwrap and Claude Code artifacts"},
    {"run", cp_cmd_run, "run a command confined by a policy"},
    {"gate", cp_cmd_gate, "answer Claude Code's PreToolUse hook"},
    {"install", cp_cmd_install, "merge an artifact into a live settings file"},
    {"uninstall", cp_cmd_uninstall, "remove what install added"},
    {"verify", cp_cmd_verify, "check that live settings enforce a policy"},
    {"claude", cp_cmd_claude, "start Claude Code confined by a policy"},
    {"init", cp_cmd_init, "write a starter policy"},
};

static void cp_usage(FILE *out)
{
    fputs("usage: confpol COMMAND [OPTIONS] ...\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof(cp_cmds) / sizeof(cp_cmds[0]); i++)
        fprintf(out, "  %-10s %s\n", cp_cmds[i].name, cp_cmds[i].summary);
    fputs("\n'confpol COMMAND --help' describes each command.\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cp_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("confpol %s\n", CP_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cp_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof(cp_cmds) / sizeof(cp_cmds[0]); i++)
        if (strcmp(argv[1], cp_cmds[i].name) == 0)
            return cp_cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "confpol: unknown command '%s'\n", argv[1]);
    cp_usage(stderr);
    return 2;
}

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
    {"explain", cp_cmd_explain,
     "decide one access and show the deciding rules"},
    {"diff", cp_cmd_diff, "compare two policies by what they allow"},
    {"build", cp_cmd_build, "emit SBPL, bwrap and Claude Code artifacts"},
    {"run", cp_cmd_run, "run a command confined by a policy"},
    {"gate", cp_cmd_gate, "answer Claude Code's PreToolUse hook"},
    {"install", cp_cmd_install, "merge an artifact into a live settings file"},
    {"uninstall", cp_cmd_uninstall, "remove what install added"},
    {"verify", cp_cmd_verify, "check that live settings enforce a policy"},
    {"claude", cp_cmd_claude, "start Claude Code confined by a policy"},
    {"codex", cp_cmd_codex, "start Codex CLI confined by a policy"},
    {"init", cp_cmd_init, "write a starter policy"},
};

static void cp_usage(FILE *out)
{
    fputs("usage: confpol COMMAND [OPTIONS] ...\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof(cp_cmds) / sizeof(cp_cmds[0]); i++)
        fprintf(out, "  %-10s %s\n", cp_cmds[i].name, cp_cmds[i].summary);
    fputs("  help       this list, 'help COMMAND' for one command, 'help "
          "CODE' for a\n"
          "             diagnostic code (CP0602)\n"
          "  version    print the version (also -V, --version)\n"
          "\n'confpol COMMAND --help' describes each command.\n",
          out);
}

static int cp_find_cmd(const char *name)
{
    for (size_t i = 0; i < sizeof(cp_cmds) / sizeof(cp_cmds[0]); i++)
        if (strcmp(name, cp_cmds[i].name) == 0)
            return (int)i;
    return -1;
}

/* An unknown command: one line, with "did you mean" among the commands. */
static int cp_unknown_cmd(const char *name)
{
    const char *near = cp_nearest(name, strlen(name), &cp_cmds[0].name,
                                  sizeof(cp_cmds) / sizeof(cp_cmds[0]),
                                  sizeof(cp_cmds[0]));
    if (!near)
        near = cp_nearest_word(name,
                               (const char *const[]){"help", "version", NULL});
    if (near) {
        fprintf(stderr,
                "confpol: unknown command '%s'; did you mean '%s'?\n"
                "see 'confpol --help'\n",
                name, near);
        return 2;
    }
    return cp_cli_usage_error("", "unknown command '%s'", name);
}

/* help CODE: what a diagnostic code means, offline (the help a SARIF
 * reader is pointed to). */
static int cp_help_code(enum cp_diag_code c)
{
    const char *flag = cp_diag_code_flag(c);
    static const char *const sev[] = {"note", "warning", "error"};
    printf("%s %s (%s%s%s)\n%s\n", cp_diag_code_id(c), cp_diag_code_name(c),
           sev[cp_diag_code_default(c)], flag ? ", -W" : ", no switch",
           flag ? flag : "", cp_diag_code_summary(c));
    printf("documented in %s; every code: spec/diagnostics.md, section 6\n",
           cp_diag_code_doc(c));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cp_cli_usage_error("", "no command given");
    const char *a = argv[1];
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0 ||
        strcmp(a, "version") == 0) {
        if (argc > 2)
            return cp_cli_usage_error("", "'%s' takes no argument", a);
        printf("confpol %s\n", CP_VERSION);
        return 0;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 ||
        strcmp(a, "help") == 0) {
        if (argc == 2) {
            cp_usage(stdout);
            return 0;
        }
        if (argc > 3)
            return cp_cli_usage_error("", "'help' takes one command");
        /* help COMMAND is COMMAND --help. */
        int k = cp_find_cmd(argv[2]);
        int code = k < 0 ? cp_diag_code_lookup(argv[2]) : -1;
        if (code >= 0)
            return cp_help_code((enum cp_diag_code)code);
        if (k < 0)
            return cp_unknown_cmd(argv[2]);
        char *hargv[] = {argv[2], "--help", NULL};
        return cp_cmds[k].fn(2, hargv);
    }
    if (a[0] == '-')
        return cp_cli_usage_error("", "expected a command before '%s'", a);
    int k = cp_find_cmd(a);
    if (k < 0)
        return cp_unknown_cmd(a);
    return cp_cmds[k].fn(argc - 1, argv + 1);
}

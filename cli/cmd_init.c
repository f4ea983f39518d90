/* SPDX-License-Identifier: MIT */
/* confpol init [--claude | --ci | --laptop] [--force] [FILE]: writes a
 * starter policy (the files in examples/starter, compiled in by make) and
 * says what to do next.  Each starter passes `check -Werror`, builds for
 * every target and installs or runs (tests/sh/init.sh). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

extern const unsigned char cp_starter_claude[];
extern const unsigned char cp_starter_ci[];
extern const unsigned char cp_starter_laptop[];

static const struct cp_starter {
    const char *opt;
    const unsigned char *text;
    const char *what;
    const char *next; /* what to do next; '@' stands for the file */
} cp_starters[] = {
    {"--claude", cp_starter_claude, "Claude Code in one project",
     "  confpol check @     analyse it (edit the rules to fit)\n"
     "  confpol claude @    start Claude Code in this project, confined by "
     "it\n"},
    {"--ci", cp_starter_ci, "a CI job",
     "  confpol check @                analyse it (edit the rules to fit)\n"
     "  confpol run @ -- make check    run the job confined by it\n"},
    {"--laptop", cp_starter_laptop, "a tool on a developer's laptop",
     "  confpol check @              analyse it (edit the rules to fit)\n"
     "  confpol run @ -- \"$SHELL\"    a shell confined by it\n"},
};

static void cp_init_usage(FILE *out)
{
    fputs(
        "usage: confpol init [--claude | --ci | --laptop] [--force] [FILE]\n"
        "\n"
        "Writes a starter policy to FILE (default policy.confpol):\n"
        "  --claude  Claude Code in one project (the default)\n"
        "  --ci      a CI job\n"
        "  --laptop  an agent or tool on a developer's laptop\n"
        "Each protects the write root's .git/hooks, .git/config and .claude,\n"
        "denies reading credentials, gates dangerous commands, and states its\n"
        "intent in expect lines; it passes 'confpol check -Werror'.  An\n"
        "existing FILE is not overwritten unless --force is given.\n"
        "\n"
        "Exit status: 0 written, 1 FILE exists, 2 usage or I/O.\n",
        out);
}

/* Selects the starter argument a names (--claude, --ci, --laptop).
 * Returns 1 selected, 0 not a starter option, 2 a second, different one
 * (reported). */
static int starter_opt(const char *a, const struct cp_starter **st, bool *kind)
{
    int found = 0;
    for (size_t k = 0; k < sizeof cp_starters / sizeof cp_starters[0]; k++)
        if (strcmp(a, cp_starters[k].opt) == 0) {
            if (*kind && *st != &cp_starters[k]) {
                fputs("confpol init: choose one of --claude, --ci, "
                      "--laptop\nsee 'confpol init --help'\n",
                      stderr);
                return 2;
            }
            *st = &cp_starters[k];
            *kind = true;
            found = 1;
        }
    return found;
}

/* Creates file exclusively (O_EXCL: a file that appears meanwhile is not
 * overwritten either).  Returns -1 to go on, or the exit status. */
static int init_create(const char *file)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
        fprintf(stderr,
                "confpol init: %s exists: not overwritten (use "
                "--force to replace it)\n",
                file);
        return 1;
    }
    if (fd < 0) {
        fprintf(stderr, "confpol init: %s: %s\n", file, strerror(errno));
        return 2;
    }
    close(fd);
    return -1;
}

/* Writes the starter to file and prints what to do next.  Returns the
 * exit status. */
static int init_write(const struct cp_starter *st, const char *file, bool force)
{
    const char *text = (const char *)st->text;
    if (!force) {
        int rc = init_create(file);
        if (rc >= 0)
            return rc;
    }
    if (cp_cli_write_atomic(file, text, strlen(text)) != 0) {
        fprintf(stderr, "confpol init: %s: %s\n", file, strerror(errno));
        if (!force)
            unlink(file);
        return 2;
    }
    printf("confpol init: wrote %s (%s)\n\nnext:\n", file, st->what);
    for (const char *p = st->next; *p; p++)
        if (*p == '@')
            fputs(file, stdout);
        else
            putchar(*p);
    return 0;
}

int cp_cmd_init(int argc, char **argv)
{
    const struct cp_starter *st = &cp_starters[0];
    const char *file = NULL;
    bool force = false, kind = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = starter_opt(a, &st, &kind);
        if (r == 2)
            return 2;
        if (r)
            continue;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_init_usage(stdout);
            return 0;
        } else if (strcmp(a, "--force") == 0 || strcmp(a, "-f") == 0) {
            force = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr,
                    "confpol init: unknown option '%s'\n"
                    "see 'confpol init --help'\n",
                    a);
            return 2;
        } else if (file) {
            fputs("confpol init: one FILE only\nsee 'confpol init --help'\n",
                  stderr);
            return 2;
        } else {
            file = a;
        }
    }
    return init_write(st, file ? file : "policy.confpol", force);
}

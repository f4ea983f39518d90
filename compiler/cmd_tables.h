/* SPDX-License-Identifier: MIT */
/* The per-program tables of the shell reader and the gate matcher: which
 * programs run their operands as a command (wrappers) and which options
 * take a separate value (so that `git -C dir push` reads as `git push`).
 * Both are facts about how each tool parses its options; they live here,
 * in one file, so that they are extended in one place (spec/patterns.md
 * 2.2 and 2.3 list them). */
#ifndef CP_CMD_TABLES_H
#define CP_CMD_TABLES_H

#include <stdbool.h>
#include <stddef.h>

/* A wrapper that runs its operands as a command.  arg_opts: options that
 * take a separate argument; str_opts: options whose argument is a command
 * line; skip: operands before the command. */
struct cp_wrapper {
    const char *name;
    const char *const *arg_opts;
    const char *const *str_opts;
    int skip;
    bool assigns; /* VAR=value operands before the command (env) */
};

/* The wrapper named NAME (a program name, lower case), or NULL. */
const struct cp_wrapper *cp_cmd_wrapper(const char *name);

/* The options of program PROG that take a separate value, a NULL-ended
 * list, or NULL. */
const char *const *cp_cmd_value_opts(const char *prog);

/* Does PROG take a "+TOOLCHAIN" word before its subcommand (cargo
 * +nightly install)? */
bool cp_cmd_plus_word(const char *prog);

#endif

/* SPDX-License-Identifier: MIT */
/* Subcommands of `confpol` and the option parsing they share.  Each
 * subcommand lives in cli/cmd_NAME.c and returns the process exit status:
 * 0 clean, 1 the policy has errors (or a check failed), 2 usage or I/O. */
#ifndef CP_CLI_H
#define CP_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h> /* mode_t */

#include "confpol.h"

enum cp_diag_format { CP_DFMT_TEXT, CP_DFMT_JSON, CP_DFMT_SARIF };
enum cp_color { CP_COLOR_AUTO, CP_COLOR_ALWAYS, CP_COLOR_NEVER };

/* Options common to the compiling subcommands. */
struct cp_cli_common {
    struct cp_define *defines; /* -D NAME=VALUE (heap) */
    size_t ndefines;
    bool werror;        /* -Werror */
    const char **wopts; /* -Wname / -Wno-name as written, without -W */
    size_t nwopts;
    enum cp_diag_format dfmt; /* --diagnostics-format */
    enum cp_color color;      /* --color=auto|always|never */
    bool all_diags;           /* --all-diagnostics: no grouping */
    const char *cmd;          /* "check": the command, for messages */
    /* defines[0..nexplicit) came from -D; the rest were bound implicitly
     * by cp_cli_bind_run (HOME from the environment, PROJECT from the
     * working directory).  Meaningful once cp_cli_bind_run ran. */
    size_t nexplicit;
    bool bound_run; /* cp_cli_bind_run ran */
    bool fidelity;  /* build --fidelity: the targets' notes are printed */
};

/* Tries to consume argv[*i] (and its value) as a common option.  Returns 1
 * if consumed, 0 if not a common option, -1 on a usage error (message
 * printed).  Accepts "-D NAME=VALUE", "-DNAME=VALUE", "-Werror",
 * "-Werror=x", "-Wx", "-Wno-x" (x a name or a code), "--diagnostics-format
 * F", "--diagnostics-format=F", "--color[=WHEN]" and "--all-diagnostics". */
int cp_cli_common_opt(struct cp_cli_common *c, int argc, char **argv, int *i);
/* The usage error of every command: one line "confpol CMD: MESSAGE", then
 * "see 'confpol CMD --help'" (not the whole help).  Returns 2, the exit
 * status of a usage error. */
int cp_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An unknown option OPT of CMD: the usage error, with "did you mean" from
 * OPTS (NULL-terminated: the command's own options; the common ones are
 * added when COMMON). */
int cp_cli_unknown_option(const char *cmd, const char *opt,
                          const char *const *opts, bool common);
/* "--color", "--color=WHEN" (and "--colour"): 1 and *MODE set, 0 when A is
 * not such an option, -1 after a usage error (an unknown WHEN). */
int cp_cli_color_opt(const char *cmd, const char *a, enum cp_color *mode);
/* Whether text on stderr gets colour escapes: --color=always, or auto on a
 * terminal when NO_COLOR is unset or empty and TERM is not "dumb". */
bool cp_cli_color(enum cp_color mode);
/* The exit status of a compilation with errors: 2 when an error is a
 * command-line one (-D, I/O: CP08xx), else 1. */
int cp_cli_error_status(const struct cp_ctx *cx);
/* Applies the common options to a fresh context (defines, -W, -Werror);
 * returns false (after printing) on an unknown warning name. */
bool cp_cli_apply(const struct cp_cli_common *c, struct cp_ctx *cx);
/* Prints the context's diagnostics in the chosen format to stderr (text)
 * or stdout (json, sarif). */
void cp_cli_print_diags(const struct cp_cli_common *c, struct cp_ctx *cx);
/* In text format, prints the diagnostics reported so far and releases them
 * (a long build holds one phase's diagnostics at a time); cp_cli_print_diags
 * prints the rest and the summary.  JSON and SARIF are printed whole. */
void cp_cli_flush_diags(const struct cp_cli_common *c, struct cp_ctx *cx);
void cp_cli_common_free(struct cp_cli_common *c);

/* Binds what `confpol run` binds (spec/semantics.md 1.7): HOME from the
 * environment and PROJECT from the working directory, each canonicalised,
 * unless -D gave it; a value that cannot be canonicalised stays unbound. */
void cp_cli_bind_run(struct cp_cli_common *c);
/* PROJECT only, as `confpol claude` binds it (verify). */
void cp_cli_bind_project(struct cp_cli_common *c);
/* Where the value of define K came from, for messages: "-D", "$HOME"
 * or "the current directory". */
const char *cp_cli_define_from(const struct cp_cli_common *c, size_t k);
/* Refuses implicit bindings (cp_cli_bind_run) under which an allow rule of
 * FILE rooted at the param covers the whole file system, or a rule rooted
 * at PROJECT covers HOME (spec/semantics.md 1.7): prints why on stderr
 * and returns false.  Explicit -D values are never refused. */
bool cp_cli_bindings_sane(const struct cp_cli_common *c, const char *file);
/* The same for a command that binds PROJECT itself (claude): PROJECT as
 * given, HOME from the environment, both taken as implicit. */
bool cp_cli_project_sane(const char *cmd, const char *file,
                         const char *project);

/* Writes `len` bytes to `path` atomically (temporary file PATH.tmp.XXXXXX
 * in the same directory, fsync, rename).  The file keeps the mode, owner
 * and group of the file it replaces; a new file gets 0666 less the umask.
 * Returns 0 or -1 with errno set. */
int cp_cli_write_atomic(const char *path, const char *data, size_t len);
/* What one settings file that Claude Code merges with a --settings file
 * holding the artifact `art` would loosen (settings/loosen.c; src an enum
 * cp_settings_source): one line "LEAD FILE: what" per entry appended to
 * out, and their number.  A missing file adds nothing; one that cannot be
 * read (not a regular file, no permission) counts as one.  whole: only
 * what turns the gate hook off (cp_settings_loosening_whole). */
int cp_cli_claude_merged(const char *file, int src, bool whole, const char *art,
                         size_t alen, const char *lead, struct cp_buf *out);
/* The same for every managed settings file of this machine, in the
 * client's order (the cached server-managed settings, then
 * managed-settings.json and managed-settings.d/ of each managed directory);
 * `skip` (a path, or NULL) is not read.  whole: only what turns the gate
 * hook off (confpol claude --whole). */
int cp_cli_claude_managed(const char *art, size_t alen, bool whole,
                          const char *lead, const char *skip,
                          struct cp_buf *out);

/* The same with the mode, owner and group of `like` (NULL: as above). */
struct stat;
int cp_cli_write_atomic_like(const char *path, const char *data, size_t len,
                             const struct stat *like);

/* confpol claude --whole (cli/claude_whole.c, cli/claude_state.c). */
/* The first line of `confpol explain POLICY ACCESS SUBJECT` with PROJECT
 * bound (heap; NULL when it fails). */
char *cp_claude_explain(const char *policy, const char *project,
                        const char *access, const char *subject);
/* The client's state file, ~/.claude.json or $CLAUDE_CONFIG_DIR's (heap;
 * NULL without HOME). */
char *cp_claude_state_file(void);
/* The client's configuration directory, $CLAUDE_CONFIG_DIR or ~/.claude
 * (heap; NULL without HOME). */
char *cp_claude_config_dir(void);
/* 0 when the policy gives the client what it needs and keeps the agent
 * from every place a later session loads; else 1, each problem printed. */
int cp_claude_whole_preflight(const char *policy, const char *project);
/* Copies the state file's keys into DIR before the session (first
 * checking a copy a session that ended early left); 0 or 2 (I/O). */
int cp_claude_state_begin(const char *dir, const char *project);
/* Compares them after it: the changes put back (each said), -1 on I/O. */
int cp_claude_state_end(const char *dir, const char *project);
/* Copies the automatic memory (CONFIG/projects/NAME/memory) into DIR
 * before the session, after checking a copy left by a session that ended
 * early, and takes the lock held until cp_claude_memory_end; 0, 1 (too
 * large, a link, or another session running: said) or 2 (I/O). */
int cp_claude_memory_begin(const char *dir);
/* Puts back every change to it after the session: their number (each
 * said), -1 when something could not be put back. */
int cp_claude_memory_end(const char *dir);
/* mkdir -p PATH (modified in place and restored), MODE for what it makes.
 * Returns false with errno set. */
bool cp_cli_mkdirs(char *path, mode_t mode);
/* Appends the whole file to OUT (NUL-terminated, "" when empty).  Returns
 * false when it cannot be opened or read. */
bool cp_cli_read_file(const char *path, struct cp_buf *out);
/* The absolute path of confpol-gate, the hook program installed settings
 * run, beside the running confpol (make install puts both in one
 * directory): heap, or NULL when it is not an executable file there
 * (printed, prefixed with "confpol CMD: "). */
char *cp_cli_gate_program(const char *cmd);

/* The command line of a command that builds the policy and starts a client
 * in this project (confpol claude, confpol codex): [-q] [-D NAME=VALUE]...
 * [-W...] [--diagnostics-format F] [FLAG] [POLICY] [-- ARGS...].  -D, -W
 * and --diagnostics-format pass through to the build's arguments. */
struct cp_cli_client {
    const char *cmd;   /* "claude": messages start "confpol claude: " */
    const char *whose; /* "Claude Code's": whose arguments follow '--' */
    const char *flag;  /* one more option without a value, or NULL */
    /* NULL-terminated "NAME=" prefixes of the params the command binds
     * itself: a -D of one is refused with bound_why. */
    const char *const *bound;
    const char *bound_why;
    void (*usage)(FILE *out);
    const char **bargv; /* the build's arguments, room for argc more */
    int bargc;
    /* What was read: */
    const char *policy; /* NULL when not given */
    bool quiet, flag_set;
    int rest; /* argv[rest..] are the client's arguments (set it to argc) */
};
/* Reads the command line into C.  Returns -1 to go on, else the exit
 * status (--help: 0; a usage error: 2, the message printed). */
int cp_cli_client_args(struct cp_cli_client *c, int argc, char **argv);
/* The directory of confpol's own for CMD's client in PROJECT (heap),
 * ROOT/confpol/CMD/NAME-HASH: NAME the project's last component ("root"
 * for /), HASH the first 8 bytes of SHA-256 of its path in hex, so that a
 * person can tell which project and two projects never share one.  ROOT is
 * $XDG_CACHE_HOME (cache) or $XDG_CONFIG_HOME when absolute, else
 * HOME/.cache or HOME/.config; NULL when neither is absolute. */
char *cp_cli_client_dir(const char *cmd, bool cache, const char *home,
                        const char *project);

int cp_cmd_check(int argc, char **argv);   /* cli/cmd_check.c */
int cp_cmd_fmt(int argc, char **argv);     /* cli/cmd_fmt.c */
int cp_cmd_explain(int argc, char **argv); /* cli/cmd_explain.c */
int cp_cmd_build(int argc, char **argv);   /* cli/cmd_build.c */
int cp_cmd_diff(int argc, char **argv);    /* cli/cmd_diff.c */
int cp_cmd_run(int argc, char **argv);     /* cli/cmd_run.c */
struct cp_rt_artifact;
struct cp_rt_params;
struct cp_rt_launch;
/* confpol run --explain-denials (cli/run_explain.c). */
int cp_run_explain(struct cp_ctx *cx, const struct cp_rt_artifact *a,
                   const struct cp_rt_params *p, struct cp_rt_launch *l);
int cp_cmd_gate(int argc, char **argv);      /* cli/cmd_gate.c */
int cp_cmd_install(int argc, char **argv);   /* cli/cmd_install.c */
int cp_cmd_uninstall(int argc, char **argv); /* cli/cmd_install.c */
int cp_cmd_verify(int argc, char **argv);    /* cli/cmd_install.c */
int cp_cmd_claude(int argc, char **argv);    /* cli/cmd_claude.c */
int cp_cmd_codex(int argc, char **argv);     /* cli/cmd_codex.c */
int cp_cmd_init(int argc, char **argv);      /* cli/cmd_init.c */

/* confpol codex's checks of the layers Codex merges (cli/cmd_codex.c),
 * shared with verify --codex: each finding on stderr as "confpol CMD:
 * ...", their number.  The managed directory /etc/codex (or
 * CONFPOL_CODEX_MANAGED_DIR); the project layers of PROJECT and above. */
int cp_codex_managed(const char *cmd);
int cp_codex_project_layers(const char *cmd, const char *project);
/* The exec-policy rules of a codex artifact's [confpol] table. */
bool cp_codex_rules(const struct cp_buf *art, struct cp_buf *out);

#endif

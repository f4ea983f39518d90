/* SPDX-License-Identifier: MIT */
/* The shell reader: a command line read the way a POSIX shell with bash's
 * extensions will run it, as far as the gate needs (spec/patterns.md,
 * "Reading a command line").  Pure: no I/O, no globals; everything in the
 * arena. */
#ifndef CP_SHELL_READ_H
#define CP_SHELL_READ_H

#include <stdbool.h>
#include <stddef.h>

struct cp_arena;

/* Bounds: substitution and group nesting, readings of one command
 * (wrappers, eval, sh -c inside each other), and the bytes read in all
 * (the line, plus every string read again as a command line). */
#define CP_SH_MAX_NEST 64
#define CP_SH_MAX_UNWRAP 64
#define CP_SH_BUDGET(len) (4 * (len) + 65536)
/* Simple commands in one line, nested ones included (no real command line
 * comes near; a here-document's lines count, being read as commands). */
#define CP_SH_MAX_CMDS 20000

/* One word after quote removal. */
struct cp_sh_word {
    const char *text; /* bytes as they reach the program; an expansion
                         ($x, ${x}, $(...), `...`, <(...)) kept as written */
    const char *glob; /* NULL when static; else the text with each
                         expansion, unquoted glob character and leading ~ as
                         '*': every value the word may take matches it */
    bool split;       /* may become zero or several words (unquoted
                         expansion or pathname glob) */
};

enum cp_sh_rdir {
    CP_SH_IN,      /* <  <&FILE */
    CP_SH_OUT,     /* >  >>  >|  &>  &>>  >&FILE */
    CP_SH_INOUT,   /* <> */
    CP_SH_HERESTR, /* <<< WORD */
    CP_SH_HEREDOC, /* << and <<- (the target is the delimiter) */
    CP_SH_DUP,     /* <&N >&N <&- >&- */
};

struct cp_sh_redir {
    enum cp_sh_rdir op;
    struct cp_sh_word target;
    /* CP_SH_HEREDOC: the body's bytes (to the delimiter line, or to the
     * end of the line when it has none), NULL if none was read */
    const char *body;
    bool body_quoted; /* the delimiter was quoted: no expansion inside */
};

/* One reading of a simple command: its words (the program first) and
 * redirections. */
struct cp_sh_cmd {
    const struct cp_sh_word *w;
    size_t n;
    const struct cp_sh_redir *r;
    size_t nr;
};

struct cp_sh_read {
    /* Every reading of every simple command, nested ones included: each
     * command as written, and again without each wrapper it runs under
     * (assignments, env, sudo, timeout, ...); the commands in the strings
     * of sh -c, eval, env -S, su -c, watch, trap, alias; those of find
     * -exec. */
    const struct cp_sh_cmd *cmds;
    size_t ncmds;
    /* Why some command is known only when it runs (the first reason), or
     * NULL: a program named by an expansion, a shell or interpreter reading
     * its program from standard input or from an expansion, eval or sh -c
     * of an expansion. */
    const char *unknown;
    /* Why the line cannot be read (the decision is then deny), or NULL:
     * an unterminated quote or substitution, nesting beyond the bounds,
     * more work than the budget. */
    const char *error;
};

/* Reads line[0..len).  Always fills *out (with error set on failure, the
 * commands read so far are kept). */
void cp_sh_read(struct cp_arena *a, const char *line, size_t len,
                struct cp_sh_read *out);

#endif

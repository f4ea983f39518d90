/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the shell reader (compiler/shell_read.c) and the
 * matcher over its readings (compiler/match_gate.c).  The input is one
 * command line.
 *
 * Properties checked beyond "no crash, no leak, no timeout": every reading
 * has well-formed words (a text, a glob form only for expansions); reading
 * is deterministic (the same readings, unknown and error twice: once from an
 * exact-size unterminated buffer, once terminated); an
 * unreadable line yields a reason; the matcher answers every pattern of a
 * fixed set the same on two subjects built from the same line; within the
 * bounds of spec/patterns.md (64 levels, 20,000 commands). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "shell_read.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Patterns with every kind of element (the library's shapes). */
static const char *const cp_fuzz_pats[] = {
    "{sudo|doas|su|pkexec|run0} *",
    "rm {-r|-R|--recursive} {-f|--force} *",
    "git push {--force|-f|--force-with-lease} *",
    "git push ** +* **",
    "git -c=alias.* *",
    "curl --data-binary=@* *",
    "curl -d=@* *",
    ">{*.bashrc|*/sudoers}",
    "<>/dev/tcp/*",
    "tee ** *.bashrc **",
    "find -delete *",
    "{python*|perl} ** *socket* **",
    "*",
};
#define CP_FUZZ_NPATS (sizeof cp_fuzz_pats / sizeof cp_fuzz_pats[0])
static struct cp_arena *cp_fuzz_pat_arena;
static struct cp_gate_pat cp_fuzz_gates[CP_FUZZ_NPATS + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cp_fuzz_pat_arena = cp_arena_new();
    for (size_t i = 0; i < CP_FUZZ_NPATS; i++) {
        const char *e = cp_gate_parse(cp_fuzz_pat_arena, cp_fuzz_pats[i],
                                      strlen(cp_fuzz_pats[i]), false,
                                      &cp_fuzz_gates[i]);
        if (e) {
            fprintf(stderr, "fuzz_shell: '%s' rejected: %s\n", cp_fuzz_pats[i],
                    e);
            abort();
        }
    }
    cp_gate_unknown(&cp_fuzz_gates[CP_FUZZ_NPATS]);
    return 0;
}

static void cp_fuzz_check_read(const struct cp_sh_read *rd)
{
    if (rd->ncmds > 64u * 20000u + 64u)
        abort();
    for (size_t i = 0; i < rd->ncmds; i++) {
        const struct cp_sh_cmd *c = &rd->cmds[i];
        for (size_t j = 0; j < c->n; j++) {
            if (!c->w[j].text)
                abort();
            if (c->w[j].glob && !strchr(c->w[j].glob, '*'))
                abort(); /* a glob form always stands for something */
        }
        for (size_t j = 0; j < c->nr; j++)
            if (!c->r[j].target.text || c->r[j].op > CP_SH_DUP)
                abort();
    }
    if (rd->error && !rd->error[0])
        abort();
}

static bool cp_fuzz_same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A command line holds no NUL: it stops at the first.  The reader gets
     * an exact-size copy without a terminator, so that a read past its
     * length is caught; the matcher below reads the terminated copy. */
    const uint8_t *nul = memchr(data, 0, size);
    size_t n = nul ? (size_t)(nul - data) : size;
    char *exact = malloc(n ? n : 1);
    char *line = malloc(n + 1);
    if (!exact || !line) {
        free(exact);
        free(line);
        return 0;
    }
    memcpy(exact, data, n);
    memcpy(line, data, n);
    line[n] = '\0';
    struct cp_arena *a = cp_arena_new();
    struct cp_sh_read r1, r2;
    cp_sh_read(a, exact, n, &r1);
    cp_sh_read(a, line, n, &r2);
    free(exact);
    cp_fuzz_check_read(&r1);
    if (r1.ncmds != r2.ncmds || !cp_fuzz_same_str(r1.unknown, r2.unknown) ||
        !cp_fuzz_same_str(r1.error, r2.error))
        abort();
    for (size_t i = 0; i < r1.ncmds; i++) {
        if (r1.cmds[i].n != r2.cmds[i].n || r1.cmds[i].nr != r2.cmds[i].nr)
            abort();
        for (size_t j = 0; j < r1.cmds[i].n; j++)
            if (strcmp(r1.cmds[i].w[j].text, r2.cmds[i].w[j].text) != 0)
                abort();
    }
    struct cp_gate_subject *s1 = cp_gate_subject_new(a, line);
    struct cp_gate_subject *s2 = cp_gate_subject_new(a, line);
    for (size_t i = 0; i <= CP_FUZZ_NPATS; i++)
        if (cp_gate_subject_matches(&cp_fuzz_gates[i], s1, a) !=
            cp_gate_subject_matches(&cp_fuzz_gates[i], s2, a))
            abort();
    /* "*" matches every line */
    if (!cp_gate_subject_matches(&cp_fuzz_gates[CP_FUZZ_NPATS - 1], s1, a))
        abort();
    cp_arena_free(a);
    free(line);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* confpol-gate: the PreToolUse hook program `confpol install` and the
 * claude back end wire into Claude Code's settings.  It decides one tool
 * call with an artifact's gate table, exactly as `confpol gate ARTIFACT`
 * does (the same hook/gate_call.c), but links no compiler, and is linked
 * static against musl where it can be: it starts on every tool call, and
 * glibc's start-up alone took longer than the decision (spec/gate.md,
 * "Latency"). */
#include <stdio.h>

#include "gate.h"

static void cp_gate_prog_usage(FILE *out)
{
    fputs("usage: confpol-gate [--sha256 HEX] ARTIFACT.claude.json\n"
          "       confpol-gate --verify-log FILE\n"
          "\n"
          "Answers one Claude Code PreToolUse hook call with the gate table\n"
          "of a .claude.json artifact, as 'confpol gate ARTIFACT' does (see\n"
          "'confpol gate --help' for the answers, the pin, the decision log\n"
          "and its variables).  A policy source needs 'confpol gate'.\n",
          out);
}

int main(int argc, char **argv)
{
    struct cp_gate_args ga = {.prog = "confpol-gate"};
    cp_gate_parse_args(&ga, argc, argv, NULL, NULL);
    if (ga.help) {
        cp_gate_prog_usage(stdout);
        return 0;
    }
    return cp_gate_main(&ga, NULL, NULL);
}

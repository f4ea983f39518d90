/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the regex engine (compiler/rx.c) through the gate's
 * pattern parser.  The input is a pattern, a NUL byte, then the subject
 * (up to its first NUL); without a NUL the input is both.
 *
 * Properties checked beyond "no crash, no leak, no timeout" (a timeout is
 * the quadratic behaviour the engine exists to avoid): the answer is the
 * same twice (the DFA cache changes nothing); on a pattern without
 * anchors, the answer is regexec's (glibc, the C locale). */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t plen = nul ? (size_t)(nul - data) : size;
    const uint8_t *subj = nul ? nul + 1 : data;
    size_t rest = nul ? size - plen - 1 : size;
    const uint8_t *nul2 = memchr(subj, 0, rest);
    size_t slen = nul2 ? (size_t)(nul2 - subj) : rest;
    char *line = malloc(slen + 1);
    if (!line)
        return 0;
    memcpy(line, subj, slen);
    line[slen] = '\0';
    struct cp_arena *a = cp_arena_new();
    struct cp_gate_pat g;
    const char *why = cp_gate_parse(a, (const char *)data, plen, true, &g);
    if (!why) {
        bool m1 = cp_rx_search(g.regex, line, slen);
        bool m2 = cp_rx_search(g.regex, line, slen);
        if (m1 != m2)
            abort();
        regex_t re;
        if (!memchr(data, '^', plen) && !memchr(data, '$', plen) &&
            regcomp(&re, g.text, REG_EXTENDED | REG_NOSUB) == 0) {
            if ((regexec(&re, line, 0, NULL, 0) == 0) != m1)
                abort();
            regfree(&re);
        }
        cp_gate_free(&g);
    }
    cp_arena_free(a);
    free(line);
    return 0;
}

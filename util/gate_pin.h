/* SPDX-License-Identifier: MIT */
/* What the Claude artifact's writer (backends/claude.c) and its readers (the
 * gate hook, the settings wiring) agree on: the tools the hook's matcher
 * names and the artifact's integrity pin.  In the lowest layer so that the
 * back end and the hook share one copy without including each other. */
#ifndef CP_GATE_PIN_H
#define CP_GATE_PIN_H

#include <stddef.h>

#include "sha256.h"

/* The tools the hook answers, as the Claude backend's matcher lists them
 * (spec/gate.md, "Which tools"). */
#define CP_GATE_HOOK_MATCHER                                                   \
    "Bash|Monitor|PowerShell|Write|Edit|MultiEdit|NotebookEdit"

/* The integrity pin of an artifact: the lower-case hex SHA-256 of its bytes
 * with the 64 hex digits after each "gate --sha256 " replaced by '0' (the
 * artifact holds its own hook command, "confpol-gate --sha256 PIN ...",
 * which holds the pin; "confpol gate --sha256 PIN" ends alike). */
void cp_gate_pin_digest(const char *data, size_t len, char out[CP_SHA256_HEX]);

#endif

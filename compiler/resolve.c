/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: AST -> resolved policy. */
#include "confpol.h"

int cp_resolve(struct cp_ctx *cx)
{
    (void)cx;
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: overlap and containment analysis. */
#include "confpol.h"

int cp_check(struct cp_ctx *cx)
{
    (void)cx;
    return 0;
}

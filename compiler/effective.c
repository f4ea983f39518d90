/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: --print-effective. */
#include "confpol.h"

void cp_print_effective(const struct cp_policy *p, struct cp_buf *out)
{
    (void)p;
    cp_buf_adds(out, "# not implemented\n");
}

/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER until implemented: main of confpol-run. */
#include <stdio.h>

int main(void)
{
    fputs("confpol-run: not implemented yet\n", stderr);
    return 125;
}

/* SPDX-License-Identifier: MIT */
/* The project's version, printed by `confpol --version` and
 * `confpol-run --version` (one number for both programs). */
#ifndef CP_VERSION_H
#define CP_VERSION_H

#define CP_VERSION "0.1.0"

#endif

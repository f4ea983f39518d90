/* SPDX-License-Identifier: MIT */
/* The project's version, printed by `confpol --version` and
 * `confpol-run --version` (one number for both programs), and its one
 * definition: the Makefile reads it for the installed manual pages, and
 * tests/sh/version.sh checks that the manual pages and CHANGELOG.md agree.
 * MAJOR.MINOR.PATCH as semver; before 1.0.0 a minor step may change the
 * language, the artifacts or the command line (CHANGELOG.md). */
#ifndef CP_VERSION_H
#define CP_VERSION_H

#define CP_VERSION "0.2.0"

#endif

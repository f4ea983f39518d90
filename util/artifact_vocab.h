/* SPDX-License-Identifier: MIT */
/* The artifacts' vocabulary, defined once for the room that writes them
 * (backends/) and the one that reads them (runtime/): the `.bwrap` record
 * tags with their arity, and the header comment lines of an SBPL profile
 * that the runtime reads (spec/artifacts.md, spec/backends.md). */
#ifndef CP_ARTIFACT_VOCAB_H
#define CP_ARTIFACT_VOCAB_H

#include <stdbool.h>

/* ---- .bwrap records ------------------------------------------------------ */

#define CP_BW_TAG_HEADER "confpol-bwrap" /* confpol-bwrap VERSION */
#define CP_BW_TAG_PROFILE "profile"      /* profile NAME */
#define CP_BW_TAG_FAIL "fail"            /* fail closed|open */
#define CP_BW_TAG_PARAM "param"          /* param NAME */
#define CP_BW_TAG_ARG "arg"              /* arg WORD */
#define CP_BW_TAG_BIND "bind"            /* bind ROOT REST */
#define CP_BW_TAG_RO "ro"                /* ro ROOT REST */
#define CP_BW_TAG_PIN "pin"              /* pin ROOT REST */
#define CP_BW_TAG_PINRO "pinro"          /* pinro ROOT REST */
#define CP_BW_TAG_MASK "mask"            /* mask ROOT REST */
#define CP_BW_TAG_MASKGLOB "maskglob"    /* maskglob ROOT PATTERN */
#define CP_BW_TAG_ROGLOB "roglob"        /* roglob ROOT PATTERN */
#define CP_BW_TAG_EXEC "exec"            /* exec ROOT REST */
#define CP_BW_TAG_END "end"              /* end COUNT SHA256 */
#define CP_BW_TAG_NET "net"              /* net PATTERN WHERE */
#define CP_BW_TAG_SOCKET "socket"        /* socket ROOT REST WHERE */

/* ORDER: cp_bw_tags[] in artifact_vocab.c. */
enum cp_bw_tag {
    CP_BW_HEADER,
    CP_BW_PROFILE,
    CP_BW_FAIL,
    CP_BW_PARAM,
    CP_BW_ARG,
    CP_BW_BIND,
    CP_BW_RO,
    CP_BW_PIN,
    CP_BW_PINRO,
    CP_BW_MASK,
    CP_BW_MASKGLOB,
    CP_BW_ROGLOB,
    CP_BW_EXEC,
    CP_BW_END,
    CP_BW_NET,
    CP_BW_SOCKET,
    CP_BW_NTAGS
};

struct cp_bw_tag_info {
    const char *name;
    int arity;  /* fields after the tag */
    bool mount; /* a record that becomes a mount (bind, ro, pin, pinro, mask) */
};
extern const struct cp_bw_tag_info cp_bw_tags[CP_BW_NTAGS];

/* The tag named `name`, or -1. */
int cp_bw_tag_find(const char *name);

/* ---- SBPL header comments the runtime reads ------------------------------ */

#define CP_SB_PARAM_LINE ";; confpol-param "         /* NAME */
#define CP_SB_ANCESTORS_LINE ";; confpol-ancestors " /* NAME */
#define CP_SB_NET_LINE ";; confpol-net "             /* PATTERN WHERE */

#endif

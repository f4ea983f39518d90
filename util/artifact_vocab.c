/* SPDX-License-Identifier: MIT */
/* The .bwrap record tags (artifact_vocab.h): the one table of names,
 * arities and mount records, for the bwrap back end and the runtime. */
#include "artifact_vocab.h"

#include <string.h>

/* ORDER: enum cp_bw_tag. */
const struct cp_bw_tag_info cp_bw_tags[CP_BW_NTAGS] = {
    [CP_BW_HEADER] = {CP_BW_TAG_HEADER, 1, false},
    [CP_BW_PROFILE] = {CP_BW_TAG_PROFILE, 1, false},
    [CP_BW_FAIL] = {CP_BW_TAG_FAIL, 1, false},
    [CP_BW_PARAM] = {CP_BW_TAG_PARAM, 1, false},
    [CP_BW_ARG] = {CP_BW_TAG_ARG, 1, false},
    [CP_BW_BIND] = {CP_BW_TAG_BIND, 2, true},
    [CP_BW_RO] = {CP_BW_TAG_RO, 2, true},
    [CP_BW_PIN] = {CP_BW_TAG_PIN, 2, true},
    [CP_BW_PINRO] = {CP_BW_TAG_PINRO, 2, true},
    [CP_BW_MASK] = {CP_BW_TAG_MASK, 2, true},
    [CP_BW_MASKGLOB] = {CP_BW_TAG_MASKGLOB, 2, false},
    [CP_BW_ROGLOB] = {CP_BW_TAG_ROGLOB, 2, false},
    [CP_BW_EXEC] = {CP_BW_TAG_EXEC, 2, false},
    [CP_BW_END] = {CP_BW_TAG_END, 2, false},
    [CP_BW_NET] = {CP_BW_TAG_NET, 2, false},
    [CP_BW_SOCKET] = {CP_BW_TAG_SOCKET, 3, false},
};

int cp_bw_tag_find(const char *name)
{
    for (int k = 0; k < CP_BW_NTAGS; k++)
        if (!strcmp(cp_bw_tags[k].name, name))
            return k;
    return -1;
}

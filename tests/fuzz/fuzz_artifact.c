/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the runtime's reader of .bwrap artifacts
 * (runtime/runtime.h), the trusted path of confpol-run.  Each input is
 * read twice: as it is (corrupted and truncated artifacts must be rejected
 * with a message, never half-read), and with a valid `end` trailer
 * appended (record count and SHA-256 computed here), so that the fuzzer
 * reaches the record checks, param binding and launch planning behind the
 * digest.  Planning never touches the host: placeholders are refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "runtime.h"
#include "sha256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cp_fuzz_no_placeholder(void *ctx, const char *path)
{
    (void)ctx;
    (void)path;
    return 30; /* EROFS: planning must cope with a read-only host */
}

/* Number of fields after each tag (spec/artifacts.md). */
static int cp_fuzz_arity(const char *tag)
{
    static const char *const one[] = {"confpol-bwrap", "profile", "fail",
                                      "param", "arg"};
    static const char *const two[] = {"bind",     "ro",     "pin",  "mask",
                                      "maskglob", "roglob", "exec", "end"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (!strcmp(tag, one[i]))
            return 1;
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (!strcmp(tag, two[i]))
            return 2;
    return 0;
}

static void cp_fuzz_use(const struct cp_rt_artifact *a)
{
    struct cp_rt_err e = {0};
    struct cp_rt_params p = {0};
    /* HOME and PROJECT bound to a directory that exists; other params
     * from a define when the artifact declares them. */
    struct cp_rt_define defs[1];
    size_t ndefs = 0;
    for (size_t i = 0; i < a->nparams && ndefs < 1; i++)
        if (strcmp(a->params[i], "HOME") && strcmp(a->params[i], "PROJECT") &&
            strlen(a->params[i]) < sizeof defs[0].name) {
            strcpy(defs[ndefs].name, a->params[i]);
            defs[ndefs++].value = "/var/tmp";
        }
    if (cp_rt_params_bind(&p, a->needed, a->nneeded, a->params, a->nparams,
                          defs, ndefs, "/tmp", "/tmp", &e) == 0) {
        struct cp_rt_host h = {.make_placeholder = cp_fuzz_no_placeholder};
        struct cp_rt_plan pl;
        for (int unenforced = 0; unenforced < 2; unenforced++) {
            if (cp_rt_plan_build(&pl, a, &p, &h, unenforced != 0, &e) == 0) {
                char *cmd[] = {"/bin/true", "--", NULL};
                struct cp_rt_strv bw = {0}, sw = {0};
                cp_rt_args_stream(&pl, cmd, 2, &bw, &sw, &e);
                cp_rt_strv_free(&bw);
                cp_rt_strv_free(&sw);
            }
            cp_rt_plan_free(&pl);
        }
    }
    cp_rt_params_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    if (cp_rt_artifact_parse(&a, data, size, &e) == 0) {
        cp_fuzz_use(&a);
        cp_rt_artifact_free(&a);
    } else if (e.status != CP_RT_EXIT_ERROR || !e.msg[0] || a.buf || a.recs) {
        fprintf(stderr,
                "fuzz_artifact: rejected without a message or left state\n");
        abort();
    }

    /* With a valid trailer: body fields NUL-terminated, count computed. */
    if (size == 0)
        return 0;
    size_t len = size + (data[size - 1] != 0);
    char *body = malloc(len + 128);
    if (!body)
        abort();
    memcpy(body, data, size);
    body[len - 1] = '\0';
    size_t nrecs = 0, pos = 0;
    while (pos < len) {
        int ar = cp_fuzz_arity(body + pos);
        pos += strlen(body + pos) + 1;
        for (int i = 0; i < ar && pos < len; i++)
            pos += strlen(body + pos) + 1;
        nrecs++;
    }
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, len, hex);
    size_t n = len;
    n += (size_t)sprintf(body + n, "end%c%zu%c%s", 0, nrecs, 0, hex);
    body[n++] = '\0';
    if (cp_rt_artifact_parse(&a, body, n, &e) == 0) {
        cp_fuzz_use(&a);
        cp_rt_artifact_free(&a);
    }
    free(body);
    return 0;
}

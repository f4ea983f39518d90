/* SPDX-License-Identifier: MIT */
/* The Landlock enforcer's plan (runtime/ll_enforce.c) against a real
 * temporary tree: grants around carve-outs and deny-read targets, missing
 * targets, symlinked targets, hard links, unknown options, the ABI's
 * effect on what is filtered, and the enforcer names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"
#include "sha256.h"

Suite *cp_test_llplan_suite(void);

static char root[256];

static void mk(const char *rel, bool dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    if (dir)
        ck_assert_int_eq(mkdir(p, 0755), 0);
    else {
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs("x\n", f);
        fclose(f);
    }
}

static void setup(void)
{
    char *r = realpath("/var/tmp", NULL);
    snprintf(root, sizeof root, "%s/cp-llplan.XXXXXX", r ? r : "/tmp");
    free(r);
    ck_assert_ptr_nonnull(mkdtemp(root));
    mk("p", true);
    mk("p/.git", true);
    mk("p/.git/HEAD", false);
    mk("p/src", true);
    mk("p/README", false);
    mk("h", true);
    mk("h/.ssh", true);
    mk("h/pub", false);
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

/* An artifact from records ('\n' between records, '|' between fields). */
static int parse(const char *spec, struct cp_rt_artifact *a,
                 struct cp_rt_err *e)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fwrite("confpol-bwrap\0"
           "1\0",
           1, 16, f);
    size_t nrec = 1;
    for (const char *s = spec; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        for (size_t i = 0; i < len; i++)
            fputc(s[i] == '|' ? '\0' : s[i], f);
        fputc('\0', f);
        nrec++;
        s += len + (nl ? 1 : 0);
    }
    fflush(f);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(buf, n, hex);
    fprintf(f, "end%c%zu%c%s", 0, nrec, 0, hex);
    fputc('\0', f);
    fclose(f);
    int rc = cp_rt_artifact_parse(a, buf, n, e);
    free(buf);
    return rc;
}

static const char
    base[] = "param|PROJECT\nparam|HOME\narg|--ro-bind\narg|/\narg|/\n"
             "bind|PROJECT|\nro|PROJECT|/.git\nro|PROJECT|/.claude/x\n"
             "mask|HOME|/.ssh\narg|--unshare-net";

static int plan(const char *spec, struct cp_ll_plan *pl, int abi, unsigned feat,
                bool unenforced_ok, struct cp_rt_err *e)
{
    struct cp_rt_artifact a;
    ck_assert_int_eq(parse(spec, &a, e), 0);
    char p[300], h[300];
    snprintf(p, sizeof p, "%s/p", root);
    snprintf(h, sizeof h, "%s/h", root);
    struct cp_rt_binding b[2] = {{"PROJECT", p}, {"HOME", h}};
    struct cp_rt_params ps = {.v = b, .n = 2};
    struct cp_ll_features f = {.kernel_abi = abi, .abi = abi, .feat = feat};
    int rc = cp_ll_plan_build(pl, &a, &ps, &f, NULL, unenforced_ok, e);
    cp_rt_artifact_free(&a);
    return rc;
}

/* The union of the access granted on exactly `rel` (under root). */
static long long granted(const struct cp_ll_plan *pl, const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    long long acc = 0;
    for (size_t i = 0; i < pl->ng; i++)
        if (!strcmp(pl->g[i].path, p))
            acc |= (long long)pl->g[i].access;
    return acc;
}

static bool has_note(const struct cp_ll_plan *pl, const char *needle)
{
    for (size_t i = 0; i < pl->notes.n; i++)
        if (strstr(pl->notes.v[i], needle))
            return true;
    return false;
}

#define ALL_FEAT                                                               \
    (CP_LL_F_REFER | CP_LL_F_TRUNCATE | CP_LL_F_NET | CP_LL_F_IOCTL |          \
     CP_LL_F_SCOPE)
#define MAKE_REG (1ULL << 8)
#define READ_FILE (1ULL << 2)

START_TEST(carve_outs)
{
    struct cp_ll_plan pl;
    struct cp_rt_err e = {0};
    /* A deny-read target's metadata is not hidden: refused unless allowed
     * (spec/runtime.md 12.2), then said by a warning. */
    ck_assert_int_eq(plan(base, &pl, 7, ALL_FEAT, false, &e),
                     CP_RT_EXIT_CANNOT);
    ck_assert(strstr(e.msg, "/h/.ssh': Landlock withholds reading and "
                            "listing only; its metadata is not hidden"));
    ck_assert_int_eq(plan(base, &pl, 7, ALL_FEAT, true, &e), 0);
    ck_assert_uint_eq(pl.warnings.n, 1);
    ck_assert(strstr(pl.warnings.v[0], "not enforced: deny read"));
    /* The write root is split: itself nothing, its entries one by one. */
    ck_assert(!(granted(&pl, "p") & (long long)MAKE_REG));
    ck_assert(granted(&pl, "p/src") & (long long)MAKE_REG);
    ck_assert(granted(&pl, "p/README") > 0);
    ck_assert(!(granted(&pl, "p/README") &
                (long long)MAKE_REG)); /* a file: file rights only */
    ck_assert(!(granted(&pl, "p/.git") & (long long)MAKE_REG));
    /* The deny-read target gets nothing; its sibling is readable, their
     * parent cannot be listed. */
    ck_assert_int_eq(granted(&pl, "h/.ssh"), 0);
    ck_assert(granted(&pl, "h/pub") & (long long)READ_FILE);
    ck_assert_int_eq(granted(&pl, "h"), 0);
    /* The missing target's parent is split, nothing is created. */
    ck_assert(has_note(&pl, "missing deny target"));
    ck_assert(has_note(&pl, "/p/.claude' cannot be created"));
    struct stat st;
    char c[400];
    snprintf(c, sizeof c, "%s/p/.claude", root);
    ck_assert_int_ne(lstat(c, &st), 0);
    ck_assert(pl.net_deny);
    ck_assert(pl.scope && pl.unix_deny && !pl.no_truncate);
    cp_ll_plan_free(&pl);
}
END_TEST

START_TEST(abi_levels)
{
    struct cp_ll_plan pl;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(plan(base, &pl, 1, 0, true, &e), 0);
    ck_assert(pl.no_truncate && pl.unix_deny && !pl.scope);
    ck_assert(!(pl.handled_fs & (1ULL << 13))); /* no REFER */
    ck_assert(has_note(&pl, "no REFER right"));
    ck_assert(has_note(&pl, "cannot deny truncation"));
    cp_ll_plan_free(&pl);
    ck_assert_int_eq(plan(base, &pl, 4,
                          CP_LL_F_REFER | CP_LL_F_TRUNCATE | CP_LL_F_NET, true,
                          &e),
                     0);
    ck_assert(!pl.no_truncate && pl.unix_deny && !pl.scope);
    cp_ll_plan_free(&pl);
    ck_assert_int_eq(plan(base, &pl, 6, ALL_FEAT, true, &e), 0);
    ck_assert(!pl.no_truncate && pl.unix_deny && pl.scope);
    cp_ll_plan_free(&pl);
}
END_TEST

START_TEST(symlinks_and_links)
{
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/h/pub", root);
    snprintf(b, sizeof b, "%s/p/src/alias", root);
    ck_assert_int_eq(link(a, b), 0);
    struct cp_ll_plan pl;
    struct cp_rt_err e = {0};
    /* A deny target with two names cannot be enforced... */
    ck_assert_int_eq(plan("param|PROJECT\nparam|HOME\narg|--ro-bind\narg|/"
                          "\narg|/\nbind|PROJECT|\n"
                          "mask|HOME|/pub",
                          &pl, 7, ALL_FEAT, false, &e),
                     CP_RT_EXIT_CANNOT);
    ck_assert(strstr(e.msg, "hard links"));
    /* ... except with --allow-unenforced, with a warning. */
    ck_assert_int_eq(plan("param|PROJECT\nparam|HOME\narg|--ro-bind\narg|/"
                          "\narg|/\nbind|PROJECT|\n"
                          "mask|HOME|/pub",
                          &pl, 7, ALL_FEAT, true, &e),
                     0);
    ck_assert_uint_eq(pl.warnings.n, 2); /* the links, the metadata */
    ck_assert(strstr(pl.warnings.v[0], "hard links"));
    ck_assert(strstr(pl.warnings.v[1], "metadata is not hidden"));
    cp_ll_plan_free(&pl);
    unlink(b);
    /* A deny-write target through a symlink in the write root: the link
     * itself and its target are both protected. */
    snprintf(a, sizeof a, "%s/h", root);
    snprintf(b, sizeof b, "%s/p/cfg", root);
    ck_assert_int_eq(symlink(a, b), 0);
    ck_assert_int_eq(
        plan("param|PROJECT\narg|--ro-bind\narg|/\narg|/\nbind|PROJECT|\n"
             "ro|PROJECT|/cfg",
             &pl, 7, ALL_FEAT, false, &e),
        0);
    ck_assert_int_eq(granted(&pl, "p"),
                     0); /* split: the link cannot be replaced */
    ck_assert_int_eq(granted(&pl, "p/cfg"), 0); /* the link: no grant */
    ck_assert(granted(&pl, "p/src") & (long long)MAKE_REG);
    cp_ll_plan_free(&pl);
}
END_TEST

START_TEST(refused)
{
    struct cp_ll_plan pl;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(plan("arg|--ro-bind\narg|/\narg|/\narg|--tmpfs\narg|/x",
                          &pl, 7, ALL_FEAT, false, &e),
                     CP_RT_EXIT_CANNOT);
    ck_assert(strstr(e.msg, "'--tmpfs' has no Landlock lowering"));
    enum cp_rt_enforcer en;
    ck_assert_int_eq(cp_rt_enforcer_parse("landlock", &en), 0);
    ck_assert_int_eq(en, CP_RT_ENF_LANDLOCK);
    ck_assert_int_eq(cp_rt_enforcer_parse("auto", &en), 0);
    ck_assert_int_eq(en, CP_RT_ENF_AUTO);
    ck_assert_int_ne(cp_rt_enforcer_parse("Landlock", &en), 0);
    ck_assert(
        cp_rt_bwrap_ns_failure("bwrap: setting up uid map: Permission denied"));
    ck_assert(!cp_rt_bwrap_ns_failure("bwrap: Can't find source path /x"));
}
END_TEST

Suite *cp_test_llplan_suite(void)
{
    Suite *s = suite_create("llplan");
    TCase *t = tcase_create("plan");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, carve_outs);
    tcase_add_test(t, abi_levels);
    tcase_add_test(t, symlinks_and_links);
    tcase_add_test(t, refused);
    suite_add_tcase(s, t);
    return s;
}

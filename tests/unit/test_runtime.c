/* SPDX-License-Identifier: MIT */
/* Runtime: artifact validation (truncation and corruption at every byte),
 * params, the bwrap words derived from records against a real temporary
 * tree, the stage stream, sandbox-exec argv, bwrap error hints. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "netproxy.h"
#include "runtime.h"
#include "sha256.h"

Suite *cp_test_runtime_suite(void);

/* ---- helpers ---------------------------------------------------------------- */

struct bytes {
    char *p;
    size_t n;
};

/* Builds an artifact from records separated by '\n', fields by '|', with
 * the header prepended and a correct trailer appended. */
static struct bytes art(const char *spec)
{
    struct bytes b = {0};
    FILE *f = open_memstream(&b.p, &b.n);
    fwrite("confpol-bwrap\0"
           "1\0",
           1, 16, f);
    size_t nrec = 1;
    const char *s = spec;
    while (*s) {
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
    cp_sha256_hex(b.p, b.n, hex);
    fprintf(f, "end%c%zu%c%s", 0, nrec, 0, hex);
    fputc('\0', f);
    fclose(f);
    return b;
}

static int parse(const char *spec, struct cp_rt_artifact *a,
                 struct cp_rt_err *e)
{
    struct bytes b = art(spec);
    int rc = cp_rt_artifact_parse(a, b.p, b.n, e);
    free(b.p);
    return rc;
}

static const char *parse_err(const char *spec)
{
    static struct cp_rt_err e;
    struct cp_rt_artifact a;
    memset(&e, 0, sizeof e);
    if (parse(spec, &a, &e) == 0) {
        cp_rt_artifact_free(&a);
        return "(accepted)";
    }
    ck_assert_int_eq(e.status, CP_RT_EXIT_ERROR);
    return e.msg;
}

/* ---- artifact --------------------------------------------------------------- */

static const char small[] =
    "profile|confined\nfail|open\nparam|PROJECT\narg|--ro-bind\narg|/\n"
    "arg|/\nbind|PROJECT|\nro|PROJECT|/.git\nexec||/usr/bin";

START_TEST(artifact_valid)
{
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(parse(small, &a, &e), 0);
    ck_assert_uint_eq(a.nrecs, 11);
    ck_assert_str_eq(a.profile, "confined");
    ck_assert(a.fail_open);
    ck_assert(a.has_exec);
    ck_assert_uint_eq(a.nparams, 1);
    ck_assert_str_eq(a.params[0], "PROJECT");
    ck_assert_int_eq(a.recs[8].tag, CP_RT_T_RO);
    ck_assert_str_eq(a.recs[8].f1, "PROJECT");
    ck_assert_str_eq(a.recs[8].f2, "/.git");
    ck_assert_int_eq(a.recs[9].tag, CP_RT_T_EXEC);
    ck_assert_str_eq(a.recs[9].f1, "");
    cp_rt_artifact_free(&a);
}
END_TEST

START_TEST(artifact_truncated_every_byte)
{
    struct bytes b = art(small);
    for (size_t k = 0; k < b.n; k++) {
        struct cp_rt_artifact a;
        struct cp_rt_err e = {0};
        int rc = cp_rt_artifact_parse(&a, b.p, k, &e);
        ck_assert_msg(rc == CP_RT_EXIT_ERROR, "prefix of %zu bytes accepted",
                      k);
        ck_assert_ptr_null(a.recs);
        ck_assert(strstr(e.msg, "invalid artifact: "));
    }
    free(b.p);
}
END_TEST

START_TEST(artifact_corrupted_every_byte)
{
    struct bytes b = art(small);
    for (size_t k = 0; k < b.n; k++) {
        for (int bit = 0; bit < 8; bit += 7) {
            b.p[k] ^= (char)(1 << bit);
            struct cp_rt_artifact a;
            struct cp_rt_err e = {0};
            int rc = cp_rt_artifact_parse(&a, b.p, b.n, &e);
            b.p[k] ^= (char)(1 << bit);
            ck_assert_msg(rc == CP_RT_EXIT_ERROR,
                          "flip of bit %d at byte %zu accepted", bit, k);
        }
    }
    /* Appended bytes, and a corrupted body with a matching-looking length. */
    struct bytes c = {cp_xmalloc(b.n + 1), b.n + 1};
    memcpy(c.p, b.p, b.n);
    c.p[b.n] = '\0';
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_artifact_parse(&a, c.p, c.n, &e), CP_RT_EXIT_ERROR);
    ck_assert(strstr(e.msg, "after the 'end' trailer"));
    free(c.p);
    free(b.p);
}
END_TEST

START_TEST(artifact_messages)
{
    ck_assert_str_eq(
        parse_err("bogus|x"),
        "invalid artifact: record 2 (offset 16): unknown tag 'bogus'");
    ck_assert_str_eq(parse_err("profile|cooperative"),
                     "invalid artifact: record 2 (offset 16): unknown profile "
                     "'cooperative'");
    ck_assert_str_eq(parse_err("fail|maybe"),
                     "invalid artifact: record 2 (offset 16): 'fail' "
                     "must be 'closed' or 'open', not 'maybe'");
    ck_assert_str_eq(parse_err("ro|NOPE|/x"),
                     "invalid artifact: record 2 'ro' (offset 16): param "
                     "'NOPE' is not declared");
    ck_assert_str_eq(parse_err("ro||x"),
                     "invalid artifact: record 2 'ro' (offset 16): path 'x' "
                     "does not start with '/'");
    ck_assert_str_eq(parse_err("ro||/a//b"),
                     "invalid artifact: record 2 'ro' (offset 16): path "
                     "'/a//b' has an empty segment");
    ck_assert_str_eq(parse_err("ro||/a/"),
                     "invalid artifact: record 2 'ro' (offset 16): path '/a/' "
                     "ends with '/'");
    ck_assert_str_eq(parse_err("ro||/a/../b"),
                     "invalid artifact: record 2 'ro' (offset 16): "
                     "path '/a/../b' has a '.' or '..' segment");
    ck_assert_str_eq(
        parse_err("param|A\nparam|A"),
        "invalid artifact: record 3 (offset 24): param 'A' declared twice");
    ck_assert_str_eq(
        parse_err("param|1A"),
        "invalid artifact: record 2 (offset 16): bad param name '1A'");
    ck_assert_str_eq(
        parse_err("profile|confined\nprofile|exclusive"),
        "invalid artifact: record 3 (offset 33): second 'profile'");
    ck_assert_str_eq(parse_err("confpol-bwrap|1"),
                     "invalid artifact: record 2 (offset 16): second "
                     "'confpol-bwrap' header");
    ck_assert_str_eq(parse_err("ro|HOME|/.ssh"),
                     "(accepted)"); /* HOME implicit */

    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    static const char v2[] = "confpol-bwrap\0"
                             "2\0";
    ck_assert_int_eq(cp_rt_artifact_parse(&a, v2, sizeof v2 - 1, &e),
                     CP_RT_EXIT_ERROR);
    ck_assert_str_eq(e.msg, "invalid artifact: unsupported version '2' (this "
                            "runtime reads version 1)");
    static const char notours[] = "hello\0";
    cp_rt_artifact_parse(&a, notours, sizeof notours - 1, &e);
    ck_assert_str_eq(e.msg, "invalid artifact: not a confpol bwrap artifact "
                            "(no 'confpol-bwrap' header)");
    cp_rt_artifact_parse(&a, "", 0, &e);
    ck_assert_str_eq(e.msg, "invalid artifact: empty file");

    /* A wrong count with a correct digest. */
    struct bytes b = art("arg|--unshare-net");
    char *cnt = memmem(b.p, b.n,
                       "end\0"
                       "2\0",
                       6);
    ck_assert_ptr_nonnull(cnt);
    cnt[4] = '3';
    cp_rt_artifact_parse(&a, b.p, b.n, &e);
    ck_assert_str_eq(
        e.msg, "invalid artifact: trailer says 3 records, the file has 2");
    free(b.p);
}
END_TEST

START_TEST(artifact_load_file)
{
    char path[] = "/tmp/cp-rt-art-XXXXXX";
    int fd = mkstemp(path);
    struct bytes b = art(small);
    ck_assert_int_eq(write(fd, b.p, b.n), (ssize_t)b.n);
    close(fd);
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_artifact_load(&a, path, &e), 0);
    cp_rt_artifact_free(&a);
    truncate(path, (off_t)b.n - 3);
    ck_assert_int_eq(cp_rt_artifact_load(&a, path, &e), CP_RT_EXIT_ERROR);
    ck_assert(strstr(e.msg, "': invalid artifact: truncated"));
    unlink(path);
    ck_assert_int_eq(cp_rt_artifact_load(&a, path, &e), CP_RT_EXIT_ERROR);
    ck_assert(strstr(e.msg, "No such file or directory"));
    free(b.p);
}
END_TEST

/* ---- params -------------------------------------------------------------------- */

static char tdir[64];

static void mk(const char *rel, const char *content)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tdir, rel);
    if (content) {
        FILE *f = fopen(p, "w");
        ck_assert_ptr_nonnull(f);
        fputs(content, f);
        fclose(f);
    } else {
        ck_assert_int_eq(mkdir(p, 0755), 0);
    }
}

static const char *tp(const char *rel)
{
    static char bufs[8][512];
    static int k;
    char *p = bufs[k++ % 8];
    snprintf(p, 512, "%s%s", tdir, rel);
    return p;
}

static void tree_setup(void)
{
    char t[] = "/tmp/cp-rt-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(t));
    char *r = realpath(t, NULL);
    snprintf(tdir, sizeof tdir, "%s", r);
    free(r);
    mk("proj", NULL);
    mk("proj/.git", NULL);
    mk("proj/sub", NULL);
    mk("proj/sub/keep", NULL);
    mk("proj/.env", "X=1\n");
    mk("home", NULL);
    mk("home/.ssh", NULL);
    mk("home/.ssh/id", "key\n");
    mk("ro", NULL);
    mk("file", "x");
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/proj", tdir);
    snprintf(b, sizeof b, "%s/plink", tdir);
    ck_assert_int_eq(symlink(a, b), 0);
}

static void tree_teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *check_val(const char *v)
{
    static struct cp_rt_err e;
    memset(&e, 0, sizeof e);
    return cp_rt_param_check("PROJECT", v, &e) ? e.msg : "ok";
}

START_TEST(params_values)
{
    ck_assert_str_eq(check_val(tp("/proj")), "ok");
    ck_assert_str_eq(check_val("/"), "ok");
    ck_assert_str_eq(check_val("proj"),
                     "param PROJECT: 'proj' is not an absolute path");
    char want[1024];
    snprintf(want, sizeof want,
             "param PROJECT: '%s/proj/' is not canonical (it resolves to "
             "'%s/proj'); pass the resolved path",
             tdir, tdir);
    ck_assert_str_eq(check_val(tp("/proj/")), want);
    snprintf(want, sizeof want,
             "param PROJECT: '%s/proj/../proj' is not canonical (it "
             "resolves to '%s/proj'); pass the resolved path",
             tdir, tdir);
    ck_assert_str_eq(check_val(tp("/proj/../proj")), want);
    snprintf(want, sizeof want,
             "param PROJECT: '%s/plink' is not canonical (it resolves to "
             "'%s/proj'); pass the resolved path",
             tdir, tdir);
    ck_assert_str_eq(check_val(tp("/plink")), want);
    ck_assert_str_eq(check_val(tp("/proj\n/etc")),
                     "param PROJECT: value contains a control byte (0x0a); "
                     "values must be plain "
                     "absolute paths");
    snprintf(want, sizeof want,
             "param PROJECT: '%s/nope': No such file or directory", tdir);
    ck_assert_str_eq(check_val(tp("/nope")), want);
    snprintf(want, sizeof want, "param PROJECT: '%s/file' is not a directory",
             tdir);
    ck_assert_str_eq(check_val(tp("/file")), want);
}
END_TEST

START_TEST(params_binding)
{
    struct cp_rt_err e = {0};
    struct cp_rt_params p;
    struct cp_rt_define d[3];
    char buf[600];
    snprintf(buf, sizeof buf, "CACHE=%s/ro", tdir);
    ck_assert_int_eq(cp_rt_define_split(buf, &d[0], &e), 0);
    ck_assert_str_eq(d[0].name, "CACHE");
    const char *needed[] = {"HOME", "PROJECT", "CACHE"};
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 3, NULL, 0, d, 1,
                                       tp("/home"), tp("/proj"), &e),
                     0);
    ck_assert_str_eq(cp_rt_params_get(&p, "CACHE"), tp("/ro"));
    ck_assert_str_eq(cp_rt_params_get(&p, "HOME"), tp("/home"));
    ck_assert_str_eq(cp_rt_params_get(&p, "PROJECT"), tp("/proj"));
    cp_rt_params_free(&p);

    /* Unknown -D, unbound param, HOME unset, bad cwd, bad define syntax. */
    ck_assert_int_eq(cp_rt_define_split("OTHER=/", &d[1], &e), 0);
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 3, NULL, 0, d, 2,
                                       tp("/home"), tp("/proj"), &e),
                     125);
    ck_assert_str_eq(e.msg, "-D OTHER: the policy has no param 'OTHER'");
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 3, NULL, 0, NULL, 0,
                                       tp("/home"), tp("/proj"), &e),
                     125);
    ck_assert_str_eq(e.msg, "param CACHE is unbound; pass -D CACHE=DIR");
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 2, NULL, 0, NULL, 0, NULL,
                                       tp("/proj"), &e),
                     125);
    ck_assert_str_eq(
        e.msg, "param HOME is unbound: HOME is not set; pass -D HOME=DIR");
    ck_assert_int_eq(
        cp_rt_params_bind(&p, needed + 1, 1, NULL, 0, NULL, 0, NULL, "rel", &e),
        125);
    ck_assert_str_eq(
        e.msg, "param PROJECT: 'rel' is not an absolute path (taken from the "
               "current directory; pass -D PROJECT=DIR)");
    /* HOME not needed: an unusable environment HOME does not matter. */
    ck_assert_int_eq(cp_rt_params_bind(&p, needed + 1, 1, NULL, 0, NULL, 0,
                                       "junk", tp("/proj"), &e),
                     0);
    cp_rt_params_free(&p);
    ck_assert_int_eq(cp_rt_define_split("=x", &d[2], &e), 125);
    ck_assert_str_eq(e.msg, "-D expects NAME=VALUE, got '=x'");
    ck_assert_int_eq(cp_rt_define_split("A-B=x", &d[2], &e), 125);
    ck_assert_str_eq(e.msg, "-D: bad param name 'A-B'");
    d[1] = d[0];
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 3, NULL, 0, d, 2,
                                       tp("/home"), tp("/proj"), &e),
                     125);
    ck_assert_str_eq(e.msg, "-D CACHE given twice");

    /* A declared param the artifact no longer uses: checked, then noted. */
    const char *known[] = {"CACHE"};
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 2, known, 1, d, 1,
                                       tp("/home"), tp("/proj"), &e),
                     0);
    ck_assert_uint_eq(p.nignored, 1);
    ck_assert_str_eq(p.ignored[0], "CACHE");
    cp_rt_params_free(&p);
    /* Implicit values are canonicalised: a trailing '/', '//', a symlink. */
    snprintf(buf, sizeof buf, "%s//home/", tdir);
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 1, NULL, 0, NULL, 0, buf,
                                       tp("/proj"), &e),
                     0);
    ck_assert_str_eq(cp_rt_params_get(&p, "HOME"), tp("/home"));
    cp_rt_params_free(&p);
    /* ... an explicit one must already be canonical. */
    snprintf(buf, sizeof buf, "HOME=%s/home/", tdir);
    ck_assert_int_eq(cp_rt_define_split(buf, &d[2], &e), 0);
    ck_assert_int_eq(cp_rt_params_bind(&p, needed, 1, NULL, 0, d + 2, 1, NULL,
                                       tp("/proj"), &e),
                     125);
    ck_assert_ptr_nonnull(strstr(e.msg, "is not canonical"));
    /* "/" is a value like any other. */
    char *root = cp_rt_param_canon("PROJECT", "/", true, &e);
    ck_assert_str_eq(root, "/");
    free(root);
}
END_TEST

/* ---- plan ------------------------------------------------------------------------ */

struct fake_host {
    int err; /* 0: really mkdir */
    int calls;
};

static int fake_make(void *ctx, const char *path)
{
    struct fake_host *h = ctx;
    h->calls++;
    if (h->err)
        return h->err;
    return mkdir(path, 0555) < 0 ? errno : 0;
}

/* Words joined with ' ', tdir replaced by '@'. */
static const char *joined(const struct cp_rt_strv *v)
{
    static char out[8192];
    size_t n = 0, tl = strlen(tdir);
    out[0] = '\0';
    for (size_t i = 0; i < v->n; i++) {
        const char *w = v->v[i];
        if (i)
            out[n++] = ' ';
        while (*w && n < sizeof out - 2) {
            if (!strncmp(w, tdir, tl)) {
                out[n++] = '@';
                w += tl;
            } else {
                out[n++] = *w++;
            }
        }
        out[n] = '\0';
    }
    return out;
}

static int plan(const char *spec, struct cp_rt_plan *pl, struct fake_host *fh,
                bool ok_unenf, struct cp_rt_err *e)
{
    struct cp_rt_artifact a;
    ck_assert_int_eq(parse(spec, &a, e), 0);
    struct cp_rt_params p;
    ck_assert_int_eq(cp_rt_params_bind(&p, a.needed, a.nneeded, a.params,
                                       a.nparams, NULL, 0, tp("/home"),
                                       tp("/proj"), e),
                     0);
    struct cp_rt_host h = {.make_placeholder = fake_make, .ctx = fh};
    int rc = cp_rt_plan_build(pl, &a, &p, &h, ok_unenf, e);
    cp_rt_params_free(&p);
    cp_rt_artifact_free(&a);
    return rc;
}

START_TEST(plan_words)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(
        plan("param|PROJECT\nparam|HOME\narg|--ro-bind\narg|/\narg|/\n"
             "pinro|HOME|\npinro|HOME|/nope\nbind|PROJECT|\npin|PROJECT|/"
             "sub\nro|PROJECT|/.git\nro|PROJECT|/sub/keep\n"
             "mask|HOME|/.ssh\nmask|PROJECT|/.env\nbind|PROJECT|/nope\n"
             "exec||/usr/bin\narg|--unshare-net",
             &pl, &fh, false, &e),
        0);
    ck_assert_str_eq(
        joined(&pl.words),
        "--ro-bind / / --ro-bind @/home @/home --bind @/proj @/proj "
        "--bind @/proj/sub @/proj/sub "
        "--ro-bind @/proj/.git @/proj/.git --ro-bind @/proj/sub/keep "
        "@/proj/sub/keep "
        "--tmpfs @/home/.ssh --remount-ro @/home/.ssh "
        "--ro-bind /dev/null @/proj/.env --unshare-net");
    ck_assert_str_eq(joined(&pl.exec), "/usr/bin");
    ck_assert(pl.exec_on);
    ck_assert_str_eq(joined(&pl.verify_ro), "@/proj/.git @/proj/sub/keep");
    ck_assert_uint_eq(pl.placeholders.n, 0);
    ck_assert_int_eq(fh.calls, 0);
    cp_rt_plan_free(&pl);
}
END_TEST

START_TEST(plan_missing_targets)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    /* In the writable root: placeholder at the first missing component
     * (no make_dir here), a scratch tmpfs for a deny-write target; a
     * deny-read target beneath it gets a read-only tmpfs inside the
     * scratch one; a missing deny-read target itself is masked as a file;
     * outside every write root: nothing; under a tmpfs: a read-only
     * tmpfs, no host write. */
    ck_assert_int_eq(
        plan("param|PROJECT\nparam|HOME\narg|--ro-bind\narg|/\narg|/\n"
             "arg|--tmpfs\narg|/tmp\nbind|PROJECT|\n"
             "ro|PROJECT|/.claude/settings.json\nmask|PROJECT|/.claude/x/y\n"
             "mask|PROJECT|/.envrc\n"
             "mask||/cp-rt-none/z\nmask||/tmp/cp-rt-none/z",
             &pl, &fh, false, &e),
        0);
    ck_assert_str_eq(joined(&pl.words),
                     "--ro-bind / / --tmpfs /tmp --bind @/proj @/proj "
                     "--tmpfs @/proj/.claude --tmpfs @/proj/.claude/x "
                     "--remount-ro @/proj/.claude/x "
                     "--ro-bind /dev/null @/proj/.envrc "
                     "--tmpfs /tmp/cp-rt-none --remount-ro /tmp/cp-rt-none");
    ck_assert_str_eq(joined(&pl.placeholders), "@/proj/.claude @/proj/.envrc");
    ck_assert_str_eq(joined(&pl.verify_ro), "");
    ck_assert_int_eq(fh.calls, 2);
    rmdir(tp("/proj/.envrc"));
    struct stat st;
    ck_assert_int_eq(stat(tp("/proj/.claude"), &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(st.st_mode & 07777, 0555);
    rmdir(tp("/proj/.claude"));
    cp_rt_plan_free(&pl);

    /* Under a writable bind of another host directory: cannot enforce. */
    ck_assert_int_eq(
        plan(
            "param|PROJECT\narg|--bind\narg|/\narg|/mnt\nmask||/mnt/cp-rt-none",
            &pl, &fh, false, &e),
        126);
    ck_assert_str_eq(
        e.msg,
        "cannot enforce: deny-read target '/mnt/cp-rt-none' does not exist "
        "and lies in a writable bind of another host directory, where no "
        "placeholder can be placed");

    /* A parent nobody may write: skipped; another error: cannot enforce. */
    fh = (struct fake_host){.err = EROFS};
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nro|PROJECT|/a", &pl,
                          &fh, false, &e),
                     0);
    ck_assert_str_eq(joined(&pl.words), "--bind @/proj @/proj");
    cp_rt_plan_free(&pl);
    fh = (struct fake_host){.err = EIO};
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nro|PROJECT|/a", &pl,
                          &fh, false, &e),
                     126);
    char want[1024];
    snprintf(
        want, sizeof want,
        "cannot enforce: deny-write target '%s/proj/a' does not exist "
        "and the placeholder '%s/proj/a' cannot be created: Input/output error",
        tdir, tdir);
    ck_assert_str_eq(e.msg, want);
}
END_TEST

/* A chain of symlinks on the way to a deny target is followed as the
 * kernel would, up to 40 links; one more is ELOOP, refused (126), or
 * a warning with --allow-unenforced. */
START_TEST(plan_symlink_chain)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    /* home/c0 -> c1 -> ... -> c40 -> .ssh (41 links), home/d1 -> c2 (40) */
    for (int i = 0; i <= 40; i++) {
        char a[32], b[512];
        if (i == 40)
            snprintf(a, sizeof a, ".ssh");
        else
            snprintf(a, sizeof a, "c%d", i + 1);
        snprintf(b, sizeof b, "%s/home/c%d", tdir, i);
        ck_assert_int_eq(symlink(a, b), 0);
    }
    char b[512];
    snprintf(b, sizeof b, "%s/home/d1", tdir);
    ck_assert_int_eq(symlink("c2", b), 0);
    ck_assert_int_eq(plan("param|HOME\nmask|HOME|/d1/id", &pl, &fh, false, &e),
                     0);
    ck_assert_str_eq(joined(&pl.words), "--ro-bind /dev/null @/home/.ssh/id");
    cp_rt_plan_free(&pl);
    ck_assert_int_eq(plan("param|HOME\nmask|HOME|/c0/id", &pl, &fh, false, &e),
                     126);
    ck_assert_ptr_nonnull(strstr(e.msg, strerror(ELOOP)));
    cp_rt_plan_free(&pl);
    /* --allow-unenforced: said, not silent */
    ck_assert_int_eq(plan("param|HOME\nmask|HOME|/c0/id", &pl, &fh, true, &e),
                     0);
    ck_assert_uint_eq(pl.warnings.n, 1);
    ck_assert_ptr_nonnull(strstr(pl.warnings.v[0], strerror(ELOOP)));
    cp_rt_plan_free(&pl);
}
END_TEST

START_TEST(plan_symlinks)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/ro", tdir);
    snprintf(b, sizeof b, "%s/proj/cfg", tdir);
    ck_assert_int_eq(symlink(a, b), 0);
    /* Deny write through a replaceable symlink: refused, or a warning. */
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nro|PROJECT|/cfg", &pl,
                          &fh, false, &e),
                     126);
    char want[1024];
    snprintf(want, sizeof want,
             "cannot enforce: deny-write target '%s/proj/cfg' passes through "
             "the symlink '%s/proj/cfg', which lies in a writable directory "
             "and could be "
             "replaced inside the sandbox; replace the symlink by the "
             "directory it points to",
             tdir, tdir);
    ck_assert_str_eq(e.msg, want);
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nro|PROJECT|/cfg", &pl,
                          &fh, true, &e),
                     0);
    ck_assert_str_eq(joined(&pl.words),
                     "--bind @/proj @/proj --ro-bind @/ro @/ro");
    ck_assert_uint_eq(pl.warnings.n, 1);
    cp_rt_plan_free(&pl);
    /* Deny read through it: the resolved directory is masked. */
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nmask|PROJECT|/cfg",
                          &pl, &fh, false, &e),
                     0);
    ck_assert_str_eq(joined(&pl.words),
                     "--bind @/proj @/proj --tmpfs @/ro --remount-ro @/ro");
    cp_rt_plan_free(&pl);
    /* A symlink outside every write root cannot be replaced: fine. */
    ck_assert_int_eq(
        plan("param|PROJECT\nro|PROJECT|/cfg", &pl, &fh, false, &e), 0);
    ck_assert_str_eq(joined(&pl.words), "--ro-bind @/ro @/ro");
    cp_rt_plan_free(&pl);
    /* A write root through a symlink: nothing is bound (the target stays
     * read-only) and the plan says so. */
    ck_assert_int_eq(
        plan("param|PROJECT\nbind|PROJECT|/cfg", &pl, &fh, false, &e), 0);
    ck_assert_str_eq(joined(&pl.words), "");
    ck_assert_uint_eq(pl.stricter.n, 1);
    ck_assert(strstr(pl.stricter.v[0], "through a symlink: left read-only"));
    cp_rt_plan_free(&pl);
    /* Hard links: another name could be writable. */
    snprintf(a, sizeof a, "%s/proj/.env", tdir);
    snprintf(b, sizeof b, "%s/proj/env2", tdir);
    ck_assert_int_eq(link(a, b), 0);
    ck_assert_int_eq(
        plan("param|PROJECT\nro|PROJECT|/.env", &pl, &fh, false, &e), 126);
    ck_assert(strstr(e.msg, "has 2 hard links"));
}
END_TEST

START_TEST(plan_bad_args)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(plan("arg|--cap-add\narg|ALL", &pl, &fh, false, &e), 125);
    ck_assert_str_eq(
        e.msg,
        "invalid artifact: record 2: forbidden bwrap option '--cap-add'");
    ck_assert_int_eq(plan("arg|--frobnicate", &pl, &fh, false, &e), 125);
    ck_assert_str_eq(
        e.msg,
        "invalid artifact: record 2: unknown bwrap option '--frobnicate'");
    ck_assert_int_eq(plan("arg|--bind\narg|/\nro||/x", &pl, &fh, false, &e),
                     125);
    ck_assert_str_eq(e.msg, "invalid artifact: record 4: bwrap option '--bind' "
                            "lacks 1 argument(s)");
    ck_assert_int_eq(plan("arg|--setenv\narg|A", &pl, &fh, false, &e), 125);
    ck_assert_str_eq(e.msg, "invalid artifact: record 4: bwrap option "
                            "'--setenv' lacks 1 argument(s)");
    /* Option values are not mistaken for options. */
    ck_assert_int_eq(
        plan("arg|--setenv\narg|--cap-add\narg|--", &pl, &fh, false, &e), 0);
    cp_rt_plan_free(&pl);
}
END_TEST

START_TEST(plan_globs)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    mk("proj/a.key", "k");
    mk("proj/sub/b.key", "k");
    mk("proj/sub/keep/c.key", "k");
    mk("proj/sub/d.txt", "t");
    ck_assert_int_eq(
        plan("param|PROJECT\nbind|PROJECT|\nmaskglob|PROJECT|/**/*.key\n"
             "roglob|PROJECT|/s?b/*.txt\nmaskglob|PROJECT|/sub/keep/*.key",
             &pl, &fh, false, &e),
        0);
    ck_assert_str_eq(
        joined(&pl.words),
        "--bind @/proj @/proj --ro-bind /dev/null @/proj/a.key "
        "--bind @/proj/sub @/proj/sub --ro-bind /dev/null @/proj/sub/b.key "
        "--bind @/proj/sub/keep @/proj/sub/keep "
        "--ro-bind /dev/null @/proj/sub/keep/c.key "
        "--ro-bind @/proj/sub/d.txt @/proj/sub/d.txt");
    cp_rt_plan_free(&pl);
}
END_TEST

/* A deny target beneath a mask needs no mount (bwrap cannot create a mount
 * point in the read-only, empty mask: the launch failed), and every
 * ancestor of a target that lies in a write root is pinned, whether the
 * artifact names it or the params put it there. */
START_TEST(plan_nested_masks_and_pins)
{
    struct fake_host fh = {0};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    mk("proj/a", NULL);
    mk("proj/a/x", NULL);
    mk("proj/a/x/f", "k");
    mk("proj/b", NULL);
    mk("proj/b/x", NULL);
    ck_assert_int_eq(plan("param|PROJECT\nbind|PROJECT|\nmask|PROJECT|/a\n"
                          "maskglob|PROJECT|/?/x\nro|PROJECT|/a/x/f",
                          &pl, &fh, false, &e),
                     0);
    ck_assert_str_eq(
        joined(&pl.words),
        "--bind @/proj @/proj --tmpfs @/proj/a --remount-ro @/proj/a "
        "--bind @/proj/b @/proj/b --tmpfs @/proj/b/x --remount-ro @/proj/b/x");
    cp_rt_plan_free(&pl);
    /* Write root above PROJECT: the ancestors up to the target are pinned. */
    ck_assert_int_eq(plan("param|PROJECT\nbind||/tmp\nro|PROJECT|/a/x/f", &pl,
                          &fh, false, &e),
                     0);
    ck_assert_ptr_nonnull(
        strstr(joined(&pl.words),
               "--bind @/proj @/proj --bind @/proj/a "
               "@/proj/a --bind @/proj/a/x @/proj/a/x --ro-bind @/proj/a/x/f"));
    cp_rt_plan_free(&pl);
}
END_TEST

START_TEST(stage_stream)
{
    struct cp_rt_plan pl = {0};
    cp_rt_strv_push(&pl.words, "--ro-bind");
    cp_rt_strv_push(&pl.words, "/");
    cp_rt_strv_push(&pl.words, "/");
    cp_rt_strv_push(&pl.exec, "/usr/bin");
    cp_rt_strv_push(&pl.verify_ro, "/p/.git");
    pl.exec_on = true;
    char *cmd[] = {"sh", "-c", "echo a\nb", NULL};
    struct cp_rt_strv bw, sw;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_args_stream(&pl, cmd, 3, &bw, &sw, &e), 0);
    ck_assert_str_eq(
        joined(&bw),
        "--die-with-parent --new-session --unshare-user --unshare-pid "
        "--ro-bind / /");
    ck_assert_str_eq(
        joined(&sw),
        "--landlock --exec /usr/bin --verify-ro /p/.git -- sh -c echo a\nb");
    cp_rt_strv_free(&bw);
    cp_rt_strv_free(&sw);
    /* bwrap's 9000-argument cap. */
    for (int i = 0; i < 3000; i++) {
        cp_rt_strv_push(&pl.words, "--ro-bind");
        cp_rt_strv_push(&pl.words, "/a");
        cp_rt_strv_push(&pl.words, "/a");
    }
    ck_assert_int_eq(cp_rt_args_stream(&pl, cmd, 3, &bw, &sw, &e), 125);
    ck_assert_str_eq(
        e.msg,
        "the policy needs 9019 bubblewrap arguments, more than its limit of "
        "9000; merge rules into directory-level rules");
    cp_rt_plan_free(&pl);
}
END_TEST

/* ---- seatbelt, hints, ELF ------------------------------------------------------ */

START_TEST(sbpl_argv)
{
    static const char
        prof[] = ";; confpol-param HOME\n;; confpol-param PROJECT\n"
                 ";; confpol-param CACHE_DIR\n(version 1)\n(deny default)\n"
                 ";; confpol-param HOME\n";
    struct cp_rt_strv names, argv;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_sb_params(prof, sizeof prof - 1, &names, &e), 0);
    ck_assert_str_eq(joined(&names), "HOME PROJECT CACHE_DIR");
    struct cp_rt_params p = {0};
    struct cp_rt_define d[3];
    char b1[600], b2[600];
    snprintf(b1, sizeof b1, "CACHE_DIR=%s/ro", tdir);
    snprintf(b2, sizeof b2, "HOME=%s/home", tdir);
    cp_rt_define_split(b1, &d[0], &e);
    cp_rt_define_split(b2, &d[1], &e);
    ck_assert_int_eq(cp_rt_params_bind(&p, (const char *const *)names.v,
                                       names.n, NULL, 0, d, 2, NULL,
                                       tp("/proj"), &e),
                     0);
    char *cmd[] = {"-weird", "a b", NULL};
    ck_assert_int_eq(
        cp_rt_sb_argv("/x/p.sb", &names, NULL, &p, 0, cmd, 2, &argv, &e), 0);
    ck_assert_str_eq(joined(&argv),
                     "sandbox-exec -f /x/p.sb -D HOME=@/home -D PROJECT=@/proj "
                     "-D CACHE_DIR=@/ro -- -weird a b");
    cp_rt_strv_free(&argv);
    cp_rt_params_free(&p);
    struct cp_rt_strv one = {0};
    cp_rt_strv_push(&one, "UNBOUND");
    ck_assert_int_eq(
        cp_rt_sb_argv("/x/p.sb", &one, NULL, &p, 0, cmd, 2, &argv, &e), 125);
    ck_assert_str_eq(e.msg, "param UNBOUND is unbound; pass -D UNBOUND=DIR");
    cp_rt_strv_free(&one);
    cp_rt_strv_free(&names);
    static const char bad[] = ";; confpol-param A B\n";
    ck_assert_int_eq(cp_rt_sb_params(bad, sizeof bad - 1, &names, &e), 125);
    ck_assert_str_eq(e.msg,
                     "invalid profile: bad param line ';; confpol-param A B'");
}
END_TEST

/* A symbolic profile pins the ancestors of a param's value through
 * NAME:ancestors, which the binder computes; a profile naming an
 * undeclared param is refused. */
START_TEST(sbpl_ancestors)
{
    char *re = cp_rt_sb_ancestors_regex("/tmp/w/p.r+j");
    ck_assert_str_eq(re, "^/(tmp(/w)?)?$");
    free(re);
    re = cp_rt_sb_ancestors_regex("/a(1)/b/");
    ck_assert_str_eq(re, "^/(a\\(1\\))?$");
    free(re);
    re = cp_rt_sb_ancestors_regex("/top");
    ck_assert_str_eq(re, "^/$");
    free(re);
    re = cp_rt_sb_ancestors_regex("/");
    ck_assert_str_eq(re, "^/$");
    free(re);
    static const char
        prof[] = ";; confpol-param HOME\n;; confpol-param PROJECT\n"
                 ";; confpol-ancestors PROJECT\n(version 1)\n";
    struct cp_rt_strv names, anc, argv;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_sb_params(prof, sizeof prof - 1, &names, &e), 0);
    ck_assert_int_eq(
        cp_rt_sb_ancestors(prof, sizeof prof - 1, &names, &anc, &e), 0);
    ck_assert_str_eq(joined(&anc), "PROJECT");
    struct cp_rt_params p = {0};
    char b1[600];
    snprintf(b1, sizeof b1, "HOME=%s/home", tdir);
    struct cp_rt_define d[1];
    cp_rt_define_split(b1, &d[0], &e);
    ck_assert_int_eq(cp_rt_params_bind(&p, (const char *const *)names.v,
                                       names.n, NULL, 0, d, 1, NULL,
                                       tp("/proj"), &e),
                     0);
    char *cmd[] = {"id", NULL};
    ck_assert_int_eq(
        cp_rt_sb_argv("/x/p.sb", &names, &anc, &p, 0, cmd, 1, &argv, &e), 0);
    ck_assert(strstr(joined(&argv), " -D PROJECT:ancestors=^/(") != NULL);
    cp_rt_strv_free(&argv);
    /* The argv builder checks every ancestors name itself, whatever the
     * reader before it checked: one with no bound value is refused. */
    struct cp_rt_strv anc2 = {0};
    cp_rt_strv_push(&anc2, "PROJECT");
    cp_rt_strv_push(&anc2, "CACHE");
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(
        cp_rt_sb_argv("/x/p.sb", &names, &anc2, &p, 0, cmd, 1, &argv, &e),
        CP_RT_EXIT_ERROR);
    ck_assert_str_eq(e.msg, "param CACHE is unbound; pass -D CACHE=DIR");
    cp_rt_strv_free(&anc2);
    cp_rt_params_free(&p);
    cp_rt_strv_free(&anc);
    static const char
        bad[] = ";; confpol-param HOME\n;; confpol-ancestors PROJECT\n";
    cp_rt_strv_free(&names);
    ck_assert_int_eq(cp_rt_sb_params(bad, sizeof bad - 1, &names, &e), 0);
    ck_assert_int_eq(cp_rt_sb_ancestors(bad, sizeof bad - 1, &names, &anc, &e),
                     125);
    cp_rt_strv_free(&names);
}
END_TEST

/* A profile with a net allow list: its `;; confpol-net` lines become the
 * proxy's `net` records (validated by the decision model's parser); the
 * plan binds the started proxy's port as confpol:proxy-port and points the
 * command's proxy variables at it, replacing inherited ones; the proxy,
 * in TCP mode, answers a denied CONNECT with 403 and is gone once
 * stopped. */
START_TEST(sbpl_net_plan)
{
    static const char
        prof[] = "(version 1)\n;; confpol-param HOME\n"
                 ";; confpol-net *.example.org:443 /p/a b.confpol:4\n"
                 ";; confpol-net localhost rule #3\n(deny network*)\n";
    struct cp_rt_sb_profile sp;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_sb_read(prof, sizeof prof - 1, &sp, &e), 0);
    ck_assert_uint_eq(sp.net.nrecs, 2);
    ck_assert_int_eq(sp.net.recs[0].tag, CP_RT_T_NET);
    ck_assert_str_eq(sp.net.recs[0].f1, "*.example.org:443");
    ck_assert_str_eq(sp.net.recs[0].f2, "/p/a b.confpol:4");
    ck_assert_uint_eq(sp.net.recs[0].off, 34);
    ck_assert_str_eq(sp.net.recs[1].f1, "localhost");
    ck_assert_str_eq(sp.net.recs[1].f2, "rule #3");
    struct cp_rt_params p = {0};
    char b1[600];
    snprintf(b1, sizeof b1, "HOME=%s/home", tdir);
    struct cp_rt_define d[1];
    cp_rt_define_split(b1, &d[0], &e);
    ck_assert_int_eq(cp_rt_params_bind(&p, (const char *const *)sp.names.v,
                                       sp.names.n, NULL, 0, d, 1, NULL,
                                       tp("/proj"), &e),
                     0);
    char *cmd[] = {"curl", NULL};
    char *envp[] = {"PATH=/bin", "HTTP_PROXY=http://elsewhere:1", "no_proxy=*",
                    "NO_PROXY_X=1", NULL};
    struct cp_rt_strv argv, env;
    /* No proxy, no run. */
    ck_assert_int_eq(
        cp_rt_sb_plan("/x/p.sb", &sp, &p, 0, envp, cmd, 1, &argv, &env, &e),
        125);
    char log[600];
    snprintf(log, sizeof log, "%s/proxy.log", tdir);
    setenv("CONFPOL_PROXY_LOG", log, 1);
    struct cp_rt_proxy px;
    ck_assert_int_eq(cp_rt_proxy_start(&sp.net, CP_RT_PROXY_TCP, "t", &px, &e),
                     0);
    unsetenv("CONFPOL_PROXY_LOG");
    ck_assert_int_gt(px.port, 0);
    ck_assert_int_eq(cp_rt_sb_plan("/x/p.sb", &sp, &p, (unsigned)px.port, envp,
                                   cmd, 1, &argv, &env, &e),
                     0);
    char want[600];
    snprintf(want, sizeof want,
             "sandbox-exec -f /x/p.sb -D HOME=@/home -D "
             "confpol:proxy-port=%d -- curl",
             px.port);
    ck_assert_str_eq(joined(&argv), want);
    snprintf(want, sizeof want,
             "PATH=/bin NO_PROXY_X=1 HTTP_PROXY=http://127.0.0.1:%d "
             "HTTPS_PROXY=http://127.0.0.1:%d http_proxy=http://127.0.0.1:%d "
             "https_proxy=http://127.0.0.1:%d "
             "ALL_PROXY=socks5h://127.0.0.1:%d "
             "all_proxy=socks5h://127.0.0.1:%d NO_PROXY= no_proxy=",
             px.port, px.port, px.port, px.port, px.port, px.port);
    ck_assert_str_eq(joined(&env), want);
    /* The proxy decides: a name no rule allows gets 403. */
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((uint16_t)px.port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(connect(c, (struct sockaddr *)&sin, sizeof sin), 0);
    static const char req[] = "CONNECT evil.example:443 HTTP/1.1\r\n\r\n";
    ck_assert_int_eq(write(c, req, sizeof req - 1), (ssize_t)sizeof req - 1);
    char ans[512] = {0};
    size_t got = 0;
    ssize_t n;
    while (got < sizeof ans - 1 &&
           (n = read(c, ans + got, sizeof ans - 1 - got)) > 0)
        got += (size_t)n;
    close(c);
    ck_assert_msg(strncmp(ans, "HTTP/1.1 403 ", 13) == 0, "%s", ans);
    ck_assert_ptr_nonnull(strstr(ans, "X-Confpol-Rule: no rule\r\n"));
    cp_rt_proxy_stop(&px, true);
    c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ne(connect(c, (struct sockaddr *)&sin, sizeof sin), 0);
    close(c);
    FILE *f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    char line[300] = {0};
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line,
                     "t: proxy: deny CONNECT evil.example:443 (no rule)\n");
    cp_rt_strv_free(&argv);
    cp_rt_strv_free(&env);
    cp_rt_params_free(&p);
    cp_rt_sb_profile_free(&sp);
    /* No net lines: nothing to start, the environment is inherited. */
    static const char plain[] = "(version 1)\n(deny network*)\n";
    ck_assert_int_eq(cp_rt_sb_read(plain, sizeof plain - 1, &sp, &e), 0);
    ck_assert_uint_eq(sp.net.nrecs, 0);
    ck_assert_int_eq(
        cp_rt_sb_plan("/x/p.sb", &sp, &p, 0, envp, cmd, 1, &argv, &env, &e), 0);
    ck_assert_str_eq(joined(&argv), "sandbox-exec -f /x/p.sb -- curl");
    ck_assert_uint_eq(env.n, 0);
    cp_rt_strv_free(&argv);
    cp_rt_sb_profile_free(&sp);
}
END_TEST

/* Malformed net lines refuse the profile: no pattern, no WHERE, a pattern
 * the decision model's parser rejects (`*` would be every host). */
START_TEST(sbpl_net_bad)
{
    static const char *const bad[] = {
        ";; confpol-net *\n",
        ";; confpol-net * x.confpol:1\n",
        ";; confpol-net example.com \n",
        ";; confpol-net  x.confpol:1\n",
        ";; confpol-net *.com x.confpol:1\n",
    };
    static const char *const why[] = {
        "invalid profile: net line '*': want ';; confpol-net PATTERN WHERE'",
        NULL,
        "invalid profile: net line 'example.com ': want ';; confpol-net "
        "PATTERN WHERE'",
        "invalid profile: net line ' x.confpol:1': want ';; confpol-net "
        "PATTERN WHERE'",
        NULL,
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct cp_rt_sb_profile sp;
        struct cp_rt_err e = {0};
        ck_assert_int_eq(cp_rt_sb_read(bad[i], strlen(bad[i]), &sp, &e), 125);
        if (why[i])
            ck_assert_str_eq(e.msg, why[i]);
        else
            ck_assert_msg(strncmp(e.msg, "invalid profile: net line '*", 28) ==
                              0,
                          "%s", e.msg);
    }
}
END_TEST

START_TEST(bwrap_hints)
{
    ck_assert(strstr(
        cp_rt_bwrap_hint("bwrap: setting up uid map: Permission denied\n"),
        "apparmor_restrict_unprivileged_userns"));
    ck_assert(strstr(
        cp_rt_bwrap_hint(
            "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted"),
        "AppArmor"));
    ck_assert(strstr(
        cp_rt_bwrap_hint(
            "bwrap: Creating new namespace failed: Operation not permitted"),
        "user namespaces are disabled"));
    ck_assert_ptr_null(cp_rt_bwrap_hint("bwrap: something else"));
}
END_TEST

START_TEST(elf_interp)
{
    char buf[4096];
    if (access("/lib64/ld-linux-x86-64.so.2", F_OK) == 0) {
        ck_assert_int_eq(cp_rt_elf_interp("/bin/sh", buf, sizeof buf), 0);
        ck_assert_str_eq(buf, "/lib64/ld-linux-x86-64.so.2");
    }
    ck_assert_int_eq(cp_rt_elf_interp(tp("/file"), buf, sizeof buf), -1);
    ck_assert_int_eq(cp_rt_elf_interp(tp("/nope"), buf, sizeof buf), -1);
}
END_TEST

/* `socket ROOT REST WHERE` (spec/runtime.md §14.5): three fields, checked
 * as a path record; a param used only as a whole socket path names a
 * socket, not a directory; the stage gets each bound path and rule. */
START_TEST(socket_records)
{
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(parse("param|S\nparam|D\narg|--unshare-net\n"
                           "socket||/run/a.sock|p.confpol:4\n"
                           "socket|S||p.confpol:5\nsocket|D|/x.sock|p:6",
                           &a, &e),
                     0);
    ck_assert_int_eq(a.recs[4].tag, CP_RT_T_SOCKET);
    ck_assert_str_eq(a.recs[4].f2, "/run/a.sock");
    ck_assert_str_eq(a.recs[4].f3, "p.confpol:4");
    ck_assert_uint_eq(a.nneeded, 2);
    ck_assert_uint_eq(a.nsockparams, 1); /* S; D has a REST: a directory */
    ck_assert_str_eq(a.sockparams[0], "S");
    cp_rt_artifact_free(&a);
    ck_assert_str_eq(parse_err("socket|||p:1"),
                     "invalid artifact: record 2 'socket' (offset 16): empty "
                     "path");
    ck_assert_str_eq(parse_err("socket||/a.sock|"),
                     "invalid artifact: record 2 'socket' (offset 16): no "
                     "rule location");
    ck_assert_str_eq(parse_err("socket||a.sock|p:1"),
                     "invalid artifact: record 2 'socket' (offset 16): path "
                     "'a.sock' does not start with '/'");
    ck_assert_str_eq(parse_err("socket|NOPE||p:1"),
                     "invalid artifact: record 2 'socket' (offset 16): param "
                     "'NOPE' is not declared");
    /* two fields: the trailer's tag is read as the third */
    ck_assert_str_eq(parse_err("socket||/a.sock"),
                     "invalid artifact: record 3 (offset 36): unknown tag "
                     "'2'");
}
END_TEST

START_TEST(socket_params)
{
    char dir[] = "/tmp/cp-sockparam.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char file[64], link[64], bad[80];
    snprintf(file, sizeof file, "%s/s.sock", dir);
    snprintf(link, sizeof link, "%s/l", dir);
    snprintf(bad, sizeof bad, "%s/l/../s.sock", dir);
    ck_assert_int_eq(symlink(dir, link), 0);
    const char *needed[] = {"S"}, *sockets[] = {"S"};
    struct cp_rt_bind_names nm = {.needed = needed,
                                  .nneeded = 1,
                                  .known = needed,
                                  .nknown = 1,
                                  .sockets = sockets,
                                  .nsockets = 1};
    struct cp_rt_define d = {.name = "S", .value = file};
    struct cp_rt_params p;
    struct cp_rt_err e = {0};
    /* missing at launch: accepted (the stage warns) */
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     0);
    ck_assert_str_eq(cp_rt_params_get(&p, "S"), file);
    cp_rt_params_free(&p);
    /* a file: accepted */
    int fd = open(file, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     0);
    cp_rt_params_free(&p);
    /* not canonical, present or missing */
    d.value = bad;
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     125);
    ck_assert_ptr_nonnull(strstr(e.msg, "is not canonical"));
    char bad2[96];
    snprintf(bad2, sizeof bad2, "%s/l/gone.sock", dir);
    d.value = bad2;
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     125);
    ck_assert_ptr_nonnull(strstr(e.msg, "is not canonical"));
    d.value = "rel.sock";
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     125);
    ck_assert_str_eq(e.msg, "param S: 'rel.sock' is not an absolute path");
    /* the same value for a directory param: refused */
    nm.nsockets = 0;
    d.value = file;
    ck_assert_int_eq(cp_rt_params_bind_names(&p, &nm, &d, 1, NULL, NULL, &e),
                     125);
    ck_assert_ptr_nonnull(strstr(e.msg, "is not a directory"));
    unlink(file);
    unlink(link);
    rmdir(dir);
}
END_TEST

START_TEST(socket_stage_words)
{
    struct cp_rt_plan pl = {0};
    pl.unix_closed = true;
    pl.prog = "confpol run";
    cp_rt_strv_push(&pl.sockets, "/run/a b.sock");
    cp_rt_strv_push(&pl.sockets, "p.confpol:4");
    char *cmd[] = {"true", NULL};
    struct cp_rt_strv bw, sw;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_args_stream(&pl, cmd, 1, &bw, &sw, &e), 0);
    ck_assert_str_eq(joined(&sw), "--no-unix --prog confpol run --socket "
                                  "/run/a b.sock p.confpol:4 -- true");
    cp_rt_strv_free(&bw);
    cp_rt_strv_free(&sw);
    cp_rt_plan_free(&pl);
}
END_TEST

/* The one resolution of both planners: no symlink followed where the
 * caller says the sandbox could replace it, '..' in a link's target
 * resolved from the canonical directory reached, '.' and '..' in the path
 * as given refused, a missing rest reported. */
static bool never_follow(void *ctx, const char *dir)
{
    (void)ctx;
    (void)dir;
    return false;
}

START_TEST(walk_resolution)
{
    char a[512];
    snprintf(a, sizeof a, "../home/.ssh");
    ck_assert_int_eq(symlink(a, tp("/proj/up")), 0);
    struct cp_rt_walk w;
    /* followed: ../home/.ssh from proj */
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/up/id"), NULL, NULL, &w), 0);
    ck_assert_str_eq(w.real, tp("/home/.ssh/id"));
    ck_assert_str_eq(w.rest, "");
    ck_assert(w.via_link);
    cp_rt_walk_free(&w);
    /* not followed: the link is named, nothing resolved */
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/up/id"), never_follow, NULL, &w),
                     0);
    ck_assert_str_eq(w.link, tp("/proj/up"));
    ck_assert_ptr_null(w.real);
    cp_rt_walk_free(&w);
    /* missing rest */
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/none/x"), NULL, NULL, &w), 0);
    ck_assert_str_eq(w.real, tp("/proj"));
    ck_assert_str_eq(w.rest, "none/x");
    cp_rt_walk_free(&w);
    /* a missing part that a link's '..' would leave: the rest cannot be
     * told without the missing directory, refused */
    ck_assert_int_eq(symlink("none/../../home", tp("/proj/dd")), 0);
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/dd/x"), NULL, NULL, &w), EINVAL);
    /* a component the kernel refuses (longer than NAME_MAX) is a
     * refusal, not a missing rest */
    char longp[512];
    snprintf(longp, sizeof longp, "%s/%0300d", tp("/proj"), 0);
    ck_assert_int_eq(cp_rt_walk_path(longp, NULL, NULL, &w), ENAMETOOLONG);
    /* '.' or '..' in the path as given */
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/../home"), NULL, NULL, &w),
                     EINVAL);
    ck_assert_int_eq(cp_rt_walk_path(tp("/proj/./sub"), NULL, NULL, &w),
                     EINVAL);
    /* realpath's replacement */
    char *r = cp_rt_walk_real(tp("/proj/up"));
    ck_assert_str_eq(r, tp("/home/.ssh"));
    free(r);
    errno = 0;
    ck_assert_ptr_null(cp_rt_walk_real(tp("/proj/up/none")));
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* Which of the runtime's own mounts the stage verifies: not one that a
 * later mount at its place or above it hides (the sandbox sees the later
 * one), every other one. */
static bool id_verified(const struct cp_rt_plan *pl, size_t word)
{
    for (size_t i = 0; i < pl->nids; i++)
        if (pl->ids[i].word == word)
            return pl->ids[i].verify;
    return false;
}

START_TEST(mount_ids_hidden)
{
    struct cp_rt_plan pl = {0};
    struct cp_rt_err e = {0};
    /* option, destination relative to the tree, and a self-bind or not */
    static const struct {
        const char *opt, *rel;
        bool bind;
    } m[] = {
        {"--ro-bind", "/proj", true},    /* word 0 */
        {"--tmpfs", "/proj/sub", false}, /* 3 */
        {"--ro-bind", "/home", true},    /* 5 */
        {"--ro-bind", "/ro", true},      /* 8 */
        {"--tmpfs", "/proj", false},     /* 11 */
        {"--dev", "/home/.ssh", false},  /* 13 */
        {"--tmpfs", "/ro", false},       /* 15 */
        {"--ro-bind", "/file", true},    /* 17 */
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        cp_rt_strv_push(&pl.words, m[i].opt);
        if (m[i].bind)
            cp_rt_strv_push(&pl.words, tp(m[i].rel));
        cp_rt_strv_push(&pl.words, tp(m[i].rel));
    }
    ck_assert_int_eq(cp_rt_plan_identities(&pl, &e), 0);
    ck_assert(!id_verified(&pl, 0)); /* hidden by the tmpfs at 11 */
    ck_assert(!id_verified(&pl, 3)); /* hidden from above by 11 */
    ck_assert(id_verified(&pl, 5));  /* 13 is beneath it, not above */
    ck_assert(!id_verified(&pl, 8)); /* the same place later (15) */
    ck_assert(id_verified(&pl, 11)); /* nothing after it covers it */
    ck_assert(id_verified(&pl, 17)); /* the last word */
    cp_rt_plan_free(&pl);
}
END_TEST

Suite *cp_test_runtime_suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *t = tcase_create("artifact");
    tcase_add_test(t, artifact_valid);
    tcase_add_test(t, artifact_truncated_every_byte);
    tcase_add_test(t, artifact_corrupted_every_byte);
    tcase_add_test(t, artifact_messages);
    tcase_add_test(t, artifact_load_file);
    tcase_add_test(t, socket_records);
    tcase_add_test(t, socket_params);
    suite_add_tcase(s, t);
    t = tcase_create("host");
    tcase_add_checked_fixture(t, tree_setup, tree_teardown);
    tcase_add_test(t, params_values);
    tcase_add_test(t, params_binding);
    tcase_add_test(t, socket_stage_words); /* joined() needs the tree */
    tcase_add_test(t, plan_words);
    tcase_add_test(t, plan_missing_targets);
    tcase_add_test(t, plan_symlinks);
    tcase_add_test(t, plan_symlink_chain);
    tcase_add_test(t, plan_bad_args);
    tcase_add_test(t, plan_globs);
    tcase_add_test(t, plan_nested_masks_and_pins);
    tcase_add_test(t, stage_stream);
    tcase_add_test(t, sbpl_argv);
    tcase_add_test(t, sbpl_ancestors);
    tcase_add_test(t, sbpl_net_plan);
    tcase_add_test(t, sbpl_net_bad);
    tcase_add_test(t, bwrap_hints);
    tcase_add_test(t, elf_interp);
    tcase_add_test(t, walk_resolution);
    tcase_add_test(t, mount_ids_hidden);
    suite_add_tcase(s, t);
    return s;
}

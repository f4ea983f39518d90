/* SPDX-License-Identifier: MIT */
/* util/sha256.c: the FIPS 180-2 / NIST example vectors, streaming in
 * pieces of every size, and every length 0..300 (each block edge and the
 * padding edge at 55/56 bytes) cross-checked against python3's hashlib.
 * Each test runs once per compression function (a loop test: _i 0 is the
 * portable C, 1 the SHA extensions, 2 the automatic choice).  Where the CPU
 * lacks the extensions, iteration 1 checks that selecting them fails and
 * then runs the portable C again: no iteration returns without checking.
 * engines_agree hashes the same messages through both engines where the
 * CPU has the extensions; without_extensions runs this suite again in a
 * child whose glibc is told the CPU has no SSSE3 (GLIBC_TUNABLES), so that
 * the path of a CPU without SHA-NI runs on every machine (and under
 * valgrind, whose virtual CPU has none, the parent takes it too). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sha256.h"

static const enum cp_sha256_engine engines[] = {
    CP_SHA256_PORTABLE, CP_SHA256_SHANI, CP_SHA256_AUTO};

/* Set in the child of without_extensions: the CPU must look bare. */
#define NO_EXT_ENV "CP_TEST_SHA256_NO_EXTENSIONS"

/* Selects the engine of loop iteration i.  Where the CPU lacks the one
 * named, selecting it must fail and leave a working engine: the portable
 * C is selected and checked in its place. */
static void use_engine(int i)
{
    bool ok = cp_sha256_select(engines[i]);
    if (getenv(NO_EXT_ENV))
        ck_assert_msg(!ok || engines[i] != CP_SHA256_SHANI,
                      "SHA-NI selected on a CPU told to lack SSSE3");
    if (engines[i] != CP_SHA256_SHANI)
        ck_assert(ok); /* the portable C and AUTO exist everywhere */
    if (!ok)
        ck_assert(cp_sha256_select(CP_SHA256_PORTABLE));
}

static void hex_of(const void *p, size_t n, char out[CP_SHA256_HEX])
{
    cp_sha256_hex(p, n, out);
}

START_TEST(nist_vectors)
{
    use_engine(_i);
    static const struct {
        const char *msg;
        const char *hex;
    } v[] = {
        {"",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc",
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklm"
         "nop"
         "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char h[CP_SHA256_HEX];
        hex_of(v[i].msg, strlen(v[i].msg), h);
        ck_assert_str_eq(h, v[i].hex);
    }
    /* NULL with length 0 is the empty message */
    char h[CP_SHA256_HEX];
    hex_of(NULL, 0, h);
    ck_assert_str_eq(h, v[0].hex);
}
END_TEST

START_TEST(million_a)
{
    use_engine(_i);
    const char *want =
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    size_t n = 1000000;
    char *a = malloc(n);
    ck_assert_ptr_nonnull(a);
    memset(a, 'a', n);
    char h[CP_SHA256_HEX];
    hex_of(a, n, h);
    ck_assert_str_eq(h, want);
    /* the same in uneven pieces */
    struct cp_sha256 c;
    cp_sha256_init(&c);
    for (size_t at = 0, k = 1; at < n; k = k * 7 % 1000 + 1) {
        size_t m = n - at < k ? n - at : k;
        cp_sha256_update(&c, a + at, m);
        at += m;
    }
    unsigned char md[CP_SHA256_LEN];
    cp_sha256_final(&c, md);
    cp_sha256_hex_encode(md, h);
    ck_assert_str_eq(h, want);
    free(a);
}
END_TEST

static unsigned char msg_byte(size_t i)
{
    return (unsigned char)(i * 131 + 7);
}

/* Every split point of every length up to 200 gives the one-shot digest. */
START_TEST(streaming_splits)
{
    use_engine(_i);
    unsigned char m[200];
    for (size_t i = 0; i < sizeof m; i++)
        m[i] = msg_byte(i);
    for (size_t len = 0; len <= sizeof m; len++) {
        char whole[CP_SHA256_HEX];
        hex_of(m, len, whole);
        for (size_t cut = 0; cut <= len; cut++) {
            struct cp_sha256 c;
            unsigned char md[CP_SHA256_LEN];
            char h[CP_SHA256_HEX];
            cp_sha256_init(&c);
            cp_sha256_update(&c, m, cut);
            cp_sha256_update(&c, NULL, 0);
            cp_sha256_update(&c, m + cut, len - cut);
            cp_sha256_final(&c, md);
            cp_sha256_hex_encode(md, h);
            ck_assert_msg(strcmp(h, whole) == 0, "len %zu cut %zu", len, cut);
        }
    }
}
END_TEST

/* An independent implementation: python3's hashlib over the same bytes. */
START_TEST(lengths_vs_hashlib)
{
    use_engine(_i);
    enum { MAXLEN = 300 };
    const char
        *py = "python3 -c 'import hashlib\n"
              "m = bytes((i * 131 + 7) & 255 for i in range(300))\n"
              "for n in range(301): print(hashlib.sha256(m[:n]).hexdigest())'";
    FILE *p = popen(py, "r");
    ck_assert_ptr_nonnull(p);
    unsigned char m[MAXLEN];
    for (size_t i = 0; i < sizeof m; i++)
        m[i] = msg_byte(i);
    char line[128];
    size_t n = 0;
    for (; n <= MAXLEN && fgets(line, sizeof line, p); n++) {
        line[strcspn(line, "\n")] = '\0';
        char h[CP_SHA256_HEX];
        hex_of(m, n, h);
        ck_assert_msg(strcmp(h, line) == 0, "length %zu: %s, hashlib %s", n, h,
                      line);
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_uint_eq(n, MAXLEN + 1);
}
END_TEST

/* A message of n pseudo-random bytes from seed (xorshift32). */
static void fill(unsigned char *m, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        m[i] = (unsigned char)x;
    }
}

/* The digest of m[0..n) through engine e, fed in pieces of `piece` bytes
 * (0: at once). */
static void digest_with(enum cp_sha256_engine e, const unsigned char *m,
                        size_t n, size_t piece, char out[CP_SHA256_HEX])
{
    ck_assert(cp_sha256_select(e));
    struct cp_sha256 c;
    unsigned char md[CP_SHA256_LEN];
    cp_sha256_init(&c);
    for (size_t at = 0; at < n;) {
        size_t k = piece && n - at > piece ? piece : n - at;
        cp_sha256_update(&c, m + at, k);
        at += k;
    }
    cp_sha256_final(&c, md);
    cp_sha256_hex_encode(md, out);
}

/* Both engines on the same messages (every length to 1,100 bytes, random
 * contents, fed whole and in odd pieces) give the same digests.  Without
 * the extensions only the portable C runs: it is checked against itself
 * fed differently, and selecting SHA-NI must fail. */
START_TEST(engines_agree)
{
    static unsigned char m[1100];
    bool shani = cp_sha256_select(CP_SHA256_SHANI);
    if (!shani)
        fprintf(stderr, "sha256: no SHA extensions on this CPU: "
                        "the portable C is checked alone\n");
    for (size_t n = 0; n <= sizeof m; n++) {
        fill(m, n, (uint32_t)n);
        char a[CP_SHA256_HEX], b[CP_SHA256_HEX];
        digest_with(CP_SHA256_PORTABLE, m, n, 0, a);
        digest_with(shani ? CP_SHA256_SHANI : CP_SHA256_PORTABLE, m, n,
                    n % 67 + 1, b);
        ck_assert_msg(strcmp(a, b) == 0, "length %zu: portable %s, %s %s", n, a,
                      shani ? "SHA-NI" : "portable in pieces", b);
    }
    ck_assert(cp_sha256_select(CP_SHA256_AUTO));
}
END_TEST

/* This suite again in a child whose glibc is told the CPU lacks SSSE3
 * (which SHA-NI code needs): selecting SHA-NI fails there, and every test
 * passes on the portable C.  Only on x86-64 with glibc's CPU tunables. */
START_TEST(without_extensions)
{
#if defined(__x86_64__) && defined(__GLIBC__)
    if (getenv(NO_EXT_ENV)) { /* the child itself: nothing to start */
        ck_assert(!cp_sha256_select(CP_SHA256_SHANI));
        return;
    }
    /* readlink, not exec of /proc/self/exe: under valgrind that link is
     * valgrind's tool, and only readlink gives this program's path */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(n, 0);
    self[n] = '\0';
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-SSSE3", 1);
        setenv(NO_EXT_ENV, "1", 1);
        setenv("CK_RUN_SUITE", "sha256", 1);
        setenv("CK_FORK", "yes", 1);
        unsetenv("CK_RUN_CASE");
        execl(self, "unit-tests", (char *)NULL);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "the sha256 suite failed on a CPU without SSSE3 (status "
                  "%d)",
                  st);
#else
    ck_assert(cp_sha256_select(CP_SHA256_PORTABLE));
#endif
}
END_TEST

Suite *cp_test_sha256_suite(void); /* collected by the Makefile */
Suite *cp_test_sha256_suite(void)
{
    Suite *s = suite_create("sha256");
    TCase *tc = tcase_create("sha256");
    tcase_add_loop_test(tc, nist_vectors, 0, 3);
    tcase_add_loop_test(tc, million_a, 0, 3);
    tcase_add_loop_test(tc, streaming_splits, 0, 3);
    tcase_add_loop_test(tc, lengths_vs_hashlib, 0, 3);
    tcase_add_test(tc, engines_agree);
    tcase_add_test(tc, without_extensions);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return s;
}

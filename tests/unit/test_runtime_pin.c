/* SPDX-License-Identifier: MIT */
/* Runtime checks pinned where a launch cannot reach them: each case breaks
 * one refusal of runtime/ (found unpinned by `make mutate`,
 * spec/runtime.md §8.1) and must fail if that refusal is removed or
 * inverted.  Each asserts the refusal and its allowed neighbour. */
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "netproxy.h"
#include "runtime.h"
#include "sha256.h"

Suite *cp_test_runtime_pin_suite(void);

/* A -D name longer than the name buffer is refused before it is copied
 * (the copy would overrun it); the longest name that fits is taken. */
START_TEST(define_name_length)
{
    struct {
        struct cp_rt_define d;
        char guard[512]; /* an overrun lands here, not past the frame */
    } s;
    struct cp_rt_err e = {0};
    char text[sizeof s.d.name + 8];
    size_t fit = sizeof s.d.name - 1;
    memset(text, 'N', fit);
    strcpy(text + fit, "=/x");
    memset(s.guard, 0, sizeof s.guard);
    ck_assert_int_eq(cp_rt_define_split(text, &s.d, &e), 0);
    ck_assert_uint_eq(strlen(s.d.name), fit);
    ck_assert_str_eq(s.d.value, "/x");

    memset(text, 'N', fit + 1);
    strcpy(text + fit + 1, "=/x");
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(cp_rt_define_split(text, &s.d, &e), CP_RT_EXIT_ERROR);
    ck_assert_int_eq(e.status, CP_RT_EXIT_ERROR);
    ck_assert_int_eq(s.guard[0], 0);
    ck_assert_ptr_null(s.d.value);
}
END_TEST

/* Writes a sealed artifact: the header, `profile confined`, one `arg`
 * record of `n` bytes, and its trailer (spec/artifacts.md); returns its
 * path (a temporary file the caller removes). */
static char *big_artifact(size_t n)
{
    static const char head[] = "confpol-bwrap\0"
                               "1\0"
                               "profile\0"
                               "confined\0"
                               "arg\0";
    size_t hl = sizeof head - 1, len = hl + n + 1;
    char *body = malloc(len);
    ck_assert_ptr_nonnull(body);
    memcpy(body, head, hl);
    memset(body + hl, 'a', n);
    body[len - 1] = '\0';
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, len, hex);
    char *path = strdup("/tmp/confpol-pin-art.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(body, 1, len, f), len);
    fprintf(f, "end%c3%c%s%c", 0, 0, hex, 0);
    ck_assert_int_eq(fclose(f), 0);
    free(body);
    return path;
}

/* An artifact under the size limit loads however large: one of 40 MiB
 * (more than half the limit: a loader that grows its buffer before it is
 * full would pass the limit) loads, and one over the limit is refused. */
START_TEST(artifact_size_limit)
{
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    /* each file is removed before the assertion: 40 MiB left in /tmp by
     * a failing test would be a cost of its own */
    char *path = big_artifact(40u << 20);
    int rc = cp_rt_artifact_load(&a, path, &e);
    unlink(path);
    free(path);
    ck_assert_msg(rc == 0, "%s", e.msg);
    cp_rt_artifact_free(&a);
    path = big_artifact(CP_RT_MAX_ARTIFACT);
    rc = cp_rt_artifact_load(&a, path, &e);
    unlink(path);
    free(path);
    ck_assert_int_eq(rc, CP_RT_EXIT_ERROR);
}
END_TEST

/* Parses header, `profile confined`, `param NAME`, sealed; returns the
 * parser's status. */
static int parse_param(const char *name)
{
    char body[256];
    int n = snprintf(body, sizeof body,
                     "confpol-bwrap%c1%cprofile%cconfined%c"
                     "param%c%s%c",
                     0, 0, 0, 0, 0, name, 0);
    ck_assert(n > 0 && (size_t)n < sizeof body - 100);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, (size_t)n, hex);
    n += snprintf(body + n, sizeof body - (size_t)n, "end%c3%c%s%c", 0, 0, hex,
                  0);
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    int rc = cp_rt_artifact_parse(&a, body, (size_t)n, &e);
    if (!rc)
        cp_rt_artifact_free(&a);
    return rc;
}

/* A param name is an identifier: letters, '_', digits after the first;
 * anything else (':' and the rest of ASCII between '9' and 'A') is
 * refused, as is a leading digit. */
START_TEST(param_names)
{
    ck_assert_int_eq(parse_param("P"), 0);
    ck_assert_int_eq(parse_param("_p09Az"), 0);
    ck_assert_int_eq(parse_param("PROJECT_2"), 0);
    ck_assert_int_eq(parse_param("9P"), CP_RT_EXIT_ERROR);
    static const char *const bad[] = {"P:1", "P;", "P=", "P?", "P@", "P/",
                                      "P.",  "P-", "P ", "P[", "P`", "P{",
                                      ":P",  "@P", "[P", "`P", "{P"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse_param(bad[i]) == CP_RT_EXIT_ERROR, "'%s' taken",
                      bad[i]);
}
END_TEST

/* A SOCKS5 CONNECT to allowed.test:port through the proxy on pport, with
 * request version byte ver; returns the bytes of the answer (0: the
 * proxy closed without one). */
static ssize_t socks_connect(int pport, unsigned char ver, int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(s, 0);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((uint16_t)pport),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(connect(s, (struct sockaddr *)&sin, sizeof sin), 0);
    unsigned char hello[3] = {5, 1, 0}, got[16];
    ck_assert_int_eq(write(s, hello, 3), 3);
    ck_assert_int_eq(read(s, got, 2), 2);
    ck_assert(got[0] == 5 && got[1] == 0);
    unsigned char req[64] = {ver, 1, 0, 3, 12};
    memcpy(req + 5, "allowed.test", 12);
    req[17] = (unsigned char)(port >> 8);
    req[18] = (unsigned char)port;
    ck_assert_int_eq(write(s, req, 19), 19);
    ssize_t n = read(s, got, sizeof got);
    close(s);
    return n;
}

/* A proxy for allowed.test:PORT and 127.0.0.1:PORT, PORT a listening
 * socket of its own (*srv), allowed.test resolved by a hosts file (*hf,
 * removed by pin_proxy_stop). */
struct pin_proxy {
    int srv, port;
    char hf[32];
    struct cp_rt_artifact art;
    struct cp_rt_proxy px;
};

static void pin_proxy_start(struct pin_proxy *p)
{
    p->srv = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sin;
    ck_assert_int_eq(bind(p->srv, (struct sockaddr *)&sin, sizeof sin), 0);
    ck_assert_int_eq(listen(p->srv, 16), 0);
    ck_assert_int_eq(getsockname(p->srv, (struct sockaddr *)&sin, &sl), 0);
    p->port = ntohs(sin.sin_port);
    strcpy(p->hf, "/tmp/confpol-pin-hosts.XXXXXX");
    int fd = mkstemp(p->hf);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "127.0.0.1 allowed.test\n", 23), 23);
    close(fd);
    setenv("CONFPOL_PROXY_HOSTS", p->hf, 1);
    setenv("CONFPOL_PROXY_LOG", "/dev/null", 1);
    char body[512], rule[64], ip[64];
    snprintf(rule, sizeof rule, "allowed.test:%d", p->port);
    snprintf(ip, sizeof ip, "127.0.0.1:%d", p->port);
    int n = snprintf(body, sizeof body,
                     "confpol-bwrap%c1%cprofile%cconfined%carg%c--unshare-net%c"
                     "net%c%s%ct:2%cnet%c%s%ct:3%c",
                     0, 0, 0, 0, 0, 0, 0, rule, 0, 0, 0, ip, 0, 0);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(body, (size_t)n, hex);
    n += snprintf(body + n, sizeof body - (size_t)n, "end%c5%c%s%c", 0, 0, hex,
                  0);
    struct cp_rt_err e = {0};
    ck_assert_msg(cp_rt_artifact_parse(&p->art, body, (size_t)n, &e) == 0, "%s",
                  e.msg);
    ck_assert_msg(
        cp_rt_proxy_start(&p->art, CP_RT_PROXY_TCP, "test", &p->px, &e) == 0,
        "%s", e.msg);
}

static void pin_proxy_stop(struct pin_proxy *p)
{
    cp_rt_proxy_stop(&p->px, true);
    unlink(p->hf);
    unsetenv("CONFPOL_PROXY_HOSTS");
    unsetenv("CONFPOL_PROXY_LOG");
    cp_rt_artifact_free(&p->art);
    close(p->srv);
}

/* The proxy takes a SOCKS request only with version byte 5: one with
 * another is refused without an answer, the same with 5 connects. */
START_TEST(socks_request_version)
{
    struct pin_proxy p;
    pin_proxy_start(&p);
    ssize_t ok = socks_connect(p.px.port, 5, p.port);
    ssize_t bad = socks_connect(p.px.port, 4, p.port);
    pin_proxy_stop(&p);
    ck_assert_int_ge(ok, 2); /* 5, 0: succeeded */
    ck_assert_int_le(bad, 0);
}
END_TEST

/* The proxy's answer to one request (a tunnel's head). */
static void http_ask(int pport, const char *req, char *got, size_t size)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((uint16_t)pport),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    got[0] = '\0';
    if (connect(s, (struct sockaddr *)&sin, sizeof sin) == 0 &&
        write(s, req, strlen(req)) == (ssize_t)strlen(req)) {
        /* to the end of the answer (the proxy closes after a refusal),
         * or as much as fits: an answer may come in more than one read */
        size_t have = 0;
        ssize_t n;
        while (have < size - 1 &&
               (n = read(s, got + have, size - 1 - have)) > 0) {
            have += (size_t)n;
            if (!strncmp(got, "HTTP/1.1 200", 12) && strstr(got, "\r\n\r\n"))
                break; /* a tunnel stays open: its head is all */
        }
        got[have] = '\0';
    }
    close(s);
}

/* A request line without its version, or without a target, is answered
 * 400 saying so (not taken on with the fields it lacks) and the proxy goes
 * on serving: a valid CONNECT after each gets 200. */
START_TEST(http_malformed_line)
{
    static const char *const bad[] = {
        "GET http://allowed.test/\r\n\r\n", "GET\r\n\r\n",
        " http://allowed.test/ HTTP/1.1\r\n\r\n",
        "CONNECT allowed.test:1 FTP/1.0\r\n\r\n",
        "GET https://allowed.test/ HTTP/1.1\r\n\r\n"};
    static const char *const why[] = {
        "confpol: malformed request line\n",
        "confpol: malformed request line\n",
        "confpol: malformed request line\n",
        "confpol: malformed request line\n",
        "confpol: a proxy request needs an absolute http:// URI\n"};
    struct pin_proxy p;
    pin_proxy_start(&p);
    char got[1024], ok[64], req[128];
    snprintf(req, sizeof req, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n",
             p.port);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        http_ask(p.px.port, bad[i], got, sizeof got);
        http_ask(p.px.port, req, ok, sizeof ok);
        if (strncmp(got, "HTTP/1.1 400", 12) || !strstr(got, why[i]) ||
            strncmp(ok, "HTTP/1.1 200", 12)) {
            pin_proxy_stop(&p);
            ck_abort_msg("request %zu: answered '%.200s', then '%.12s'", i, got,
                         ok);
        }
    }
    pin_proxy_stop(&p);
}
END_TEST

Suite *cp_test_runtime_pin_suite(void)
{
    Suite *s = suite_create("runtime_pin");
    TCase *tc = tcase_create("runtime_pin");
    tcase_add_test(tc, define_name_length);
    tcase_add_test(tc, artifact_size_limit);
    tcase_add_test(tc, param_names);
    tcase_add_test(tc, socks_request_version);
    tcase_add_test(tc, http_malformed_line);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

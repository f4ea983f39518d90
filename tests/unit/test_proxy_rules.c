/* SPDX-License-Identifier: MIT */
/* The runtime's proxy with many rules (spec/runtime.md 14.3): a decision
 * over 50,000 `net` records keeps nothing sized by their number on a
 * connection thread's stack (256 KiB: an array of 50,001 indices there
 * overflowed it and killed the proxy): denials are answered. */
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netproxy.h"
#include "runtime.h"
#include "sha256.h"

enum { PR_RULES = 50000 };

/* An artifact of PR_RULES net records "net rN.example.com:443 rules:N"
 * (records NUL-separated, with the header and trailer of
 * spec/artifacts.md). */
static char *pr_artifact(size_t *len)
{
    char *p = NULL;
    FILE *f = open_memstream(&p, len);
    fwrite("confpol-bwrap\0"
           "1\0",
           1, 16, f);
    for (int i = 0; i < PR_RULES; i++) {
        fprintf(f, "net%cr%d.example.com:443%crules:%d", 0, i, 0, i + 1);
        fputc('\0', f);
    }
    fflush(f);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(p, *len, hex);
    fprintf(f, "end%c%d%c%s", 0, PR_RULES + 1, 0, hex);
    fputc('\0', f);
    fclose(f);
    return p;
}

/* The first line of the proxy's answer to CONNECT hostport, "" if none. */
static void pr_ask(int port, const char *hostport, char *got, size_t size)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(connect(s, (struct sockaddr *)&sin, sizeof sin), 0);
    char req[300];
    int n = snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", hostport);
    ck_assert_int_eq(write(s, req, (size_t)n), n);
    size_t have = 0;
    ssize_t r;
    while (have + 1 < size && (r = read(s, got + have, size - 1 - have)) > 0)
        have += (size_t)r;
    got[have] = '\0';
    close(s);
}

START_TEST(many_rules)
{
    signal(SIGPIPE, SIG_IGN);
    size_t len;
    char *data = pr_artifact(&len);
    struct cp_rt_artifact a;
    struct cp_rt_err e = {0};
    ck_assert_msg(cp_rt_artifact_parse(&a, data, len, &e) == 0, "%s", e.msg);
    setenv("CONFPOL_PROXY_LOG", "/dev/null", 1);
    struct cp_rt_proxy px;
    ck_assert_int_eq(cp_rt_proxy_start(&a, CP_RT_PROXY_TCP, "test", &px, &e),
                     0);
    char got[2048];
    pr_ask(px.port, "nothere.example.com:443", got, sizeof got);
    ck_assert_msg(!strncmp(got, "HTTP/1.1 403", 12), "answer: '%s'", got);
    ck_assert_ptr_nonnull(strstr(got, "X-Confpol-Rule: no rule\r\n"));
    /* The proxy is still there for the next one. */
    pr_ask(px.port, "other.example.com:443", got, sizeof got);
    ck_assert_msg(!strncmp(got, "HTTP/1.1 403", 12), "answer: '%s'", got);
    cp_rt_proxy_stop(&px, true);
    unsetenv("CONFPOL_PROXY_LOG");
    cp_rt_artifact_free(&a);
    free(data);
}
END_TEST

Suite *cp_test_proxy_rules_suite(void); /* collected by the Makefile */
Suite *cp_test_proxy_rules_suite(void)
{
    Suite *s = suite_create("proxy_rules");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, many_rules);
    suite_add_tcase(s, tc);
    return s;
}

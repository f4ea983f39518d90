/* SPDX-License-Identifier: MIT */
/* The runtime's filtering proxy against the decision model and the Claude
 * artifact, on every net rule of every example (spec/runtime.md 14): for
 * each rule a host it allows and hosts just outside it are asked of
 * `confpol explain`'s cp_decide, of a running proxy started from the
 * example's bwrap artifact (HTTP CONNECT; 403 is a denial), and of the
 * Claude artifact's sandbox.network.allowedDomains; all three agree. */
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "arena.h"
#include "backend.h"
#include "confpol.h"
#include "json.h"
#include "match.h"
#include "netproxy.h"

static char *np_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = malloc(1 << 20);
    *len = fread(b, 1, (1 << 20) - 64, f);
    fclose(f);
    b[*len] = '\0';
    return b;
}

/* The proxy's answer to CONNECT host:port: true unless 403. */
static bool np_proxy_allows(int port, const char *hostport)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(connect(s, (struct sockaddr *)&sin, sizeof sin), 0);
    char req[600], got[64] = "";
    int n = snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", hostport);
    ck_assert_int_eq(write(s, req, (size_t)n), n);
    ssize_t r = read(s, got, sizeof got - 1);
    close(s);
    ck_assert_msg(r > 12, "no answer to CONNECT %s", hostport);
    got[r] = '\0';
    return strncmp(got, "HTTP/1.1 403", 12) != 0;
}

static bool np_claude_allows(const struct cp_jnode *domains, const char *host)
{
    for (size_t i = 0; domains->type == CP_J_ARR && i < domains->n; i++) {
        const char *p = domains->items[i]->s;
        size_t hl = strlen(host), pl = strlen(p);
        if (!strncmp(p, "*.", 2)) {
            if (hl > pl - 1 && !strcmp(host + hl - (pl - 1), p + 1))
                return true;
        } else if (!strcmp(p, host)) {
            return true;
        }
    }
    return false;
}

static int np_examples_checked;

static void np_example(const char *path)
{
    size_t len;
    char *text = np_read(path, &len);
    ck_assert_ptr_nonnull(text);
    if (!strstr(text, "net allow")) {
        free(text);
        return;
    }
    /* Names are mapped to 127.0.0.1 (CONFPOL_PROXY_HOSTS), so the address
     * itself is allowed too: the anti-rebinding check then lets a name
     * through exactly when its name is allowed.  No name matches an IP
     * rule, so the added rule changes no answer below. */
    strcat(text, "\nnet allow 127.0.0.1\n");
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    ck_assert_int_eq(cp_parse_memory(&cx, path, text, strlen(text)), 0);
    ck_assert_int_eq(cp_resolve(&cx), 0);
    const struct cp_policy *p = cx.policy;

    struct cp_backend_opts o = {0};
    struct cp_buf bw = {0}, cl = {0};
    ck_assert(
        cp_backend_emit(&cp_backend_bwrap, p, &o, cx.arena, &cx.diags, &bw));
    ck_assert(
        cp_backend_emit(&cp_backend_claude, p, &o, cx.arena, &cx.diags, &cl));
    struct cp_jnode *j = NULL;
    ck_assert_ptr_null(cp_json_parse(cx.arena, cl.data, cl.len, &j));
    const struct cp_jnode *domains = cp_json_get(
        cp_json_get(cp_json_get(j, "sandbox", NULL), "network", NULL),
        "allowedDomains", NULL);
    ck_assert_ptr_nonnull(domains);

    /* Probe hosts: each rule's own, and near misses. */
    const char *hosts[256];
    size_t nh = 0;
    struct cp_arena *a = cx.arena;
    for (size_t i = 0; i < p->nrules && nh < 250; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_ALLOW || r->u.dom.kind != CP_HOST_NAME)
            continue;
        const char *n = r->u.dom.name;
        hosts[nh++] = r->u.dom.wildcard ? cp_arena_printf(a, "probe.%s", n) : n;
        hosts[nh++] = cp_arena_printf(a, "x%s", n);
        hosts[nh++] = cp_arena_printf(a, "%s.evil.test", n);
        if (r->u.dom.wildcard)
            hosts[nh++] = n; /* the apex */
        else
            hosts[nh++] = cp_arena_printf(a, "sub.%s", n);
    }
    hosts[nh++] = "evil.test";

    char hf[] = "/tmp/confpol-unit-hosts.XXXXXX";
    int fd = mkstemp(hf);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (size_t i = 0; i < nh; i++)
        fprintf(f, "127.0.0.1 %s\n", hosts[i]);
    fclose(f);
    setenv("CONFPOL_PROXY_HOSTS", hf, 1);
    setenv("CONFPOL_PROXY_LOG", "/dev/null", 1);

    struct cp_rt_artifact art;
    struct cp_rt_err e = {0};
    ck_assert_int_eq(cp_rt_artifact_parse(&art, bw.data, bw.len, &e), 0);
    struct cp_rt_proxy px;
    ck_assert_int_eq(cp_rt_proxy_start(&art, CP_RT_PROXY_TCP, "test", &px, &e),
                     0);
    ck_assert_int_gt(px.port, 0);

    for (size_t i = 0; i < nh; i++) {
        const char *hp = cp_arena_printf(a, "%s:443", hosts[i]);
        struct cp_decision d;
        ck_assert_int_eq(cp_decide(p, CP_ACC_NET, hp, a, &d), 0);
        bool model = d.verdict == CP_ALLOW;
        bool proxy = np_proxy_allows(px.port, hp);
        bool claude = np_claude_allows(domains, hosts[i]);
        ck_assert_msg(model == proxy, "%s: %s: explain %s, proxy %s", path, hp,
                      model ? "allows" : "denies", proxy ? "allows" : "denies");
        ck_assert_msg(model == claude, "%s: %s: explain %s, claude %s", path,
                      hosts[i], model ? "allows" : "denies",
                      claude ? "allows" : "denies");
    }
    cp_rt_proxy_stop(&px, true);
    unlink(hf);
    unsetenv("CONFPOL_PROXY_HOSTS");
    unsetenv("CONFPOL_PROXY_LOG");
    cp_rt_artifact_free(&art);
    free(bw.data);
    free(cl.data);
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
    free(text);
    np_examples_checked++;
}

START_TEST(examples_agree)
{
    signal(SIGPIPE, SIG_IGN);
    DIR *dir = opendir("examples");
    ck_assert_ptr_nonnull(dir);
    struct dirent *de;
    while ((de = readdir(dir))) {
        size_t l = strlen(de->d_name);
        if (l > 8 && !strcmp(de->d_name + l - 8, ".confpol")) {
            char path[512];
            snprintf(path, sizeof path, "examples/%s", de->d_name);
            np_example(path);
        }
    }
    closedir(dir);
    /* The check can fail: examples with allow-lists exist. */
    ck_assert_int_ge(np_examples_checked, 2);
}
END_TEST

Suite *cp_test_netproxy_suite(void); /* collected by the Makefile */
Suite *cp_test_netproxy_suite(void)
{
    Suite *s = suite_create("netproxy");
    TCase *tc = tcase_create("parity");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, examples_agree);
    suite_add_tcase(s, tc);
    return s;
}

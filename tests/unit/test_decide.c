/* SPDX-License-Identifier: MIT */
/* The decision model (compiler/decide.c): a table of questions against
 * policies, with the verdict, the deciding rules, the default and the
 * unbound-param caveat of each answer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"

static struct cp_ctx dcx;

static void dc_load(const char *text, const struct cp_define *d, size_t nd)
{
    cp_ctx_init(&dcx);
    dcx.opts.defines = (struct cp_define *)d;
    dcx.opts.ndefines = nd;
    ck_assert_int_eq(cp_parse_memory(&dcx, "t.confpol", text, strlen(text)), 0);
    ck_assert_int_eq(cp_resolve(&dcx), 0);
    ck_assert_uint_eq(cp_diag_errors(&dcx.diags), 0);
}

static void dc_unload(void)
{
    cp_policy_free(dcx.policy);
    cp_ctx_free(&dcx);
}

/* want: "VERDICT[ by LINE,LINE...| default][ may PARAM]" where LINE is the
 * source line of a deciding rule, or 0 for an implicit one. */
static void dc_ask(enum cp_access acc, const char *subject, const char *want)
{
    struct cp_decision d;
    ck_assert_int_eq(cp_decide(dcx.policy, acc, subject, dcx.arena, &d), 0);
    struct cp_buf b = {0};
    cp_buf_adds(&b, cp_verdict_text(d.verdict));
    if (d.by_default)
        cp_buf_adds(&b, " default");
    for (size_t i = 0; i < d.nrules; i++)
        cp_buf_printf(&b, "%s%u", i ? "," : " by ",
                      d.rules[i]->loc.src ? d.rules[i]->loc.line : 0);
    if (d.unbound_param)
        cp_buf_printf(&b, " may %s", d.unbound_param);
    ck_assert_msg(strcmp(b.data, want) == 0, "%s %s: got '%s', want '%s'",
                  cp_access_text(acc), subject, b.data, want);
    cp_buf_free(&b);
}

static const char *const pol_basic = "confpol 1\n"                  /* 1 */
                                     "profile cooperative\n"        /* 2 */
                                     "write ${PROJECT}\n"           /* 3 */
                                     "deny write ${PROJECT}/.git\n" /* 4 */
                                     "deny read ${PROJECT}/.env\n"  /* 5 */
                                     "deny read /etc/shadow\n"      /* 6 */
                                     "deny exec /usr/bin/sudo\n"    /* 7 */
                                     "write /tmp/*.log\n";          /* 8 */

START_TEST(read_write_exec)
{
    dc_load(pol_basic, NULL, 0);
    dc_ask(CP_ACC_READ, "/etc/passwd", "allow default");
    dc_ask(CP_ACC_READ, "/etc/shadow", "deny by 6");
    dc_ask(CP_ACC_READ, "${PROJECT}/.env/x", "deny by 5");
    /* /etc/shadow may lie under an unbound PROJECT */
    dc_ask(CP_ACC_READ, "${PROJECT}/.envx", "allow default may PROJECT");
    dc_ask(CP_ACC_WRITE, "${PROJECT}/src/a.c", "allow by 3");
    dc_ask(CP_ACC_WRITE, "${PROJECT}", "allow by 3");
    dc_ask(CP_ACC_WRITE, "${PROJECT}/.git/config", "deny by 4");
    dc_ask(CP_ACC_WRITE, "${PROJECT}/.env", "allow by 3"); /* read-only deny */
    dc_ask(CP_ACC_WRITE, "/tmp/a.log", "allow by 8");
    dc_ask(CP_ACC_WRITE, "/tmp/a.log/inner", "allow by 8");
    dc_ask(CP_ACC_WRITE, "/tmp/a.txt", "deny default may PROJECT");
    /* exec: no exec rule, so allowed unless deny exec or deny read */
    dc_ask(CP_ACC_EXEC, "/usr/bin/ls", "allow default");
    dc_ask(CP_ACC_EXEC, "/usr/bin/sudo", "deny by 7");
    dc_ask(CP_ACC_EXEC, "/etc/shadow", "deny by 6");
    dc_unload();
}
END_TEST

START_TEST(exec_allow_list)
{
    dc_load("confpol 1\nprofile cooperative\nexec /usr/bin\n"
            "deny read /usr/bin/secret\ndeny exec /usr/bin/su*\n",
            NULL, 0);
    dc_ask(CP_ACC_EXEC, "/usr/bin/ls", "allow by 3");
    dc_ask(CP_ACC_EXEC, "/bin/ls", "deny default");
    dc_ask(CP_ACC_EXEC, "/usr/bin/secret", "deny by 4");
    dc_ask(CP_ACC_EXEC, "/usr/bin/sudo", "deny by 5");
    dc_unload();
}
END_TEST

/* Deny wins whatever the order. */
START_TEST(deny_wins_any_order)
{
    dc_load("confpol 1\nprofile cooperative\ndeny write /srv/a\nwrite /srv\n"
            "deny write /srv/a/b\n",
            NULL, 0);
    dc_ask(CP_ACC_WRITE, "/srv/a/b/c", "deny by 3,5");
    dc_ask(CP_ACC_WRITE, "/srv/b", "allow by 4");
    dc_unload();
}
END_TEST

START_TEST(net_modes)
{
    dc_load("confpol 1\nprofile cooperative\n", NULL, 0);
    dc_ask(CP_ACC_NET, "example.com", "allow default");
    dc_unload();
    dc_load("confpol 1\nprofile cooperative\nnet allow *.example.com "
            "github.com\n",
            NULL, 0);
    dc_ask(CP_ACC_NET, "api.example.com", "allow by 3");
    dc_ask(CP_ACC_NET, "GitHub.com.", "allow by 3");
    dc_ask(CP_ACC_NET, "example.com", "deny default");
    dc_ask(CP_ACC_NET, "evil.com", "deny default");
    dc_unload();
    dc_load("confpol 1\nprofile exclusive\n", NULL, 0);
    dc_ask(CP_ACC_NET, "example.com", "deny by 0");
    dc_unload();
}
END_TEST

/* socket (spec/semantics.md 2.3): exact paths only, the deny read wins,
 * the deciding rule is the net deny (or none under an allow-list), every
 * socket with the network open; params bound or opaque. */
START_TEST(socket_modes)
{
    dc_load("confpol 1\nprofile cooperative\nnet socket /run/a.sock\n", NULL,
            0);
    dc_ask(CP_ACC_SOCKET, "/run/b.sock", "allow default");
    dc_unload();
    dc_load("confpol 1\n"                               /* 1 */
            "profile cooperative\n"                     /* 2 */
            "param SOCK\n"                              /* 3 */
            "net deny\n"                                /* 4 */
            "net socket /run/a.sock ~/.gnupg/S.agent\n" /* 5 */
            "deny read /srv\n"                          /* 6 */
            "net socket ${SOCK} /srv/x.sock\n"          /* 7 */
            "net socket /run/a.sock\n",                 /* 8 */
            NULL, 0);
    dc_ask(CP_ACC_SOCKET, "/run/a.sock", "allow by 5,8");
    dc_ask(CP_ACC_SOCKET, "/run/a.sock/x", "deny by 4 may SOCK");
    dc_ask(CP_ACC_SOCKET, "/run", "deny by 4 may SOCK");
    dc_ask(CP_ACC_SOCKET, "~/.gnupg/S.agent", "allow by 5 may HOME");
    dc_ask(CP_ACC_SOCKET, "${SOCK}", "allow by 7 may SOCK");
    /* no binding makes ~/.gnupg/S.agent name it: the last names differ */
    dc_ask(CP_ACC_SOCKET, "${SOCK}/x", "deny by 4");
    dc_ask(CP_ACC_SOCKET, "${SOCK}/S.agent", "deny by 4 may SOCK");
    dc_ask(CP_ACC_SOCKET, "/srv2/.gnupg/S.agent", "deny by 4 may HOME");
    dc_ask(CP_ACC_SOCKET, "/.gnupg/S.agent", "deny by 4 may HOME");
    dc_ask(CP_ACC_SOCKET, "/S.agent", "deny by 4 may SOCK");
    dc_ask(CP_ACC_SOCKET, "/srv/x.sock", "deny by 6");
    dc_unload();
    static const struct cp_define d[] = {{"SOCK", "/run/agent"}};
    dc_load("confpol 1\nprofile cooperative\nparam SOCK\n"
            "net allow github.com\nnet socket ${SOCK}\n",
            d, 1);
    dc_ask(CP_ACC_SOCKET, "/run/agent", "allow by 5");
    dc_ask(CP_ACC_SOCKET, "/run/agent2", "deny default");
    dc_unload();
}
END_TEST

START_TEST(gate_verdicts)
{
    dc_load("confpol 1\nprofile cooperative\n"
            "gate ask re\"(^|[;&| ])sudo( |$)\"\n"
            "gate deny re\"rm -rf /($| )\"\n"
            "gate ask re\"git push\"\n",
            NULL, 0);
    dc_ask(CP_ACC_GATE, "ls -la", "allow default");
    dc_ask(CP_ACC_GATE, "sudo ls", "ask by 3");
    dc_ask(CP_ACC_GATE, "cd / && sudo rm -rf / ", "deny by 4");
    dc_ask(CP_ACC_GATE, "git push origin", "ask by 5");
    dc_unload();
}
END_TEST

/* Implicit rules decide like written ones, and say so (line 0). */
START_TEST(implicit_rules_decide)
{
    dc_load("confpol 1\nprofile exclusive\nwrite ${PROJECT}\nwrite ~\n", NULL,
            0);
    dc_ask(CP_ACC_WRITE, "${PROJECT}/t.confpol", "deny by 0");
    dc_ask(CP_ACC_READ, "~/.config/confpol/key", "deny by 0");
    dc_ask(CP_ACC_WRITE, "~/.config/confpol/key", "deny by 0");
    dc_ask(CP_ACC_READ, "~/.ssh/id_rsa", "deny by 0");
    /* HOME might be bound under PROJECT/t.confpol */
    dc_ask(CP_ACC_WRITE, "~/.ssh/id_rsa", "allow by 4 may HOME");
    dc_ask(CP_ACC_READ, "~/.aws", "deny by 0");
    dc_ask(CP_ACC_READ, "~/.awsx", "allow default");
    dc_unload();
}
END_TEST

/* Unbound params: opaque roots, assumed unrelated; the caveat names the
 * param when another binding would change the verdict.  Bound with -D, the
 * answer is exact and the caveat is gone. */
START_TEST(unbound_params)
{
    const char *pol = "confpol 1\nprofile cooperative\nwrite ${PROJECT}\n"
                      "deny write ~/.ssh\n";
    dc_load(pol, NULL, 0);
    dc_ask(CP_ACC_WRITE, "${PROJECT}/a", "allow by 3 may HOME");
    dc_ask(CP_ACC_WRITE, "~/x", "deny default may HOME");
    dc_ask(CP_ACC_WRITE, "/etc/x", "deny default may PROJECT");
    dc_ask(CP_ACC_READ, "~/.ssh", "allow default");
    dc_unload();
    struct cp_define d[] = {{"PROJECT", "/home/u/p"}, {"HOME", "/home/u"}};
    dc_load(pol, d, 2);
    dc_ask(CP_ACC_WRITE, "${PROJECT}/a", "allow by 3");
    dc_ask(CP_ACC_WRITE, "/home/u/p/a", "allow by 3");
    dc_ask(CP_ACC_WRITE, "~/x", "deny default");
    dc_unload();
    /* a param bound inside another's tree */
    struct cp_define d2[] = {{"PROJECT", "/home/u/.ssh"}, {"HOME", "/home/u"}};
    dc_load(pol, d2, 2);
    dc_ask(CP_ACC_WRITE, "${PROJECT}/a", "deny by 4");
    dc_unload();
}
END_TEST

START_TEST(invalid_subjects)
{
    dc_load(pol_basic, NULL, 0);
    struct cp_decision d;
    ck_assert_int_ne(
        cp_decide(dcx.policy, CP_ACC_WRITE, "src/x", dcx.arena, &d), 0);
    ck_assert_int_ne(
        cp_decide(dcx.policy, CP_ACC_WRITE, "/a/../b", dcx.arena, &d), 0);
    ck_assert_int_ne(
        cp_decide(dcx.policy, CP_ACC_READ, "${NOPE}/x", dcx.arena, &d), 0);
    ck_assert_int_ne(cp_decide(dcx.policy, CP_ACC_NET, "", dcx.arena, &d), 0);
    dc_unload();
}
END_TEST

Suite *cp_test_decide_suite(void); /* collected by the Makefile */
Suite *cp_test_decide_suite(void)
{
    Suite *s = suite_create("decide");
    TCase *tc = tcase_create("decide");
    tcase_add_test(tc, read_write_exec);
    tcase_add_test(tc, exec_allow_list);
    tcase_add_test(tc, deny_wins_any_order);
    tcase_add_test(tc, net_modes);
    tcase_add_test(tc, gate_verdicts);
    tcase_add_test(tc, implicit_rules_decide);
    tcase_add_test(tc, unbound_params);
    tcase_add_test(tc, socket_modes);
    tcase_add_test(tc, invalid_subjects);
    suite_add_tcase(s, tc);
    return s;
}

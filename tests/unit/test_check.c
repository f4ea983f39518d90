/* SPDX-License-Identifier: MIT */
/* The analysis (compiler/check.c): every diagnostic fires on one input and
 * stays silent on a near miss, compared as exact rendered text; plus the
 * redundancy flag, -Wvacuous-deny, capped notes and source order. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confpol.h"

/* Compiles `text` as the in-memory file t.confpol (parse, resolve, check)
 * and returns the text rendering of its diagnostics (heap). */
static char *chk_run(const char *text, const char *wopt, struct cp_ctx *keep)
{
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    if (wopt)
        ck_assert(cp_diags_set_warning(&cx.diags, wopt, true));
    if (cp_parse_memory(&cx, "t.confpol", text, strlen(text)) == 0 &&
        cp_diag_errors(&cx.diags) == 0 && cp_resolve(&cx) == 0 &&
        cp_diag_errors(&cx.diags) == 0)
        cp_check(&cx);
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cp_diags_render_text(&cx.diags, f);
    fclose(f);
    if (keep) {
        *keep = cx;
    } else {
        cp_policy_free(cx.policy);
        cp_ctx_free(&cx);
    }
    return p;
}

static void chk_expect(const char *text, const char *wopt, const char *want)
{
    char *got = chk_run(text, wopt, NULL);
    ck_assert_str_eq(got, want);
    free(got);
}
START_TEST(shadowed_fires)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny write ${PROJECT}/.claude\n"
               "write ${PROJECT}/.claude/hooks\n",
               NULL,
               "t.confpol:5:7: warning: 'write ${PROJECT}/.claude/hooks' is "
               "shadowed: every path it names is denied by 'deny write "
               "${PROJECT}/.claude' [CP0501] [-Wshadowed]\n"
               "    5 | write ${PROJECT}/.claude/hooks\n"
               "      |       ^~~~~~~~~~~~~~~~~~~~~~~~\n"
               "t.confpol:4:12: note: 'deny write ${PROJECT}/.claude' is here\n"
               "    4 | deny write ${PROJECT}/.claude\n"
               "      |            ^~~~~~~~~~~~~~~~~~\n"
               "t.confpol:5:7: note: remove 'write ${PROJECT}/.claude/hooks': "
               "a deny always wins\n"
               "1 warning\n");
}
END_TEST
START_TEST(shadowed_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write /srv\n"
               "deny write /srv/.claude\n"
               "write /opt/.claude/hooks\n"
               "write /srv2/.claudex\n",
               NULL, "");
}
END_TEST
START_TEST(shadowed_exec)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "deny exec /opt\n"
        "exec /opt/tool/bin\n",
        NULL,
        "t.confpol:4:6: warning: 'exec /opt/tool/bin' is shadowed: every path "
        "it names is denied by 'deny exec /opt' [CP0501] [-Wshadowed]\n"
        "    4 | exec /opt/tool/bin\n"
        "      |      ^~~~~~~~~~~~~\n"
        "t.confpol:3:11: note: 'deny exec /opt' is here\n"
        "    3 | deny exec /opt\n"
        "      |           ^~~~\n"
        "t.confpol:4:6: note: remove 'exec /opt/tool/bin': a deny always wins\n"
        "1 warning\n");
}
END_TEST
START_TEST(shadowed_net)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "net deny\n"
        "net allow example.com\n",
        NULL,
        "t.confpol:4:11: warning: 'net allow example.com' is shadowed: 'net "
        "deny' turns the network off [CP0501] [-Wshadowed]\n"
        "    4 | net allow example.com\n"
        "      |           ^~~~~~~~~~~\n"
        "t.confpol:3:1: note: 'net deny' is here\n"
        "    3 | net deny\n"
        "      | ^~~~~~~~\n"
        "t.confpol:4:11: note: remove 'net allow example.com' or 'net deny'\n"
        "1 warning\n");
}
END_TEST
START_TEST(redundant_fires)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny write ${PROJECT}/.claude\n"
               "deny write ${PROJECT}/.claude/settings.json\n",
               NULL,
               "t.confpol:5:12: warning: 'deny write "
               "${PROJECT}/.claude/settings.json' is redundant: 'deny write "
               "${PROJECT}/.claude' already covers every path it names "
               "[CP0502] [-Wredundant]\n"
               "    5 | deny write ${PROJECT}/.claude/settings.json\n"
               "      |            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
               "t.confpol:4:12: note: 'deny write ${PROJECT}/.claude' is here\n"
               "    4 | deny write ${PROJECT}/.claude\n"
               "      |            ^~~~~~~~~~~~~~~~~~\n"
               "t.confpol:5:12: note: remove 'deny write "
               "${PROJECT}/.claude/settings.json'\n"
               "1 warning\n");
}
END_TEST
START_TEST(redundant_container_later)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write ${PROJECT}\n"
        "deny write ${PROJECT}/.claude/*\n"
        "deny write ${PROJECT}/.claude\n",
        NULL,
        "t.confpol:4:12: warning: 'deny write ${PROJECT}/.claude/*' is "
        "redundant: 'deny write ${PROJECT}/.claude' already covers every path "
        "it names [CP0502] [-Wredundant]\n"
        "    4 | deny write ${PROJECT}/.claude/*\n"
        "      |            ^~~~~~~~~~~~~~~~~~~~\n"
        "t.confpol:5:12: note: 'deny write ${PROJECT}/.claude' is here\n"
        "    5 | deny write ${PROJECT}/.claude\n"
        "      |            ^~~~~~~~~~~~~~~~~~\n"
        "t.confpol:4:12: note: remove 'deny write ${PROJECT}/.claude/*'\n"
        "1 warning\n");
}
END_TEST
START_TEST(redundant_glob_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny write ${PROJECT}/.claude/*.json\n"
               "deny write ${PROJECT}/.claude/settings.local.jsonx\n",
               NULL, "");
}
END_TEST
START_TEST(redundant_equal_languages)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "deny read /srv/a/**\n"
        "deny read /srv/a\n",
        NULL,
        "t.confpol:4:11: warning: 'deny read /srv/a' is redundant: 'deny read "
        "/srv/a/**' already covers every path it names [CP0502] [-Wredundant]\n"
        "    4 | deny read /srv/a\n"
        "      |           ^~~~~~\n"
        "t.confpol:3:11: note: 'deny read /srv/a/**' is here\n"
        "    3 | deny read /srv/a/**\n"
        "      |           ^~~~~~~~~\n"
        "t.confpol:4:11: note: remove 'deny read /srv/a'\n"
        "1 warning\n");
}
END_TEST
START_TEST(redundant_implicit)
{
    chk_expect(
        "confpol 1\n"
        "profile confined\n"
        "write ${PROJECT}\n"
        "deny write ${PROJECT}/t.confpol\n",
        NULL,
        "t.confpol:4:12: warning: 'deny write ${PROJECT}/t.confpol' is "
        "redundant: 'deny write ${PROJECT}/t.confpol' already covers every "
        "path it names [CP0502] [-Wredundant]\n"
        "    4 | deny write ${PROJECT}/t.confpol\n"
        "      |            ^~~~~~~~~~~~~~~~~~~~\n"
        "t.confpol:2:1: note: 'deny write ${PROJECT}/t.confpol' is added by "
        "profile confined (policy source file)\n"
        "    2 | profile confined\n"
        "      | ^~~~~~~~~~~~~~~~\n"
        "t.confpol:4:12: note: remove 'deny write ${PROJECT}/t.confpol'\n"
        "1 warning\n");
}
END_TEST
START_TEST(redundant_param_may_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "deny read ~/.ssh\n"
               "deny read ${PROJECT}/.ssh\n",
               NULL, "");
}
END_TEST
START_TEST(redundant_net)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "net allow *.example.com a.example.com example.com\n",
               NULL,
               "t.confpol:3:25: warning: 'net allow a.example.com' is "
               "redundant: 'net allow *.example.com' already covers every host "
               "it names [CP0502] [-Wredundant]\n"
               "    3 | net allow *.example.com a.example.com example.com\n"
               "      |                         ^~~~~~~~~~~~~\n"
               "t.confpol:3:11: note: 'net allow *.example.com' is here\n"
               "    3 | net allow *.example.com a.example.com example.com\n"
               "      |           ^~~~~~~~~~~~~\n"
               "t.confpol:3:25: note: remove 'net allow a.example.com'\n"
               "1 warning\n");
}
END_TEST
START_TEST(conflict_exec)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "deny read /usr\n"
               "exec /usr/bin\n",
               NULL,
               "t.confpol:4:6: error: 'exec /usr/bin' conflicts with 'deny "
               "read /usr': every path it names is denied for reading, so none "
               "can be executed [CP0503]\n"
               "    4 | exec /usr/bin\n"
               "      |      ^~~~~~~~\n"
               "t.confpol:3:11: note: 'deny read /usr' is here\n"
               "    3 | deny read /usr\n"
               "      |           ^~~~\n"
               "t.confpol:4:6: note: remove the exec rule or narrow the deny\n"
               "1 error\n");
}
END_TEST
START_TEST(conflict_exec_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "deny read /usr/lib\n"
               "exec /usr/bin\n",
               NULL, "");
}
END_TEST
START_TEST(conflict_exec_implicit)
{
    chk_expect("confpol 1\n"
               "profile exclusive\n"
               "exec ~/.ssh/bin\n",
               NULL,
               "t.confpol:3:6: error: 'exec ~/.ssh/bin' conflicts with 'deny "
               "read ~/.ssh': every path it names is denied for reading, so "
               "none can be executed [CP0503]\n"
               "    3 | exec ~/.ssh/bin\n"
               "      |      ^~~~~~~~~~\n"
               "t.confpol:2:1: note: 'deny read ~/.ssh' is added by profile "
               "exclusive (credential store)\n"
               "    2 | profile exclusive\n"
               "      | ^~~~~~~~~~~~~~~~~\n"
               "t.confpol:3:6: note: remove the exec rule or narrow the deny\n"
               "1 error\n");
}
END_TEST
START_TEST(conflict_write)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "deny write /srv/x\n"
               "write /srv/x\n",
               NULL,
               "t.confpol:4:7: error: 'write /srv/x' conflicts with 'deny "
               "write /srv/x': the same paths are allowed and denied [CP0503]\n"
               "    4 | write /srv/x\n"
               "      |       ^~~~~~\n"
               "t.confpol:3:12: note: 'deny write /srv/x' is here\n"
               "    3 | deny write /srv/x\n"
               "      |            ^~~~~~\n"
               "t.confpol:4:7: note: remove one of the two rules\n"
               "1 error\n");
}
END_TEST
START_TEST(conflict_write_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write /srv\n"
               "deny write /srv/x\n",
               NULL, "");
}
END_TEST
START_TEST(unreadable_write)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny read ${PROJECT}/.env\n",
               NULL,
               "t.confpol:4:11: warning: 'write ${PROJECT}' overlaps 'deny "
               "read ${PROJECT}/.env': paths there can be written but not read "
               "[CP0504] [-Wunreadable-write]\n"
               "    4 | deny read ${PROJECT}/.env\n"
               "      |           ^~~~~~~~~~~~~~~\n"
               "t.confpol:3:7: note: 'write ${PROJECT}' is here\n"
               "    3 | write ${PROJECT}\n"
               "      |       ^~~~~~~~~~\n"
               "t.confpol:4:11: note: add 'deny write ${PROJECT}/.env' so that "
               "the region is neither read nor written\n"
               "1 warning\n");
}
END_TEST
START_TEST(unreadable_write_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny read ${PROJECT}/.env\n"
               "deny write ${PROJECT}/.env\n",
               NULL, "");
}
END_TEST
START_TEST(unreadable_write_may_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny read ~/.ssh\n",
               NULL, "");
}
END_TEST
START_TEST(vacuous_note)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write /srv\n"
               "deny write /etc/passwd\n",
               NULL,
               "t.confpol:4:12: note: 'deny write /etc/passwd' is never "
               "reached: no write rule names a path it covers, and writing is "
               "denied by default [CP0505] [-Wvacuous-deny]\n"
               "    4 | deny write /etc/passwd\n"
               "      |            ^~~~~~~~~~~\n"
               "t.confpol:4:12: note: remove it, or add the allow rule it is "
               "meant to restrict\n");
}
END_TEST
START_TEST(vacuous_warning)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write /srv\n"
               "deny write /etc/passwd\n",
               "vacuous-deny",
               "t.confpol:4:12: warning: 'deny write /etc/passwd' is never "
               "reached: no write rule names a path it covers, and writing is "
               "denied by default [CP0505] [-Wvacuous-deny]\n"
               "    4 | deny write /etc/passwd\n"
               "      |            ^~~~~~~~~~~\n"
               "t.confpol:4:12: note: remove it, or add the allow rule it is "
               "meant to restrict\n"
               "1 warning\n");
}
END_TEST
START_TEST(vacuous_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write /etc\n"
               "deny write /etc/passwd\n",
               NULL, "");
}
END_TEST
START_TEST(vacuous_may_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "write ${PROJECT}\n"
               "deny write /etc/passwd\n",
               NULL, "");
}
END_TEST
START_TEST(vacuous_exec)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "exec /usr/bin\n"
               "deny exec /opt/x\n",
               NULL,
               "t.confpol:4:11: note: 'deny exec /opt/x' is never reached: no "
               "exec rule names a path it covers, and exec is an allow-list "
               "[CP0505] [-Wvacuous-deny]\n"
               "    4 | deny exec /opt/x\n"
               "      |           ^~~~~~\n"
               "t.confpol:4:11: note: remove it, or add the allow rule it is "
               "meant to restrict\n");
}
END_TEST
START_TEST(vacuous_exec_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "deny exec /opt/x\n",
               NULL, "");
}
END_TEST
START_TEST(shadowed_gate)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "gate deny \"git push *\"\n"
               "gate ask \"git push --force *\"\n",
               NULL,
               "t.confpol:4:10: warning: 'gate ask \"git push --force *\"' is "
               "shadowed: 'gate deny \"git push *\"' refuses every command it "
               "matches [CP0506] [-Wshadowed-gate]\n"
               "    4 | gate ask \"git push --force *\"\n"
               "      |          ^~~~~~~~~~~~~~~~~~~~\n"
               "t.confpol:3:11: note: 'gate deny \"git push *\"' is here\n"
               "    3 | gate deny \"git push *\"\n"
               "      |           ^~~~~~~~~~~~\n"
               "t.confpol:4:10: note: remove 'gate ask \"git push --force "
               "*\"': a gate deny always wins\n"
               "1 warning\n");
}
END_TEST
START_TEST(shadowed_gate_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "gate deny \"git push --force *\"\n"
               "gate ask \"git push *\"\n",
               NULL, "");
}
END_TEST
START_TEST(redundant_gate)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "gate ask \"rm -rf *\"\n"
               "gate ask \"rm -rf /tmp/*\"\n",
               NULL,
               "t.confpol:4:10: warning: 'gate ask \"rm -rf /tmp/*\"' is "
               "redundant: 'gate ask \"rm -rf *\"' already matches every "
               "command it matches [CP0507] [-Wredundant-gate]\n"
               "    4 | gate ask \"rm -rf /tmp/*\"\n"
               "      |          ^~~~~~~~~~~~~~~\n"
               "t.confpol:3:10: note: 'gate ask \"rm -rf *\"' is here\n"
               "    3 | gate ask \"rm -rf *\"\n"
               "      |          ^~~~~~~~~~\n"
               "t.confpol:4:10: note: remove 'gate ask \"rm -rf /tmp/*\"'\n"
               "1 warning\n");
}
END_TEST
START_TEST(whole_command_gate)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "gate deny \"git push\"\n",
        NULL,
        "t.confpol:3:11: warning: 'git push' matches a command only "
        "when it has no other word (a pattern matches the whole "
        "command: 'git push x' is not matched) [CP0510] "
        "[-Wwhole-command-gate]\n"
        "    3 | gate deny \"git push\"\n"
        "      |           ^~~~~~~~~~\n"
        "t.confpol:3:11: note: write \"git push *\" to match it followed "
        "by any words (-Wno-whole-command-gate if the bare command is "
        "meant)\n"
        "1 warning\n");
}
END_TEST
START_TEST(whole_command_gate_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "gate deny \"git push *\"\n"
               "gate ask \"tee ** *.bashrc\"\n"
               "gate ask \">*.profile\"\n"
               "gate ask unknown\n"
               "gate ask re\"pip install\"\n"
               "gate ask \"rm -rf /tmp/*\"\n",
               NULL, "");
}
END_TEST
START_TEST(redundant_gate_near_miss)
{
    chk_expect("confpol 1\n"
               "profile cooperative\n"
               "gate ask \"rm -rf *\"\n"
               "gate deny \"rm -rf /tmp/*\"\n",
               NULL, "");
}
END_TEST
START_TEST(expect_fails)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write /srv\n"
        "expect allow write /etc/passwd\n"
        "expect deny write /srv/a\n"
        "expect allow write /srv/a\n",
        NULL,
        "t.confpol:4:1: error: expect allow write /etc/passwd failed: the "
        "policy denies it [CP0601]\n"
        "    4 | expect allow write /etc/passwd\n"
        "      | ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "confpol: note: no 'write' rule matches; writing is denied by default\n"
        "t.confpol:4:1: note: fix the policy or the expectation\n"
        "t.confpol:5:1: error: expect deny write /srv/a failed: the policy "
        "allows it [CP0601]\n"
        "    5 | expect deny write /srv/a\n"
        "      | ^~~~~~~~~~~~~~~~~~~~~~~~\n"
        "t.confpol:3:7: note: decided by 'write /srv'\n"
        "    3 | write /srv\n"
        "      |       ^~~~\n"
        "t.confpol:5:1: note: fix the policy or the expectation\n"
        "2 errors\n");
}
END_TEST
START_TEST(expect_unbound)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write ${PROJECT}\n"
        "expect allow write ~/x\n",
        NULL,
        "t.confpol:4:1: error: expect allow write ~/x failed: the policy "
        "denies it [CP0601]\n"
        "    4 | expect allow write ~/x\n"
        "      | ^~~~~~~~~~~~~~~~~~~~~~\n"
        "confpol: note: no 'write' rule matches; writing is denied by default\n"
        "confpol: note: the answer may differ with another value of HOME: bind "
        "it with -D HOME=DIR to decide\n"
        "t.confpol:4:1: note: fix the policy or the expectation\n"
        "1 error\n");
}
END_TEST
START_TEST(expect_passes)
{
    chk_expect("confpol 1\n"
               "profile exclusive\n"
               "write ${PROJECT}\n"
               "expect deny read ~/.ssh/id_rsa\n"
               "expect deny write ${PROJECT}/t.confpol\n"
               "expect deny net example.com\n"
               "expect allow gate \"ls\"\n",
               NULL, "");
}
END_TEST
START_TEST(notes_capped)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write /a\n"
        "deny read /a\n"
        "deny read /a/b\n"
        "deny read /a/*\n"
        "deny read /a/b/c\n"
        "deny read /**\n"
        "deny read /a/b/c/d\n"
        "deny write /a\n",
        NULL,
        "t.confpol:4:11: warning: 'deny read /a' is redundant: 'deny read /**' "
        "already covers every path it names [CP0502] [-Wredundant]\n"
        "    4 | deny read /a\n"
        "      |           ^~\n"
        "t.confpol:8:11: note: 'deny read /**' is here\n"
        "    8 | deny read /**\n"
        "      |           ^~~\n"
        "t.confpol:4:11: note: remove 'deny read /a'\n"
        "t.confpol:5:11: warning: 'deny read /a/b' is redundant: 'deny read "
        "/a' (and 2 more) already covers every path it names [CP0502] "
        "[-Wredundant]\n"
        "    5 | deny read /a/b\n"
        "      |           ^~~~\n"
        "t.confpol:4:11: note: 'deny read /a' is here\n"
        "    4 | deny read /a\n"
        "      |           ^~\n"
        "t.confpol:6:11: note: 'deny read /a/*' is here\n"
        "    6 | deny read /a/*\n"
        "      |           ^~~~\n"
        "t.confpol:8:11: note: 'deny read /**' is here\n"
        "    8 | deny read /**\n"
        "      |           ^~~\n"
        "t.confpol:5:11: note: remove 'deny read /a/b'\n"
        "t.confpol:6:11: warning: 'deny read /a/*' is redundant: 'deny read "
        "/a' (and 1 more) already covers every path it names [CP0502] "
        "[-Wredundant]\n"
        "    6 | deny read /a/*\n"
        "      |           ^~~~\n"
        "t.confpol:4:11: note: 'deny read /a' is here\n"
        "    4 | deny read /a\n"
        "      |           ^~\n"
        "t.confpol:8:11: note: 'deny read /**' is here\n"
        "    8 | deny read /**\n"
        "      |           ^~~\n"
        "t.confpol:6:11: note: remove 'deny read /a/*'\n"
        "t.confpol:7:11: warning: 'deny read /a/b/c' is redundant: 'deny read "
        "/a' (and 3 more) already covers every path it names [CP0502] "
        "[-Wredundant]\n"
        "    7 | deny read /a/b/c\n"
        "      |           ^~~~~~\n"
        "t.confpol:4:11: note: 'deny read /a' is here\n"
        "    4 | deny read /a\n"
        "      |           ^~\n"
        "t.confpol:5:11: note: 'deny read /a/b' is here\n"
        "    5 | deny read /a/b\n"
        "      |           ^~~~\n"
        "t.confpol:6:11: note: 'deny read /a/*' is here\n"
        "    6 | deny read /a/*\n"
        "      |           ^~~~\n"
        "t.confpol:8:11: note: 'deny read /**' is here\n"
        "    8 | deny read /**\n"
        "      |           ^~~\n"
        "t.confpol:7:11: note: remove 'deny read /a/b/c'\n"
        "t.confpol:9:11: warning: 'deny read /a/b/c/d' is redundant: 'deny "
        "read /a' (and 4 more) already covers every path it names [CP0502] "
        "[-Wredundant]\n"
        "    9 | deny read /a/b/c/d\n"
        "      |           ^~~~~~~~\n"
        "t.confpol:4:11: note: 'deny read /a' is here\n"
        "    4 | deny read /a\n"
        "      |           ^~\n"
        "t.confpol:5:11: note: 'deny read /a/b' is here\n"
        "    5 | deny read /a/b\n"
        "      |           ^~~~\n"
        "t.confpol:6:11: note: 'deny read /a/*' is here\n"
        "    6 | deny read /a/*\n"
        "      |           ^~~~\n"
        "t.confpol:7:11: note: 'deny read /a/b/c' is here\n"
        "    7 | deny read /a/b/c\n"
        "      |           ^~~~~~\n"
        "confpol: note: and 1 more\n"
        "t.confpol:9:11: note: remove 'deny read /a/b/c/d'\n"
        "t.confpol:10:12: error: 'write /a' conflicts with 'deny write /a': "
        "the same paths are allowed and denied [CP0503]\n"
        "   10 | deny write /a\n"
        "      |            ^~\n"
        "t.confpol:3:7: note: 'write /a' is here\n"
        "    3 | write /a\n"
        "      |       ^~\n"
        "t.confpol:10:12: note: remove one of the two rules\n"
        "1 error, 5 warnings\n");
}
END_TEST
START_TEST(source_order)
{
    chk_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write /srv\n"
        "write /srv/a\n"
        "expect deny write /srv/b\n"
        "deny read /srv/c\n",
        NULL,
        "t.confpol:4:7: warning: 'write /srv/a' is redundant: 'write /srv' "
        "already covers every path it names [CP0502] [-Wredundant]\n"
        "    4 | write /srv/a\n"
        "      |       ^~~~~~\n"
        "t.confpol:3:7: note: 'write /srv' is here\n"
        "    3 | write /srv\n"
        "      |       ^~~~\n"
        "t.confpol:4:7: note: remove 'write /srv/a'\n"
        "t.confpol:5:1: error: expect deny write /srv/b failed: the policy "
        "allows it [CP0601]\n"
        "    5 | expect deny write /srv/b\n"
        "      | ^~~~~~~~~~~~~~~~~~~~~~~~\n"
        "t.confpol:3:7: note: decided by 'write /srv'\n"
        "    3 | write /srv\n"
        "      |       ^~~~\n"
        "t.confpol:5:1: note: fix the policy or the expectation\n"
        "t.confpol:6:11: warning: 'write /srv' overlaps 'deny read /srv/c': "
        "paths there can be written but not read [CP0504] "
        "[-Wunreadable-write]\n"
        "    6 | deny read /srv/c\n"
        "      |           ^~~~~~\n"
        "t.confpol:3:7: note: 'write /srv' is here\n"
        "    3 | write /srv\n"
        "      |       ^~~~\n"
        "t.confpol:6:11: note: add 'deny write /srv/c' so that the region is "
        "neither read nor written\n"
        "1 error, 2 warnings\n");
}
END_TEST
/* Redundant rules are flagged for the backends; with equal languages only
 * one of the two (the later) is, so one of them is still emitted. */
START_TEST(redundant_flag)
{
    struct cp_ctx cx;
    char *got = chk_run("confpol 1\nprofile cooperative\n"
                        "deny read /srv/a/**\ndeny read /srv/a\n"
                        "deny read /srv/a/b\ndeny read /opt\n",
                        NULL, &cx);
    free(got);
    const struct cp_policy *p = cx.policy;
    ck_assert_uint_eq(p->nrules, 4);
    ck_assert_uint_eq(p->rules[0]->flags & CP_RF_REDUNDANT, 0);
    ck_assert_uint_eq(p->rules[1]->flags & CP_RF_REDUNDANT, CP_RF_REDUNDANT);
    ck_assert_uint_eq(p->rules[2]->flags & CP_RF_REDUNDANT, CP_RF_REDUNDANT);
    ck_assert_uint_eq(p->rules[3]->flags & CP_RF_REDUNDANT, 0);
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
}
END_TEST

/* An implicit rule strictly inside a user rule is flagged silently. */
START_TEST(implicit_flag_silent)
{
    struct cp_ctx cx;
    char *got = chk_run("confpol 1\nprofile confined\nwrite /srv\n"
                        "deny read ~/.config\ndeny write ~/.config\n",
                        NULL, &cx);
    ck_assert_str_eq(got, "");
    free(got);
    const struct cp_policy *p = cx.policy;
    size_t flagged = 0;
    for (size_t i = 0; i < p->nrules; i++)
        if (p->rules[i]->origin != CP_ORIGIN_SOURCE &&
            (p->rules[i]->flags & CP_RF_REDUNDANT))
            flagged++;
    ck_assert_uint_eq(flagged, 2); /* ~/.config/confpol read and write */
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
}
END_TEST

/* -Werror makes a warning an error; -Wno-redundant silences it. */
START_TEST(werror_and_wno)
{
    const char
        *t = "confpol 1\nprofile cooperative\nwrite /srv\nwrite /srv/a\n";
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.diags.werror = true;
    cp_parse_memory(&cx, "t.confpol", t, strlen(t));
    cp_resolve(&cx);
    ck_assert_int_eq(cp_check(&cx), 1);
    ck_assert_uint_eq(cx.diags.items[0].sev, CP_SEV_ERROR);
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
    cp_ctx_init(&cx);
    ck_assert(cp_diags_set_warning(&cx.diags, "redundant", false));
    cp_parse_memory(&cx, "t.confpol", t, strlen(t));
    cp_resolve(&cx);
    ck_assert_int_eq(cp_check(&cx), 0);
    ck_assert_uint_eq(cx.diags.len, 0);
    cp_policy_free(cx.policy);
    cp_ctx_free(&cx);
}
END_TEST
Suite *cp_test_check_suite(void); /* collected by the Makefile */
Suite *cp_test_check_suite(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("analysis");
    tcase_add_test(tc, shadowed_fires);
    tcase_add_test(tc, shadowed_near_miss);
    tcase_add_test(tc, shadowed_exec);
    tcase_add_test(tc, shadowed_net);
    tcase_add_test(tc, redundant_fires);
    tcase_add_test(tc, redundant_container_later);
    tcase_add_test(tc, redundant_glob_near_miss);
    tcase_add_test(tc, redundant_equal_languages);
    tcase_add_test(tc, redundant_implicit);
    tcase_add_test(tc, redundant_param_may_near_miss);
    tcase_add_test(tc, redundant_net);
    tcase_add_test(tc, conflict_exec);
    tcase_add_test(tc, conflict_exec_near_miss);
    tcase_add_test(tc, conflict_exec_implicit);
    tcase_add_test(tc, conflict_write);
    tcase_add_test(tc, conflict_write_near_miss);
    tcase_add_test(tc, unreadable_write);
    tcase_add_test(tc, unreadable_write_near_miss);
    tcase_add_test(tc, unreadable_write_may_near_miss);
    tcase_add_test(tc, vacuous_note);
    tcase_add_test(tc, vacuous_warning);
    tcase_add_test(tc, vacuous_near_miss);
    tcase_add_test(tc, vacuous_may_near_miss);
    tcase_add_test(tc, vacuous_exec);
    tcase_add_test(tc, vacuous_exec_near_miss);
    tcase_add_test(tc, shadowed_gate);
    tcase_add_test(tc, shadowed_gate_near_miss);
    tcase_add_test(tc, redundant_gate);
    tcase_add_test(tc, whole_command_gate);
    tcase_add_test(tc, whole_command_gate_near_miss);
    tcase_add_test(tc, redundant_gate_near_miss);
    tcase_add_test(tc, expect_fails);
    tcase_add_test(tc, expect_unbound);
    tcase_add_test(tc, expect_passes);
    tcase_add_test(tc, notes_capped);
    tcase_add_test(tc, source_order);
    tcase_add_test(tc, redundant_flag);
    tcase_add_test(tc, implicit_flag_silent);
    tcase_add_test(tc, werror_and_wno);
    suite_add_tcase(s, tc);
    return s;
}

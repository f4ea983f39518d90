/* SPDX-License-Identifier: MIT */
/* Resolution (compiler/resolve.c): every CP04xx error with its exact text,
 * the profiles' implicit rules and their spelling, lets and params, -D
 * binding and its errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confpol.h"

static char *rs_render(struct cp_ctx *cx)
{
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    cp_diags_render_text(&cx->diags, f);
    fclose(f);
    return p;
}

/* Parses and resolves `text` as t.confpol with the given -D pairs. */
static void rs_compile(struct cp_ctx *cx, const char *text,
                       const struct cp_define *defs, size_t ndefs)
{
    cp_ctx_init(cx);
    cx->opts.defines = (struct cp_define *)defs;
    cx->opts.ndefines = ndefs;
    ck_assert_int_eq(cp_parse_memory(cx, "t.confpol", text, strlen(text)), 0);
    ck_assert_uint_eq(cp_diag_errors(&cx->diags), 0);
    cp_resolve(cx);
}

static void rs_done(struct cp_ctx *cx)
{
    cp_policy_free(cx->policy);
    cp_ctx_free(cx);
}

static void rs_expect(const char *text, const char *want)
{
    struct cp_ctx cx;
    rs_compile(&cx, text, NULL, 0);
    char *got = rs_render(&cx);
    ck_assert_str_eq(got, want);
    free(got);
    rs_done(&cx);
}
START_TEST(unknown_profile)
{
    rs_expect("confpol 1\n"
              "profile confinded\n",
              "t.confpol:2:9: error: unknown profile 'confinded'; expected "
              "cooperative, confined or exclusive [CP0401]\n"
              "    2 | profile confinded\n"
              "      |         ^~~~~~~~~\n"
              "t.confpol:2:9: note: did you mean 'confined'?\n"
              "1 error\n");
}
END_TEST
START_TEST(duplicate_profile)
{
    rs_expect("confpol 1\n"
              "profile confined\n"
              "profile exclusive\n",
              "t.confpol:3:1: error: duplicate 'profile' statement [CP0402]\n"
              "    3 | profile exclusive\n"
              "      | ^~~~~~~~~~~~~~~~~\n"
              "t.confpol:2:1: note: the first 'profile' statement is here\n"
              "    2 | profile confined\n"
              "      | ^~~~~~~~~~~~~~~~\n"
              "t.confpol:3:1: note: keep one 'profile' statement\n"
              "1 error\n");
}
END_TEST
START_TEST(duplicate_fail)
{
    rs_expect("confpol 1\n"
              "profile confined\n"
              "fail closed\n"
              "fail open\n",
              "t.confpol:4:1: error: duplicate 'fail' statement [CP0402]\n"
              "    4 | fail open\n"
              "      | ^~~~~~~~~\n"
              "t.confpol:3:1: note: the first 'fail' statement is here\n"
              "    3 | fail closed\n"
              "      | ^~~~~~~~~~~\n"
              "t.confpol:4:1: note: keep one 'fail' statement\n"
              "1 error\n");
}
END_TEST
START_TEST(duplicate_param)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "param HOME\n"
              "param X\n"
              "param X\n"
              "let X = /a\n",
              "t.confpol:3:7: error: 'HOME' is already declared [CP0404]\n"
              "    3 | param HOME\n"
              "      |       ^~~~\n"
              "confpol: note: 'HOME' is a param that every policy has\n"
              "t.confpol:3:7: note: choose another name\n"
              "t.confpol:5:7: error: 'X' is already declared [CP0404]\n"
              "    5 | param X\n"
              "      |       ^\n"
              "t.confpol:4:7: note: 'X' is first declared here\n"
              "    4 | param X\n"
              "      |       ^\n"
              "t.confpol:5:7: note: choose another name\n"
              "t.confpol:6:5: error: 'X' is already declared [CP0404]\n"
              "    6 | let X = /a\n"
              "      |     ^\n"
              "t.confpol:4:7: note: 'X' is first declared here\n"
              "    4 | param X\n"
              "      |       ^\n"
              "t.confpol:6:5: note: choose another name\n"
              "3 errors\n");
}
END_TEST
START_TEST(undefined_name)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "write ${NOPE}/x\n",
              "t.confpol:3:7: error: undefined name 'NOPE' [CP0405]\n"
              "    3 | write ${NOPE}/x\n"
              "      |       ^~~~~~~\n"
              "t.confpol:3:7: note: declare it with 'param NOPE' or 'let NOPE "
              "= PATH' before this line\n"
              "1 error\n");
}
END_TEST
START_TEST(use_before_definition)
{
    rs_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write ${L}/x\n"
        "let L = /a\n"
        "let M = ${M}/x\n",
        "t.confpol:3:7: error: 'L' is used before its definition [CP0406]\n"
        "    3 | write ${L}/x\n"
        "      |       ^~~~\n"
        "t.confpol:4:5: note: 'L' is defined here\n"
        "    4 | let L = /a\n"
        "      |     ^\n"
        "t.confpol:3:7: note: move the definition of 'L' above its first use\n"
        "t.confpol:5:9: error: let 'M' refers to itself [CP0406]\n"
        "    5 | let M = ${M}/x\n"
        "      |         ^~~~\n"
        "2 errors\n");
}
END_TEST
START_TEST(relative_path)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "write src/x\n"
              "write \"a b/c\"\n",
              "t.confpol:3:7: error: relative path 'src/x'; a path starts with "
              "'/', '~' or '${NAME}' [CP0407]\n"
              "    3 | write src/x\n"
              "      |       ^~~~~\n"
              "t.confpol:3:7: note: did you mean '${PROJECT}/src/x' (in the "
              "project)?\n"
              "t.confpol:4:7: error: relative path '\"a b/c\"'; a path starts "
              "with '/', '~' or '${NAME}' [CP0407]\n"
              "    4 | write \"a b/c\"\n"
              "      |       ^~~~~~~\n"
              "t.confpol:4:7: note: did you mean '\"${PROJECT}/a b/c\"' (in "
              "the project)?\n"
              "2 errors\n");
}
END_TEST
START_TEST(dot_segment)
{
    rs_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "write /a/../b\n"
        "write ${PROJECT}/./x\n",
        "t.confpol:3:10: error: '..' segment in path '/a/../b' [CP0408]\n"
        "    3 | write /a/../b\n"
        "      |          ^~\n"
        "t.confpol:3:10: note: name the directory without '..': confpol does "
        "not collapse it, since a symbolic link would change what it names\n"
        "t.confpol:4:18: error: '.' segment in path '${PROJECT}/./x' [CP0408]\n"
        "    4 | write ${PROJECT}/./x\n"
        "      |                  ^\n"
        "t.confpol:4:18: note: did you mean '${PROJECT}/x'?\n"
        "2 errors\n");
}
END_TEST
START_TEST(bad_path)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "write ~bob/x\n"
              "write /a/${PROJECT}\n",
              "t.confpol:3:7: error: '~user' paths are not supported; write "
              "'~/' for the home directory or an absolute path [CP0409]\n"
              "    3 | write ~bob/x\n"
              "      |       ^~~~~~\n"
              "t.confpol:4:10: error: '${NAME}' is only allowed at the start "
              "of a path [CP0409]\n"
              "    4 | write /a/${PROJECT}\n"
              "      |          ^\n"
              "2 errors\n");
}
END_TEST
START_TEST(type_mismatch)
{
    rs_expect(
        "confpol 1\n"
        "profile cooperative\n"
        "net allow /etc/hosts\n"
        "gate ask /usr/bin/git\n"
        "write re\"x\"\n"
        "net allow \"example.com\"\n"
        "gate ask git\n",
        "t.confpol:3:11: error: expected a domain pattern, found a path "
        "pattern '/etc/hosts' [CP0410]\n"
        "    3 | net allow /etc/hosts\n"
        "      |           ^~~~~~~~~~\n"
        "t.confpol:4:10: error: expected a command pattern, found a path "
        "pattern '/usr/bin/git' [CP0410]\n"
        "    4 | gate ask /usr/bin/git\n"
        "      |          ^~~~~~~~~~~~\n"
        "t.confpol:4:10: note: quote a command pattern: \"/usr/bin/git\"\n"
        "t.confpol:5:7: error: expected a path pattern, found a regex "
        "'re\"x\"' [CP0410]\n"
        "    5 | write re\"x\"\n"
        "      |       ^~~~~\n"
        "t.confpol:6:11: error: expected a domain pattern, found a quoted "
        "string '\"example.com\"' [CP0410]\n"
        "    6 | net allow \"example.com\"\n"
        "      |           ^~~~~~~~~~~~~\n"
        "t.confpol:6:11: note: write the domain without quotes: example.com\n"
        "t.confpol:7:10: error: expected a command pattern, found a bare word "
        "'git' [CP0410]\n"
        "    7 | gate ask git\n"
        "      |          ^~~\n"
        "t.confpol:7:10: note: quote a command pattern: \"git\"\n"
        "5 errors\n");
}
END_TEST
START_TEST(bad_regex)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "gate ask re\"((\"\n",
              "t.confpol:3:13: error: invalid regex 're\"((\"': Unmatched ( or "
              "\\( [CP0411]\n"
              "    3 | gate ask re\"((\"\n"
              "      |             ^\n"
              "1 error\n");
}
END_TEST
START_TEST(bad_domain_and_arity)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "net allow *.com\n"
              "net deny example.com\n",
              "t.confpol:3:11: error: invalid domain '*.com': wildcard over a "
              "top-level domain would allow every domain under it [CP0413]\n"
              "    3 | net allow *.com\n"
              "      |           ^~~~~\n"
              "t.confpol:4:10: error: 'net deny' takes no argument [CP0414]\n"
              "    4 | net deny example.com\n"
              "      |          ^~~~~~~~~~~\n"
              "2 errors\n");
}
END_TEST
START_TEST(unknown_words)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "deny rea /x\n"
              "gate aks \"x\"\n"
              "net off\n"
              "fail maybe\n"
              "expect alow write /x\n"
              "expect allow wirte /x\n",
              "t.confpol:3:6: error: unknown access 'rea' after 'deny'; "
              "expected read, write or exec [CP0403]\n"
              "    3 | deny rea /x\n"
              "      |      ^~~\n"
              "t.confpol:3:6: note: did you mean 'read'?\n"
              "t.confpol:4:6: error: unknown verdict 'aks' after 'gate'; "
              "expected ask or deny [CP0403]\n"
              "    4 | gate aks \"x\"\n"
              "      |      ^~~\n"
              "t.confpol:4:6: note: did you mean 'ask'?\n"
              "t.confpol:5:5: error: unknown mode 'off' after 'net'; expected "
              "deny, allow or socket [CP0403]\n"
              "    5 | net off\n"
              "      |     ^~~\n"
              "t.confpol:6:6: error: unknown fail mode 'maybe'; expected "
              "closed or open [CP0403]\n"
              "    6 | fail maybe\n"
              "      |      ^~~~~\n"
              "t.confpol:7:8: error: unknown verdict 'alow' in 'expect'; "
              "expected allow, ask or deny [CP0403]\n"
              "    7 | expect alow write /x\n"
              "      |        ^~~~\n"
              "t.confpol:7:8: note: did you mean 'allow'?\n"
              "t.confpol:8:14: error: unknown access 'wirte' in 'expect'; "
              "expected read, write, exec, net, gate, content or socket "
              "[CP0403]\n"
              "    8 | expect allow wirte /x\n"
              "      |              ^~~~~\n"
              "t.confpol:8:14: note: did you mean 'write'?\n"
              "6 errors\n");
}
END_TEST
START_TEST(bad_expect)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "expect ask write /x\n"
              "expect deny write /a/*\n"
              "expect deny net *.example.com\n"
              "expect ask gate git\n",
              "t.confpol:3:8: error: 'ask' is a verdict of gate only; write is "
              "allowed or denied [CP0415]\n"
              "    3 | expect ask write /x\n"
              "      |        ^~~\n"
              "t.confpol:3:8: note: expect allow or deny\n"
              "t.confpol:4:19: error: the subject of an expect must be one "
              "concrete path, found the glob '/a/*' [CP0415]\n"
              "    4 | expect deny write /a/*\n"
              "      |                   ^~~~\n"
              "t.confpol:4:19: note: name one path the pattern matches\n"
              "t.confpol:5:17: error: the subject of 'expect ... net' must be "
              "one host name, found the pattern '*.example.com' [CP0415]\n"
              "    5 | expect deny net *.example.com\n"
              "      |                 ^~~~~~~~~~~~~\n"
              "t.confpol:6:17: error: expected a quoted command line, found a "
              "bare word 'git' [CP0410]\n"
              "    6 | expect ask gate git\n"
              "      |                 ^~~\n"
              "t.confpol:6:17: note: quote the command line: \"git\"\n"
              "4 errors\n");
}
END_TEST
START_TEST(nul_in_string)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "write \"/a\\x00b\"\n",
              "t.confpol:3:10: error: '\\x00' decodes to a NUL byte, which no "
              "path, command or domain may hold [CP0416]\n"
              "    3 | write \"/a\\x00b\"\n"
              "      |          ^~~~\n"
              "1 error\n");
}
END_TEST
START_TEST(defaulted_profile)
{
    rs_expect(
        "confpol 1\n"
        "write /srv\n",
        "t.confpol:1:1: warning: no 'profile' statement: the profile is "
        "confined, but the gate hook stays fail-open [CP0420] "
        "[-Wdefaulted-profile]\n"
        "    1 | confpol 1\n"
        "      | ^~~~~~~~~\n"
        "t.confpol:1:1: note: write 'profile confined' to make it fail closed\n"
        "1 warning\n");
}
END_TEST
START_TEST(clean)
{
    rs_expect("confpol 1\n"
              "profile cooperative\n"
              "param CACHE\n"
              "let SRC = ${PROJECT}/src\n"
              "write ${SRC}/gen \"${PROJECT}/a b\" ${CACHE}\n"
              "gate ask \"git push *\" re\"curl[^|]*[|]\"\n"
              "net allow *.example.com\n"
              "expect allow write ${SRC}/gen/x\n",
              "");
}
END_TEST

static const char *rs_rule(const struct cp_policy *p, size_t i,
                           struct cp_arena *a)
{
    const struct cp_rule *r = p->rules[i];
    return cp_arena_printf(
        a, "%s %s%s%s", cp_rule_kind_text(r->kind),
        r->kind == CP_R_NET_DENY    ? ""
        : r->kind <= CP_R_DENY_EXEC ? cp_path_format(a, &r->u.path)
                                    : r->text,
        r->origin == CP_ORIGIN_SOURCE ? "" : " @", r->why ? r->why : "");
}

START_TEST(implicit_confined)
{
    struct cp_ctx cx;
    rs_compile(&cx, "confpol 1\nprofile confined\nwrite ${PROJECT}\n", NULL, 0);
    const struct cp_policy *p = cx.policy;
    ck_assert_uint_eq(p->nrules, 4);
    ck_assert_str_eq(rs_rule(p, 0, cx.arena), "write ${PROJECT}");
    ck_assert_str_eq(rs_rule(p, 1, cx.arena),
                     "deny write ${PROJECT}/t.confpol @policy source file");
    ck_assert_str_eq(rs_rule(p, 2, cx.arena),
                     "deny read ~/.config/confpol @confpol key and config "
                     "directory");
    ck_assert_str_eq(rs_rule(p, 3, cx.arena),
                     "deny write ~/.config/confpol @confpol key and config "
                     "directory");
    ck_assert_int_eq(p->rules[1]->origin, CP_ORIGIN_CONFINED);
    ck_assert(p->rules[1]->flags & CP_RF_CONTROL);
    ck_assert(!p->profile_defaulted);
    ck_assert_int_eq(p->fail, CP_FAIL_CLOSED);
    ck_assert_int_eq(p->net, CP_NET_ALL);
    ck_assert_uint_eq(p->nsources, 1);
    ck_assert_str_eq(p->stem, "t");
    rs_done(&cx);
}
END_TEST

START_TEST(implicit_exclusive)
{
    struct cp_ctx cx;
    rs_compile(&cx, "confpol 1\nprofile exclusive\nfail open\n", NULL, 0);
    const struct cp_policy *p = cx.policy;
    static const char *const want[] = {
        "deny write ${PROJECT}/t.confpol @policy source file",
        "deny read ~/.config/confpol @confpol key and config directory",
        "deny write ~/.config/confpol @confpol key and config directory",
        "deny read ~/.ssh @credential store",
        "deny read ~/.aws @credential store",
        "deny read ~/.gnupg @credential store",
        "deny read ~/.kube @credential store",
        "deny read ~/.config/gcloud @credential store",
        "deny read ~/.azure @credential store",
        "deny read ~/.docker/config.json @credential store",
        "deny read ~/.netrc @credential store",
        "deny read ~/.git-credentials @credential store",
        "deny read ~/.config/gh @credential store",
        "deny read ~/.npmrc @credential store",
        "deny read ~/.pypirc @credential store",
        "net deny  @no 'net allow' in an exclusive policy",
    };
    ck_assert_uint_eq(p->nrules, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < p->nrules; i++)
        ck_assert_str_eq(rs_rule(p, i, cx.arena), want[i]);
    ck_assert_int_eq(p->rules[3]->origin, CP_ORIGIN_EXCLUSIVE);
    ck_assert_int_eq(p->net, CP_NET_NONE);
    ck_assert_int_eq(p->fail, CP_FAIL_OPEN);
    ck_assert(p->fail_written);
    rs_done(&cx);
}
END_TEST

/* Exclusive with a net allow: no implicit net deny. */
START_TEST(exclusive_net_allow)
{
    struct cp_ctx cx;
    rs_compile(&cx, "confpol 1\nprofile exclusive\nnet allow example.com\n",
               NULL, 0);
    const struct cp_policy *p = cx.policy;
    ck_assert_int_eq(p->net, CP_NET_LIST);
    for (size_t i = 0; i < p->nrules; i++)
        ck_assert_int_ne(p->rules[i]->kind, CP_R_NET_DENY);
    rs_done(&cx);
}
END_TEST

START_TEST(cooperative_no_implicit)
{
    struct cp_ctx cx;
    rs_compile(&cx, "confpol 1\nprofile cooperative\nexec /usr/bin\n", NULL, 0);
    ck_assert_uint_eq(cx.policy->nrules, 1);
    ck_assert(cx.policy->has_exec);
    rs_done(&cx);
}
END_TEST

/* The output directory is protected, spelled under PROJECT when bound. */
START_TEST(outdir_and_bound_project)
{
    char *cwd = getcwd(NULL, 0);
    char *rp = realpath(cwd, NULL);
    struct cp_define d[] = {{"PROJECT", rp}};
    struct cp_ctx cx;
    cp_ctx_init(&cx);
    cx.opts.defines = d;
    cx.opts.ndefines = 1;
    cx.opts.outdir = "build-out";
    const char *t = "confpol 1\nprofile confined\nwrite ${PROJECT}/src\n";
    cp_parse_memory(&cx, "t.confpol", t, strlen(t));
    ck_assert_int_eq(cp_resolve(&cx), 0);
    const struct cp_policy *p = cx.policy;
    ck_assert_uint_eq(p->nrules, 5);
    /* bound: substituted into the rule, text kept as written */
    ck_assert_ptr_null(p->rules[0]->u.path.root);
    ck_assert_str_eq(p->rules[0]->text, "${PROJECT}/src");
    ck_assert_str_eq(cp_path_format(cx.arena, &p->rules[0]->u.path),
                     cp_arena_printf(cx.arena, "%s/src", rp));
    ck_assert_str_eq(p->rules[1]->text, "${PROJECT}/t.confpol");
    ck_assert_str_eq(p->rules[2]->text, "${PROJECT}/build-out");
    ck_assert_str_eq(p->rules[2]->why, "build output directory");
    ck_assert_str_eq(p->params[1].value, rp);
    rs_done(&cx);
    free(rp);
    free(cwd);
}
END_TEST

START_TEST(define_errors)
{
    struct cp_define d[] = {{"NOPE", "/x"},     {"L", "/x"},
                            {"PROJECT", "rel"}, {"HOME", "/tmp//x/"},
                            {"CACHE", "/bin"},  {"CACHE", "/usr"}};
    struct cp_ctx cx;
    rs_compile(&cx, "confpol 1\nprofile cooperative\nparam CACHE\nlet L = /a\n",
               d, 6);
    char *got = rs_render(&cx);
    ck_assert_str_eq(
        got, "confpol: error: -D NOPE=/x: 'NOPE' is not a param of this policy "
             "[CP0802]\n"
             "confpol: note: declare it with 'param NOPE' or remove -D NOPE\n"
             "confpol: error: -D L=/x: 'L' is a let, not a param [CP0802]\n"
             "t.confpol:4:5: note: 'L' is declared here\n"
             "    4 | let L = /a\n"
             "      |     ^\n"
             "confpol: error: -D PROJECT=rel: the value must be an absolute "
             "path [CP0803]\n"
             "confpol: error: -D HOME=/tmp//x/: the value is not canonical (it "
             "holds '//', '.', '..' or a trailing '/') [CP0803]\n"
             "confpol: note: write -D HOME=/tmp/x\n"
             "confpol: error: -D CACHE=/bin: the value is not canonical: it "
             "resolves to '/usr/bin' [CP0803]\n"
             "confpol: note: write -D CACHE=/usr/bin\n"
             "confpol: error: -D CACHE is given twice; bind each param once "
             "[CP0804]\n"
             "6 errors\n");
    free(got);
    rs_done(&cx);
}
END_TEST

/* A let rooted at a param keeps the root; quoted paths interpolate a
 * leading ${NAME}; a declared param binds with -D. */
START_TEST(lets_and_params)
{
    struct cp_define d[] = {{"CACHE", "/var/cache"}};
    struct cp_ctx cx;
    rs_compile(&cx,
               "confpol 1\nprofile cooperative\nparam CACHE\n"
               "let SRC = ${PROJECT}/src\nlet GEN = ${SRC}/gen\n"
               "write ${GEN}/*.o \"${PROJECT}/a b\" ${CACHE}/x ~\n",
               d, 1);
    const struct cp_policy *p = cx.policy;
    ck_assert_uint_eq(cx.diags.len, 0);
    ck_assert_uint_eq(p->nrules, 4);
    ck_assert_str_eq(cp_path_format(cx.arena, &p->rules[0]->u.path),
                     "${PROJECT}/src/gen/*.o");
    ck_assert(p->rules[0]->u.path.has_glob);
    ck_assert_str_eq(cp_path_format(cx.arena, &p->rules[1]->u.path),
                     "\"${PROJECT}/a b\"");
    ck_assert_str_eq(cp_path_format(cx.arena, &p->rules[2]->u.path),
                     "/var/cache/x");
    ck_assert_str_eq(cp_path_format(cx.arena, &p->rules[3]->u.path), "~");
    ck_assert_uint_eq(p->nparams, 3);
    ck_assert_str_eq(p->params[2].name, "CACHE");
    ck_assert(p->params[0].used); /* HOME */
    ck_assert(p->params[1].used); /* PROJECT */
    ck_assert(p->params[2].used); /* CACHE */
    rs_done(&cx);
}
END_TEST

/* Rules come in source order, an include's rules at the include. */
START_TEST(expects_and_order)
{
    struct cp_ctx cx;
    rs_compile(&cx,
               "confpol 1\nprofile cooperative\nwrite /a\n"
               "expect deny write /b\nexpect ask gate \"git \\\"x\\\"\"\n"
               "expect allow net Example.COM\nwrite /c\n",
               NULL, 0);
    const struct cp_policy *p = cx.policy;
    ck_assert_uint_eq(p->nexpects, 3);
    ck_assert_uint_eq(p->expects[0].rules_before, 1);
    ck_assert_str_eq(p->expects[0].subject, "/b");
    ck_assert_str_eq(p->expects[1].subject, "git \"x\"");
    ck_assert_int_eq(p->expects[1].verdict, CP_ASK);
    ck_assert_str_eq(p->expects[2].subject, "example.com");
    ck_assert_uint_eq(p->rules[1]->id, 1);
    rs_done(&cx);
}
END_TEST
Suite *cp_test_resolve_suite(void); /* collected by the Makefile */
Suite *cp_test_resolve_suite(void)
{
    Suite *s = suite_create("resolve");
    TCase *tc = tcase_create("resolve");
    tcase_add_test(tc, unknown_profile);
    tcase_add_test(tc, duplicate_profile);
    tcase_add_test(tc, duplicate_fail);
    tcase_add_test(tc, duplicate_param);
    tcase_add_test(tc, undefined_name);
    tcase_add_test(tc, use_before_definition);
    tcase_add_test(tc, relative_path);
    tcase_add_test(tc, dot_segment);
    tcase_add_test(tc, bad_path);
    tcase_add_test(tc, type_mismatch);
    tcase_add_test(tc, bad_regex);
    tcase_add_test(tc, bad_domain_and_arity);
    tcase_add_test(tc, unknown_words);
    tcase_add_test(tc, bad_expect);
    tcase_add_test(tc, nul_in_string);
    tcase_add_test(tc, defaulted_profile);
    tcase_add_test(tc, clean);
    tcase_add_test(tc, implicit_confined);
    tcase_add_test(tc, implicit_exclusive);
    tcase_add_test(tc, exclusive_net_allow);
    tcase_add_test(tc, cooperative_no_implicit);
    tcase_add_test(tc, outdir_and_bound_project);
    tcase_add_test(tc, define_errors);
    tcase_add_test(tc, lets_and_params);
    tcase_add_test(tc, expects_and_order);
    suite_add_tcase(s, tc);
    return s;
}

/* SPDX-License-Identifier: MIT */
/* Gate patterns: parsing, splitting command lines, matching and the word
 * pattern relations. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "match_int.h"
#include "shell_read.h"

static struct cp_arena *ar;

static void setup(void)
{
    ar = cp_arena_new();
}

static void teardown(void)
{
    cp_arena_free(ar);
}

/* "re:..." is a regex, anything else a word pattern.  Regexes are freed at
 * teardown through this list. */
static struct cp_gate_pat pats[64];
static size_t npats;

static struct cp_gate_pat *G(const char *text)
{
    bool re = strncmp(text, "re:", 3) == 0;
    if (re)
        text += 3;
    ck_assert_uint_lt(npats, 64);
    struct cp_gate_pat *g = &pats[npats++];
    const char *msg = cp_gate_parse(ar, text, strlen(text), re, g);
    ck_assert_msg(msg == NULL, "parse '%s': %s", text, msg);
    return g;
}

static void free_pats(void)
{
    for (size_t i = 0; i < npats; i++)
        cp_gate_free(&pats[i]);
    npats = 0;
    teardown();
}

/* ---- parsing ------------------------------------------------------------ */

START_TEST(parse_words)
{
    struct cp_gate_pat *g = G("  git   push --force *  ");
    ck_assert_int_eq(g->kind, CP_GATE_WORDS);
    ck_assert_uint_eq(g->nwords, 3);
    ck_assert_str_eq(g->words[0], "git");
    ck_assert_str_eq(g->words[2], "--force");
    ck_assert(g->trailing_any);
    ck_assert_str_eq(g->text, "  git   push --force *  ");

    g = G("git * main");
    ck_assert_uint_eq(g->nwords, 3);
    ck_assert_str_eq(g->words[1], "*");
    ck_assert(!g->trailing_any);

    g = G("*");
    ck_assert_uint_eq(g->nwords, 0);
    ck_assert(g->trailing_any);

    g = G("ls*");
    ck_assert_uint_eq(g->nwords, 1);
    ck_assert(!g->trailing_any);

    g = G("re:curl[^|]*[|][[:space:]]*(ba)?sh");
    ck_assert_int_eq(g->kind, CP_GATE_REGEX);
    ck_assert_ptr_nonnull(g->regex);
    cp_gate_free(g);
    ck_assert_ptr_null(g->regex);
    cp_gate_free(g); /* twice is harmless */
}
END_TEST

/* A pattern longer than the parser keeps on its stack (more than 8
 * elements and options, more than 16 words): read and matched whole. */
START_TEST(parse_long)
{
    struct cp_gate_pat *g = G("Tool a b c d e f g h i j k l m -abcdefghij "
                              "--x {--y|--z} >out *");
    ck_assert_uint_eq(g->nwords, 18);
    ck_assert_uint_eq(g->nels, 27);
    ck_assert_str_eq(g->words[0], "Tool");
    ck_assert_str_eq(g->words[13], "m");
    ck_assert_str_eq(g->words[14], "-abcdefghij");
    ck_assert_str_eq(g->words[17], ">out");
    ck_assert(g->trailing_any);
    ck_assert(cp_gate_matches(g,
                              "tool a b c d e f g h i j k l m -abcdefghij "
                              "--x --z >out more",
                              ar));
    ck_assert(!cp_gate_matches(g,
                               "tool a b c d e f g h i j k l m -abcdefghi "
                               "--x --z >out",
                               ar));
    ck_assert(!cp_gate_matches(g,
                               "tool a b c d e f g h i j k l -abcdefghij "
                               "--x --y >out",
                               ar));
}
END_TEST

static const struct {
    const char *text;
    size_t len; /* 0: strlen */
    bool re;
    const char *msg; /* NULL: any message (regerror's) */
} gate_errors[] = {
#define CP_STACKED                                                             \
    "repetition of a repetition ('**', '+?', '{2}+'...): undefined in POSIX "  \
    "ERE; write a single operator"
    {"", 0, false, "empty pattern"},
    {"   ", 0, false, "empty pattern"},
    {"", 0, true, "empty pattern"},
    {"git\0push", 8, false, "NUL byte in pattern"},
    {"echo 'a b'", 0, false,
     "quote or backslash in a word pattern (commands are matched after quote "
     "removal; use a regex for such text)"},
    {"echo a\\ b", 0, false,
     "quote or backslash in a word pattern (commands are matched after quote "
     "removal; use a regex for such text)"},
    {"curl * | sh", 0, false,
     "'|' outside '{...|...}' (alternatives are written {a|b}; each simple "
     "command is matched on its own)"},
    {"a && b", 0, false,
     "shell operator in a word pattern (each simple command is matched on "
     "its own; use a regex to match across commands)"},
    {"ls a>x", 0, false,
     "shell operator in a word pattern (a redirection is written as one word "
     "starting with '>' or '<')"},
    {"ls >", 0, false, "a redirection pattern needs a target ('>*.bashrc')"},
    {"git push --force*", 0, false,
     "'*' in an option name (options are matched by name)"},
    {"git push {-f|--force", 0, false,
     "'|' outside '{...|...}' (alternatives are written {a|b}; each simple "
     "command is matched on its own)"},
    {"git push {-f||--force}", 0, false, "empty alternative in '{...|...}'"},
    {"git {push|-f}", 0, false, "alternatives mix options and words"},
    {"rm {-rf|-x}", 0, false,
     "a short option with a value, or in alternatives, is one letter (write "
     "-f, not -rf)"},
    {"curl --data=", 0, false,
     "empty value after '=' in an option (write the option alone to match "
     "any value)"},

    {"(a", 0, true, NULL},
    {"a{1", 0, true, NULL},
    {"[z-a]", 0, true, NULL},
    /* repetitions of repetitions: exponential in glibc's regcomp */
    {"(a|b)+++++++++++++++++++++++++++++++++++++++++", 0, true, CP_STACKED},
    {"a**", 0, true, CP_STACKED},
    {"x.*?y", 0, true, CP_STACKED},
    {"a{2}+", 0, true, CP_STACKED},
    {"((a{200}){200}){200}", 0, true,
     "too large once its repetitions are expanded (nested or large "
     "repetition counts); simplify it"},
    {"((((((((((((((((((((x)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+", 0, true,
     "too large once its repetitions are expanded (nested or large "
     "repetition counts); simplify it"},
};

START_TEST(parse_error)
{
    struct cp_gate_pat g;
    size_t len = gate_errors[_i].len ? gate_errors[_i].len
                                     : strlen(gate_errors[_i].text);
    const char *msg = cp_gate_parse(ar, gate_errors[_i].text, len,
                                    gate_errors[_i].re, &g);
    ck_assert_ptr_nonnull(msg);
    if (gate_errors[_i].msg)
        ck_assert_str_eq(msg, gate_errors[_i].msg);
    else
        ck_assert_uint_gt(strlen(msg), 3);
}
END_TEST

/* Near misses of the repetition check: one operator per atom, operators
 * inside brackets or escaped, a group repeated once. */
START_TEST(parse_single_repetition)
{
    G("re:(a+)?");
    G("re:[+*]+x{2}[a-z]*");
    G("re:a\\++");
    G("re:[[:space:]]+[]+]*");
    G("re:(a|b)+c?d*");
    G("re:a{1000}");
    G("re:(x{100}){100}");
}
END_TEST

/* ---- reading (compiler/shell_read.c) --------------------------------- */

/* Every reading, words in [], redirections as {OP TARGET}; then ?unknown
 * and !error. */
static const char *render(const char *line)
{
    struct cp_sh_read rd;
    cp_sh_read(ar, line, strlen(line), &rd);
    struct cp_buf b = {0};
    cp_buf_adds(&b, "");
    static const char *const ops[] = {"<", ">", "<>", "<<<", "<<", "dup"};
    for (size_t i = 0; i < rd.ncmds; i++) {
        if (i)
            cp_buf_adds(&b, " ; ");
        for (size_t j = 0; j < rd.cmds[i].n; j++)
            cp_buf_printf(&b, "[%s]", rd.cmds[i].w[j].text);
        for (size_t j = 0; j < rd.cmds[i].nr; j++)
            cp_buf_printf(&b, "{%s%s}", ops[rd.cmds[i].r[j].op],
                          rd.cmds[i].r[j].target.text);
    }
    if (rd.unknown)
        cp_buf_printf(&b, " ?%s", rd.unknown);
    if (rd.error)
        cp_buf_printf(&b, " !%s", rd.error);
    const char *r = cp_arena_strdup(ar, b.data);
    cp_buf_free(&b);
    return r;
}

#define UNK_STDIN                                                              \
    " ?a shell or interpreter reads its program from standard "                \
    "input (a pipe, a substitution or the terminal)"
static const struct {
    const char *line, *parts;
} split_cases[] = {
    {"git push --force origin", "[git][push][--force][origin]"},
    {"a && b || c ; d | e |& f & g\nh",
     "[a] ; [b] ; [c] ; [d] ; [e] ; [f] ; [g] ; [h]"},
    {"a&&b||c;d|e", "[a] ; [b] ; [c] ; [d] ; [e]"},
    {"echo 'a && b' \"c ; d\"", "[echo][a && b][c ; d]"},
    {"echo a\\ b \\; c", "[echo][a b][;][c]"},
    {"echo \"x \\\" y\" 'it''s' \"a\\b\"", "[echo][x \" y][its][a\\b]"},
    {"su''do id", "[sudo][id] ; [id]"},
    {"s\\udo id", "[sudo][id] ; [id]"},
    {"echo $(git push --force) done",
     "[git][push][--force] ; [echo][$(git push --force)][done]"},
    {"echo `rm -rf x`", "[rm][-rf][x] ; [echo][`rm -rf x`]"},
    {"echo \"$(git push)\"", "[git][push] ; [echo][$(git push)]"},
    {"echo $(echo $(rm -rf x))",
     "[rm][-rf][x] ; [echo][$(rm -rf x)] ; [echo][$(echo $(rm -rf x))]"},
    {"echo $(a ')' b) c", "[a][)][b] ; [echo][$(a ')' b)][c]"},
    {"cat <(curl x) > out 2>&1", "[curl][x] ; [cat][<(curl x)]{>out}{dup1}"},
    {"ls >file; ls 2> err -l; ls &>/dev/null; ls a>b 3<&0",
     "[ls]{>file} ; [ls][-l]{>err} ; [ls]{>/dev/null} ; [ls][a]{>b}{dup0}"},
    {"exec 3<>/dev/tcp/h/80", "[exec]{<>/dev/tcp/h/80}"},
    {"cat <<EOF\ngit push\nEOF", "[cat]{<<EOF}"},
    {"bash <<EOF\ngit push\nEOF", "[bash]{<<EOF} ; [git][push]"},
    {"echo a#b # comment && rm x\nrm y", "[echo][a#b] ; [rm][y]"},
    {"(cd x && make) | tee log", "[cd][x] ; [make] ; [tee][log]"},
    {"FOO=1 BAR='a b' git push",
     "[FOO=1][BAR=a b][git][push] ; [BAR=a b][git][push] ; [git][push]"},
    {"echo '' \"\"", "[echo][][]"},
    {"", ""},
    {" ;; && ", ""},
    {"a\\\nb", "[ab]"},
    {"echo 'abc", " !unterminated single quote"},
    {"echo \"abc", " !unterminated double quote"},
    {"echo $(rm x", " !unterminated substitution or group: ')' missing"},
    {"echo `rm x", " !unterminated backquote"},
    {"echo ${x", " !unterminated ${...}"},
    {"git commit -m \"fix; rm -rf /\"", "[git][commit][-m][fix; rm -rf /]"},
    {"echo \"`git push`\"", "[git][push] ; [echo][`git push`]"},
    {"echo `echo \\`rm x\\``",
     "[rm][x] ; [echo][`rm x`] ; [echo][`echo \\`rm x\\``]"},
    {"x=1; y=2", "[x=1] ;  ; [y=2] ; "},
    {"trailing\\", "[trailing\\]"},
    {"echo $'a\\tb\\x41\\101\\'\\\\' $\"x y\"", "[echo][a\tbAA'\\][x y]"},
    {"$'\\x73udo' id", "[sudo][id] ; [id]"},
    {"$'\\u0073udo' id", "[sudo][id] ; [id]"},
    {"parallel ::: 'rm -rf /'",
     "[parallel][:::][rm -rf /] ?parallel runs commands read from standard "
     "input or given after :::"},
    {"parallel -j2 < cmds.txt",
     "[parallel][-j2]{<cmds.txt} ?parallel runs commands read from standard "
     "input or given after :::"},
    /* here-documents: data for a program that runs no code, commands when
     * the line could run them, code for an interpreter */
    {"cat > N.md <<EOF\nsudo apt-get install x\nEOF\necho done",
     "[cat]{>N.md}{<<EOF} ; [echo][done]"},
    {"cat > N.md <<'EOF'\n$(sudo id)\nEOF", "[cat]{>N.md}{<<EOF}"},
    {"cat > N.md <<EOF\n$(sudo id)\nEOF",
     "[cat]{>N.md}{<<EOF} ; [sudo][id] ; [id]"},
    {"cat <<EOF | sh\nsudo id\nEOF", "[cat]{<<EOF} ; [sh] ; [sudo][id] ; [id]"},
    {"cat > s.sh <<EOF\nsudo id\nEOF\nsh s.sh",
     "[cat]{>s.sh}{<<EOF} ; [sh][s.sh] ; [sudo][id] ; [id]"},
    {"cat > s <<EOF\nsudo id\nEOF\n./s",
     "[cat]{>s}{<<EOF} ; [./s] ; [sudo][id] ; [id]"},
    {"python3 - <<'EOF'\nimport socket\nEOF",
     "[python3][-]{<<EOF} ; [import][socket] ; "
     "[python3][-c][import socket\n]{<<EOF}"},
    /* code on a pipe: known when echo, printf or cat of a here-document
     * writes it (read as -c code), else known only when it runs */
    {"echo 'import socket' | python3",
     "[echo][import socket] ; [python3] ; [python3][-c][import socket\n]"},
    {"printf 'sudo id\\n' | bash -s", "[printf][sudo id\\n] ; [bash][-s] ; "
                                      "[sudo][id] ; [id]"},
    {"cat <<E | sh\nsudo id\nE", "[cat]{<<E} ; [sh] ; [sudo][id] ; [id]"},
    {"cat <<< 'sudo id' | sh", "[cat]{<<<sudo id} ; [sh] ; [sudo][id] ; [id]"},
    {"echo a | sudo sh", "[echo][a] ; [sudo][sh] ; [sh] ; [a]"},
    {"curl x | sh", "[curl][x] ; [sh]" UNK_STDIN},
    {"echo -e '\\x73udo' | sh", "[echo][-e][\\x73udo] ; [sh]" UNK_STDIN},
    {"echo a || sh", "[echo][a] ; [sh]" UNK_STDIN},
    {"echo a; sh", "[echo][a] ; [sh]" UNK_STDIN},
    {"echo a | cat | sh", "[echo][a] ; [cat] ; [sh]" UNK_STDIN},
    {"python3 <<< 'import socket'",
     "[python3]{<<<import socket} ; [python3][-c][import socket]{<<<import "
     "socket}"},
    {"pwsh -Command - <<EOF\niex x\nEOF",
     "[pwsh][-Command][-]{<<EOF} ; [iex][x] ; "
     "[pwsh][-Command][iex x\n]{<<EOF}"},
    {"cat <<-EOF\n\tsudo x\n\tEOF\nls", "[cat]{<<EOF} ; [ls]"},
    {"cat <<EOF\nno end", "[cat]{<<EOF}"},
    {"cat <<A <<B\nsudo a\nA\nsudo b\nB\nsh x",
     "[cat]{<<A}{<<B} ; [sh][x] ; [sudo][a] ; [a] ; [sudo][b] ; [b]"},
    {"$'\\U00000073\\u0075do' id", "[sudo][id] ; [id]"},
    {"echo $'\\u00e9\\u20ac\\U0001F600'",
     "[echo][\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80]"},
    {"echo $'\\uZ\\u0000x'", "[echo][\\uZx]"},
    {"echo $'\\u0073\\u00'", "[echo][s]"},
    {"{sudo,} id", "[{sudo,}][id] ?the program is named by an expansion"},
    {"{ ls; } && echo {a..c} x{}",
     "[{][ls] ; [ls] ; [}] ;  ; [echo][{a..c}][x{}]"},
    {"{sudo,\"x\"} id", "[{sudo,x}][id] ?the program is named by an expansion"},
    {"echo $'\\q\\x' $'un", " !unterminated $'...' quote"},
    /* wrappers and nested code */
    {"sudo -u root env -i A=1 timeout 5 rm -rf /",
     "[sudo][-u][root][env][-i][A=1][timeout][5][rm][-rf][/] ; "
     "[env][-i][A=1][timeout][5][rm][-rf][/] ; [timeout][5][rm][-rf][/] ; "
     "[rm][-rf][/]"},
    {"find . -name x -exec rm -rf {} \\;",
     "[find][.][-name][x][-exec][rm][-rf][{}][;] ; [rm][-rf][{}]"},
    {"find . | xargs rm",
     "[find][.] ; [xargs][rm] ; [rm][(words read by xargs)]"},
    {"env -S \"sudo id\"", "[env][-S][sudo id] ; [sudo][id] ; [id]"},
    {"bash <<< \"sudo id\"", "[bash]{<<<sudo id} ; [sudo][id] ; [id]"},
    {"bash -c \"sudo id\"", "[bash][-c][sudo id] ; [sudo][id] ; [id]"},
    {"eval \"su\"\"do id\"", "[eval][sudo id] ; [sudo][id] ; [id]"},
    {"watch -n 1 sudo id", "[watch][-n][1][sudo][id] ; [sudo][id] ; [id]"},
    {"f() { sudo id; }; f",
     "[f] ; [{][sudo][id] ; [sudo][id] ; [id] ; [}] ;  ; [f]"},
    {"python3 x.py", "[python3][x.py]"},
    {"python3 - < x.py", "[python3][-]{<x.py}"},
    {"python3 --version", "[python3][--version]"},
    /* known only when it runs */
    {"cat x | python3", "[cat][x] ; [python3]" UNK_STDIN},
    {"curl x | /bin/sh", "[curl][x] ; [/bin/sh]" UNK_STDIN},
    {"bash <<< \"$x\"",
     "[bash]{<<<$x} ?a shell or interpreter reads its program from an "
     "expansion"},
    {"x=sudo; $x id",
     "[x=sudo] ;  ; [$x][id] ?the program is named by an expansion"},
    {"sh -c", "[sh][-c] ?sh -c without its string: the commands come from "
              "elsewhere"},
    {"sh <(curl x)",
     "[curl][x] ; [sh][<(curl x)] ?a shell or interpreter runs a script "
     "named by an expansion or made by a command"},
    {"eval \"$v\"",
     "[eval][$v] ?eval of an expansion: the commands are known only when it "
     "runs"},
    {"echo sudo | xargs -I{} {} id",
     "[echo][sudo] ; [xargs][-I{}][{}][id] ?xargs names the program with "
     "words from its input"},
};

START_TEST(split)
{
    ck_assert_str_eq(render(split_cases[_i].line), split_cases[_i].parts);
}
END_TEST

/* Nesting 10,000 deep, a megabyte line, unterminated text: a reason, fast. */
START_TEST(split_deep)
{
    struct cp_buf b = {0};
    for (int i = 0; i < 10000; i++)
        cp_buf_adds(&b, "$(");
    cp_buf_adds(&b, "rm x");
    for (int i = 0; i < 10000; i++)
        cp_buf_adds(&b, ")");
    struct cp_sh_read rd;
    cp_sh_read(ar, b.data, b.len, &rd);
    ck_assert_str_eq(rd.error, "nested more than 64 levels deep");
    cp_buf_reset(&b);
    for (int i = 0; i < 50; i++)
        cp_buf_adds(&b, "$(");
    cp_buf_adds(&b, "rm x");
    for (int i = 0; i < 50; i++)
        cp_buf_adds(&b, ")");
    cp_sh_read(ar, b.data, b.len, &rd);
    ck_assert_ptr_null(rd.error);
    ck_assert(cp_gate_matches(G("rm *"), b.data, ar));
    cp_buf_free(&b);
}
END_TEST

/* ---- matching ----------------------------------------------------------- */

static const struct {
    const char *pat, *line;
    bool match;
} match_cases[] = {
    /* the word syntax */
    {"git push --force *", "git push --force origin main", true},
    {"git push --force *", "git push --force", true},
    {"git push --force *", "git push origin --force", true},
    {"git push {--force|-f} *", "git push -f origin", true},
    {"git push {--force|-f} *", "git push --forc origin", true}, /* a prefix */
    {"git push {--force|-f} *", "git push --force-with-lease", false},
    {"git push {--force|-f} *", "git push --follow-tags", false},
    {"git push {--force|-f} *", "git -C dir -c k=v push --force", true},
    {"git push {--force|-f} *", "git push -- -f", false},
    /* global options that take a value, before the subcommand */
    {"npm install *", "npm --loglevel silent install x", true},
    {"pip install *", "pip --proxy http://p:3128 install x", true},
    {"apt-get install *", "apt-get -o Dpkg::Options::=x install y", true},
    {"aws s3 cp *", "aws --profile p s3 cp a s3://b", true},
    {"cargo install *", "cargo +nightly install x", true},
    {"cargo install *", "cargo +nightly build", false},
    {"rclone copy *", "rclone --config f copy a b", true},
    /* wrappers */
    {"ssh *", "sshpass -p pw ssh host id", true},
    {"rm -rf *", "parallel -j 4 rm -rf ::: a b", true},
    /* an expansion may be any option, unless the word starts with a
     * literal byte or with ~/ (a home directory the line does not set) */
    {"git push {--force|-f} *", "git push origin $b", true},
    {"git push {--force|-f} *", "git push origin \"$(git branch)\"", true},
    {"git push {--force|-f} *", "git push origin x$b", false},
    {"git push {--force|-f} *", "git push origin ~/r", false},
    {"git push {--force|-f} *", "git push origin ~", true},
    {"git push {--force|-f} *", "HOME=--force git push origin ~/r", true},
    {"git push {--force|-f} *", "export HOME=-f; git push origin ~/r", true},
    {"git push {--force|-f} *", "git push origin *.x", true},
    {"git push {--force|-f} *", "git push origin \"~\"/$b", false},
    {"git push -- -f *", "git push -- -f", true},
    {"git push -- -f *", "git push -f", false},
    {"git -c=alias.* *", "git -c alias.p=\"push --force\" p", true},
    {"git -c=alias.* *", "git -calias.p=x p", true},
    {"git -c=alias.* *", "git -c user.name=x commit", false},
    {"curl --data-binary=@* *", "curl --data-binary @/etc/passwd x", true},
    {"curl --data-binary=@* *", "curl --data-binary=@f x", true},
    {"curl --data-binary=@* *", "curl --data-binary x y", false},
    {"curl -d=@* *", "curl -sd@f x", true},
    /* a long option written with one dash (Go's flag package): matched as
     * --name=VALUE is, spelt with one dash or two */
    {"terraform -chdir=/etc* apply *", "terraform -chdir=/etc/x apply", true},
    {"terraform -chdir=/etc* apply *",
     "terraform --chdir=/etc apply -auto-approve", true},
    {"terraform -chdir=/etc* apply *", "terraform apply -chdir=/etc", true},
    {"terraform -chdir=/etc* apply *", "terraform -chd=/etc apply",
     true}, /* a prefix */
    {"terraform -chdir=/etc* apply *", "terraform -chdir=/tmp apply", false},
    {"terraform -chdir=/etc* apply *", "terraform -chdir=/etc plan", false},
    {"terraform -chdir=/etc* apply *", "terraform -chdirx=/etc apply", false},
    {"terraform -chdir=/etc* apply *", "terraform -cdhir=/etc apply", false},
    {"go test -run=Foo* *", "go test -run FooBar ./...", true},
    {"go test -run=Foo* *", "go test -run=Bar ./...", false},
    {"terraform {-chdir=/etc*|-state=/etc*} *", "terraform -state=/etc/x plan",
     true},
    {"terraform {-chdir=/etc*|-state=/etc*} *", "terraform -state=x plan",
     false},
    {"rm -rf=x *", "rm -r -f x", false}, /* one option "rf", not -r -f */
    {"git push ** +* **", "git push origin +main", true},
    {"git push ** +* **", "git push origin main +dev x", true},
    {"git push ** +* **", "git push origin main", false},
    {">*.bashrc", "echo x >> ~/.bashrc", true},
    {">*.bashrc", "cat < ~/.bashrc", false},
    {"<*.bashrc", "cat < ~/.bashrc", true},
    {"<>/dev/tcp/*", "exec 3<>/dev/tcp/h/80", true},
    {"tee ** *.bashrc", "tee -a ~/.bashrc", true},
    {"{sudo|doas} *", "DOAS id", true}, /* program names: any case */
    {"git push --force", "git push --force origin", false},
    {"git * main", "git push main", true},
    {"git * main", "git push origin main", false},
    {"ls *", "lsof", false},
    {"ls*", "lsof -i", true}, /* options are not positional */
    {"ls*", "lsof x", false},
    {"ls*", "lsof", true},
    {"ls* *", "lsof -i", true},

    {"*", "", true},
    {"*", "anything at all", true},
    {"* --force *", "git --force x", true},
    {"rm -rf *", "rm -rf /", true},
    {"rm -rf *", "rm -r -f /", true},
    {"rm -rf *", "rm -fr /", true},
    {"rm -rf *", "rm -{r,f} /", true}, /* brace expansion: any option */
    {"rm -rf *", "rm / -rf", true},
    {"rm -rf *", "rm -r /", false},
    {"rm -rf *", "echo rm -rf /", false},
    {"rm -rf *", "grep 'rm -rf' notes.txt", false},
    {"rm -rf *", "echo 'rm -rf /'", false},
    {"rm -rf *", "rm '-rf' /", true},
    {"rm -rf *", "r\\m -rf /", true},
    {"echo a?", "echo ab", false}, /* '?' is an ordinary byte */
    {"echo a?", "echo a?", true},
    /* every part of a compound line */
    {"git push --force *", "cd repo && git push --force", true},
    {"git push --force *", "make; git push --force x | tee log", true},
    {"git push --force *", "echo $(git push --force)", true},
    {"git push --force *", "echo \"`git push --force`\"", true},
    {"git push --force *", "echo 'git push --force'", false},
    {"git push --force *", "git push --force 2>&1 >/dev/null", true},
    {"git push --force *", "if git push --force; then :; fi", true},
    {"git push --force *", "! git push --force", true},
    {"git push --force *", "{ git push --force; }", true},
    /* assignments, paths and wrappers */
    {"rm -rf *", "FOO=1 BAR=2 rm -rf x", true},
    {"rm -rf *", "/bin/rm -rf x", true},
    {"rm -rf *", "sudo rm -rf /", true},
    {"rm -rf *", "sudo -u root -E rm -rf /", true},
    {"rm -rf *", "/usr/bin/sudo -- rm -rf /", true},
    {"rm -rf *", "doas rm -rf /", true},
    {"rm -rf *", "env -i FOO=1 rm -rf /", true},
    {"rm -rf *", "timeout 5 rm -rf /", true},
    {"rm -rf *", "timeout -s KILL 5s rm -rf /", true},
    {"rm -rf *", "nice -n 10 nohup rm -rf / &", true},
    {"rm -rf *", "stdbuf -o L rm -rf /", true},
    {"rm -rf *", "time -p rm -rf /", true},
    {"rm -rf *", "command rm -rf /", true},
    {"rm -rf *", "builtin rm -rf /", true},
    {"rm -rf *", "exec rm -rf /", true},
    {"rm -rf *", "xargs -I{} rm -rf {}", true},
    {"rm -rf *", "sh -c 'rm -rf /'", true},
    {"rm -rf *", "bash -lc \"cd x && rm -rf y\"", true},
    {"rm -rf *", "sudo bash -c 'rm -rf /'", true},
    {"rm -rf *", "eval rm -rf /", true},
    {"rm -rf *", "eval 'rm -rf /'", true},
    {"rm -rf *", "sh script.sh rm -rf", false},
    {"rm -rf *", "nice echo rm -rf", false},
    {"sudo *", "sudo ls", true},
    {"sudo *", "pseudonym", false},
    {"sudo *", "FOO=1 sudo ls", true},
    /* ANSI-C quoting is decoded; expansions may be anything */
    {"git push --force *", "git push $'--force'", true},
    {"git push --force *", "git push $'\\x2d-force'", true},
    {"git push --force *", "git push $'\\055\\055force' x", true},
    {"git push --force *", "git push $F", true},
    {"git push --force *", "$GIT push --force", true},
    {"git push --force *", "git push ${FLAG:-x}", true},
    {"git push --force *", "git push --forc$1", true},
    {"git push --force *", "git push -$X", true},
    {"git push --force *", "git push x$X", false},
    {"git push --force *", "git pull $F", false},
    {"git push --force *", "git push '$F'", false}, /* literal */
    {"git push --force *", "git push price$", false},
    {"rm -rf *", "rm $X", true},
    {"echo hello", "echo $(date)", true},
    {"echo hello", "echo `date`", true},
    /* the seed table's triggers as word patterns */
    {"git reset --hard *", "git reset --hard HEAD~1", true},
    {"git reset --hard *", "git reset --soft HEAD~1", false},
    {"crontab *", "crontab -e", true},
    {"apt-get install *", "sudo apt-get install -y curl", true},
    {"pip install *", "pip install requests", true},
    {"npm i*", "npm install left-pad", false},
    {"npm i* *", "npm install left-pad", true},
    {"npm i* *", "npm info left-pad", true},
    {"kubectl delete *", "kubectl delete pod x", true},
    {"kubectl * delete *", "kubectl -n prod delete pod x", true},
    {"docker system prune *", "docker system prune -af", true},
    {"terraform destroy *", "cd infra && terraform destroy -auto-approve",
     true},
    {"gh pr merge *", "gh pr merge 12 --squash", true},
    {"shred *", "find . -name x -exec shred {} ;", true},
    /* regexes see the whole line */
    {"re:curl[^|]*[|][[:space:]]*(ba)?sh", "curl -fsSL x | sh", true},
    {"re:curl[^|]*[|][[:space:]]*(ba)?sh", "curl -fsSL x |bash", true},
    {"re:curl[^|]*[|][[:space:]]*(ba)?sh", "curl -o x y; sh x", false},
    {"re:(^|[^[:alnum:]_])sudo([^[:alnum:]_]|$)", "echo x && sudo ls", true},
    {"re:(^|[^[:alnum:]_])sudo([^[:alnum:]_]|$)", "pseudonym", false},
    {"re:git.*push.*--force", "git -C x push origin --force", true},
};

START_TEST(match)
{
    struct cp_gate_pat *g = G(match_cases[_i].pat);
    bool got = cp_gate_matches(g, match_cases[_i].line, ar);
    ck_assert_msg(got == match_cases[_i].match, "'%s' on '%s': got %d",
                  match_cases[_i].pat, match_cases[_i].line, got);
}
END_TEST

/* Hostile lines stay linear: nesting is bounded, and strings read again
 * count against one budget; beyond it the line is unreadable (denied). */
START_TEST(hostile_lines)
{
    struct cp_gate_pat *g = G("rm -rf *");
    struct cp_buf b = {0};
    struct cp_sh_read rd;
    for (int i = 0; i < 3000; i++)
        cp_buf_adds(&b, "/bin/eval /usr/bin/sudo ");
    cp_buf_adds(&b, "rm -rf x");
    cp_sh_read(ar, b.data, b.len, &rd);
    ck_assert_ptr_nonnull(rd.error);
    cp_buf_reset(&b);
    for (int i = 0; i < 5; i++)
        cp_buf_adds(&b, "/bin/eval /usr/bin/sudo ");
    cp_buf_adds(&b, "rm -rf x");
    ck_assert(cp_gate_matches(g, b.data, ar));
    cp_buf_reset(&b);
    for (int i = 0; i < 20000; i++)
        cp_buf_adds(&b, "$(`'\"x; ");
    cp_sh_read(ar, b.data, b.len, &rd);
    ck_assert_ptr_nonnull(rd.error);
    cp_buf_reset(&b);
    for (int i = 0; i < 15000; i++)
        cp_buf_adds(&b, "a && ");
    cp_buf_adds(&b, "rm -rf x");
    ck_assert(cp_gate_matches(g, b.data, ar));
    for (int i = 0; i < 10000; i++)
        cp_buf_adds(&b, "; a");
    cp_sh_read(ar, b.data, b.len, &rd);
    ck_assert_str_eq(rd.error, "more than 20,000 simple commands");
    cp_buf_free(&b);
}
END_TEST

/* ---- relations ---------------------------------------------------------- */

static const struct {
    const char *a, *b, *expect; /* contains(a,b), contains(b,a), overlaps */
} rel_cases[] = {
    {"git push *", "git push --force *", "YMM"},
    {"git push --force *", "git push --force", "YMM"},
    {"git *", "git push", "YNY"},
    {"git push", "git pull", "NNN"},
    {"git * --force", "git push *", "MMM"},
    {"rm -rf *", "rm -r *", "MYM"},
    {"rm -rf *", "rm -fr /tmp/*", "YMM"},
    {"terraform -chdir=/etc* *", "terraform -chdir=/etc* apply *", "YMM"},
    {"terraform -c=/etc* *", "terraform -chdir=/etc* *", "MMM"},
    {"git push {-f|--force} *", "git push -f *", "YMM"},
    {"git push ** +* **", "git push ** +* **", "YYM"},
    {">*.bashrc", ">*.bashrc", "YYM"},
    {"{a|b} x", "a x", "MMM"},
    {"*", "anything *", "YNY"},
    {"*", "*", "YYY"},
    {"npm i*", "npm install", "YNY"},
    {"npm i* *", "npm install *", "YNY"},
    {"a*b", "ab*", "NNY"},
    {"* push", "git *", "NNY"},
    {"git push", "git push", "YYY"},
    {"git", "git *", "NYY"},
    {"x*y*z", "x*z", "NYY"},
    {"git * *", "git *", "NYY"},
    {"ls -l", "ls -la", "YMM"},

    {"git push * *", "git push", "NNN"},
    {"a *", "b *", "NNN"},
    {"*a*", "*b*", "NNY"},
    {"a**", "a*", "YYY"},
    {"re:sudo", "sudo *", "MMM"},
    {"re:a", "re:a", "MMM"},
};

static char rel_char(enum cp_rel r)
{
    return r == CP_REL_YES ? 'Y' : r == CP_REL_NO ? 'N' : 'M';
}

START_TEST(relations)
{
    struct cp_gate_pat *a = G(rel_cases[_i].a), *b = G(rel_cases[_i].b);
    char got[4] = {rel_char(cp_gate_contains(a, b)),
                   rel_char(cp_gate_contains(b, a)),
                   rel_char(cp_gate_overlaps(a, b)), 0};
    ck_assert_msg(strcmp(got, rel_cases[_i].expect) == 0,
                  "'%s' vs '%s': got %s, want %s", rel_cases[_i].a,
                  rel_cases[_i].b, got, rel_cases[_i].expect);
    ck_assert_int_eq(rel_char(cp_gate_overlaps(b, a)), got[2]);
    /* the indexing property of cp_gate_literal_prefix */
    if (got[0] == 'Y' && a->kind == CP_GATE_WORDS) {
        size_t k = cp_gate_literal_prefix(a);
        ck_assert_uint_le(k, b->nwords);
        for (size_t i = 0; i < k; i++)
            ck_assert_str_eq(a->words[i], b->words[i]);
    }
}
END_TEST

START_TEST(literal_prefix)
{
    ck_assert_uint_eq(cp_gate_literal_prefix(G("git push --force *")), 2);
    ck_assert_uint_eq(cp_gate_literal_prefix(G("git * main")), 1);
    ck_assert_uint_eq(cp_gate_literal_prefix(G("npm i*")), 1);
    ck_assert_uint_eq(cp_gate_literal_prefix(G("*")), 0);
    ck_assert_uint_eq(cp_gate_literal_prefix(G("re:git")), 0);
}
END_TEST

/* Word globs against every word of up to 6 bytes over {a, b, c}, and word
 * sequences of up to 3 words over a few words. */
static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* A word (no '*') matched by a glob whose only wildcard is '*', by brute
 * recursion (the reference for the overlap below). */
static bool ref_glob(const char *g, const char *s)
{
    if (*g == '\0')
        return *s == '\0';
    if (*g == '*')
        return ref_glob(g + 1, s) || (*s && ref_glob(g, s + 1));
    return *s == *g && ref_glob(g + 1, s + 1);
}

/* cp_match_word_overlaps (linear, no automata) against every word over
 * {a, b} of at most 12 bytes, for globs of up to 6 bytes over "ab*": two
 * globs share a word exactly when one of these is in both. */
START_TEST(word_overlaps_brute)
{
    enum { NG = 48 };
    char g[NG][8];
    uint32_t seed = 11;
    for (int i = 0; i < NG; i++) {
        int len = (int)(rnd(&seed) % 7);
        for (int k = 0; k < len; k++)
            g[i][k] = "ab*"[rnd(&seed) % 3];
        g[i][len] = '\0';
    }
    static bool m[NG][1 << 13];
    char w[16];
    size_t nw = 0;
    for (int len = 0; len <= 12; len++)
        for (int v = 0; v < (1 << len); v++, nw++) {
            for (int k = 0; k < len; k++)
                w[k] = (char)('a' + ((v >> k) & 1));
            w[len] = '\0';
            for (int i = 0; i < NG; i++)
                m[i][nw] = ref_glob(g[i], w);
        }
    for (int i = 0; i < NG; i++)
        for (int j = 0; j < NG; j++) {
            bool meet = false;
            for (size_t k = 0; k < nw && !meet; k++)
                meet = m[i][k] && m[j][k];
            ck_assert_msg(cp_match_word_overlaps(g[i], g[j]) == meet,
                          "'%s' '%s': want %d", g[i], g[j], meet);
        }
}
END_TEST

/* Elements of several alternatives (globs of up to 7 bytes over "ab.*",
 * runs of literals between stars) against every word of up to 7 bytes
 * over {a, b, .}, each word read once: the matcher's refusals by length,
 * first and last byte, bytes and adjacent pairs, and its glob by prefix,
 * suffix and leftmost segments, answer as the brute recursion does.
 * Globs whose prefix and suffix would overlap ("ab*ba" and "aba") and
 * whose segments repeat ("*a*a*", "*ab*ab") are among them. */
START_TEST(glob_alternatives_brute)
{
    enum { NP = 160, NA = 4, NW = 1 + 3 + 9 + 27 + 81 + 243 + 729 + 2187 };
    static char words[NW][10];
    size_t nw = 0;
    for (int len = 0; len <= 7; len++) {
        int tot = 1;
        for (int k = 0; k < len; k++)
            tot *= 3;
        for (int v = 0; v < tot; v++, nw++) {
            int x = v;
            for (int k = 0; k < len; k++, x /= 3)
                words[nw][k] = "ab."[x % 3];
            words[nw][len] = '\0';
        }
    }
    static char alts[NP][NA][10];
    static struct cp_gate_pat g[NP];
    uint32_t seed = 23;
    for (int i = 0; i < NP; i++) {
        char text[64] = "p {";
        for (int j = 0; j < NA; j++) {
            int len = 1 + (int)(rnd(&seed) % 7);
            for (int k = 0; k < len; k++)
                alts[i][j][k] = "aab.**"[rnd(&seed) % 6];
            alts[i][j][len] = '\0';
            strcat(text, alts[i][j]);
            strcat(text, j + 1 < NA ? "|" : "}");
        }
        ck_assert_ptr_null(cp_gate_parse(ar, text, strlen(text), false, &g[i]));
    }
    for (size_t w = 0; w < nw; w++) {
        char line[16];
        snprintf(line, sizeof line, "p %.9s", words[w][0] ? words[w] : "''");
        struct cp_gate_subject *s = cp_gate_subject_new(ar, line);
        for (int i = 0; i < NP; i++) {
            bool want = false;
            for (int j = 0; j < NA && !want; j++)
                want = ref_glob(alts[i][j], words[w]);
            ck_assert_msg(cp_gate_subject_matches(&g[i], s, ar) == want,
                          "{%s|%s|%s|%s} on '%s': want %d", alts[i][0],
                          alts[i][1], alts[i][2], alts[i][3], words[w], want);
        }
    }
}
END_TEST

/* Hand-picked globs where a shortcut could go wrong. */
static const struct {
    const char *glob, *word;
    bool match;
} glob_cases[] = {
    {"ab*ba", "aba", false}, /* prefix and suffix would overlap */
    {"ab*ba", "abba", true},
    {"a*a", "a", false},
    {"a*a", "aa", true},
    {"*a*a*", "a", false},
    {"*a*a*", "baab", true},
    {"*ab*ab", "abab", true},
    {"*ab*ab", "aab", false},
    {"*abc*abd", "abcabdabd", true},
    {"*abc*abd", "abdabc", false},
    {"x*", "x", true},
    {"*.bashrc", ".bashrc", true},
    {"*.bashrc", "a.bashrcx", false},
    {"*/systemd/*", "/etc/systemd/x", true},
    {"*/systemd/*", "/etc/systemd", false},
    {"*cron*", "crontab", true},
    {"*cron*", "cr-on", false},
    {"**a**", "a", true},
    {"abc", "abcd", false},
    {"abc", "ab", false},
    {"a*b*c", "acb", false},
    {"a*b*c", "abbc", true},
};

START_TEST(glob_hand_cases)
{
    char pat[64], line[64];
    snprintf(pat, sizeof pat, "p {%s|zz}", glob_cases[_i].glob);
    snprintf(line, sizeof line, "p %s", glob_cases[_i].word);
    ck_assert_msg(ref_glob(glob_cases[_i].glob, glob_cases[_i].word) ==
                      glob_cases[_i].match,
                  "reference: %s on %s", glob_cases[_i].glob,
                  glob_cases[_i].word);
    ck_assert_msg(cp_gate_matches(G(pat), line, ar) == glob_cases[_i].match,
                  "%s on %s", pat, line);
}
END_TEST

START_TEST(brute_force_words)
{
    enum { NP = 60, NW = 1 + 3 + 9 + 27 + 81 + 243 + 729 };
    static char words[NW][8];
    size_t nw = 0;
    for (int len = 0; len <= 6; len++) {
        int tot = 1;
        for (int k = 0; k < len; k++)
            tot *= 3;
        for (int v = 0; v < tot; v++) {
            int x = v;
            for (int k = 0; k < len; k++, x /= 3)
                words[nw][k] = (char)('a' + x % 3);
            words[nw][len] = '\0';
            nw++;
        }
    }
    char texts[NP][8];
    uint32_t seed = 7;
    for (int i = 0; i < NP; i++) {
        int len = 1 + (int)(rnd(&seed) % 4);
        for (int k = 0; k < len; k++)
            texts[i][k] = "ab**"[rnd(&seed) % 4];
        texts[i][len] = '\0';
    }
    static struct cp_gate_pat g[NP];
    static bool m[NP][NW];
    for (int i = 0; i < NP; i++) {
        ck_assert_ptr_null(
            cp_gate_parse(ar, texts[i], strlen(texts[i]), false, &g[i]));
        for (size_t w = 0; w < nw; w++)
            m[i][w] = cp_gate_matches(&g[i], words[w][0] ? words[w] : "''", ar);
    }
    for (int i = 0; i < NP; i++) {
        for (int j = 0; j < NP; j++) {
            if (g[i].trailing_any || g[j].trailing_any ||
                strcmp(texts[i], "**") == 0 || strcmp(texts[j], "**") == 0)
                continue; /* "*", "**" alone: sequence patterns, not words */
            bool sub = true, meet = false;
            for (size_t w = 0; w < nw; w++) {
                if (m[j][w] && !m[i][w])
                    sub = false;
                if (m[i][w] && m[j][w])
                    meet = true;
            }
            ck_assert_msg(cp_gate_contains(&g[i], &g[j]) ==
                              (sub ? CP_REL_YES : CP_REL_NO),
                          "contains('%s', '%s')", texts[i], texts[j]);
            ck_assert_msg(cp_gate_overlaps(&g[i], &g[j]) ==
                              (meet ? CP_REL_YES : CP_REL_NO),
                          "overlaps('%s', '%s')", texts[i], texts[j]);
        }
    }
}
END_TEST

START_TEST(brute_force_sequences)
{
    static const char *const items[] = {"a", "b", "a*", "*", "*b", "ab"};
    static const char *const lines[] = {"a", "b", "ab", "aab", "c"};
    enum { NP = 50 };
    char texts[NP][32];
    uint32_t seed = 99;
    for (int i = 0; i < NP; i++) {
        int n = 1 + (int)(rnd(&seed) % 3);
        texts[i][0] = '\0';
        for (int k = 0; k < n; k++) {
            if (k)
                strcat(texts[i], " ");
            strcat(texts[i], items[rnd(&seed) % 6]);
        }
    }
    /* every sequence of 0..4 words from `lines` */
    char seqs[1 + 5 + 25 + 125 + 625][24];
    size_t ns = 0;
    for (int len = 0; len <= 4; len++) {
        int tot = 1;
        for (int k = 0; k < len; k++)
            tot *= 5;
        for (int v = 0; v < tot; v++) {
            int x = v;
            seqs[ns][0] = '\0';
            for (int k = 0; k < len; k++, x /= 5) {
                if (k)
                    strcat(seqs[ns], " ");
                strcat(seqs[ns], lines[x % 5]);
            }
            ns++;
        }
    }
    struct cp_gate_pat g[NP];
    for (int i = 0; i < NP; i++)
        ck_assert_ptr_null(
            cp_gate_parse(ar, texts[i], strlen(texts[i]), false, &g[i]));
    static bool m[NP][1 + 5 + 25 + 125 + 625];
    for (int i = 0; i < NP; i++)
        for (size_t s = 0; s < ns; s++)
            m[i][s] = cp_gate_matches(&g[i], seqs[s], ar);
    for (int i = 0; i < NP; i++) {
        for (int j = 0; j < NP; j++) {
            bool sub = true, meet = false;
            for (size_t s = 0; s < ns; s++) {
                if (m[j][s] && !m[i][s])
                    sub = false;
                if (m[i][s] && m[j][s])
                    meet = true;
            }
            ck_assert_msg(cp_gate_contains(&g[i], &g[j]) ==
                              (sub ? CP_REL_YES : CP_REL_NO),
                          "contains('%s', '%s')", texts[i], texts[j]);
            ck_assert_msg(cp_gate_overlaps(&g[i], &g[j]) ==
                              (meet ? CP_REL_YES : CP_REL_NO),
                          "overlaps('%s', '%s')", texts[i], texts[j]);
        }
    }
}
END_TEST

/* ---- the one gate decision ------------------------------------------- */

struct dec_rows {
    const char *const *pats; /* "ask:PAT", "deny:PAT", "err:" */
    struct cp_gate_pat *g;
};

static enum cp_verdict dec_verdict(void *ctx, size_t i)
{
    const char *p = ((struct dec_rows *)ctx)->pats[i];
    return p[0] == 'a' ? CP_ASK : CP_DENY;
}

static int dec_match(void *ctx, size_t i, struct cp_gate_subject *s,
                     struct cp_arena *a, const char **err)
{
    struct dec_rows *d = ctx;
    if (d->pats[i][0] == 'e') {
        *err = "row cannot be matched";
        return -1;
    }
    return cp_gate_subject_matches(&d->g[i], s, a);
}

static const struct {
    const char *pats[3];
    const char *line;
    enum cp_verdict want;
    size_t row; /* deciding row, 9 for none */
} dec_cases[] = {
    {{"ask:git push *", "deny:git push --force *", NULL},
     "git push --force x",
     CP_DENY,
     1},
    {{"ask:git push *", "deny:git push --force *", NULL},
     "git push x",
     CP_ASK,
     0},
    {{"ask:git push *", "deny:git push --force *", NULL},
     "git pull",
     CP_ALLOW,
     9},
    {{"ask:*", NULL, NULL}, "echo 'open", CP_DENY, 9},  /* unreadable */
    {{"ask:git *", "err:", NULL}, "git x", CP_DENY, 9}, /* a failing row */
    {{"deny:sudo *", "ask:sudo *", NULL}, "sudo id", CP_DENY, 0},
};

START_TEST(one_decision)
{
    struct cp_gate_pat g[3];
    size_t n = 0;
    for (; n < 3 && dec_cases[_i].pats[n]; n++) {
        const char *p = strchr(dec_cases[_i].pats[n], ':') + 1;
        if (*p)
            ck_assert_ptr_null(cp_gate_parse(ar, p, strlen(p), false, &g[n]));
    }
    struct dec_rows d = {dec_cases[_i].pats, g};
    struct cp_gate_rows rows = {.n = n,
                                .ctx = &d,
                                .verdict = dec_verdict,
                                .match = dec_match};
    struct cp_gate_result r;
    cp_gate_decide(&rows, cp_gate_subject_new(ar, dec_cases[_i].line), true, ar,
                   &r);
    ck_assert_int_eq(r.verdict, dec_cases[_i].want);
    if (dec_cases[_i].row == 9) {
        ck_assert_uint_eq(r.nrows, 0);
        ck_assert(r.verdict == CP_ALLOW || r.unreadable || r.error);
    } else {
        ck_assert_uint_ge(r.nrows, 1);
        ck_assert_uint_eq(r.rows[0], dec_cases[_i].row);
    }
}
END_TEST

Suite *cp_test_match_gate_suite(void); /* collected by the Makefile */
Suite *cp_test_match_gate_suite(void)
{
    Suite *s = suite_create("match_gate");
    TCase *tc = tcase_create("gate");
    tcase_add_checked_fixture(tc, setup, free_pats);
    tcase_add_test(tc, parse_words);
    tcase_add_test(tc, parse_long);
    tcase_add_loop_test(tc, parse_error, 0,
                        sizeof gate_errors / sizeof gate_errors[0]);
    tcase_add_test(tc, parse_single_repetition);
    tcase_add_loop_test(tc, split, 0,
                        sizeof split_cases / sizeof split_cases[0]);
    tcase_add_test(tc, split_deep);
    tcase_add_loop_test(tc, match, 0,
                        sizeof match_cases / sizeof match_cases[0]);
    tcase_add_test(tc, hostile_lines);
    tcase_add_test(tc, literal_prefix);
    tcase_add_loop_test(tc, relations, 0,
                        sizeof rel_cases / sizeof rel_cases[0]);
    tcase_add_test(tc, word_overlaps_brute);
    tcase_add_test(tc, glob_alternatives_brute);
    tcase_add_loop_test(tc, glob_hand_cases, 0,
                        sizeof glob_cases / sizeof glob_cases[0]);
    tcase_add_test(tc, brute_force_words);
    tcase_add_test(tc, brute_force_sequences);
    tcase_add_loop_test(tc, one_decision, 0,
                        sizeof dec_cases / sizeof dec_cases[0]);
    suite_add_tcase(s, tc);
    return s;
}

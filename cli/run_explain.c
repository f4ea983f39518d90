/* SPDX-License-Identifier: MIT */
/* `confpol run --explain-denials` (spec/runtime.md §13): the launch runs in
 * a child whose stderr (the command's) comes through a pipe; the parent
 * relays it unchanged and collects the paths of the lines that report a
 * denial (EACCES "Permission denied", EROFS "Read-only file system", EPERM
 * "Operation not permitted").  When the command has ended, each path is
 * explained with the decision model that `confpol explain` uses: the rule
 * that denies it, or that the policy allows it and the enforcer is
 * stricter there.  After the fact and from the command's own messages:
 * a denial that the command does not report is not seen. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "runtime.h"

#define MAX_PATHS 64

/* What a line says of its path: a write is hinted at, the socket
 * supervisor refused a connect to it, or it was not found (a path the
 * sandbox masks or leaves out reads as missing: explained only when the
 * policy denies it). */
enum { HINT_WRITE = 1, HINT_SOCKET = 2, HINT_MISSING = 4 };

struct seen {
    char *path[MAX_PATHS];
    unsigned hint[MAX_PATHS];
    size_t n;
    size_t dropped;
};

static void seen_add(struct seen *s, const char *path, size_t len,
                     unsigned hint)
{
    if (len == 0 || len >= PATH_MAX)
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->path[i]) == len && !memcmp(s->path[i], path, len)) {
            s->hint[i] |= hint;
            return;
        }
    if (s->n == MAX_PATHS) {
        s->dropped++;
        return;
    }
    s->path[s->n] = cp_xmalloc(len + 1);
    memcpy(s->path[s->n], path, len);
    s->path[s->n][len] = '\0';
    s->hint[s->n++] = hint;
}

/* The error texts of a denial (and of a path that reads as missing). */
static const char *const denial_texts[] = {
    "Permission denied", "Read-only file system", "Operation not permitted",
    "No such file or directory", NULL};

/* Does the line report a denial, or a missing path?  *missing: only the
 * latter. */
static bool is_denial(const char *line, bool *missing)
{
    *missing = false;
    for (size_t i = 0; denial_texts[i]; i++)
        if (strstr(line, denial_texts[i])) {
            *missing = i == 3;
            return true;
        }
    return false;
}

/* Does the line's wording hint at a write? */
static bool write_hint(const char *line)
{
    return strstr(line, "create") || strstr(line, "touch") ||
           strstr(line, "Read-only") || strstr(line, "remove") ||
           strstr(line, "rename") || strstr(line, "move") ||
           strstr(line, "mkdir") || strstr(line, "writ");
}

/* The quote before c ('\'', '"' or '`'), 0 for none. */
static char quote_before(const char *line, const char *c)
{
    return c > line && (c[-1] == '\'' || c[-1] == '"' || c[-1] == '`') ? c[-1]
                                                                       : 0;
}

/* Does a path start at c: a '/' at the line's start or after a blank or a
 * quote? */
static bool path_starts(const char *line, const char *c)
{
    return *c == '/' && (c == line || c[-1] == ' ' || c[-1] == '\t' ||
                         quote_before(line, c));
}

/* The end of the path that starts at c: the closing quote q (a '`' may
 * close with '\''), or for a bare path ':' or a blank; the line's end. */
static const char *path_end(const char *c, char q)
{
    const char *e = c;
    while (*e && *e != '\n' &&
           (q ? (*e != q && !(q == '`' && *e == '\''))
              : (*e != ':' && *e != ' ' && *e != '\t')))
        e++;
    return e;
}

/* A line of the socket supervisor, "PROG: socket: deny PATH: WHY"
 * (spec/runtime.md 14.5): PATH runs to the last ": " (no reason holds
 * one).  True when the line is one. */
static bool scan_socket_line(struct seen *s, const char *line)
{
    static const char mark[] = ": socket: deny ";
    const char *m = strstr(line, mark);
    if (!m)
        return false;
    const char *p = m + sizeof mark - 1, *e = NULL;
    for (const char *c = p; (c = strstr(c, ": ")) != NULL; c++)
        e = c;
    if (e && *p == '/')
        seen_add(s, p, (size_t)(e - p), HINT_SOCKET);
    return true;
}

/* The relative path just before ": ERROR" (E the ':'), as in "sh: 1:
 * cannot create .git/hooks/x: Read-only file system" or "touch: cannot
 * touch 'a/b': Permission denied" ('...', "...", and ‘...’ as GNU tools
 * quote in a UTF-8 locale): added as written, explained against the
 * working directory. */
/* The word that ends at END (back to a blank, a quote or '‘'). */
static const char *word_start(const char *line, const char *end)
{
    const char *b = end;
    while (b > line && !strchr(" \t'\"`", b[-1]) &&
           !(b - line >= 3 && !memcmp(b - 3, "\xe2\x80\x98", 3)))
        b--;
    return b;
}

static void scan_relative(struct seen *s, const char *line, const char *e,
                          unsigned hint)
{
    const char *end = e;
    if (end - line >= 3 && !memcmp(end - 3, "\xe2\x80\x99", 3))
        end -= 3; /* ’ */
    else if (end > line && (end[-1] == '\'' || end[-1] == '"'))
        end--;
    const char *b = word_start(line, end);
    /* A bare word counts when it holds a '/' ("sh: 1: ..." has others);
     * a quoted one always. */
    if (b < end && *b != '/' && *b != '-' &&
        (end != e || memchr(b, '/', (size_t)(end - b))))
        seen_add(s, b, (size_t)(end - b), hint);
}

/* One line of the command's stderr: a denial names its path quoted
 * ('/x', "/x", `/x') or bare (/x: or /x followed by a blank); a relative
 * path is the word before the error text. */
static void scan_line(struct seen *s, const char *line)
{
    bool missing;
    if (scan_socket_line(s, line) || !is_denial(line, &missing))
        return;
    unsigned w = missing ? HINT_MISSING : write_hint(line) ? HINT_WRITE : 0;
    for (const char *c = line; *c; c++) {
        if (!path_starts(line, c))
            continue;
        const char *e = path_end(c, quote_before(line, c));
        seen_add(s, c, (size_t)(e - c), w);
        c = *e ? e : e - 1;
    }
    for (size_t i = 0; denial_texts[i]; i++) {
        const char *m = strstr(line, denial_texts[i]);
        if (m && m - line >= 2 && m[-1] == ' ' && m[-2] == ':')
            scan_relative(s, line, m - 2, w);
    }
}

/* The path in the policy's words: under the longest param value bound for
 * the launch, as ${NAME}/rest (HOME as ~), so that the decision uses the
 * same binding as the launch. */
static char *subject_of(const struct cp_rt_params *p, const char *path)
{
    const struct cp_rt_binding *best = NULL;
    size_t bl = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t n = strlen(p->v[i].value);
        if (n > bl && !strncmp(path, p->v[i].value, n) &&
            (path[n] == '/' || !path[n]) && strcmp(p->v[i].value, "/")) {
            best = &p->v[i];
            bl = n;
        }
    }
    if (!best)
        return cp_xstrdup(path);
    size_t len = strlen(best->name) + strlen(path + bl) + 4;
    char *s = cp_xmalloc(len);
    if (!strcmp(best->name, "HOME"))
        snprintf(s, len, "~%s", path + bl);
    else
        snprintf(s, len, "${%s}%s", best->name, path + bl);
    return s;
}

static void explain_one(struct cp_ctx *cx, const struct cp_rt_params *p,
                        const char *prog, const char *path, unsigned hint)
{
    char abs[PATH_MAX], cwd[PATH_MAX];
    if (path[0] != '/') { /* relative to the directory CMD ran in */
        if (!getcwd(cwd, sizeof cwd) ||
            (size_t)snprintf(abs, sizeof abs, "%s/%s",
                             strcmp(cwd, "/") ? cwd : "", path) >= sizeof abs)
            return;
    } else {
        snprintf(abs, sizeof abs, "%s", path);
    }
    /* No '.' or '..' segment reaches the decision (it would refuse it). */
    if (strstr(abs, "/./") || strstr(abs, "/../"))
        return;
    char *subj = subject_of(p, abs);
    enum cp_access order[3] = {CP_ACC_READ, CP_ACC_WRITE, CP_ACC_EXEC};
    size_t norder = 3;
    if (hint & HINT_SOCKET) { /* the supervisor refused a connect */
        order[0] = CP_ACC_SOCKET;
        norder = 1;
    } else if (hint & HINT_WRITE) {
        order[0] = CP_ACC_WRITE;
        order[1] = CP_ACC_READ;
    } else if (hint == HINT_MISSING) { /* a masked path reads as missing */
        norder = 1;
    }
    for (size_t k = 0; k < norder; k++) {
        struct cp_decision dc;
        if (cp_decide(cx->policy, order[k], subj, cx->arena, &dc) != 0)
            break;
        if (dc.verdict != CP_DENY)
            continue;
        fprintf(stderr, "%s: denied: %s %s: ", prog, cp_access_text(order[k]),
                abs);
        if (dc.nrules) {
            const struct cp_rule *r = dc.rules[0];
            const char *rt = cp_sema_rule_text(cx->arena, r);
            if (r->origin == CP_ORIGIN_SOURCE && r->loc.src)
                fprintf(stderr, "by '%s' at %s:%u:%u\n", rt, r->loc.src->path,
                        r->loc.line, r->loc.col);
            else
                fprintf(stderr, "by '%s', added by %s (%s)\n", rt,
                        cp_sema_origin_text(r->origin), r->why ? r->why : "");
        } else {
            fprintf(stderr, "by default: %s\n",
                    cp_sema_default_why(order[k], dc.verdict, cx->policy));
        }
        free(subj);
        return;
    }
    /* A path that reads as missing and that the policy allows: missing. */
    if (hint != HINT_MISSING)
        fprintf(stderr,
                "%s: denied: %s: the policy allows it; the enforcer is "
                "stricter here (--dry-run lists its notes)\n",
                prog, abs);
    free(subj);
}

static pid_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

int cp_run_explain(struct cp_ctx *cx, const struct cp_rt_artifact *a,
                   const struct cp_rt_params *p, struct cp_rt_launch *l)
{
    int pfd[2];
    if (pipe(pfd) < 0) {
        fprintf(stderr, "%s: pipe: %s\n", l->prog, strerror(errno));
        return CP_RT_EXIT_ERROR;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", l->prog, strerror(errno));
        return CP_RT_EXIT_ERROR;
    }
    if (pid == 0) {
        close(pfd[0]);
        dup2(pfd[1], 2);
        close(pfd[1]);
        _exit(cp_rt_run(a, p, l) & 0xff);
    }
    close(pfd[1]);
    child_pid = pid;
    /* A terminal's signals reach the child in the same process group;
     * others are forwarded. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct seen s = {.n = 0};
    FILE *in = fdopen(pfd[0], "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (in && (n = getline(&line, &cap, in)) >= 0) {
        fwrite(line, 1, (size_t)n, stderr);
        fflush(stderr);
        scan_line(&s, line);
    }
    free(line);
    if (in)
        fclose(in);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    for (size_t i = 0; i < s.n; i++) {
        explain_one(cx, p, l->prog, s.path[i], s.hint[i]);
        free(s.path[i]);
    }
    if (s.dropped)
        fprintf(stderr, "%s: %zu more denied paths not explained\n", l->prog,
                s.dropped);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

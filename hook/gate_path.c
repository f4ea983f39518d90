/* SPDX-License-Identifier: MIT */
/* The file tools' paths (spec/gate.md, "File tools by path").  Claude
 * Code runs Write, Edit, MultiEdit and NotebookEdit outside its sandbox, so
 * the hook decides the path they name against the policy's write roots and
 * deny-write targets, as the decision model decides a write: deny when a
 * deny-write target covers it, else allow when a write root covers it,
 * else deny.
 *
 * The path is judged in every form the client or the kernel may give it:
 * as written (lexically normalised against the input's cwd), resolved as
 * the kernel resolves it (every symbolic link followed, the final one too:
 * writing to an existing link writes its target; ".." after a link goes
 * up from the link's target), and the lexical form resolved.  A path
 * starting with "~" is judged both as HOME's and as a name relative to the
 * cwd.  Every form must be allowed.  A path that cannot be resolved (too
 * long, a loop of links, a component that cannot be looked at) is denied. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "claude_vocab.h"
#include "gate.h"
#include "json.h"
#include "match.h"

/* The longest path judged; longer ones are denied (PATH_MAX on Linux). */
#define GP_MAX 4096
/* Links followed in one resolution before giving up, as the kernel. */
#define GP_MAX_LINKS 40

void cp_gate_paths_from_policy(struct cp_arena *a, const struct cp_policy *p,
                               struct cp_gate_paths *out)
{
    memset(out, 0, sizeof *out);
    out->present = true;
    out->params = p->params;
    out->nparams = p->nparams;
    out->v = cp_arena_alloc(a, (p->nrules ? p->nrules : 1) * sizeof *out->v);
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_WRITE && r->kind != CP_R_DENY_WRITE)
            continue;
        out->v[out->n++] = (struct cp_gate_wpath){
            .path = r->u.path,
            .text = cp_path_format(a, &r->u.path),
            .deny = r->kind == CP_R_DENY_WRITE};
    }
}

/* One array of "paths" into out (deny: the deny-write targets). */
static const char *gp_parse_list(struct cp_arena *a, const struct cp_jnode *l,
                                 bool deny, struct cp_gate_paths *out)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct cp_jnode *s = l->items[i];
        if (s->type != CP_J_STR)
            return "gate table \"paths\" holds a path that is not a string";
        struct cp_gate_wpath *w = &out->v[out->n];
        size_t off;
        const char *err = cp_path_parse(a, s->s, s->len, false, &w->path, &off);
        if (err)
            return cp_arena_printf(a, "gate table path '%s': %s", s->s, err);
        w->text = cp_arena_strndup(a, s->s, s->len);
        w->deny = deny;
        out->n++;
    }
    return NULL;
}

const char *cp_gate_paths_parse(struct cp_arena *a,
                                const struct cp_jnode *paths,
                                struct cp_gate_paths *out)
{
    memset(out, 0, sizeof *out);
    if (!paths)
        return NULL; /* built before the path check: every path denied */
    const struct cp_jnode *dw = cp_json_get(paths, CP_CV_PATHS_DENY_WRITE,
                                            NULL);
    const struct cp_jnode *wr = cp_json_get(paths, CP_CV_PATHS_WRITE, NULL);
    if (paths->type != CP_J_OBJ || !dw || dw->type != CP_J_ARR || !wr ||
        wr->type != CP_J_ARR)
        return "gate table \"paths\" is not an object with \"denyWrite\" "
               "and \"write\" arrays";
    size_t n = dw->n + wr->n;
    out->v = cp_arena_alloc(a, (n ? n : 1) * sizeof *out->v);
    const char *err = gp_parse_list(a, dw, true, out);
    if (!err)
        err = gp_parse_list(a, wr, false, out);
    out->present = !err;
    return err;
}

/* ---- resolving the path ---------------------------------------------- */

/* Appends component [s, s+n) to the path dst of length *dl ("" is "/"). */
static bool gp_push(char *dst, size_t *dl, const char *s, size_t n)
{
    if (*dl + 1 + n > GP_MAX)
        return false;
    dst[(*dl)++] = '/';
    memcpy(dst + *dl, s, n);
    *dl += n;
    dst[*dl] = '\0';
    return true;
}

/* Drops the last component of dst ("" stays ""). */
static void gp_pop(char *dst, size_t *dl)
{
    while (*dl > 0 && dst[*dl - 1] != '/')
        (*dl)--;
    if (*dl > 0)
        (*dl)--;
    dst[*dl] = '\0';
}

/* The state of one resolution: the part resolved (`done`, absolute, ""
 * for "/") and the part left (`rest` from `rp`). */
struct gp_walk {
    char done[GP_MAX + 1];
    size_t dl;
    char rest[2 * GP_MAX + 2];
    size_t rp;
    int links;
    bool missing; /* a component does not exist: the rest is lexical */
};

/* The link at w->done replaces its own component: its target, then the
 * rest.  NULL, or why the path cannot be resolved. */
static const char *gp_follow(struct gp_walk *w)
{
    if (++w->links > GP_MAX_LINKS)
        return "too many symbolic links";
    char tgt[GP_MAX + 1];
    ssize_t n = readlink(w->done, tgt, GP_MAX);
    if (n < 0)
        return "a symbolic link cannot be read";
    if (n == 0 || n >= GP_MAX)
        return "a symbolic link's target is empty or too long";
    size_t tail = strlen(w->rest + w->rp);
    if ((size_t)n + 1 + tail > 2 * GP_MAX)
        return "longer than 4096 bytes";
    char tmp[2 * GP_MAX + 2];
    memcpy(tmp, tgt, (size_t)n);
    tmp[n] = '/';
    memcpy(tmp + n + 1, w->rest + w->rp, tail + 1);
    memcpy(w->rest, tmp, (size_t)n + 2 + tail);
    w->rp = 0;
    if (tgt[0] == '/')
        w->dl = 0;
    else
        gp_pop(w->done, &w->dl);
    w->done[w->dl] = '\0';
    return NULL;
}

/* The component just pushed onto w->done: a link is followed (follow),
 * a missing one makes the rest lexical.  NULL, or why not resolvable. */
static const char *gp_look(struct gp_walk *w)
{
    struct stat st;
    if (lstat(w->done, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return "a component cannot be looked up";
        w->missing = true;
        return NULL;
    }
    return S_ISLNK(st.st_mode) ? gp_follow(w) : NULL;
}

/* Resolves the absolute path `in` into out (GP_MAX + 1 bytes): lexically
 * when !follow, else as the kernel does.  NULL, or why it cannot be. */
static const char *gp_resolve(const char *in, bool follow, char *out)
{
    struct gp_walk *w = calloc(1, sizeof *w);
    if (!w)
        return "out of memory";
    size_t il = strlen(in);
    const char *err = il > GP_MAX ? "longer than 4096 bytes" : NULL;
    if (!err)
        memcpy(w->rest, in, il + 1);
    w->missing = !follow;
    while (!err && w->rest[w->rp]) {
        while (w->rest[w->rp] == '/')
            w->rp++;
        size_t s = w->rp;
        while (w->rest[w->rp] && w->rest[w->rp] != '/')
            w->rp++;
        size_t cl = w->rp - s;
        if (cl == 0 || (cl == 1 && w->rest[s] == '.'))
            continue;
        if (cl == 2 && w->rest[s] == '.' && w->rest[s + 1] == '.') {
            gp_pop(w->done, &w->dl);
            continue;
        }
        if (!gp_push(w->done, &w->dl, w->rest + s, cl))
            err = "longer than 4096 bytes";
        else if (!w->missing)
            err = gp_look(w);
    }
    if (!err)
        memcpy(out, w->dl ? w->done : "/", (w->dl ? w->dl : 1) + 1);
    free(w);
    return err;
}

/* ---- deciding ------------------------------------------------------ */

/* What one decision needs, and the roots it has bound so far (a root is
 * resolved once per call, not once per rule and form). */
struct gp_ctx {
    struct cp_arena *a;
    const struct cp_gate_paths *t;
    const struct cp_gate_path_env *env;
    struct {
        const char *root, *given, *real;
    } cache[8];
    size_t ncache;
};

/* The directory a path root stands for, as given (*given) and resolved
 * (*real, NULL when it does not resolve): a param bound in the policy, else
 * HOME from the environment, PROJECT from CLAUDE_PROJECT_DIR. */
static void gp_root_bind(struct gp_ctx *x, const char *root, const char **given,
                         const char **real)
{
    *given = *real = NULL;
    for (size_t i = 0; i < x->t->nparams; i++)
        if (strcmp(x->t->params[i].name, root) == 0 && x->t->params[i].value)
            *given = x->t->params[i].value;
    if (!*given && strcmp(root, "HOME") == 0)
        *given = x->env->home;
    if (!*given && strcmp(root, "PROJECT") == 0)
        *given = x->env->project;
    if (!*given || (*given)[0] != '/') {
        *given = NULL;
        return;
    }
    char buf[GP_MAX + 1];
    if (!gp_resolve(*given, false, buf))
        *given = cp_arena_strdup(x->a, buf);
    if (!gp_resolve(*given, true, buf))
        *real = cp_arena_strdup(x->a, buf);
}

static void gp_root(struct gp_ctx *x, const char *root, const char **given,
                    const char **real)
{
    for (size_t i = 0; i < x->ncache; i++)
        if (strcmp(x->cache[i].root, root) == 0) {
            *given = x->cache[i].given;
            *real = x->cache[i].real;
            return;
        }
    gp_root_bind(x, root, given, real);
    if (x->ncache < sizeof x->cache / sizeof x->cache[0]) {
        x->cache[x->ncache].root = root;
        x->cache[x->ncache].given = *given;
        x->cache[x->ncache++].real = *real;
    }
}

/* Does rule w cover path c?  1 yes, 0 no, -1 its root is not known. */
static int gp_covers(struct gp_ctx *x, const struct cp_gate_wpath *w,
                     const char *c)
{
    size_t n = strlen(c);
    if (!w->path.root)
        return cp_path_covers(&w->path, NULL, c, n);
    const char *given, *real;
    gp_root(x, w->path.root, &given, &real);
    if (!given)
        return -1;
    return cp_path_covers(&w->path, given, c, n) ||
           (real && cp_path_covers(&w->path, real, c, n));
}

/* The verdict for one form c of the path: NULL allowed, else why not. */
static const char *gp_judge(struct gp_ctx *x, const char *c)
{
    struct cp_arena *a = x->a;
    bool allowed = false;
    for (size_t i = 0; i < x->t->n; i++) {
        const struct cp_gate_wpath *w = &x->t->v[i];
        int r = gp_covers(x, w, c);
        if (w->deny && r != 0)
            return r > 0 ? cp_arena_printf(a, "'%s' is under 'deny write %s'",
                                           c, w->text)
                         : cp_arena_printf(a,
                                           "'deny write %s' cannot be "
                                           "decided: its root %s is not "
                                           "known (%s)",
                                           w->text, w->path.root,
                                           strcmp(w->path.root, "PROJECT") == 0
                                               ? "CLAUDE_PROJECT_DIR is not "
                                                 "set; bind it with -D at "
                                                 "build"
                                               : "bind it with -D at build");
        if (!w->deny && r > 0)
            allowed = true;
    }
    if (!allowed)
        return cp_arena_printf(a, "'%s' is outside the policy's write roots",
                               c);
    return NULL;
}

/* A file with other hard links may be one outside the roots under another
 * name: writing it writes there too. */
static const char *gp_links(struct cp_arena *a, const char *c)
{
    struct stat st;
    if (lstat(c, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
        return cp_arena_printf(a,
                               "'%s' has %lu hard links (another name of "
                               "it may be outside the write roots)",
                               c, (unsigned long)st.st_nlink);
    return NULL;
}

/* Judges the absolute path `abs` in its three forms. */
static const char *gp_judge_abs(struct gp_ctx *x, const char *abs)
{
    char lex[GP_MAX + 1], res[GP_MAX + 1];
    const char *err = gp_resolve(abs, false, lex);
    if (!err)
        err = gp_judge(x, lex);
    if (!err && !(err = gp_resolve(abs, true, res)))
        err = gp_judge(x, res);
    if (!err && !(err = gp_resolve(lex, true, res)))
        err = gp_judge(x, res);
    if (!err)
        err = gp_links(x->a, res);
    return err;
}

const char *cp_gate_path_decide(struct cp_arena *a,
                                const struct cp_gate_paths *t, const char *path,
                                const struct cp_gate_path_env *env)
{
    if (!t->present)
        return "the artifact has no \"paths\" table (built by an older "
               "confpol; rebuild it)";
    if (!*path)
        return "the path is empty";
    if (strlen(path) > GP_MAX)
        return "the path is longer than 4096 bytes";
    struct gp_ctx x = {.a = a, .t = t, .env = env};
    const char *err = NULL;
    bool tilde = path[0] == '~' && (path[1] == '/' || path[1] == '\0');
    if (tilde) { /* as HOME's, should the client expand it */
        if (!env->home || env->home[0] != '/')
            return "the path starts with '~' and HOME is not known";
        err = gp_judge_abs(&x,
                           cp_arena_printf(a, "%s/%s", env->home, path + 1));
    }
    if (!err && path[0] != '/') {
        if (!env->cwd || env->cwd[0] != '/')
            return "the path is relative and the input has no absolute cwd";
        err = gp_judge_abs(&x, cp_arena_printf(a, "%s/%s", env->cwd, path));
    } else if (!err) {
        err = gp_judge_abs(&x, path);
    }
    return err;
}

/* SPDX-License-Identifier: MIT */
/* Resolution: AST -> policy (spec/semantics.md).
 *
 * Two walks over the statements in source order, descending into an included
 * file at its include statement.  The first walk only collects the names
 * that params and lets declare (so that -D can be validated and a use before
 * a definition can name the later definition).  The second walk does
 * everything else: profile and fail, names, ${NAME} interpolation, decoding
 * of quoted arguments, path parsing, typing of every argument (path,
 * command or domain pattern), regex compilation, and -D substitution; it
 * appends one rule per argument.  Then the profile is resolved into explicit
 * implicit rules carrying their origin.  Every problem is reported at its
 * source span and the walk goes on, so one run reports all of them. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast.h"
#include "confpol.h"
#include "content.h"
#include "match.h"
#include "sema.h"
#include "hash.h"
#include "text.h"

enum rs_name_kind { RS_PARAM, RS_LET };

struct rs_name {
    const char *name; /* interned */
    enum rs_name_kind kind;
    struct cp_loc loc;   /* the declared NAME */
    bool defined;        /* the second walk has passed its declaration */
    bool ok;             /* let: value resolved without error */
    struct cp_path path; /* let: the value; param: root or bound value */
    size_t param_index;  /* param: index in params */
};

struct rs {
    struct cp_ctx *cx;
    struct cp_arena *a;
    struct cp_diags *d;
    struct cp_policy *p;
    struct cp_vec names;   /* struct rs_name * */
    struct cp_vec params;  /* struct cp_param * */
    struct cp_vec rules;   /* struct cp_rule * */
    struct cp_vec expects; /* struct cp_expect * */
    struct cp_vec sources; /* const char * (absolute) */
    const char **src_set;  /* the same paths, open addressing: a policy may
                              include 100,000 files, and a scan per source
                              made that quadratic */
    size_t src_cap;
    struct cp_vec content; /* struct cp_content_rule * */
    const struct cp_stmt *profile_stmt, *fail_stmt;
    bool net_allow, net_deny;
    const char *defining; /* the let whose value is being resolved */
    bool socket_paths;    /* resolving 'net socket' paths: a dotted name
                             is a file name there, not a domain */
};

/* ---- names ------------------------------------------------------------ */

/* The declared name nearest to NM (params only when PARAMS), for "did you
 * mean"; NULL when none is near. */
static const char *rs_near_name(struct rs *r, const char *nm, bool params)
{
    const char **names = cp_arena_alloc(r->a,
                                        (r->names.len + 1) * sizeof *names);
    size_t k = 0;
    for (size_t i = 0; i < r->names.len; i++) {
        const struct rs_name *n = r->names.items[i];
        if (!params || n->kind == RS_PARAM)
            names[k++] = n->name;
    }
    names[k] = NULL;
    return cp_nearest_word(nm, names);
}

/* Letters, digits and '_', not starting with a digit (spec/language.md). */
static bool rs_valid_name(const char *nm)
{
    bool valid = nm[0] == '_' || (nm[0] >= 'A' && nm[0] <= 'Z') ||
                 (nm[0] >= 'a' && nm[0] <= 'z');
    for (const char *c = nm; valid && *c; c++)
        valid = *c == '_' || (*c >= 'A' && *c <= 'Z') ||
                (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
    return valid;
}

static struct rs_name *rs_find(struct rs *r, const char *name)
{
    for (size_t i = 0; i < r->names.len; i++) {
        struct rs_name *n = r->names.items[i];
        if (n->name == name)
            return n;
    }
    return NULL;
}

static struct rs_name *rs_add_name(struct rs *r, const char *name,
                                   enum rs_name_kind kind,
                                   const struct cp_loc *loc)
{
    struct rs_name *n = cp_arena_alloc(r->a, sizeof *n);
    n->name = name;
    n->kind = kind;
    if (loc)
        n->loc = *loc;
    cp_vec_push(r->a, &r->names, n);
    return n;
}

static struct cp_param *rs_add_param(struct rs *r, const char *name,
                                     const struct cp_loc *loc)
{
    struct cp_param *pm = cp_arena_alloc(r->a, sizeof *pm);
    pm->name = name;
    if (loc)
        pm->loc = *loc;
    cp_vec_push(r->a, &r->params, pm);
    return pm;
}

/* First walk: declarations only (first declaration of each name wins). */
static void rs_collect(struct rs *r, const struct cp_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nstmts; i++) {
        const struct cp_stmt *s = f->stmts[i];
        if (s->n.kind == CP_N_INCLUDE) {
            rs_collect(r, s->included);
        } else if ((s->n.kind == CP_N_PARAM || s->n.kind == CP_N_LET) &&
                   s->name.text) {
            const char *nm = cp_arena_intern(r->a, s->name.text,
                                             strlen(s->name.text));
            if (!rs_find(r, nm))
                rs_add_name(r, nm, s->n.kind == CP_N_PARAM ? RS_PARAM : RS_LET,
                            &s->name.loc);
        }
    }
}

/* ---- locations inside an argument -------------------------------------- */

static size_t rs_prefix(const struct cp_arg *arg)
{
    switch (arg->kind) {
    case CP_ARG_BARE:
        return 0;
    case CP_ARG_QUOTED:
        return 1;
    case CP_ARG_REGEX:
        return 3;
    }
    return 0;
}

/* The span of raw bytes [off, off+n) of the argument's text (n >= 1). */
static struct cp_loc rs_sub(const struct cp_arg *arg, size_t off, size_t n)
{
    struct cp_loc l = arg->n.loc;
    if (l.line != l.end_line || !l.src)
        return l;
    if (off > arg->len)
        off = arg->len;
    if (n == 0)
        n = 1;
    unsigned col = l.col + (unsigned)(rs_prefix(arg) + off);
    unsigned end = col + (unsigned)n - 1;
    if (end > l.end_col)
        end = l.end_col;
    if (col > end)
        col = end;
    l.col = col;
    l.end_col = end;
    return l;
}

/* The argument as written, quotes and prefix included. */
static const char *rs_written(struct rs *r, const struct cp_arg *arg)
{
    switch (arg->kind) {
    case CP_ARG_BARE:
        return cp_arena_strndup(r->a, arg->text, arg->len);
    case CP_ARG_QUOTED:
    case CP_ARG_REGEX: {
        size_t pre = arg->kind == CP_ARG_QUOTED ? 1 : 3;
        char *t = cp_arena_alloc(r->a, pre + arg->len + 2); /* zeroed */
        memcpy(t, arg->kind == CP_ARG_QUOTED ? "\"" : "re\"", pre);
        memcpy(t + pre, arg->text, arg->len);
        t[pre + arg->len] = '"';
        return t;
    }
    }
    return "";
}

/* Raw offset of decoded byte i (NULL map: identity). */
#define RS_MAP(map, i) ((map) ? (map)[i] : (size_t)(i))

/* ---- decoding --------------------------------------------------------- */

/* A regex's body: only \" is unescaped (its other backslashes belong to
 * the regex).  Writes the bytes to buf and their raw offsets to m, as
 * cp_unquote does; returns the length. */
static size_t rs_decode_regex(const struct cp_arg *arg, char *buf, size_t *m)
{
    size_t k = 0;
    for (size_t i = 0; i < arg->len; i++) {
        m[k] = i;
        if (arg->text[i] == '\\' && i + 1 < arg->len && arg->text[i + 1] == '"')
            i++;
        buf[k++] = arg->text[i];
    }
    m[k] = arg->len;
    buf[k] = '\0';
    return k;
}

/* Decodes a quoted argument (\" \\ \xHH; the lexer rejected every other
 * escape) into *out and *outlen; map[i] is the raw offset of decoded byte i.
 * A regex only unescapes \" (its backslashes belong to the regex).  Returns
 * false after reporting a decoded NUL byte. */
static bool rs_decode(struct rs *r, const struct cp_arg *arg, char **out,
                      size_t *outlen, size_t **map)
{
    if (arg->kind == CP_ARG_BARE || !memchr(arg->text, '\\', arg->len)) {
        /* Nothing to decode: the raw text itself, identity offsets. */
        *out = (char *)arg->text;
        *outlen = arg->len;
        if (map)
            *map = NULL;
        return true;
    }
    char *buf = cp_arena_alloc(r->a, arg->len + 1);
    size_t *m = cp_arena_alloc(r->a, (arg->len + 1) * sizeof *m);
    size_t k;
    if (arg->kind == CP_ARG_REGEX) {
        k = rs_decode_regex(arg, buf, m);
    } else {
        size_t nul_at;
        k = cp_unquote(arg->text, arg->len, buf, m, &nul_at);
        if (nul_at < arg->len) {
            struct cp_loc l = rs_sub(arg, nul_at, 4);
            cp_diag_report(r->d, CP0416, &l,
                           "'\\x00' decodes to a NUL byte, which no "
                           "path, command or domain may hold");
            return false;
        }
    }
    *out = buf;
    *outlen = k;
    if (map)
        *map = m;
    return true;
}

/* ---- argument kinds ---------------------------------------------------- */

static bool rs_pathlike(const char *s, size_t n)
{
    return n > 0 && (s[0] == '/' || s[0] == '~' ||
                     (n > 1 && s[0] == '$' && s[1] == '{'));
}

static bool rs_domainlike(const char *s, size_t n)
{
    bool dot = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.')
            dot = true;
        else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '-' || c == '*'))
            return false;
    }
    return dot;
}

/* What an argument looks like, for type-mismatch messages. */
static const char *rs_kind_of(const struct cp_arg *arg)
{
    if (arg->kind == CP_ARG_REGEX)
        return "a regex";
    if (rs_pathlike(arg->text, arg->len))
        return "a path pattern";
    if (arg->kind == CP_ARG_QUOTED)
        return "a quoted string";
    if (memchr(arg->text, '/', arg->len))
        return "a path pattern";
    if (rs_domainlike(arg->text, arg->len))
        return "a domain pattern";
    return "a bare word";
}

/* A URL where a domain is expected ('https://github.com/x'): the fix is
 * its host and port (the one written, else the scheme's: 443 for https, 80
 * for http), so that the rule allows no more than the URL meant; no fix
 * for another scheme, a user@ part or a host the syntax rejects. */
/* The end of a URL's host at H (before E): the first '/', '?', '#', ':'
 * or '@'. */
static const char *rs_url_host_end(const char *h, const char *e)
{
    while (h < e && !strchr("/?#:@", *h))
        h++;
    return h;
}

static void rs_url_fix(struct cp_diag *g, const char *t, size_t len,
                       const char *rule)
{
    const char *e = t + len;
    bool https = len > 8 && strncmp(t, "https://", 8) == 0;
    if (!https && !(len > 7 && strncmp(t, "http://", 7) == 0))
        return;
    const char *port = https ? "443" : "80";
    const char *h = t + (https ? 8 : 7), *he = rs_url_host_end(h, e);
    if ((he < e && *he == '@') || he == h ||
        !rs_domainlike(h, (size_t)(he - h)))
        return;
    size_t pl = 0;
    if (he < e && *he == ':') {
        while (he + 1 + pl < e && isdigit((unsigned char)he[1 + pl]))
            pl++;
        if (!pl)
            return;
    }
    cp_diag_set_suggestion(g,
                           "a domain rule names a host: did you mean "
                           "'%s%.*s:%.*s'?",
                           rule, (int)(he - h), h,
                           (int)(pl ? pl : strlen(port)), pl ? he + 1 : port);
}

static void rs_mismatch(struct rs *r, const struct cp_arg *arg,
                        const char *expected)
{
    struct cp_diag *g = cp_diag_report(r->d, CP0410, &arg->n.loc,
                                       "expected %s, found %s '%s'", expected,
                                       rs_kind_of(arg), rs_written(r, arg));
    if (strcmp(expected, "a command pattern") == 0 && arg->kind == CP_ARG_BARE)
        cp_diag_set_suggestion(g, "quote a command pattern: \"%.*s\"",
                               (int)arg->len, arg->text);
    else if (strcmp(expected, "a domain pattern") == 0 &&
             arg->kind == CP_ARG_QUOTED && rs_domainlike(arg->text, arg->len))
        cp_diag_set_suggestion(g, "write the domain without quotes: %.*s",
                               (int)arg->len, arg->text);
    else if (strcmp(expected, "a domain pattern") == 0)
        rs_url_fix(g, arg->text, arg->len, "");
}

/* ---- paths ------------------------------------------------------------- */

/* PREFIX and REST without '.' segments and doubled '/'.  A '..' segment
 * removes the one before it when COLLAPSE (an output directory that does
 * not exist yet); otherwise the result is NULL: collapsing 'a/b/..' to 'a'
 * is wrong when b is a symbolic link, so no such fix is suggested. */
static const char *rs_normalise(struct rs *r, const char *prefix,
                                const char *rest, size_t n, bool collapse)
{
    const char **segs = cp_arena_alloc(r->a, (n + 1) * sizeof *segs);
    size_t *lens = cp_arena_alloc(r->a, (n + 1) * sizeof *lens);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && rest[i] == '/')
            i++;
        size_t s = i;
        while (i < n && rest[i] != '/')
            i++;
        size_t l = i - s;
        if (l == 0 || (l == 1 && rest[s] == '.'))
            continue;
        if (l == 2 && rest[s] == '.' && rest[s + 1] == '.') {
            if (!collapse)
                return NULL;
            if (k)
                k--;
            continue;
        }
        segs[k] = rest + s;
        lens[k++] = l;
    }
    struct cp_buf b = {0};
    cp_buf_adds(&b, prefix);
    for (size_t i = 0; i < k; i++) {
        cp_buf_addc(&b, '/');
        cp_buf_add(&b, segs[i], lens[i]);
    }
    if (b.len == 0)
        cp_buf_addc(&b, '/');
    const char *res = cp_arena_strndup(r->a, b.data, b.len);
    cp_buf_free(&b);
    return res;
}

static void rs_mark_used(struct rs *r, const char *root)
{
    if (!root)
        return;
    for (size_t i = 0; i < r->params.len; i++) {
        struct cp_param *pm = r->params.items[i];
        if (strcmp(pm->name, root) == 0)
            pm->used = true;
    }
}

static bool rs_quoted_written(const struct cp_arg *arg)
{
    return arg->kind == CP_ARG_QUOTED;
}

/* A path argument being resolved: its decoded text, the raw offset of each
 * decoded byte (RS_MAP) and whether it was written quoted. */
struct rs_pathin {
    const struct cp_arg *arg;
    const char *t;
    size_t n;
    const size_t *map;
    bool quoted;
};

/* Where the part after a path's root starts: the root's value, the prefix
 * it was written as ('${NAME}', '~' or nothing) and the decoded offset. */
struct rs_root {
    struct cp_path base;
    const char *prefix;
    size_t rest;
};

/* Offers FIX (NULL: nothing to offer) as the suggestion "did you mean
 * 'FIX'WHERE?" of G, FIX written the way the argument was (quoted or
 * bare).  Returns false if there was nothing to offer. */
static bool rs_suggest_fix(struct cp_diag *g, const char *fix, bool quoted,
                           const char *where)
{
    if (!fix)
        return false;
    struct cp_buf b = {0};
    if (quoted)
        cp_sema_quote(&b, fix, strlen(fix));
    else
        cp_buf_adds(&b, fix);
    cp_diag_set_suggestion(g, "did you mean '%s'%s?", b.data, where);
    cp_buf_free(&b);
    return true;
}

/* Reports '${NM}' at NL naming no declared param or let. */
static void rs_undefined_name(struct rs *r, const char *nm,
                              const struct cp_loc *nl)
{
    struct cp_diag *g = *nm ? cp_diag_report(r->d, CP0405, nl,
                                             "undefined name '%s'", nm)
                            : cp_diag_report(r->d, CP0405, nl,
                                             "'${}' names no param or let");
    const char *near = *nm ? rs_near_name(r, nm, false) : NULL;
    if (near)
        cp_diag_set_suggestion(g, "did you mean '${%s}'?", near);
    else if (*nm)
        cp_diag_set_suggestion(g,
                               "declare it with 'param %s' or "
                               "'let %s = PATH' before this line",
                               nm, nm);
    else
        cp_diag_set_suggestion(g, "write a param or let name "
                                  "between '${' and '}'");
}

/* True if the declared name ND (NM, used at NL) may stand here: not the let
 * being defined, defined above this use, and (a let) resolved; reports
 * otherwise, unless it was reported at its declaration. */
static bool rs_name_usable(struct rs *r, const struct rs_name *nd,
                           const char *nm, const struct cp_loc *nl)
{
    if (r->defining == nm) {
        cp_diag_report(r->d, CP0406, nl, "let '%s' refers to itself", nm);
        return false;
    }
    if (!nd->defined && !rs_valid_name(nm))
        return false; /* reported at its declaration */
    if (!nd->defined) {
        struct cp_diag *g = cp_diag_report(
            r->d, CP0406, nl, "'%s' is used before its definition", nm);
        cp_diag_add_note(g, &nd->loc, "'%s' is defined here", nm);
        cp_diag_set_suggestion(g,
                               "move the definition of '%s' above "
                               "its first use",
                               nm);
        return false;
    }
    return !(nd->kind == RS_LET && !nd->ok); /* a bad let: reported there */
}

/* The root '${NAME}' at the start of IN. */
static bool rs_root_name(struct rs *r, const struct rs_pathin *in,
                         struct rs_root *rt)
{
    const char *t = in->t;
    const size_t *map = in->map;
    size_t n = in->n, e = 2;
    while (e < n && t[e] != '}')
        e++;
    if (e >= n) {
        struct cp_loc l = rs_sub(in->arg, 0, RS_MAP(map, n) - RS_MAP(map, 0));
        cp_diag_report(r->d, CP0409, &l, "'${' without its closing '}'");
        return false;
    }
    const char *nm = cp_arena_intern(r->a, t + 2, e - 2);
    struct cp_loc nl = rs_sub(in->arg, RS_MAP(map, 0),
                              RS_MAP(map, e) - RS_MAP(map, 0) + 1);
    struct rs_name *nd = rs_find(r, nm);
    if (!nd && r->cx->opts.partial)
        return false; /* perhaps declared by a statement lost to a syntax error */
    if (!nd) {
        rs_undefined_name(r, nm, &nl);
        return false;
    }
    if (!rs_name_usable(r, nd, nm, &nl))
        return false;
    rt->base = nd->path;
    rt->prefix = cp_arena_printf(r->a, "${%s}", nm);
    rt->rest = e + 1;
    return true;
}

/* The root '~' at the start of IN (not '~user'). */
static bool rs_root_home(struct rs *r, const struct rs_pathin *in,
                         struct rs_root *rt)
{
    if (in->n > 1 && in->t[1] != '/') {
        struct cp_loc l = rs_sub(in->arg, RS_MAP(in->map, 0),
                                 RS_MAP(in->map, in->n) - RS_MAP(in->map, 0));
        cp_diag_report(r->d, CP0409, &l,
                       "'~user' paths are not supported; write '~/' "
                       "for the home directory or an absolute path");
        return false;
    }
    struct rs_name *h = rs_find(r, cp_arena_intern(r->a, "HOME", 4));
    rt->base = h->path;
    rt->prefix = "~";
    rt->rest = 1;
    return true;
}

/* Reports a relative path, with a fix where it most likely means what was
 * written: a name that starts with a dot is a dot file of the home
 * directory (.ssh, .aws), words without '/' a command pattern, a dotted
 * name without '/' a domain; anything else is taken as a path in the
 * project.  No fix for a text with '..'. */
static void rs_relative(struct rs *r, const struct rs_pathin *in)
{
    const char *t = in->t;
    size_t n = in->n;
    struct cp_diag *g = cp_diag_report(
        r->d, CP0407, &in->arg->n.loc,
        "relative path '%s'; a path starts with '/', '~' or '${NAME}'",
        rs_written(r, in->arg));
    bool dotfile = n > 1 && t[0] == '.' && t[1] != '.' && t[1] != '/';
    bool command = memchr(t, ' ', n) && !memchr(t, '/', n);
    if (command || (t[0] != '.' && !r->socket_paths && rs_domainlike(t, n))) {
        cp_diag_set_suggestion(
            g, command
                   ? "a command pattern belongs to 'gate ask' or 'gate deny'"
                   : "a domain belongs to 'net allow' or 'net deny'");
        return;
    }
    /* A '$' means the text was meant to be expanded: a path in the
     * project would not name what was meant. */
    const char *fix = memchr(t, '$', n)
                          ? NULL
                          : rs_normalise(r, dotfile ? "~" : "${PROJECT}", t, n,
                                         false);
    rs_suggest_fix(g, fix, in->quoted,
                   dotfile ? " (in the home directory)" : " (in the project)");
}

/* The first shell-style variable '$NAME' in IN at or after *at: its offset
 * (*at) and length, 0 when there is none. */
static size_t rs_shell_var_at(const struct rs_pathin *in, size_t *at)
{
    for (size_t i = *at; i + 1 < in->n; i++) {
        unsigned char c = (unsigned char)in->t[i + 1];
        if (in->t[i] != '$' || !(c == '_' || isalpha(c)))
            continue;
        size_t e = i + 1;
        while (e < in->n &&
               (in->t[e] == '_' || isalnum((unsigned char)in->t[e])))
            e++;
        *at = i;
        return e - i;
    }
    return 0;
}

/* A shell-style '$NAME' in a path, which confpol reads as the literal
 * name '$NAME' (a relative path at the start, a directory called '$USER'
 * further on).  The fix is offered only where it names what the shell
 * would: '$HOME' at the start becomes '~', '$NAME' at the start '${NAME}'
 * (a param: declared, or to declare); never a path in the project, which
 * would leave the meant directory uncovered.  A quoted absolute path is
 * literal: the way to name a file whose name holds '$'.  True when
 * reported. */
static bool rs_shell_var(struct rs *r, const struct rs_pathin *in)
{
    size_t at = 0, l = rs_shell_var_at(in, &at);
    if (!l || (in->quoted && in->n && in->t[0] == '/'))
        return false;
    const char *nm = cp_arena_strndup(r->a, in->t + at + 1, l - 1);
    struct cp_loc vl = rs_sub(in->arg, RS_MAP(in->map, at),
                              RS_MAP(in->map, at + l) - RS_MAP(in->map, at));
    struct cp_diag *g = cp_diag_report(
        r->d, CP0421, &vl,
        "shell variable '$%s' in path '%s': confpol does not expand it", nm,
        rs_written(r, in->arg));
    const char *rest = in->t + l;
    size_t next = l;
    if (at != 0 || (*rest && *rest != '/') || rs_shell_var_at(in, &next)) {
        cp_diag_set_suggestion(g, "a path starts with '/', '~' or '${NAME}' "
                                  "of a param, and holds no other variable");
        return true;
    }
    bool home = strcmp(nm, "HOME") == 0;
    const char *fix = cp_arena_printf(r->a, home ? "~%s" : "${%s}%s",
                                      home ? rest : nm, rest);
    const struct rs_name *nd = rs_find(r, cp_arena_intern(r->a, nm, l - 1));
    if (home || nd)
        rs_suggest_fix(g, fix, in->quoted, "");
    else
        cp_diag_set_suggestion(g, "declare 'param %s' and write '%s'", nm, fix);
    return true;
}

/* The root of IN: '${NAME}', '~' or '/'; false after reporting anything
 * else. */
static bool rs_root(struct rs *r, const struct rs_pathin *in,
                    struct rs_root *rt)
{
    *rt = (struct rs_root){.prefix = ""};
    if (in->n >= 2 && in->t[0] == '$' && in->t[1] == '{')
        return rs_root_name(r, in, rt);
    if (in->n >= 1 && in->t[0] == '~')
        return rs_root_home(r, in, rt);
    if (in->n >= 1 && in->t[0] == '/')
        return true;
    rs_relative(r, in);
    return false;
}

/* Reports the '.' or '..' segment of L bytes at decoded offset S of the part
 * after the root (RT, RN bytes; it starts at offset REST), with the normal
 * form as the fix. */
static void rs_dot_segment(struct rs *r, const struct rs_pathin *in,
                           const struct rs_root *root, size_t s, size_t l)
{
    const char *rt = in->t + root->rest;
    size_t rn = in->n - root->rest, at = root->rest + s;
    struct cp_loc sl = rs_sub(in->arg, RS_MAP(in->map, at),
                              RS_MAP(in->map, at + l) - RS_MAP(in->map, at));
    struct cp_diag *g = cp_diag_report(
        r->d, CP0408, &sl, "'%s' segment in path '%s'", l == 1 ? "." : "..",
        rs_written(r, in->arg));
    const char *fix = rs_normalise(r, root->prefix, rt, rn, false);
    if (!rs_suggest_fix(g, fix, in->quoted, ""))
        cp_diag_set_suggestion(
            g, "name the directory without '..': confpol does not "
               "collapse it, since a symbolic link would change "
               "what it names");
}

/* Checks the part after the root: it starts with '/' and holds no '.' or
 * '..' segment (reported here with the normal form). */
static bool rs_check_rest(struct rs *r, const struct rs_pathin *in,
                          const struct rs_root *root)
{
    const char *rt = in->t + root->rest;
    size_t rn = in->n - root->rest;
    if (rn > 0 && rt[0] != '/') {
        struct cp_loc l = rs_sub(in->arg, RS_MAP(in->map, root->rest), 1);
        cp_diag_report(r->d, CP0409, &l, "expected '/' after '%s'",
                       root->prefix);
        return false;
    }
    for (size_t i = 0; i < rn;) {
        while (i < rn && rt[i] == '/')
            i++;
        size_t s = i;
        while (i < rn && rt[i] != '/')
            i++;
        size_t l = i - s;
        if ((l == 1 && rt[s] == '.') ||
            (l == 2 && rt[s] == '.' && rt[s + 1] == '.')) {
            rs_dot_segment(r, in, root, s, l);
            return false;
        }
    }
    return true;
}

/* Parses the part after the root into *tail. */
static bool rs_parse_rest(struct rs *r, const struct rs_pathin *in,
                          const struct rs_root *root, struct cp_path *tail)
{
    size_t rn = in->n - root->rest;
    *tail = (struct cp_path){0};
    if (rn == 0)
        return true;
    size_t off = 0;
    const char *msg = cp_path_parse(r->a, in->t + root->rest, rn, in->quoted,
                                    tail, &off);
    if (!msg)
        return true;
    size_t ro = root->rest + (off < rn ? off : rn);
    struct cp_loc l = rs_sub(in->arg, RS_MAP(in->map, ro), 1);
    cp_diag_report(r->d, strstr(msg, "longer") ? CP0417 : CP0409, &l, "%s",
                   msg);
    return false;
}

/* *out = the root's segments followed by TAIL's (no copy when the root has
 * none). */
static void rs_join(struct rs *r, const struct cp_path *base,
                    const struct cp_path *tail, struct cp_path *out)
{
    out->root = base->root;
    out->nsegs = base->nsegs + tail->nsegs;
    if (!base->nsegs) {
        out->segs = tail->segs; /* nothing to prepend: no copy */
    } else {
        out->segs = cp_arena_alloc(r->a, out->nsegs * sizeof(struct cp_seg));
        memcpy(out->segs, base->segs, base->nsegs * sizeof(struct cp_seg));
        if (tail->nsegs)
            memcpy(out->segs + base->nsegs, tail->segs,
                   tail->nsegs * sizeof(struct cp_seg));
    }
    out->has_glob = base->has_glob || tail->has_glob;
}

/* Checks the joined path: its length, and no glob in an expect subject. */
static bool rs_check_joined(struct rs *r, const struct cp_arg *arg,
                            bool concrete, const struct cp_path *out)
{
    size_t total = 0;
    for (size_t i = 0; i < out->nsegs; i++)
        total += out->segs[i].len + (out->segs[i].kind == CP_SEG_ANY ? 3 : 1);
    if (total > CP_MAX_PATH_LEN) {
        cp_diag_report(r->d, CP0417, &arg->n.loc,
                       "path longer than %u bytes after interpolation",
                       (unsigned)CP_MAX_PATH_LEN);
        return false;
    }
    if (concrete && out->has_glob) {
        struct cp_diag *g = cp_diag_report(
            r->d, CP0415, &arg->n.loc,
            "the subject of an expect must be one concrete path, found the "
            "glob '%s'",
            rs_written(r, arg));
        cp_diag_set_suggestion(g, "name one path the pattern matches");
        return false;
    }
    return true;
}

/* Resolves a path argument (bare or quoted) into *out.  `concrete`: an
 * expect subject (no globs).  Returns false after reporting. */
static bool rs_path(struct rs *r, const struct cp_arg *arg, bool concrete,
                    struct cp_path *out)
{
    if (arg->kind == CP_ARG_REGEX) {
        rs_mismatch(r, arg, concrete ? "a path" : "a path pattern");
        return false;
    }
    char *t;
    size_t n, *map;
    if (!rs_decode(r, arg, &t, &n, &map))
        return false;
    struct rs_pathin in = {arg, t, n, map, rs_quoted_written(arg)};
    if (rs_shell_var(r, &in))
        return false;
    struct rs_root root;
    struct cp_path tail;
    if (!rs_root(r, &in, &root) || !rs_check_rest(r, &in, &root) ||
        !rs_parse_rest(r, &in, &root, &tail))
        return false;
    rs_join(r, &root.base, &tail, out);
    if (!rs_check_joined(r, arg, concrete, out))
        return false;
    rs_mark_used(r, out->root);
    return true;
}

/* ---- rules ------------------------------------------------------------- */

static struct cp_rule *rs_rule(struct rs *r, enum cp_rule_kind kind,
                               const struct cp_arg *arg)
{
    struct cp_rule *ru = cp_arena_alloc(r->a, sizeof *ru);
    ru->kind = kind;
    ru->origin = CP_ORIGIN_SOURCE;
    if (arg) {
        ru->loc = arg->n.loc;
        ru->text = rs_written(r, arg);
    }
    return ru;
}

static void rs_push(struct rs *r, struct cp_rule *ru)
{
    ru->id = (unsigned)r->rules.len;
    cp_vec_push(r->a, &r->rules, ru);
    if (ru->kind == CP_R_EXEC)
        r->p->has_exec = true;
}

/* A rule's pattern without its trailing '**': P followed by '**' names what
 * 'P' names (spec/patterns.md 2), and a target that cannot express a glob
 * (a bwrap mount, a Landlock rule) then grants or denies P as written
 * instead of nothing.  Not for a let's value, where a '**' may be followed
 * by the rest of the path that uses it. */
static void rs_drop_trailing_any(struct cp_path *path)
{
    while (path->nsegs && path->segs[path->nsegs - 1].kind == CP_SEG_ANY)
        path->nsegs--;
    path->has_glob = false;
    for (size_t i = 0; i < path->nsegs; i++)
        if (path->segs[i].kind != CP_SEG_LIT)
            path->has_glob = true;
}

static void rs_path_rules(struct rs *r, const struct cp_stmt *s,
                          enum cp_rule_kind kind)
{
    for (size_t i = 0; i < s->nargs; i++) {
        struct cp_path path;
        if (!rs_path(r, s->args[i], false, &path))
            continue;
        rs_drop_trailing_any(&path);
        struct cp_rule *ru = rs_rule(r, kind, s->args[i]);
        ru->u.path = path;
        rs_push(r, ru);
    }
}

static bool rs_gate_arg(struct rs *r, const struct cp_arg *arg,
                        struct cp_gate_pat *out)
{
    if (arg->kind == CP_ARG_BARE && arg->len == 7 &&
        memcmp(arg->text, "unknown", 7) == 0) {
        cp_gate_unknown(out);
        return true;
    }
    if (arg->kind == CP_ARG_BARE) {
        rs_mismatch(r, arg, "a command pattern");
        return false;
    }
    char *t;
    size_t n, *map;
    if (!rs_decode(r, arg, &t, &n, &map))
        return false;
    bool re = arg->kind == CP_ARG_REGEX;
    const char *msg = cp_gate_parse(r->a, t, n, re, out);
    if (msg) {
        if (re) {
            /* The caret under the offending character when one stands
             * out; the whole regex otherwise (a size limit). */
            size_t at = cp_rx_locate(t, n);
            struct cp_loc l = at < n ? rs_sub(arg, RS_MAP(map, at), 1)
                                     : arg->n.loc;
            cp_diag_report(r->d, CP0411, &l, "invalid regex '%s': %s",
                           rs_written(r, arg), msg);
        } else
            cp_diag_report(r->d, CP0412, &arg->n.loc,
                           "invalid command pattern '%s': %s",
                           rs_written(r, arg), msg);
        return false;
    }
    return true;
}

static bool rs_domain_arg(struct rs *r, const struct cp_arg *arg,
                          struct cp_domain *out)
{
    if (arg->kind != CP_ARG_BARE || rs_pathlike(arg->text, arg->len) ||
        memchr(arg->text, '/', arg->len)) {
        rs_mismatch(r, arg, "a domain pattern");
        return false;
    }
    const char *msg = cp_domain_parse(r->a, arg->text, arg->len, out);
    if (msg) {
        cp_diag_report(r->d, CP0413, &arg->n.loc, "invalid domain '%.*s': %s",
                       (int)arg->len, arg->text, msg);
        return false;
    }
    return true;
}

/* A fixed word: returns its index in `words` (NULL-terminated) or -1 after
 * reporting "unknown WHAT 'x'; expected a, b or c". */
static int rs_word(struct rs *r, const struct cp_stmt *s,
                   const struct cp_word *w, const char *what, const char *after,
                   const char *const *words)
{
    size_t nw = 0;
    while (words[nw])
        nw++;
    if (w->text)
        for (size_t i = 0; i < nw; i++)
            if (strcmp(w->text, words[i]) == 0)
                return (int)i;
    /* An error: the list of the expected words for the message. */
    struct cp_buf list = {0};
    for (size_t i = 0; i < nw; i++) {
        if (i)
            cp_buf_adds(&list, i + 1 == nw ? " or " : ", ");
        cp_buf_adds(&list, words[i]);
    }
    if (!w->text) {
        cp_diag_report(r->d, CP0414, &s->n.loc, "'%s' needs %s; expected %s",
                       s->keyword.text ? s->keyword.text : "statement", what,
                       list.data);
        cp_buf_free(&list);
        return -1;
    }
    struct cp_diag *g = cp_diag_report(
        r->d, strcmp(what, "profile") == 0 ? CP0401 : CP0403, &w->loc,
        "unknown %s '%s'%s; expected %s", what, w->text, after, list.data);
    const char *near = cp_nearest_word(w->text, words);
    if (near)
        cp_diag_set_suggestion(g, "did you mean '%s'?", near);
    cp_buf_free(&list);
    return -1;
}

static void rs_duplicate(struct rs *r, const struct cp_stmt *s,
                         const struct cp_stmt **prev, const char *kw)
{
    if (*prev) {
        struct cp_diag *g = cp_diag_report(r->d, CP0402, &s->n.loc,
                                           "duplicate '%s' statement", kw);
        cp_diag_add_note(g, &(*prev)->n.loc, "the first '%s' statement is here",
                         kw);
        cp_diag_set_suggestion(g, "keep one '%s' statement", kw);
        return;
    }
    *prev = s;
}

/* content deny "TEXT" | re"ERE" | CLASS...;  content allow CLASS...
 * (spec/language.md, "content").  A regex is checked by the gate's regex
 * rules (cp_gate_parse: size and nesting bounds) before it is compiled for
 * line-wise matching. */
static void rs_content_class(struct rs *r, const struct cp_arg *arg, bool deny)
{
    unsigned mask;
    if (!cp_content_class_mask(arg->text, arg->len, &mask)) {
        struct cp_buf list = {0};
        for (size_t i = 0; cp_content_names[i]; i++) {
            if (i)
                cp_buf_adds(&list, cp_content_names[i + 1] ? ", " : " or ");
            cp_buf_adds(&list, cp_content_names[i]);
        }
        struct cp_diag *g = cp_diag_report(
            r->d, CP0403, &arg->n.loc,
            "unknown content class '%.*s'; expected %s", (int)arg->len,
            arg->text, list.data);
        cp_buf_free(&list);
        const char *near = cp_nearest_word(
            cp_arena_strndup(r->a, arg->text, arg->len), cp_content_names);
        if (near)
            cp_diag_set_suggestion(g, "did you mean '%s'?", near);
        return;
    }
    struct cp_policy *p = r->p;
    if (deny) {
        p->content_classes |= mask;
        for (unsigned c = 0; c < CP_CC__COUNT; c++)
            if (mask & (1u << c))
                p->content_off_loc[c] = (struct cp_loc){0};
        return;
    }
    p->content_classes &= ~mask;
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        if (mask & (1u << c))
            p->content_off_loc[c] = arg->n.loc;
}

static void rs_content(struct rs *r, const struct cp_stmt *s)
{
    static const char *const modes[] = {"deny", "allow", NULL};
    int v = rs_word(r, s, &s->sub, "mode", " after 'content'", modes);
    if (v < 0)
        return;
    for (size_t i = 0; i < s->nargs; i++) {
        const struct cp_arg *arg = s->args[i];
        if (arg->kind == CP_ARG_BARE) {
            rs_content_class(r, arg, v == 0);
            continue;
        }
        if (v == 1) {
            cp_diag_report(r->d, CP0414, &arg->n.loc,
                           "'content allow' takes built-in class names only; "
                           "found %s '%s'",
                           rs_kind_of(arg), rs_written(r, arg));
            continue;
        }
        char *t;
        size_t n;
        if (!rs_decode(r, arg, &t, &n, NULL))
            continue;
        bool re = arg->kind == CP_ARG_REGEX;
        if (n == 0) {
            cp_diag_report(r->d, CP0412, &arg->n.loc,
                           "empty content pattern: it would match every write");
            continue;
        }
        struct cp_content_rule *cr = cp_arena_alloc(r->a, sizeof *cr);
        cr->regex = re;
        cr->text = cp_arena_strndup(r->a, t, n);
        cr->len = n;
        cr->loc = arg->n.loc;
        if (re) {
            struct cp_gate_pat g;
            const char *msg = cp_gate_parse(r->a, t, n, true, &g);
            if (!msg) {
                cp_gate_free(&g);
                msg = cp_content_rule_compile(r->a, cr);
            }
            if (msg) {
                cp_diag_report(r->d, CP0411, &arg->n.loc,
                               "invalid regex '%s': %s", rs_written(r, arg),
                               msg);
                continue;
            }
        }
        cr->id = cp_arena_printf(r->a, "content#%zu", r->content.len + 1);
        cr->where = cp_arena_printf(r->a, "%s:%u",
                                    arg->n.loc.src ? arg->n.loc.src->path : "",
                                    arg->n.loc.line);
        cp_vec_push(r->a, &r->content, cr);
    }
}

static void rs_expect(struct rs *r, const struct cp_stmt *s)
{
    static const char *const verdicts[] = {"allow", "ask", "deny", NULL};
    static const char *const accesses[] = {"read", "write",   "exec",   "net",
                                           "gate", "content", "socket", NULL};
    int v = rs_word(r, s, &s->sub, "verdict", " in 'expect'", verdicts);
    int ac = rs_word(r, s, &s->access, "access", " in 'expect'", accesses);
    if (v < 0 || ac < 0)
        return;
    if (s->nargs != 1) {
        cp_diag_report(r->d, CP0414, s->nargs ? &s->args[1]->n.loc : &s->n.loc,
                       "'expect' takes exactly one subject, found %zu",
                       s->nargs);
        return;
    }
    struct cp_expect *e = cp_arena_alloc(r->a, sizeof *e);
    e->verdict = (enum cp_verdict)v;
    e->access = (enum cp_access)ac;
    e->loc = s->n.loc;
    e->rules_before = r->rules.len;
    if (e->verdict == CP_ASK && e->access != CP_ACC_GATE) {
        struct cp_diag *g = cp_diag_report(
            r->d, CP0415, &s->sub.loc,
            "'ask' is a verdict of gate only; %s is allowed or denied",
            cp_access_text(e->access));
        cp_diag_set_suggestion(g, "expect allow or deny");
        return;
    }
    const struct cp_arg *arg = s->args[0];
    switch (e->access) {
    case CP_ACC_READ:
    case CP_ACC_WRITE:
    case CP_ACC_EXEC:
    case CP_ACC_SOCKET: {
        if (!rs_path(r, arg, true, &e->path))
            return;
        e->subject = cp_path_format(r->a, &e->path);
        break;
    }
    case CP_ACC_NET: {
        struct cp_domain dm;
        if (!rs_domain_arg(r, arg, &dm))
            return;
        if (dm.wildcard) {
            cp_diag_report(r->d, CP0415, &arg->n.loc,
                           "the subject of 'expect ... net' must be one host "
                           "name, found the pattern '%.*s'",
                           (int)arg->len, arg->text);
            return;
        }
        e->subject = cp_domain_format(r->a, &dm);
        break;
    }
    case CP_ACC_GATE:
    case CP_ACC_CONTENT: {
        if (arg->kind != CP_ARG_QUOTED) {
            struct cp_diag *g = cp_diag_report(
                r->d, CP0410, &arg->n.loc,
                "expected a quoted command line, found %s '%s'",
                rs_kind_of(arg), rs_written(r, arg));
            if (arg->kind == CP_ARG_BARE)
                cp_diag_set_suggestion(g, "quote the command line: \"%.*s\"",
                                       (int)arg->len, arg->text);
            return;
        }
        char *t;
        size_t n;
        if (!rs_decode(r, arg, &t, &n, NULL))
            return;
        e->subject = cp_arena_strndup(r->a, t, n);
        break;
    }
    }
    cp_vec_push(r->a, &r->expects, e);
}

static void rs_file(struct rs *r, const struct cp_file *f);

/* The declared name of a param or let statement S, interned; NULL after
 * reporting an invalid name or a second declaration. */
static struct rs_name *rs_decl_name(struct rs *r, const struct cp_stmt *s,
                                    const char **name)
{
    const char *nm = cp_arena_intern(r->a, s->name.text, strlen(s->name.text));
    if (!rs_valid_name(nm)) {
        struct cp_diag *g = cp_diag_report(
            r->d, CP0418, &s->name.loc,
            "'%s' is not a valid name: names are letters, digits and '_', "
            "not starting with a digit",
            nm);
        cp_diag_set_suggestion(g, "rename it, e.g. 'MY_NAME'");
        return NULL;
    }
    struct rs_name *nd = rs_find(r, nm);
    bool first = nd && !nd->defined && nd->loc.src == s->name.loc.src &&
                 nd->loc.line == s->name.loc.line &&
                 nd->loc.col == s->name.loc.col;
    if (!first) {
        struct cp_diag *g = cp_diag_report(r->d, CP0404, &s->name.loc,
                                           "'%s' is already declared", nm);
        if (nd && nd->loc.src)
            cp_diag_add_note(g, &nd->loc, "'%s' is first declared here", nm);
        else
            cp_diag_add_note(g, NULL,
                             "'%s' is a param that every policy "
                             "has",
                             nm);
        cp_diag_set_suggestion(g, "choose another name");
        return NULL;
    }
    *name = nm;
    return nd;
}

/* param NAME and let NAME = PATH. */
static void rs_decl(struct rs *r, const struct cp_stmt *s)
{
    if (!s->name.text)
        return;
    const char *nm;
    struct rs_name *nd = rs_decl_name(r, s, &nm);
    if (!nd)
        return;
    if (s->n.kind == CP_N_PARAM) {
        struct cp_param *pm = rs_add_param(r, nm, &s->name.loc);
        nd->param_index = r->params.len - 1;
        nd->path.root = nm;
        for (size_t i = 0; i < r->cx->opts.ndefines; i++)
            if (strcmp(r->cx->opts.defines[i].name, nm) == 0)
                pm->value = r->cx->opts.defines[i].value;
        nd->ok = true;
        nd->defined = true;
        return;
    }
    if (s->nargs != 1) {
        cp_diag_report(r->d, CP0414, &s->n.loc, "'let' takes exactly one path");
        nd->defined = true;
        return;
    }
    r->defining = nm;
    nd->ok = rs_path(r, s->args[0], false, &nd->path);
    r->defining = NULL;
    nd->defined = true;
}

/* gate ask|deny PATTERN... */
static void rs_gate(struct rs *r, const struct cp_stmt *s)
{
    static const char *const gates[] = {"ask", "deny", NULL};
    int v = rs_word(r, s, &s->sub, "verdict", " after 'gate'", gates);
    if (v < 0)
        return;
    for (size_t i = 0; i < s->nargs; i++) {
        struct cp_gate_pat g;
        if (!rs_gate_arg(r, s->args[i], &g))
            continue;
        struct cp_rule *ru = rs_rule(r, v == 0 ? CP_R_GATE_ASK : CP_R_GATE_DENY,
                                     s->args[i]);
        ru->u.gate = g;
        rs_push(r, ru);
    }
}

/* net socket PATH...: each path names one socket, so a glob is refused
 * (a socket that appears later at a matching path would be opened too, and
 * the runtime allows the sockets it finds when the sandbox starts). */
static void rs_socket(struct rs *r, const struct cp_stmt *s)
{
    if (!s->nargs) {
        cp_diag_report(r->d, CP0414, &s->n.loc,
                       "'net socket' needs at least one path");
        return;
    }
    for (size_t i = 0; i < s->nargs; i++) {
        const struct cp_arg *arg = s->args[i];
        struct cp_path path;
        r->socket_paths = true;
        bool ok = rs_path(r, arg, false, &path);
        r->socket_paths = false;
        if (!ok)
            continue;
        if (path.has_glob) {
            struct cp_diag *g = cp_diag_report(
                r->d, CP0419, &arg->n.loc,
                "'net socket' names one socket, found the glob '%s'",
                rs_written(r, arg));
            cp_diag_set_suggestion(g, "name each socket: 'net socket PATH "
                                      "PATH...' without '*', '?' or '**'");
            continue;
        }
        struct cp_rule *ru = rs_rule(r, CP_R_NET_SOCKET, arg);
        ru->u.path = path;
        rs_push(r, ru);
    }
}

/* net deny, net allow DOMAIN..., net socket PATH... */
static void rs_net(struct rs *r, const struct cp_stmt *s)
{
    static const char *const nets[] = {"deny", "allow", "socket", NULL};
    int v = rs_word(r, s, &s->sub, "mode", " after 'net'", nets);
    if (v < 0) {
        /* 'net https://host': the allow rule of that host and port */
        if (s->sub.text && !s->nargs && r->d->len)
            rs_url_fix(&r->d->items[r->d->len - 1], s->sub.text,
                       strlen(s->sub.text), "net allow ");
        return;
    }
    if (v == 2) {
        rs_socket(r, s);
        return;
    }
    if (v == 0) {
        if (s->nargs) {
            cp_diag_report(r->d, CP0414, &s->args[0]->n.loc,
                           "'net deny' takes no argument");
            return;
        }
        struct cp_rule *ru = rs_rule(r, CP_R_NET_DENY, NULL);
        ru->loc = s->n.loc;
        ru->text = "";
        r->net_deny = true;
        rs_push(r, ru);
        return;
    }
    if (!s->nargs) {
        cp_diag_report(r->d, CP0414, &s->n.loc,
                       "'net allow' needs at least one domain");
        return;
    }
    for (size_t i = 0; i < s->nargs; i++) {
        struct cp_domain dm;
        if (!rs_domain_arg(r, s->args[i], &dm))
            continue;
        struct cp_rule *ru = rs_rule(r, CP_R_NET_ALLOW, s->args[i]);
        ru->u.dom = dm;
        r->net_allow = true;
        rs_push(r, ru);
    }
}

/* profile WORD and fail WORD: the policy's mode, set once. */
static void rs_mode(struct rs *r, const struct cp_stmt *s)
{
    static const char *const profiles[] = {"cooperative", "confined",
                                           "exclusive", NULL};
    static const char *const fails[] = {"closed", "open", NULL};
    if (s->n.kind == CP_N_PROFILE) {
        int v = rs_word(r, s, &s->sub, "profile", "", profiles);
        rs_duplicate(r, s, &r->profile_stmt, "profile");
        if (v >= 0 && r->profile_stmt == s)
            r->p->profile = (enum cp_profile)v;
        return;
    }
    int v = rs_word(r, s, &s->sub, "fail mode", "", fails);
    rs_duplicate(r, s, &r->fail_stmt, "fail");
    if (v >= 0 && r->fail_stmt == s)
        r->p->fail = (enum cp_fail)v;
}

/* deny read|write|exec PATH... */
static void rs_deny(struct rs *r, const struct cp_stmt *s)
{
    static const char *const denies[] = {"read", "write", "exec", NULL};
    int v = rs_word(r, s, &s->sub, "access", " after 'deny'", denies);
    if (v >= 0)
        rs_path_rules(r, s,
                      v == 0   ? CP_R_DENY_READ
                      : v == 1 ? CP_R_DENY_WRITE
                               : CP_R_DENY_EXEC);
}

static void rs_stmt(struct rs *r, const struct cp_stmt *s)
{
    switch (s->n.kind) {
    case CP_N_PROFILE:
    case CP_N_FAIL:
        rs_mode(r, s);
        break;
    case CP_N_PARAM:
    case CP_N_LET:
        rs_decl(r, s);
        break;
    case CP_N_INCLUDE:
        rs_file(r, s->included);
        break;
    case CP_N_WRITE:
        rs_path_rules(r, s, CP_R_WRITE);
        break;
    case CP_N_EXEC:
        rs_path_rules(r, s, CP_R_EXEC);
        break;
    case CP_N_DENY:
        rs_deny(r, s);
        break;
    case CP_N_GATE:
        rs_gate(r, s);
        break;
    case CP_N_NET:
        rs_net(r, s);
        break;
    case CP_N_EXPECT:
        rs_expect(r, s);
        break;
    case CP_N_CONTENT:
        rs_content(r, s);
        break;
    case CP_N_FILE:
    case CP_N_ARG:
        break;
    }
}

static void rs_add_source(struct rs *r, const struct cp_source *src);

static void rs_file(struct rs *r, const struct cp_file *f)
{
    if (!f)
        return;
    rs_add_source(r, f->src);
    for (size_t i = 0; i < f->nstmts; i++)
        rs_stmt(r, f->stmts[i]);
}

/* ---- sources and the control plane ------------------------------------- */

static char *rs_cwd(void)
{
    char *c = getcwd(NULL, 0);
    if (!c)
        return NULL;
    char *rp = realpath(c, NULL);
    free(c);
    return rp;
}

/* Absolute form of a source (its canonical path when the file exists). */
static const char *rs_abs(struct rs *r, const struct cp_source *src)
{
    if (src->abspath && src->abspath[0] == '/')
        return src->abspath;
    /* In-memory sources and files that vanished: the name made absolute
     * lexically against the current directory. */
    if (!src->path || !src->path[0] || src->path[0] == '<')
        return NULL;
    if (src->path[0] == '/')
        return rs_normalise(r, "", src->path, strlen(src->path), true);
    char *c = rs_cwd();
    if (!c)
        return NULL;
    const char *full = cp_arena_printf(r->a, "%s/%s", c, src->path);
    free(c);
    return rs_normalise(r, "", full, strlen(full), true);
}

/* Slot of path AB in the source set (an empty slot when it is not there). */
static size_t rs_source_slot(const struct rs *r, const char *ab)
{
    size_t i = cp_fnv64(CP_FNV64_OFFSET, ab, strlen(ab)) & (r->src_cap - 1);
    while (r->src_set[i] && strcmp(r->src_set[i], ab) != 0)
        i = (i + 1) & (r->src_cap - 1);
    return i;
}

/* Adds AB to the source set; false when it was there already. */
static bool rs_source_new(struct rs *r, const char *ab)
{
    if (2 * (r->sources.len + 1) > r->src_cap) {
        const char **old = r->src_set;
        size_t oldcap = r->src_cap;
        r->src_cap = oldcap ? 2 * oldcap : 64;
        r->src_set = cp_arena_alloc(r->a, r->src_cap * sizeof *r->src_set);
        memset(r->src_set, 0, r->src_cap * sizeof *r->src_set);
        for (size_t i = 0; i < oldcap; i++)
            if (old[i])
                r->src_set[rs_source_slot(r, old[i])] = old[i];
    }
    size_t i = rs_source_slot(r, ab);
    if (r->src_set[i])
        return false;
    r->src_set[i] = ab;
    return true;
}

static void rs_add_source(struct rs *r, const struct cp_source *src)
{
    /* a set of the gate library ("<NAME>"): part of the installation */
    if (!src || (src->path && src->path[0] == '<'))
        return;
    const char *ab = rs_abs(r, src);
    if (!ab)
        return;
    if (!rs_source_new(r, ab))
        return;
    cp_vec_push(r->a, &r->sources, (void *)ab);
}

/* The spelling of a control-plane path (spec/semantics.md, "Implicit
 * rules"): ${PROJECT}/REL under PROJECT's value, or under the current
 * directory when PROJECT is unbound; else the absolute path. */
static const char *rs_spell(struct rs *r, const char *abs)
{
    const char *proj = NULL;
    for (size_t i = 0; i < r->params.len; i++) {
        struct cp_param *pm = r->params.items[i];
        if (strcmp(pm->name, "PROJECT") == 0)
            proj = pm->value;
    }
    char *cwd = NULL;
    if (!proj)
        proj = cwd = rs_cwd();
    const char *res = abs;
    if (proj) {
        size_t pl = strlen(proj);
        if (pl == 1 && proj[0] == '/')
            pl = 0;
        if (strncmp(abs, proj, pl) == 0 && abs[pl] == '/')
            res = cp_arena_printf(r->a, "${PROJECT}%s", abs + pl);
        else if (strcmp(abs, proj) == 0)
            res = "${PROJECT}";
    }
    free(cwd);
    return res;
}

static void rs_implicit(struct rs *r, enum cp_rule_kind kind,
                        enum cp_origin origin, const char *text,
                        const char *why, unsigned flags)
{
    struct cp_path path;
    size_t off;
    if (cp_path_parse(r->a, text, strlen(text), true, &path, &off) != NULL)
        return; /* not a path confpol can name: never for a realpath */
    struct cp_rule *ru = cp_arena_alloc(r->a, sizeof *ru);
    ru->kind = kind;
    ru->origin = origin;
    ru->why = why;
    ru->flags = flags;
    ru->text = cp_path_format(r->a, &path); /* before binding: ${PROJECT}/x */
    cp_sema_bind(r->a, r->p, &path);
    ru->u.path = path;
    rs_push(r, ru);
}

/* A policy with gates decides commands known only when they run: ask,
 * unless it says so itself (`gate ask|deny unknown`).  Without gates no
 * rule could have matched such a command, so nothing is added. */
static void rs_unknown_gate(struct rs *r)
{
    bool gates = false;
    for (size_t i = 0; i < r->rules.len; i++) {
        const struct cp_rule *q = r->rules.items[i];
        if (q->kind != CP_R_GATE_ASK && q->kind != CP_R_GATE_DENY)
            continue;
        if (q->u.gate.kind == CP_GATE_UNKNOWN)
            return;
        gates = true;
    }
    if (!gates)
        return;
    struct cp_rule *ru = cp_arena_alloc(r->a, sizeof *ru);
    ru->kind = CP_R_GATE_ASK;
    ru->origin = CP_ORIGIN_CONFINED;
    ru->why = "commands known only when they run";
    ru->text = "unknown";
    cp_gate_unknown(&ru->u.gate);
    rs_push(r, ru);
}

static void rs_profile(struct rs *r)
{
    struct cp_policy *p = r->p;
    if (p->profile == CP_PROFILE_COOPERATIVE)
        return;
    for (size_t i = 0; i < r->sources.len; i++)
        rs_implicit(r, CP_R_DENY_WRITE, CP_ORIGIN_CONFINED,
                    rs_spell(r, r->sources.items[i]), "policy source file",
                    CP_RF_CONTROL);
    if (p->outdir)
        rs_implicit(r, CP_R_DENY_WRITE, CP_ORIGIN_CONFINED,
                    rs_spell(r, p->outdir), "build output directory",
                    CP_RF_CONTROL);
    rs_implicit(r, CP_R_DENY_READ, CP_ORIGIN_CONFINED, "~/.config/confpol",
                "confpol key and config directory", CP_RF_CONTROL);
    rs_implicit(r, CP_R_DENY_WRITE, CP_ORIGIN_CONFINED, "~/.config/confpol",
                "confpol key and config directory", CP_RF_CONTROL);
    rs_unknown_gate(r);
    if (p->profile != CP_PROFILE_EXCLUSIVE)
        return;
    static const char *const creds[] = {
        "~/.ssh",
        "~/.aws",
        "~/.gnupg",
        "~/.kube",
        "~/.config/gcloud",
        "~/.azure",
        "~/.docker/config.json",
        "~/.netrc",
        "~/.git-credentials",
        "~/.config/gh",
        "~/.npmrc",
        "~/.pypirc",
    };
    for (size_t i = 0; i < sizeof creds / sizeof creds[0]; i++)
        rs_implicit(r, CP_R_DENY_READ, CP_ORIGIN_EXCLUSIVE, creds[i],
                    "credential store", 0);
    if (!r->net_allow && !r->net_deny) {
        struct cp_rule *ru = cp_arena_alloc(r->a, sizeof *ru);
        ru->kind = CP_R_NET_DENY;
        ru->origin = CP_ORIGIN_EXCLUSIVE;
        ru->why = "no 'net allow' in an exclusive policy";
        ru->text = "";
        rs_push(r, ru);
        r->net_deny = true;
    }
}

/* ---- -D ------------------------------------------------------------------ */

static bool rs_canonical_text(const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || v[0] != '/')
        return false;
    if (n > 1 && v[n - 1] == '/')
        return false;
    if (strstr(v, "//") || strstr(v, "/./") || strstr(v, "/../"))
        return false;
    if ((n >= 2 && strcmp(v + n - 2, "/.") == 0) ||
        (n >= 3 && strcmp(v + n - 3, "/..") == 0))
        return false;
    return true;
}

static void rs_defines(struct rs *r)
{
    const struct cp_options *o = &r->cx->opts;
    for (size_t i = 0; i < o->ndefines; i++) {
        const struct cp_define *df = &o->defines[i];
        const char *nm = cp_arena_intern(r->a, df->name, strlen(df->name));
        for (size_t j = 0; j < i; j++)
            if (strcmp(o->defines[j].name, df->name) == 0) {
                cp_diag_report(r->d, CP0804, NULL,
                               "-D %s is given twice; bind each param once",
                               df->name);
                goto next;
            }
        struct rs_name *nd = rs_find(r, nm);
        if (!nd && o->partial)
            continue; /* its param may be a statement lost to a syntax error */
        if (!nd || nd->kind != RS_PARAM) {
            struct cp_diag *g = cp_diag_report(
                r->d, CP0802, NULL, "-D %s=%s: '%s' is %s", df->name, df->value,
                df->name,
                nd ? "a let, not a param" : "not a param of this policy");
            const char *near = nd ? NULL : rs_near_name(r, nm, true);
            if (nd && nd->loc.src)
                cp_diag_add_note(g, &nd->loc, "'%s' is declared here",
                                 df->name);
            else if (near)
                cp_diag_set_suggestion(g, "did you mean -D %s=%s?", near,
                                       df->value);
            else
                cp_diag_set_suggestion(g,
                                       "declare it with 'param %s' or "
                                       "remove -D %s",
                                       df->name, df->name);
            goto next;
        }
        if (df->value[0] != '/') {
            cp_diag_report(r->d, CP0803, NULL,
                           "-D %s=%s: the value must be an absolute path",
                           df->name, df->value);
            goto next;
        }
        if (!rs_canonical_text(df->value)) {
            struct cp_diag *g = cp_diag_report(
                r->d, CP0803, NULL,
                "-D %s=%s: the value is not canonical (it holds '//', '.', "
                "'..' or a trailing '/')",
                df->name, df->value);
            cp_diag_set_suggestion(
                g, "write -D %s=%s", df->name,
                rs_normalise(r, "", df->value, strlen(df->value), true));
            goto next;
        }
        char *rp = realpath(df->value, NULL);
        if (rp && strcmp(rp, df->value) != 0) {
            struct cp_diag *g = cp_diag_report(
                r->d, CP0803, NULL,
                "-D %s=%s: the value is not canonical: it resolves to '%s'",
                df->name, df->value, rp);
            cp_diag_set_suggestion(g, "write -D %s=%s", df->name, rp);
        }
        free(rp);
    next:;
    }
}

/* ---- entry ----------------------------------------------------------------- */

static const char *rs_stem(struct rs *r, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 8 && strcmp(b + n - 8, ".confpol") == 0)
        n -= 8;
    return cp_arena_strndup(r->a, b, n);
}

/* The params every policy has, HOME and PROJECT, with their -D values. */
static void rs_builtin_params(struct rs *r)
{
    const struct cp_ctx *cx = r->cx;
    const char *home = cp_arena_intern(r->a, "HOME", 4);
    const char *proj = cp_arena_intern(r->a, "PROJECT", 7);
    struct rs_name *nh = rs_add_name(r, home, RS_PARAM, NULL);
    struct rs_name *np = rs_add_name(r, proj, RS_PARAM, NULL);
    rs_add_param(r, home, NULL);
    rs_add_param(r, proj, NULL);
    nh->defined = np->defined = nh->ok = np->ok = true;
    nh->path.root = home;
    np->path.root = proj;
    nh->param_index = 0;
    np->param_index = 1;
    for (size_t i = 0; i < cx->opts.ndefines; i++) {
        struct cp_param *pm = NULL;
        if (strcmp(cx->opts.defines[i].name, "HOME") == 0)
            pm = r->params.items[0];
        else if (strcmp(cx->opts.defines[i].name, "PROJECT") == 0)
            pm = r->params.items[1];
        if (pm)
            pm->value = cx->opts.defines[i].value;
    }
}

/* The policy's main path, its stem and its output directory (absolute,
 * normalised). */
static void rs_paths(struct rs *r)
{
    const struct cp_ctx *cx = r->cx;
    struct cp_policy *p = r->p;
    if (cx->ast) {
        const struct cp_source *ms = cx->ast->src;
        p->main_path = cx->main_path ? cx->main_path : ms ? ms->path : "";
    } else {
        p->main_path = cx->main_path ? cx->main_path : "";
    }
    p->stem = rs_stem(r, p->main_path);
    if (!cx->opts.outdir)
        return;
    char *rp = realpath(cx->opts.outdir, NULL);
    if (rp) {
        p->outdir = cp_arena_strdup(r->a, rp);
        free(rp);
    } else if (cx->opts.outdir[0] == '/') {
        p->outdir = rs_normalise(r, "", cx->opts.outdir,
                                 strlen(cx->opts.outdir), true);
    } else {
        char *c = rs_cwd();
        const char *full = cp_arena_printf(r->a, "%s/%s", c ? c : "",
                                           cx->opts.outdir);
        free(c);
        p->outdir = rs_normalise(r, "", full, strlen(full), true);
    }
}

/* The params into the policy (their values dropped if a -D was in error);
 * bound params are substituted into every path now, so that the analysis
 * and the decisions are exact (spec/semantics.md). */
static void rs_bind_params(struct rs *r, bool defines_ok)
{
    struct cp_policy *p = r->p;
    p->nparams = r->params.len;
    p->params = cp_arena_alloc(r->a, p->nparams * sizeof *p->params);
    for (size_t i = 0; i < r->params.len; i++) {
        p->params[i] = *(struct cp_param *)r->params.items[i];
        if (!defines_ok)
            p->params[i].value = NULL;
    }
    for (size_t i = 0; i < r->rules.len; i++) {
        struct cp_rule *ru = r->rules.items[i];
        if (ru->kind <= CP_R_DENY_EXEC || ru->kind == CP_R_NET_SOCKET)
            cp_sema_bind(r->a, p, &ru->u.path);
    }
}

/* The collected content rules, sources, rules and expects into the
 * policy, and its profile and network mode. */
static void rs_fill_policy(struct rs *r)
{
    struct cp_policy *p = r->p;
    p->ncontent = r->content.len;
    p->content = cp_arena_alloc(r->a, (p->ncontent ? p->ncontent : 1) *
                                          sizeof *p->content);
    for (size_t i = 0; i < r->content.len; i++)
        p->content[i] = *(struct cp_content_rule *)r->content.items[i];
    p->profile_defaulted = r->profile_stmt == NULL;
    if (r->profile_stmt)
        p->profile_loc = r->profile_stmt->n.loc;
    p->fail_written = r->fail_stmt != NULL;
    p->sources = cp_arena_alloc(r->a, (r->sources.len + 1) * sizeof(char *));
    for (size_t i = 0; i < r->sources.len; i++)
        p->sources[i] = r->sources.items[i];
    p->nsources = r->sources.len;

    rs_profile(r);
    p->net = r->net_deny    ? CP_NET_NONE
             : r->net_allow ? CP_NET_LIST
                            : CP_NET_ALL;

    p->nrules = r->rules.len;
    p->rules = (struct cp_rule **)r->rules.items;
    p->nexpects = r->expects.len;
    p->expects = cp_arena_alloc(r->a, (p->nexpects + 1) * sizeof *p->expects);
    for (size_t i = 0; i < r->expects.len; i++) {
        struct cp_expect *e = r->expects.items[i];
        if (cp_access_is_path(e->access))
            cp_sema_bind(r->a, p, &e->path);
        p->expects[i] = *e;
    }
}

int cp_resolve(struct cp_ctx *cx)
{
    size_t before = cp_diag_errors(&cx->diags);
    struct rs r = {0};
    r.cx = cx;
    r.a = cx->arena;
    r.d = &cx->diags;
    struct cp_policy *p = cp_arena_alloc(r.a, sizeof *p);
    r.p = p;
    cx->policy = p;
    p->profile = CP_PROFILE_CONFINED;
    p->fail = CP_FAIL_CLOSED;
    p->net = CP_NET_ALL;
    p->content_classes = CP_CC_ALL;
    p->content_off_loc = cp_arena_alloc(r.a, CP_CC__COUNT *
                                                 sizeof *p->content_off_loc);

    rs_builtin_params(&r);
    rs_collect(&r, cx->ast);
    rs_defines(&r);
    bool defines_ok = cp_diag_errors(&cx->diags) == before;
    rs_paths(&r);
    if (cx->ast)
        rs_file(&r, cx->ast);
    rs_bind_params(&r, defines_ok);
    rs_fill_policy(&r);

    if (p->profile_defaulted && cx->ast && !cx->opts.partial) {
        struct cp_loc hl = cx->ast->header;
        struct cp_diag *g = cp_diag_report(
            r.d, CP0420, hl.src ? &hl : NULL,
            "no 'profile' statement: the profile is confined, but the gate "
            "hook stays fail-open");
        cp_diag_set_suggestion(g, "write 'profile confined' to make it fail "
                                  "closed");
    }
    return (int)(cp_diag_errors(&cx->diags) - before);
}

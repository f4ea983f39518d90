/* SPDX-License-Identifier: MIT */
/* Path patterns: parsing, matching a concrete path, ordering
 * (spec/patterns.md, "Path patterns").  The relations (containment and
 * overlap) live in match_rel.c. */
#include <assert.h>
#include <string.h>

#include "arena.h"
#include "match.h"
#include "match_int.h"

static bool path_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool path_name_char(char c)
{
    return path_name_start(c) || (c >= '0' && c <= '9');
}

/* The bytes that make a path segment more than a plain literal. */
static const bool path_special[256] = {
    ['$'] = true,
    ['\\'] = true,
    ['*'] = true,
    ['?'] = true,
};

/* The root of the path TEXT: sets out->root ('~' or '${NAME}'; NULL for
 * '/') and *pos to where the segments start.  Returns an error message with
 * *err_off set, or NULL. */
static const char *path_parse_root(struct cp_arena *a, const char *text,
                                   size_t len, struct cp_path *out, size_t *pos,
                                   size_t *err_off)
{
    if (text[0] == '/') {
        *pos = 1;
        return NULL;
    }
    if (text[0] == '~') {
        if (len > 1 && text[1] != '/') {
            *err_off = 1;
            return "'~user' paths are not supported (use '~/' or a param)";
        }
        out->root = cp_arena_intern(a, "HOME", 4);
        *pos = 1;
        return NULL;
    }
    if (len < 2 || text[0] != '$' || text[1] != '{')
        return "relative path";
    size_t n = 2;
    while (n < len && path_name_char(text[n]))
        n++;
    if (n == 2 || !path_name_start(text[2])) {
        *err_off = 2;
        return "bad param name after '${'";
    }
    if (n >= len || text[n] != '}') {
        *err_off = n;
        return "expected '}' after the param name";
    }
    if (n + 1 < len && text[n + 1] != '/') {
        *err_off = n + 1;
        return "expected '/' after '${NAME}'";
    }
    out->root = cp_arena_intern(a, text + 2, n - 2);
    *pos = n + 1;
    return NULL;
}

/* The number of segments of TEXT from POS on (runs of '/' separate). */
static size_t path_count_segs(const char *text, size_t len, size_t pos)
{
    size_t nseg = 0;
    for (size_t i = pos; i < len;) {
        while (i < len && text[i] == '/')
            i++;
        if (i >= len)
            break;
        nseg++;
        while (i < len && text[i] != '/')
            i++;
    }
    return nseg;
}

/* An unquoted segment [s, e) of TEXT: '*' and '?' are globs (*wild); '\'
 * escapes one of '*', '?', '\' (*esc); "**" is only a whole segment.
 * Returns an error message with *err_off set, or NULL. */
static const char *path_seg_globs(const char *text, size_t s, size_t e,
                                  bool *wild, bool *esc, size_t *err_off)
{
    for (size_t j = s; j < e; j++) {
        if (text[j] == '\\') {
            if (j + 1 >= e || (text[j + 1] != '*' && text[j + 1] != '?' &&
                               text[j + 1] != '\\')) {
                *err_off = j;
                return "backslash must be followed by '*', '?' or '\\' "
                       "(quote the path to make it literal)";
            }
            *esc = true;
            j++;
            continue;
        }
        if (text[j] == '*' || text[j] == '?')
            *wild = true;
        if (text[j] == '*' && j + 1 < e && text[j + 1] == '*' && e - s != 2) {
            *err_off = s;
            return "'**' must be a whole segment";
        }
    }
    return NULL;
}

/* Checks the segment [s, e) of TEXT: no '.' or '..' segment and, unless the
 * whole path is PLAIN (none of '$', '\', '*', '?'), no '${' inside it, then
 * (unquoted) its globs.  *classify: the segment may be more than a literal
 * (see path_seg_store).  Returns an error message with *err_off set, or
 * NULL. */
static const char *path_seg_check(const char *text, size_t s, size_t e,
                                  bool plain, bool quoted, bool *classify,
                                  bool *wild, bool *esc, size_t *err_off)
{
    size_t l = e - s;
    *classify = *wild = *esc = false;
    if ((l == 1 && text[s] == '.') ||
        (l == 2 && text[s] == '.' && text[s + 1] == '.')) {
        *err_off = s;
        return l == 1 ? "'.' segment in path" : "'..' segment in path";
    }
    if (plain)
        return NULL;
    for (size_t j = s; j < e; j++) {
        if (text[j] == '$' && j + 1 < e && text[j + 1] == '{') {
            *err_off = j;
            return "'${NAME}' is only allowed at the start of a path";
        }
    }
    if (quoted)
        return NULL;
    *classify = true;
    return path_seg_globs(text, s, e, wild, esc, err_off);
}

/* The kind of the unquoted segment SG ([s, e) of TEXT): "**", a glob (its
 * escapes kept: CP_SEG_GLOB syntax) or, with escapes but no glob left, the
 * literal bytes. */
static void path_seg_store(struct cp_arena *a, struct cp_seg *sg,
                           const char *text, size_t s, size_t e, bool wild,
                           bool esc)
{
    if (e - s == 2 && text[s] == '*' && text[s + 1] == '*') {
        sg->kind = CP_SEG_ANY;
        sg->s = NULL;
        sg->len = 0;
    } else if (wild) {
        sg->kind = CP_SEG_GLOB;
    } else if (esc) {
        char *lit = cp_arena_alloc(a, e - s);
        size_t n = 0;
        for (size_t j = s; j < e; j++) {
            if (text[j] == '\\')
                j++;
            lit[n++] = text[j];
        }
        sg->s = lit;
        sg->len = n;
    }
}

/* The checks of the whole text before its root and segments are read. */
static const char *path_check_text(const char *text, size_t len,
                                   size_t *err_off)
{
    if (len == 0)
        return "empty path";
    if (len > CP_MAX_PATH_LEN) {
        *err_off = CP_MAX_PATH_LEN;
        return "path longer than 4096 bytes";
    }
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        *err_off = (size_t)(nul - text);
        return "NUL byte in path";
    }
    return NULL;
}

const char *cp_path_parse(struct cp_arena *a, const char *text, size_t len,
                          bool quoted, struct cp_path *out, size_t *err_off)
{
    size_t i, pos;

    memset(out, 0, sizeof *out);
    *err_off = 0;
    const char *msg = path_check_text(text, len, err_off);
    if (!msg)
        msg = path_parse_root(a, text, len, out, &pos, err_off);
    if (msg)
        return msg;

    size_t nseg = path_count_segs(text, len, pos);
    out->segs = nseg ? cp_arena_alloc(a, nseg * sizeof *out->segs) : NULL;

    char *copy = cp_arena_strndup(a, text, len);
    /* Most paths hold none of '$', '\\', '*' and '?': their segments are
     * plain literals and skip the two scans of path_seg_check. */
    bool plain = true;
    for (i = pos; i < len && plain; i++)
        plain = !path_special[(unsigned char)text[i]];
    size_t k = 0;
    for (i = pos; i < len;) {
        while (i < len && text[i] == '/')
            i++;
        if (i >= len)
            break;
        size_t s = i;
        while (i < len && text[i] != '/')
            i++;
        assert(out->segs); /* nseg counted this segment */
        struct cp_seg *sg = &out->segs[k++];
        sg->s = copy + s;
        sg->len = i - s;
        sg->kind = CP_SEG_LIT;
        bool classify, wild, esc;
        msg = path_seg_check(text, s, i, plain, quoted, &classify, &wild, &esc,
                             err_off);
        if (msg) {
            memset(out, 0, sizeof *out);
            return msg;
        }
        if (!classify)
            continue;
        path_seg_store(a, sg, text, s, i, wild, esc);
        if (sg->kind != CP_SEG_LIT)
            out->has_glob = true;
    }
    out->nsegs = k;
    return NULL;
}

bool cp_path_covers(const struct cp_path *p, const char *root_value,
                    const char *path, size_t len)
{
    if (p->root) {
        if (!root_value || root_value[0] != '/')
            return false;
        size_t rl = strlen(root_value);
        while (rl > 1 && root_value[rl - 1] == '/')
            rl--;
        if (rl > 1) {
            if (len < rl || memcmp(path, root_value, rl) != 0)
                return false;
            if (len > rl && path[rl] != '/')
                return false;
            path += rl;
            len -= rl;
        }
    } else if (len == 0 || path[0] != '/') {
        return false;
    }
    return cp_match_segs(p->segs, p->nsegs, path, len);
}

static int path_seg_cmp(const struct cp_seg *x, const struct cp_seg *y)
{
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->s, y->s, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return 0;
}

int cp_path_cmp(const struct cp_path *a, const struct cp_path *b)
{
    if (a->root != b->root) {
        if (!a->root)
            return -1;
        if (!b->root)
            return 1;
        int c = strcmp(a->root, b->root);
        if (c)
            return c < 0 ? -1 : 1;
    }
    size_t n = a->nsegs < b->nsegs ? a->nsegs : b->nsegs;
    for (size_t i = 0; i < n; i++) {
        int c = path_seg_cmp(&a->segs[i], &b->segs[i]);
        if (c)
            return c;
    }
    if (a->nsegs != b->nsegs)
        return a->nsegs < b->nsegs ? -1 : 1;
    return 0;
}

size_t cp_path_literal_prefix(const struct cp_path *p)
{
    size_t i = 0;
    while (i < p->nsegs && p->segs[i].kind == CP_SEG_LIT)
        i++;
    return i;
}

const char *cp_path_bind(struct cp_arena *a, const struct cp_path *p,
                         const char *root_value, struct cp_path *out)
{
    if (!p->root) {
        *out = *p;
        return NULL;
    }
    struct cp_path r;
    size_t off;
    const char *msg = cp_path_parse(a, root_value, strlen(root_value), true, &r,
                                    &off);
    if (msg)
        return msg;
    if (r.root)
        return "param value is not an absolute path";
    out->root = NULL;
    out->nsegs = r.nsegs + p->nsegs;
    out->segs = out->nsegs ? cp_arena_alloc(a, out->nsegs * sizeof *out->segs)
                           : NULL;
    if (out->segs && r.nsegs)
        memcpy(out->segs, r.segs, r.nsegs * sizeof *r.segs);
    if (out->segs && p->nsegs)
        memcpy(out->segs + r.nsegs, p->segs, p->nsegs * sizeof *p->segs);
    out->has_glob = p->has_glob;
    return NULL;
}

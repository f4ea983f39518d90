/* SPDX-License-Identifier: MIT */
/* The claude backend: lowers the resolved rules to one Claude Code settings
 * object (spec/backends.md, "Claude Code settings").
 *
 * One pass over the rules fills the lists of the object and, for each rule,
 * a fidelity verdict with its reason; check() turns the verdicts into
 * diagnostics, fidelity() returns one of them, emit() prints the object.
 * Paths are spelled so that they mean the same in sandbox lists and in
 * permission rules (the single-leading-'/' trap of the reference sheet):
 * '//abs', '~/x', and for the unbound PROJECT './x' in sandbox lists and
 * '/x' in rules, both of which mean the project only in a project settings
 * file (the artifact says so in "confpol.projectRelative").  Permission
 * rules are gitignore patterns: a literal byte that such a pattern would
 * read as syntax becomes '?', which matches it and more, so a deny rule
 * can only grow. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "claude_vocab.h"
#include "fidelity.h"
#include "content.h"
#include "gate_pin.h"
#include "hash.h"
#include "json.h"
#include "match.h"
#include "ospath.h"
#include "outbuf.h"
#include "text.h"
#include "utf8.h"

/* Writable for Bash whatever the settings say (the sandbox runtime's own
 * defaults, measured; Claude Code's session temp dir /tmp/claude-UID;
 * spec/backends.md): the name shown, and the pattern compared. */
#define CL_NRUNTIME 4
static const char *const cl_runtime_writable[CL_NRUNTIME] = {
    "~/.claude/debug",
    "~/.npm/_logs",
    "/tmp/claude",
    "/tmp/claude-<uid>",
};
static const char *const cl_runtime_pattern[CL_NRUNTIME] = {
    "~/.claude/debug",
    "~/.npm/_logs",
    "/tmp/claude",
    "/tmp/claude-*",
};

/* Paths Claude Code never lets Bash write, whatever allowWrite says
 * (its built-in protected paths, measured; claude-settings.md §1.2). */
static const char *const cl_protected[] = {
    "${PROJECT}/.git/hooks",
    "${PROJECT}/.git/config",
    "${PROJECT}/.mcp.json",
    "${PROJECT}/.claude/settings.json",
    "${PROJECT}/.claude/settings.local.json",
    "${PROJECT}/.claude/commands",
    "${PROJECT}/.claude/agents",
    "${PROJECT}/.claude/skills",
    "${PROJECT}/.claude/hooks",
    /* the sandbox runtime's dangerous files and directories in the
     * working directory (sandbox-utils.js DANGEROUS_FILES and
     * getDangerousDirectories), and a nested repository's hooks and
     * config (its ripgrep scan) */
    "${PROJECT}/.gitconfig",
    "${PROJECT}/.gitmodules",
    "${PROJECT}/.bashrc",
    "${PROJECT}/.bash_profile",
    "${PROJECT}/.zshrc",
    "${PROJECT}/.zprofile",
    "${PROJECT}/.profile",
    "${PROJECT}/.ripgreprc",
    "${PROJECT}/.vscode",
    "${PROJECT}/.idea",
    "${PROJECT}/**/.git/hooks",
    "${PROJECT}/**/.git/config",
    "~/.bashrc",
    "~/.bash_profile",
    "~/.zshrc",
    "~/.zprofile",
    "~/.profile",
    "~/.claude",
};

struct cl_fid {
    enum cp_fidelity fid;
    const char *why;
    enum cp_diag_code code; /* warning to report, or CP_DIAG__COUNT */
};

static uint64_t cl_hash(const char *s, size_t n)
{
    /* FNV-1a, a plain loop: eight bytes at a time gained nothing
     * measurable in `make bench` (build --target all, median CPU ms,
     * 10,000 / 100,000 rules: 51.1 / 615.1 with it, 49.8 / 603.7 without;
     * same machine, one run each).  Only membership depends on the hash,
     * never an order. */
    uint64_t h = cp_fnv64(CP_FNV64_OFFSET, s, n);
    /* Mix the high bits down before masking (murmur3's finaliser). */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* A list of the settings object: strings in first-seen order, each once.
 * Built as plain string vectors and printed directly, without a JSON
 * tree (which held every string twice, plus a node per string).  Every
 * string pushed is kept until the analysis ends, and cl_dedup then drops
 * the repeats in one pass. */
struct cl_list {
    const char **v;
    uint32_t *len;  /* strlen of each */
    uint32_t *hash; /* cl_hash of each, taken while the string is fresh */
    size_t n, cap;
};

/* How far ahead of the entry at hand a pass over a list asks for memory
 * (cl_dedup, jw_list). */
enum { CL_AHEAD = 8 };

/* One entry of confpol.gates. */
struct cl_gate_out {
    const char *id, *kind, *pattern, *verdict, *where;
    struct cp_gate_key key; /* a words row's: "programs" when it has names */
};

struct cl_gates {
    struct cl_gate_out *v;
    size_t n, cap;
};

struct cl {
    struct cp_analysis head; /* first: the driver reads it (fidelity.h) */
    const struct cp_policy *p;
    struct cp_arena *a;
    size_t cur;         /* index of the rule being lowered */
    struct cp_diags *d; /* NULL: no diagnostics */
    bool warnings;      /* report warnings and notes too */
    int errors;
    bool coop;
    bool project_relative;
    struct cl_fid *fids; /* per rule */
    /* The object's lists (arena strings, de-duplicated). */
    struct cl_list allow_write, deny_write, deny_read, domains, sockets;
    struct cl_list perm_deny, perm_ask;
    struct cl_gates gates;
    const void *where_src; /* source of the last gate, and whether */
    bool where_ok;         /* its file name is valid UTF-8 */
    size_t nprot, ntmpfs;  /* rules stricter by Claude Code's facts */
    size_t nlate;          /* literal deny-read rules (absent at start) */
    const struct cp_rule *project_ro; /* a root that may hold PROJECT */
    bool cwd_writable;                /* Bash may write the project (cwd) */
    struct cp_path runtime_paths[CL_NRUNTIME];
    bool runtime_ok[CL_NRUNTIME];
    bool net_restricted;
    size_t nnames;     /* net allow names: decided on the name alone */
    size_t nlocalport; /* net allow localhost:PORT: left out */
    /* The last reason joined by cl_join, and its parts. */
    const char *join_a, *join_sep, *join_b, *join_out;
};

/* Counts an error; true when the diagnostic is to be reported. */
static bool cl_reporting(struct cl *c, enum cp_diag_code code)
{
    bool err = cp_diag_code_default(code) == CP_SEV_ERROR;
    if (err)
        c->errors++;
    return c->d && (err || c->warnings);
}

/* Where a finding on R is reported: its source span, or none. */
static const struct cp_loc *cl_loc(const struct cp_rule *r)
{
    return r && r->loc.src ? &r->loc : NULL;
}

/* The note under G, a finding on R, when R is implicit. */
static void cl_implicit_note(struct cp_diag *g, const struct cp_rule *r)
{
    if (g && r && !r->loc.src && r->why)
        cp_diag_add_note(g, NULL, "rule '%s%s%s' is implicit: %s",
                         cp_rule_kind_text(r->kind),
                         r->text && *r->text ? " " : "", r->text ? r->text : "",
                         r->why);
}

static void cl_report(struct cl *c, enum cp_diag_code code,
                      const struct cp_rule *r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cl_report(struct cl *c, enum cp_diag_code code,
                      const struct cp_rule *r, const char *fmt, ...)
{
    if (!cl_reporting(c, code))
        return;
    char msg[CP_CAT_MAX + 1]; /* cut to CP_CAT_MAX, as every finding is */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct cp_diag *g = cp_diag_report_cat(c->d, code, cl_loc(r), msg,
                                           (char *)NULL);
    cl_implicit_note(g, r);
}

/* A rule's reasons A and B joined by SEP.  Rules of a kind share their
 * reasons: the last join is reused rather than copied again (build
 * --target all of the 10,000-rule bench policy: 3,848 page faults with a
 * copy per rule, 3,790 without).  Reasons are literals or arena strings,
 * never a reused buffer, so the same pointers mean the same text. */
static const char *cl_join(struct cl *c, const char *a, const char *sep,
                           const char *b)
{
    if (a != c->join_a || sep != c->join_sep || b != c->join_b) {
        c->join_a = a;
        c->join_sep = sep;
        c->join_b = b;
        c->join_out = cp_arena_cat(c->a, a, sep, b, (char *)NULL);
    }
    return c->join_out;
}

static void cl_fid(struct cl *c, const struct cp_rule *r, enum cp_fidelity f,
                   enum cp_diag_code code, const char *why)
{
    struct cl_fid *x = &c->fids[c->cur];
    (void)r;
    /* Keep the weakest verdict (not enforced < stricter < exact). */
    int rank[] =
        {[CP_FID_EXACT] = 2, [CP_FID_STRICTER] = 1, [CP_FID_NOT_ENFORCED] = 0};
    if (x->why && rank[f] >= rank[x->fid]) {
        if (rank[f] == rank[x->fid] && f != CP_FID_EXACT) {
            x->why = cl_join(c, x->why, "; ", why);
            /* The first reason with a warning reports the rule. */
            if (x->code == CP_DIAG__COUNT)
                x->code = code;
        }
        return;
    }
    x->fid = f;
    x->why = why;
    x->code = code;
}

/* ---- path spelling ------------------------------------------------------ */

enum cl_root { CL_ABS, CL_HOME, CL_PROJECT };

struct cl_path {
    const char *sandbox; /* for sandbox.filesystem lists */
    const char *rule;    /* base for Read(...)/Edit(...), without the tool */
    bool root_only;      /* the pattern is a root: only the beneath-rule */
    bool glob;           /* Claude reads the sandbox entry as a glob */
    bool widened;        /* the rule replaced bytes by '?' */
};

static bool cl_meta(char ch)
{
    return ch == '*' || ch == '?' || ch == '[';
}

/* A byte of a permission-rule path: gitignore syntax, the rule's closing
 * parenthesis (the schema rejects ')' in rule content) and control bytes
 * become '?'. */
static char cl_rule_byte(char ch, bool *widened)
{
    if (ch == '[' || ch == ']' || ch == '\\' || ch == ')' ||
        (unsigned char)ch < 0x20 || ch == 0x7f) {
        *widened = true;
        return '?';
    }
    return ch;
}

/* A literal byte that both spellings copy as it is (no glob meaning, no
 * rewriting): the common case, tested first. */
static bool cl_plain_lit(char ch)
{
    unsigned char u = (unsigned char)ch;
    return u > 0x20 && u != 0x7f && !cl_meta(ch) && ch != ']' && ch != '\\' &&
           ch != ')';
}

/* The root of a path rule's spelling; false (after reporting) for a param
 * other than HOME and PROJECT, which needs its value. */
static bool cl_root_of(struct cl *c, const struct cp_rule *r,
                       enum cl_root *root)
{
    const struct cp_path *pp = &r->u.path;
    *root = CL_ABS;
    if (!pp->root)
        return true;
    if (strcmp(pp->root, "HOME") == 0) {
        *root = CL_HOME;
    } else if (strcmp(pp->root, "PROJECT") == 0) {
        *root = CL_PROJECT;
    } else {
        cl_report(c, CP0750, r,
                  "param '%s' is not bound: the claude target needs its "
                  "value (-D %s=/abs/path)",
                  pp->root, pp->root);
        return false;
    }
    return true;
}

/* The two spellings being written: the sandbox list's and the rule's. */
struct cl_pen {
    char *sp, *rp;
};

/* A literal segment. */
static void cl_spell_lit(struct cl_pen *w, const struct cp_seg *s,
                         struct cl_path *o)
{
    for (size_t j = 0; j < s->len; j++) {
        char ch = s->s[j];
        if (cl_plain_lit(ch)) {
            *w->sp++ = ch;
            *w->rp++ = ch;
            continue;
        }
        o->glob |= cl_meta(ch);
        /* Claude reads '[' as a class: '?' matches the byte too. */
        *w->sp++ = ch == '[' || ch == ']' ? '?' : ch;
        *w->rp++ = cl_rule_byte(ch, &o->widened);
    }
}

/* A glob segment. */
static void cl_spell_glob(struct cl_pen *w, const struct cp_seg *s,
                          struct cl_path *o)
{
    o->glob = true;
    for (size_t j = 0; j < s->len; j++) {
        char ch = s->s[j];
        if (ch == '\\' && j + 1 < s->len)
            ch = s->s[++j]; /* an escaped byte: '*' or '?' stay
                               wildcards, which match it too */
        else if (ch == '*' || ch == '?') {
            *w->sp++ = ch;
            *w->rp++ = ch;
            continue;
        }
        *w->sp++ = ch == '[' || ch == ']' ? '?' : ch;
        *w->rp++ = cl_rule_byte(ch, &o->widened);
    }
}

/* One segment, after its '/'. */
static void cl_spell_seg(struct cl_pen *w, const struct cp_seg *s,
                         struct cl_path *o)
{
    *w->sp++ = '/';
    *w->rp++ = '/';
    switch (s->kind) {
    case CP_SEG_ANY:
        *w->sp++ = '*';
        *w->sp++ = '*';
        *w->rp++ = '*';
        *w->rp++ = '*';
        o->glob = true;
        break;
    case CP_SEG_LIT:
        cl_spell_lit(w, s, o);
        break;
    case CP_SEG_GLOB:
        cl_spell_glob(w, s, o);
        break;
    }
}

/* Ends both spellings (n segments were written): an absolute path is
 * "//a/b" in the sandbox list, the root directory "/" there and "//" in
 * rules, and a trailing blank (which gitignore strips) becomes '?'.
 * Returns where the sandbox spelling starts. */
static char *cl_spell_end(struct cl_pen *w, char *sbuf, char *rbuf,
                          enum cl_root root, size_t n, struct cl_path *o)
{
    char *sstart = sbuf + 1;
    if (root == CL_ABS && n > 0) {
        /* "/a/b" -> "//a/b": absolute in both places. */
        sbuf[0] = '/';
        sstart = sbuf;
    }
    o->root_only = n == 0 && root != CL_HOME;
    if (n == 0 && root == CL_ABS) {
        /* The root directory: "/" in sandbox lists, "//" in rules. */
        w->sp = sstart;
        *w->sp++ = '/';
        w->rp = rbuf;
        *w->rp++ = '/';
        *w->rp++ = '/';
    }
    /* A trailing blank would be stripped by gitignore. */
    if (w->rp > rbuf && (w->rp[-1] == ' ' || w->rp[-1] == '\t')) {
        w->rp[-1] = '?';
        o->widened = true;
    }
    *w->sp = '\0';
    *w->rp = '\0';
    return sstart;
}

/* Returns false (after reporting) when the path cannot be spelled. */
static bool cl_spell(struct cl *c, const struct cp_rule *r, struct cl_path *o)
{
    const struct cp_path *pp = &r->u.path;
    enum cl_root root;
    memset(o, 0, sizeof *o);
    if (!cl_root_of(c, r, &root))
        return false;
    size_t n = pp->nsegs;
    while (n > 0 && pp->segs[n - 1].kind == CP_SEG_ANY)
        n--; /* a trailing any-segment adds nothing */
    /* Both spellings are written straight into the arena: a segment byte
     * gives at most one byte of each, an any-segment two, a root one and
     * the sandbox spelling of an absolute path a leading '/'. */
    size_t bound = 3;
    for (size_t i = 0; i < n; i++)
        bound += 1 + (pp->segs[i].kind == CP_SEG_ANY ? 2 : pp->segs[i].len);
    char *sbuf = cp_arena_alloc(c->a, 2 * bound + 1);
    char *rbuf = sbuf + bound + 1;
    struct cl_pen w = {sbuf + 1, rbuf}; /* sbuf[0]: the leading '/' */
    switch (root) {
    case CL_ABS:
        *w.rp++ = '/';
        break;
    case CL_HOME:
        *w.sp++ = '~';
        *w.rp++ = '~';
        break;
    case CL_PROJECT:
        *w.sp++ = '.';
        c->project_relative = true;
        break;
    }
    for (size_t i = 0; i < n; i++)
        cl_spell_seg(&w, &pp->segs[i], o);
    char *sstart = cl_spell_end(&w, sbuf, rbuf, root, n, o);
    bool ok = cp_utf8_valid(sstart, (size_t)(w.sp - sstart));
    if (!ok)
        cl_report(c, CP0751, r,
                  "path '%s' is not valid UTF-8: a JSON settings file cannot "
                  "hold it",
                  r->text ? r->text : "");
    o->sandbox = sstart;
    o->rule = rbuf;
    return ok;
}

static void cl_push(struct cl *c, struct cl_list *l, const char *s)
{
    size_t n = strlen(s);
    if (n >= UINT32_MAX || l->n >= UINT32_MAX - 1)
        cp_die_oom(); /* no source line is 4 GiB long, nor a list */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        const char **v = cp_arena_alloc(c->a, cap * sizeof *v);
        uint32_t *len = cp_arena_alloc(c->a, cap * sizeof *len);
        uint32_t *hash = cp_arena_alloc(c->a, cap * sizeof *hash);
        if (l->n) {
            memcpy(v, l->v, l->n * sizeof *v);
            memcpy(len, l->len, l->n * sizeof *len);
            memcpy(hash, l->hash, l->n * sizeof *hash);
        }
        l->v = v;
        l->len = len;
        l->hash = hash;
        l->cap = cap;
    }
    l->len[l->n] = (uint32_t)n;
    l->hash[l->n] = (uint32_t)cl_hash(s, n);
    l->v[l->n++] = s;
}

/* Sizes list L for N pushes at most, so that it does not grow: grown by
 * doubling, lists left their outgrown copies in the arena (build --target
 * all of the 10,000-rule bench policy: 4,315 page faults with them, 3,848
 * without). */
static void cl_reserve(struct cl *c, struct cl_list *l, size_t n)
{
    if (!n)
        return;
    l->v = cp_arena_alloc(c->a, n * sizeof *l->v);
    l->len = cp_arena_alloc(c->a, n * sizeof *l->len);
    l->hash = cp_arena_alloc(c->a, n * sizeof *l->hash);
    l->cap = n;
}

/* Drops the entries of L that repeat an earlier one, keeping the first of
 * each in its order.  TAB is an open-addressing table of CAP slots (a
 * power of two, at least twice L's length), zeroed, each the index of a
 * kept entry plus one.  Each probe asks for the slot of the entry CL_AHEAD
 * on, and a string is read again only when its hash and length match an
 * earlier one's: a set probed at each push waited for a cache miss per
 * string (build --target all, median CPU of runs interleaved: 238.7 ms
 * with the set, 234.9 ms this way for the 100,000-rule bench policy, 20.8
 * and 20.3 ms for the 10,000-rule one). */
static void cl_dedup(struct cl_list *l, uint32_t *tab, size_t cap)
{
    const uint32_t *h = l->hash;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (i + CL_AHEAD < l->n)
            __builtin_prefetch(&tab[h[i + CL_AHEAD] & (cap - 1)]);
        size_t at = h[i] & (cap - 1);
        bool repeat = false;
        for (; tab[at] && !repeat; at = (at + 1) & (cap - 1)) {
            uint32_t j = tab[at] - 1;
            repeat = h[j] == h[i] && l->len[j] == l->len[i] &&
                     memcmp(l->v[j], l->v[i], l->len[i]) == 0;
        }
        if (repeat)
            continue;
        tab[at] = (uint32_t)(k + 1);
        l->v[k] = l->v[i];
        l->len[k] = l->len[i];
        l->hash[k++] = h[i];
    }
    l->n = k;
}

/* cl_dedup over every list, with one table for all. */
static void cl_dedup_lists(struct cl *c)
{
    struct cl_list *lists[] = {&c->allow_write, &c->deny_write, &c->deny_read,
                               &c->domains,     &c->sockets,    &c->perm_deny,
                               &c->perm_ask};
    size_t most = 0;
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        if (lists[i]->n > most)
            most = lists[i]->n;
    size_t cap = 64;
    while (cap < 2 * most)
        cap *= 2;
    uint32_t *tab = cp_arena_alloc(c->a, cap * sizeof *tab);
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        size_t lc = 64;
        while (lc < 2 * lists[i]->n)
            lc *= 2;
        memset(tab, 0, lc * sizeof *tab);
        cl_dedup(lists[i], tab, lc);
    }
}

/* Reserves the lists for what the rules may push: a write root each, a
 * deny and its two Read or Edit rules, a gate's two Bash rules, a domain
 * (and the project's deny write and WebFetch). */
static void cl_reserve_lists(struct cl *c)
{
    size_t n[CP_R_NET_DENY + 1] = {0};
    for (size_t i = 0; i < c->p->nrules; i++)
        if ((size_t)c->p->rules[i]->kind <= CP_R_NET_DENY)
            n[c->p->rules[i]->kind]++;
    cl_reserve(c, &c->allow_write, n[CP_R_WRITE]);
    cl_reserve(c, &c->deny_write, n[CP_R_DENY_WRITE] + 1);
    cl_reserve(c, &c->deny_read, n[CP_R_DENY_READ]);
    cl_reserve(c, &c->domains, n[CP_R_NET_ALLOW]);
    cl_reserve(c, &c->perm_deny,
               2 * (n[CP_R_DENY_WRITE] + n[CP_R_DENY_READ] + 1) +
                   2 * n[CP_R_GATE_DENY] + 1);
    cl_reserve(c, &c->perm_ask, 2 * n[CP_R_GATE_ASK]);
}

/* "TOOL(BASE)", or with `beneath` the same with "/" "**" appended inside
 * the parentheses (only "**" after a trailing slash), in the arena. */
static const char *cl_rule_text(struct cp_arena *a, const char *tool,
                                const char *base, size_t blen, bool beneath,
                                bool slash)
{
    size_t tl = strlen(tool);
    size_t n = tl + 1 + blen + (beneath ? (slash ? 2 : 3) : 0) + 1;
    char *t = cp_arena_alloc(a, n + 1);
    char *q = t;
    memcpy(q, tool, tl);
    q += tl;
    *q++ = '(';
    memcpy(q, base, blen);
    q += blen;
    if (beneath) {
        if (!slash)
            *q++ = '/';
        *q++ = '*';
        *q++ = '*';
    }
    *q++ = ')';
    *q = '\0';
    return t;
}

/* Read(...) or Edit(...) deny rules for a path: the path and beneath. */
static void cl_mirror(struct cl *c, const char *tool, const struct cl_path *o)
{
    size_t rl = strlen(o->rule);
    if (!o->root_only)
        cl_push(c, &c->perm_deny,
                cl_rule_text(c->a, tool, o->rule, rl, false, false));
    bool slash = rl && o->rule[rl - 1] == '/';
    cl_push(c, &c->perm_deny,
            cl_rule_text(c->a, tool, o->rule, rl, true, slash));
}

/* False when the relation of pattern pp to the runtime directory rt (a
 * literal path without unsatisfiable segments) surely is not CP_REL_YES,
 * for both cp_path_contains (either way round) and cp_path_overlaps; true
 * when it must be asked.  The relations build automata when the roots
 * differ, which a whole policy's worth of rules makes the bulk of the
 * work; these cases need none:
 *   - pp absolute with a literal first segment, rt at a param: a binding
 *     of the param outside that segment shares no path with pp;
 *   - pp at a param, rt absolute below "/": likewise, a binding outside
 *     rt's first segment;
 *   - two different params: the answer depends on their values (MAY);
 *   - same root and different literal first segments: disjoint. */
static bool cl_may_be_yes(const struct cp_path *pp, const struct cp_path *rt)
{
    bool pl = pp->nsegs > 0 && pp->segs[0].kind == CP_SEG_LIT;
    if (!pp->root && rt->root)
        return !pl;
    if (pp->root && !rt->root)
        return rt->nsegs == 0;
    if (pp->root && rt->root && strcmp(pp->root, rt->root) != 0)
        return false;
    if (pl && rt->nsegs > 0 && rt->segs[0].kind == CP_SEG_LIT &&
        (pp->segs[0].len != rt->segs[0].len ||
         memcmp(pp->segs[0].s, rt->segs[0].s, pp->segs[0].len) != 0))
        return false;
    return true;
}

/* cp_path_contains (`contains`: pp contains it) or cp_path_overlaps of pp
 * and runtime directory i.  The session temp dir is the pattern
 * /tmp/claude-*: a literal absolute pp is decided by its first two
 * segments, without the automaton a glob costs (a policy of 100,000 rules
 * asks it for each). */
static enum cp_rel cl_rt_rel(struct cl *c, size_t i, const struct cp_path *pp,
                             bool contains)
{
    const char *param;
    const struct cp_path *rt = &c->runtime_paths[i];
    if (!rt->has_glob || pp->has_glob || pp->root)
        return contains ? cp_path_contains(pp, rt, &param)
                        : cp_path_overlaps(pp, rt, &param);
    bool tmp = pp->nsegs == 0 ||
               (pp->segs[0].len == 3 && memcmp(pp->segs[0].s, "tmp", 3) == 0);
    if (!tmp)
        return CP_REL_NO;
    if (pp->nsegs <= 1)
        return CP_REL_YES; /* / or /tmp: contains every match */
    bool claude = pp->segs[1].len >= 7 &&
                  memcmp(pp->segs[1].s, "claude-", 7) == 0;
    if (contains || !claude)
        return CP_REL_NO;
    return CP_REL_YES;
}

/* Does a deny-write pattern reach one of the runtime's writable dirs? */
static const char *cl_runtime_overlap(struct cl *c, const struct cp_path *pp)
{
    for (size_t i = 0; i < CL_NRUNTIME; i++) {
        /* Only a sure overlap: with PROJECT = HOME every project path
         * "may" overlap; the policy-wide warning covers that case. */
        if (c->runtime_ok[i] && cl_may_be_yes(pp, &c->runtime_paths[i]) &&
            cl_rt_rel(c, i, pp, false) == CP_REL_YES)
            return cl_runtime_writable[i];
    }
    return NULL;
}

/* ---- rules --------------------------------------------------------------- */

/* A permission rule spelled with '?': stricter for the file tools, also
 * beside a not-enforced rating (a literal deny read). */
static void cl_widened(struct cl *c, const struct cp_rule *r)
{
    const char *why = "bytes that a permission rule would read as syntax "
                      "are written as '?': the file-tool rule denies more "
                      "paths";
    struct cl_fid *x = &c->fids[c->cur];
    /* Elsewhere a rule not enforced says enough (a glob, cooperative). */
    if (c->coop || r->kind != CP_R_DENY_READ || !x->why ||
        x->fid != CP_FID_NOT_ENFORCED || x->code != CP_DIAG__COUNT) {
        cl_fid(c, r, CP_FID_STRICTER, CP0760, why);
        return;
    }
    x->why = cl_join(c, x->why, "; also stricter: ", why);
    x->code = CP0760;
}

static void cl_path_rule(struct cl *c, const struct cp_rule *r)
{
    struct cl_path o;
    if (!cl_spell(c, r, &o))
        return;
    switch (r->kind) {
    case CP_R_WRITE:
        if (c->coop) {
            cl_fid(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                   "cooperative: writes are not confined");
        } else if (o.glob) {
            cl_fid(c, r, CP_FID_STRICTER, CP0752,
                   "a write glob is not granted: Claude Code skips globs in "
                   "allowWrite on Linux, so the claude target omits it");
        } else {
            cl_push(c, &c->allow_write, o.sandbox);
            cl_fid(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                   "sandbox.filesystem.allowWrite");
        }
        return;
    case CP_R_DENY_WRITE:
        if (!c->coop)
            cl_push(c, &c->deny_write, o.sandbox);
        cl_mirror(c, "Edit", &o);
        if (c->coop)
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP_DIAG__COUNT,
                   "cooperative: no sandbox, so Bash may write it; only "
                   "Claude Code's file tools are denied (Edit rules)");
        else if (o.glob)
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0753,
                   "Claude Code skips globs in denyWrite on Linux: Bash may "
                   "write matching paths there; file tools are denied by "
                   "Edit rules, and macOS Seatbelt enforces the glob");
        else
            cl_fid(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
                   "sandbox.filesystem.denyWrite and Edit deny rules");
        if (!c->coop) {
            const char *rw = cl_runtime_overlap(c, &r->u.path);
            if (rw)
                cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0756,
                       cp_arena_printf(c->a,
                                       "Claude Code's sandbox runtime keeps "
                                       "%s writable for Bash",
                                       rw));
        }
        break;
    case CP_R_DENY_READ:
        if (!c->coop)
            cl_push(c, &c->deny_read, o.sandbox);
        cl_mirror(c, "Read", &o);
        if (c->coop)
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP_DIAG__COUNT,
                   "cooperative: no sandbox, so Bash may read it; only "
                   "Claude Code's file tools are denied (Read rules)");
        else if (o.glob)
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0754,
                   "Claude Code expands denyRead globs when the sandbox "
                   "starts on Linux: files created later are readable from "
                   "Bash; file tools are denied by Read rules");
        else {
            /* The runtime mounts nothing on a path absent at the start. */
            c->nlate++;
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP_DIAG__COUNT,
                   "partially: sandbox.filesystem.denyRead and Read deny "
                   "rules, but a path absent when the command starts and "
                   "created while it runs is readable from Bash (Claude "
                   "Code's sandbox runtime mounts nothing on a missing "
                   "path)");
        }
        break;
    case CP_R_EXEC:
    case CP_R_DENY_EXEC:
        cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0755,
               "Claude Code's sandbox has no exec control (confpol run "
               "enforces exec rules with Landlock)");
        return;
    case CP_R_GATE_ASK:
    case CP_R_GATE_DENY:
    case CP_R_NET_ALLOW:
    case CP_R_NET_DENY:
    case CP_R_NET_SOCKET:
        return;
    }
    if (o.widened)
        cl_widened(c, r);
}

/* Where a gate was written, "FILE:LINE" (or "(implicit)"). */
static const char *cl_gate_where(struct cl *c, const struct cp_rule *r)
{
    char num[CP_UTOA_LEN];
    const char *where;
    if (r->loc.src) {
        const char *f = r->loc.src->path ? r->loc.src->path : "";
        const char *line = cp_utoa(num, r->loc.line);
        if (r->loc.src != c->where_src) {
            /* Gates come in runs from one file: check its name once. */
            c->where_src = r->loc.src;
            c->where_ok = cp_utf8_valid(f, strlen(f));
        }
        where = c->where_ok ? cp_arena_cat(c->a, f, ":", line, (char *)NULL)
                            : cp_arena_printf(c->a, "(file name not UTF-8):%u",
                                              r->loc.line);
    } else {
        where = "(implicit)";
    }
    return where;
}

/* Appends the gate's entry to confpol.gates. */
static void cl_gate_entry(struct cl *c, const struct cp_rule *r,
                          unsigned ordinal)
{
    const struct cp_gate_pat *g = &r->u.gate;
    bool deny = r->kind == CP_R_GATE_DENY;
    char num[CP_UTOA_LEN];
    const char *id = cp_arena_cat(c->a, "gate#", cp_utoa(num, ordinal),
                                  (char *)NULL);
    const char *where = cl_gate_where(c, r);
    struct cl_gates *gs = &c->gates;
    if (gs->n == gs->cap) {
        size_t cap = gs->cap ? 2 * gs->cap : 16;
        struct cl_gate_out *v = cp_arena_alloc(c->a, cap * sizeof *v);
        if (gs->n)
            memcpy(v, gs->v, gs->n * sizeof *v);
        gs->v = v;
        gs->cap = cap;
    }
    gs->v[gs->n++] = (struct cl_gate_out){
        .id = id,
        .kind = g->kind == CP_GATE_REGEX     ? CP_CV_KIND_REGEX
                : g->kind == CP_GATE_UNKNOWN ? CP_CV_KIND_UNKNOWN
                                             : CP_CV_KIND_WORDS,
        .pattern = g->text,
        .verdict = deny ? CP_CV_VERDICT_DENY : CP_CV_VERDICT_ASK,
        .where = where,
    };
    /* The hook reads the key instead of parsing every row on every call
     * (spec/gate.md, "Performance") */
    if (g->kind == CP_GATE_WORDS)
        cp_gate_key_of(c->a, g, &gs->v[gs->n - 1].key);
}

/* Does Claude's Bash rule syntax say exactly what the gate says? */
static bool cl_gate_plain(const struct cp_gate_pat *g)
{
    bool plain = g->kind == CP_GATE_WORDS && g->nwords > 0;
    for (size_t i = 0; plain && i < g->nwords; i++)
        plain = cp_backend_plain_word(g->words[i]);
    if (plain &&
        g->words[g->nwords - 1][strlen(g->words[g->nwords - 1]) - 1] == ':')
        plain = false; /* "x:" before " *" would read as the legacy ":*" */
    return plain;
}

static void cl_gate(struct cl *c, const struct cp_rule *r, unsigned ordinal)
{
    const struct cp_gate_pat *g = &r->u.gate;
    bool deny = r->kind == CP_R_GATE_DENY;
    if (!g->text || !cp_utf8_valid(g->text, strlen(g->text))) {
        cl_report(c, CP0751, r,
                  "gate pattern is not valid UTF-8: a JSON settings file "
                  "cannot hold it");
        return;
    }
    cl_gate_entry(c, r, ordinal);
    /* A Bash rule too, when Claude's syntax says exactly the same. */
    bool plain = cl_gate_plain(g);
#define CL_GATE_HOW                                                            \
    "the PreToolUse hook runs 'confpol gate' with the matcher of 'confpol "    \
    "explain'"
    const char *how = CL_GATE_HOW;
    if (plain) {
        struct cp_buf b = {0};
        for (size_t i = 0; i < g->nwords; i++) {
            if (i)
                cp_ob_addc(&b, ' ');
            cp_ob_adds(&b, g->words[i]);
        }
        struct cl_list *list = deny ? &c->perm_deny : &c->perm_ask;
        cl_push(c, list,
                cp_arena_cat(c->a, "Bash(", b.data, ")", (char *)NULL));
        if (g->trailing_any)
            cl_push(c, list,
                    cp_arena_cat(c->a, "Bash(", b.data, " *)", (char *)NULL));
        cp_buf_free(&b);
        how = deny ? CL_GATE_HOW "; also permissions.deny Bash rules"
                   : CL_GATE_HOW "; also permissions.ask Bash rules";
    }
    cl_fid(c, r, CP_FID_EXACT, CP_DIAG__COUNT, how);
}

/* Where Claude Code's sandbox runtime and confpol's proxy decide a name
 * differently (spec/runtime.md 14.3): the runtime connects to whatever the
 * name resolves to, and matches the name without dropping a final dot
 * (confpol reads 'host.' as 'host'). */
#define CL_NET_ADDRS                                                           \
    "Claude Code's sandbox runtime decides on the name alone and connects "    \
    "to any address it resolves to (loopback, private, link-local, cloud "     \
    "metadata, this host's own), which confpol's proxy refuses unless a "      \
    "rule names the address; it compares the name as written, so a name "      \
    "spelled with a trailing dot ('host.') is refused there, which "           \
    "confpol allows (stricter)"

/* A net allow with a port or an IP address: allowedDomains names hosts,
 * not ports nor addresses, and the host alone would allow every port.
 * Left out: stricter. */
static void cl_net_left_out(struct cl *c, const struct cp_rule *r)
{
    const struct cp_domain *dm = &r->u.dom;
    if (dm->kind == CP_HOST_NAME && !strcmp(dm->name, "localhost")) {
        c->nlocalport++;
        cl_fid(c, r, CP_FID_STRICTER, CP_DIAG__COUNT,
               "Claude Code's allowedDomains cannot name a port: left out, "
               "so Bash cannot reach the host's loopback at this port, "
               "which confpol's proxy connects");
        return;
    }
    cl_fid(c, r, CP_FID_STRICTER, CP_DIAG__COUNT,
           "Claude Code's allowedDomains cannot name a port or an IP "
           "address: left out, so this host is denied");
}

static void cl_net(struct cl *c, const struct cp_rule *r)
{
    c->net_restricted = true;
    if (r->kind == CP_R_NET_ALLOW) {
        const struct cp_domain *dm = &r->u.dom;
        if (dm->port || dm->kind != CP_HOST_NAME) {
            cl_net_left_out(c, r);
            return;
        }
        const char *s = cp_arena_cat(c->a, dm->wildcard ? "*." : "", dm->name,
                                     (char *)NULL);
        if (!c->coop) {
            cl_push(c, &c->domains, s);
            c->nnames++;
            /* The first reason of the row; CP0759 below reports it. */
            cl_fid(c, r, CP_FID_NOT_ENFORCED, CP_DIAG__COUNT, CL_NET_ADDRS);
        }
    }
    if (c->coop) {
        cl_fid(c, r, CP_FID_NOT_ENFORCED, CP_DIAG__COUNT,
               "cooperative: no sandbox, so Bash may reach any host; only "
               "the WebFetch tool is denied");
        return;
    }
    cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0759,
           "Claude Code honours strictAllowlist only in user, managed and "
           "--settings files: in a project settings file Bash may reach "
           "other hosts once the user approves a prompt (the WebFetch tool "
           "is denied outright)");
}

/* net socket P: sandbox.network.allowUnixSockets, which Claude Code's
 * sandbox runtime reads on macOS only, as Seatbelt `subpath` filters for
 * connect and bind: the socket at P, and were P a directory every socket
 * beneath it, which the rule does not name; so the list's "nothing else"
 * holds only while P is a socket, and the rule is rated not enforced
 * (partially), reported.  On Linux its seccomp filter closes every Unix
 * socket and only allowAllUnixSockets would open one, which would open them
 * all: never written.  A path Claude Code would read as a glob is left out
 * (it could name other sockets): stricter. */
static void cl_socket(struct cl *c, const struct cp_rule *r)
{
    if (c->p->net == CP_NET_ALL || c->coop) {
        cl_fid(c, r, CP_FID_EXACT, CP_DIAG__COUNT,
               c->coop ? "cooperative: no sandbox, every socket is reachable"
                       : "no entry: without 'net deny' or 'net allow' "
                         "Claude Code's sandbox leaves every socket "
                         "reachable");
        return;
    }
    struct cl_path o;
    if (!cl_spell(c, r, &o))
        return;
    if (o.glob) {
        cl_fid(c, r, CP_FID_STRICTER, CP0764,
               "Claude Code would read this path as a glob: left out of "
               "allowUnixSockets, so the socket stays closed");
        return;
    }
    /* The sandbox lists spell an absolute path "//x"; the socket list is
     * read by the sandbox runtime itself, which takes "/x", "~/x" and "./x"
     * (resolved against the working directory, the project). */
    const char *sp = o.sandbox;
    if (sp[0] == '/' && sp[1] == '/')
        sp++;
    cl_push(c, &c->sockets, sp);
    cl_fid(c, r, CP_FID_NOT_ENFORCED, CP0764,
           "partially: sandbox.network.allowUnixSockets, which Claude Code's "
           "sandbox runtime writes on macOS as Seatbelt subpath filters: the "
           "socket at P, but were P a directory every socket beneath it "
           "too; on Linux Claude Code ignores the list and its seccomp "
           "filter closes every Unix socket, this one too (stricter)");
}

/* ---- the whole policy ------------------------------------------------------ */

static bool cl_fail_closed(const struct cp_policy *p)
{
    return p->profile != CP_PROFILE_COOPERATIVE && !p->profile_defaulted &&
           p->fail == CP_FAIL_CLOSED;
}

/* The project root as a pattern (bound: absolute). */
static bool cl_project_root(struct cl *c, struct cp_path *out)
{
    for (size_t i = 0; i < c->p->nparams; i++) {
        const struct cp_param *pm = &c->p->params[i];
        if (strcmp(pm->name, "PROJECT") != 0)
            continue;
        if (pm->value) {
            size_t off;
            return cp_path_parse(c->a, pm->value, strlen(pm->value), true, out,
                                 &off) == NULL;
        }
        memset(out, 0, sizeof *out);
        out->root = pm->name;
        return true;
    }
    return false;
}

/* Bash may always write the working directory (taken to be PROJECT). */
static void cl_default_write(struct cl *c)
{
    struct cp_path proj;
    const char *param;
    bool contained = false, overlap = false;
    if (!cl_project_root(c, &proj))
        return;
    for (size_t i = 0; i < c->p->nrules; i++) {
        const struct cp_rule *r = c->p->rules[i];
        if (r->kind != CP_R_WRITE)
            continue;
        if (!r->u.path.has_glob &&
            cp_path_contains(&r->u.path, &proj, &param) == CP_REL_YES)
            contained = true;
        /* Only a sure partial overlap leaves part of the project
         * writable that the policy does not: where it depends on the
         * value of an unbound param, the deny below is the stricter
         * choice (spec/backends.md). */
        if (cp_path_overlaps(&r->u.path, &proj, &param) == CP_REL_YES)
            overlap = true;
    }
    c->cwd_writable = contained || overlap;
    if (contained)
        return;
    if (!overlap) {
        /* Nothing in the project may be written: say so to Claude too. */
        struct cp_rule fake = {.kind = CP_R_DENY_WRITE, .u.path = proj};
        struct cl_path o;
        if (cl_spell(c, &fake, &o)) {
            cl_push(c, &c->deny_write, o.sandbox);
            cl_mirror(c, "Edit", &o);
        }
        /* A write root that may hold an unbound project (`write ~/code`)
         * lets the model write the project for those bindings: the deny
         * is stricter there. */
        for (size_t i = 0; i < c->p->nrules; i++) {
            const struct cp_rule *r = c->p->rules[i];
            if (r->kind != CP_R_WRITE ||
                cp_path_overlaps(&r->u.path, &proj, &param) != CP_REL_MAY)
                continue;
            c->cur = i;
            cl_fid(c, r, CP_FID_STRICTER, CP_DIAG__COUNT,
                   "the artifact denies writing the whole project (no write "
                   "root surely holds it), though this root holds it for "
                   "some bindings of the params");
            c->project_ro = c->project_ro ? c->project_ro : r;
        }
        return;
    }
    cl_report(c, CP0757, NULL,
              "claude: Bash may write anywhere in the working directory "
              "(Claude Code's sandbox always allows it), but the policy "
              "allows only parts of the project");
}

/* The runtime's writable directories the policy does not let Bash write
 * (allowed: inside a plain write root, and no deny write surely reaches
 * them), as "a, b and c"; NULL when there are none. */
static const char *cl_runtime_lost(struct cl *c)
{
    const char *names[CL_NRUNTIME];
    size_t n = 0;
    bool allowed[CL_NRUNTIME] = {false}, denied[CL_NRUNTIME] = {false};
    /* One pass over the rules for all the directories (the rules of a
     * large policy do not stay in the cache between passes). */
    for (size_t k = 0; k < c->p->nrules; k++) {
        const struct cp_rule *r = c->p->rules[k];
        if (r->kind != CP_R_WRITE && r->kind != CP_R_DENY_WRITE)
            continue;
        for (size_t i = 0; i < CL_NRUNTIME; i++) {
            if (!c->runtime_ok[i] ||
                !cl_may_be_yes(&r->u.path, &c->runtime_paths[i]))
                continue;
            if (r->kind == CP_R_WRITE && !r->u.path.has_glob &&
                cl_rt_rel(c, i, &r->u.path, true) == CP_REL_YES)
                allowed[i] = true;
            /* As for the rules: a sure overlap (an unbound PROJECT
             * inside ~/.npm/_logs is not worth a warning per build). */
            if (r->kind == CP_R_DENY_WRITE &&
                cl_rt_rel(c, i, &r->u.path, false) == CP_REL_YES)
                denied[i] = true;
        }
    }
    for (size_t i = 0; i < CL_NRUNTIME; i++)
        if (!allowed[i] || denied[i])
            names[n++] = cl_runtime_writable[i];
    if (!n)
        return NULL;
    const char *out = names[0];
    for (size_t i = 1; i < n; i++)
        out = cp_arena_cat(c->a, out, i + 1 < n ? ", " : " and ", names[i],
                           (char *)NULL);
    return out;
}

/* Stricter than the model, whatever the artifact says (reported in the
 * fidelity report, and as notes): Claude Code's protected paths inside a
 * write root, and writes into a deny-read region inside a write root,
 * which land on a throw-away tmpfs. */
/* The glob-free write roots and deny-write paths as sorted sets, so that
 * each question below is a few binary searches (policies of 100,000
 * rules). */
struct cl_sets {
    struct cp_pathset writes, dwrites;
};

static void cl_sets_init(struct cl *c, struct cl_sets *t)
{
    size_t n = c->p->nrules ? c->p->nrules : 1, nw = 0, nd = 0;
    const struct cp_path **w = cp_arena_alloc(c->a, n * sizeof *w);
    const struct cp_path **d = cp_arena_alloc(c->a, n * sizeof *d);
    for (size_t k = 0; k < c->p->nrules; k++) {
        const struct cp_rule *r = c->p->rules[k];
        /* Only these kinds hold a path: u.path of another kind is some
         * other member of the union. */
        if ((r->kind != CP_R_WRITE && r->kind != CP_R_DENY_WRITE) ||
            r->u.path.has_glob)
            continue;
        if (r->kind == CP_R_WRITE)
            w[nw++] = &r->u.path;
        else
            d[nd++] = &r->u.path;
    }
    cp_pathset_init(c->a, &t->writes, w, nw);
    cp_pathset_init(c->a, &t->dwrites, d, nd);
}

/* cp_path_contains or cp_path_overlaps, answering MAY at once for paths
 * under different roots (what those functions answer there, or a NO they
 * would find only by building automata: reporting a stricter fact for
 * every binding that may have it is the safe side). */
static bool cl_may_rel(const struct cp_path *a, const struct cp_path *b,
                       bool contains)
{
    const char *param;
    bool same = a->root ? b->root && strcmp(a->root, b->root) == 0 : !b->root;
    if (!same)
        return true;
    return (contains ? cp_path_contains(a, b, &param)
                     : cp_path_overlaps(a, b, &param)) != CP_REL_NO;
}

/* A deny write surely covers the literal path. */
static bool cl_denied_write(const struct cl_sets *t, const struct cp_path *pp)
{
    return !pp->has_glob && cp_pathset_ancestor_or_self(&t->dwrites, pp);
}

/* Adds a stricter reason to rule c->cur, also to one not enforced. */
static void cl_also_stricter(struct cl *c, const struct cp_rule *r,
                             const char *why)
{
    struct cl_fid *x = &c->fids[c->cur];
    if (x->why && x->fid == CP_FID_NOT_ENFORCED)
        x->why = cl_join(c, x->why, "; also stricter: ", why);
    else
        cl_fid(c, r, CP_FID_STRICTER, CP_DIAG__COUNT, why);
}

/* The model's '?' is one byte; Claude Code's patterns take one character:
 * a deny with '?' differs on multibyte names both ways (fewer bytes are
 * denied too; more are not, which the glob warnings already cover). */
static void cl_qmark(struct cl *c, const struct cp_rule *r)
{
    for (size_t i = 0; i < r->u.path.nsegs; i++) {
        const struct cp_seg *g = &r->u.path.segs[i];
        if (g->kind == CP_SEG_GLOB && memchr(g->s, '?', g->len)) {
            cl_also_stricter(c, r,
                             "a '?' is one byte in the model and one "
                             "character in Claude Code's patterns: names "
                             "with multibyte characters are denied too");
            return;
        }
    }
}

#define CL_NPROTECTED (sizeof cl_protected / sizeof *cl_protected)
_Static_assert(CL_NPROTECTED <= 32,
               "a mask of unsigned holds the protected paths");

/* The state of the pass over the rules for Claude Code's facts. */
struct cl_facts {
    struct cl_sets sets;
    struct cp_path proj;
    bool cwd;             /* Bash may write the project (cwd) */
    bool has_proj;        /* proj holds the project (PROJECT declared) */
    unsigned last_mask;   /* the protected paths of the last root, and */
    const char *last_why; /* its reason (most roots share a set) */
    struct cp_path prot[CL_NPROTECTED];
    bool prot_ok[CL_NPROTECTED]; /* parsed and not denied by the policy */
    size_t nprot, ntmpfs;
};

static void cl_facts_init(struct cl *c, struct cl_facts *f)
{
    cl_sets_init(c, &f->sets);
    f->has_proj = cl_project_root(c, &f->proj);
    f->cwd = c->cwd_writable && f->has_proj;
    f->last_mask = 0;
    f->last_why = NULL;
    f->nprot = f->ntmpfs = 0;
    for (size_t j = 0; j < CL_NPROTECTED; j++) {
        size_t off;
        f->prot_ok[j] = cp_path_parse(c->a, cl_protected[j],
                                      strlen(cl_protected[j]), false,
                                      &f->prot[j], &off) == NULL &&
                        !cl_denied_write(&f->sets, &f->prot[j]);
    }
}

/* The reason of a write root that holds the protected paths of mask. */
static const char *cl_protected_why(struct cl *c, unsigned mask)
{
    const char *names = NULL;
    for (size_t j = 0; j < CL_NPROTECTED; j++)
        if (mask & (1u << j))
            names = names ? cp_arena_cat(c->a, names, ", ", cl_protected[j],
                                         (char *)NULL)
                          : cl_protected[j];
    return cp_arena_cat(c->a,
                        "Claude Code never lets Bash write "
                        "its protected paths (where they lie "
                        "in this root): ",
                        names, (char *)NULL);
}

/* A glob-free write root that may hold Claude Code's protected paths. */
static void cl_fact_write(struct cl *c, struct cl_facts *f,
                          const struct cp_rule *r)
{
    if (r->u.path.has_glob)
        return;
    unsigned mask = 0;
    for (size_t j = 0; j < CL_NPROTECTED; j++)
        if (f->prot_ok[j] && cl_may_rel(&r->u.path, &f->prot[j], true))
            mask |= 1u << j;
    if (!mask)
        return;
    /* Most roots share a set: its reason is built once. */
    if (mask != f->last_mask) {
        f->last_why = cl_protected_why(c, mask);
        f->last_mask = mask;
    }
    f->nprot++;
    cl_fid(c, r, CP_FID_STRICTER, CP_DIAG__COUNT, f->last_why);
}

/* The write paths a deny-read path holds, in two lists of names: surely
 * and for some binding of the params ("where"). */
struct cl_held {
    const char *sure, *may;
    size_t nsure, nmay;
};

static void cl_held_add(struct cl *c, struct cl_held *h, enum cp_rel rel,
                        const char *name)
{
    const char **l = rel == CP_REL_YES ? &h->sure : &h->may;
    size_t *n = rel == CP_REL_YES ? &h->nsure : &h->nmay;
    if (rel == CP_REL_NO)
        return;
    /* A few names say enough; the count says the rest. */
    if (*n < 4)
        *l = *l ? cp_arena_cat(c->a, *l, ", ", name, (char *)NULL) : name;
    else if (*n == 4)
        *l = cp_arena_cat(c->a, *l, ", ...", (char *)NULL);
    ++*n;
}

/* Does deny-read prefix d hold write path w (at or below it)?  Across
 * two params it depends on their values: asked only for a param itself
 * (`deny read ~` may hold ${PROJECT}); between an absolute path and a
 * param, or below a param, it is not (every `deny read ~/x` would name
 * the project; the rule's rating for paths created later already says it
 * is not enforced). */
static enum cp_rel cl_holds(const struct cp_path *d, const struct cp_path *w)
{
    const char *param;
    if (d->root && w->root && strcmp(d->root, w->root) != 0)
        return d->nsegs == 0 ? CP_REL_MAY : CP_REL_NO;
    if (!d->root != !w->root)
        return CP_REL_NO;
    return cp_path_contains(d, w, &param);
}

/* The glob-free write roots at or below literal prefix q (sorted: they
 * follow q), and those at another param root when q is at a param. */
static void cl_held_roots(struct cl *c, const struct cl_sets *t,
                          const struct cp_path *q, bool glob, bool cwd,
                          struct cl_held *h)
{
    const struct cp_pathset *s = &t->writes;
    for (size_t i = cp_pathset_lower(s, q);
         i < s->n && cp_ospath_is_prefix(q, s->v[i]); i++)
        cl_held_add(c, h, glob ? CP_REL_MAY : CP_REL_YES,
                    cp_path_format(c->a, s->v[i]));
    for (size_t i = 0; q->root && !q->nsegs && i < s->nroots; i++)
        /* Write roots in the working directory: named as it below. */
        if (s->roots[i] && strcmp(s->roots[i], q->root) != 0 &&
            !(cwd && strcmp(s->roots[i], "PROJECT") == 0))
            cl_held_add(c, h, CP_REL_MAY,
                        cp_arena_cat(c->a, "the write roots at ${", s->roots[i],
                                     "}", (char *)NULL));
}

/* The reason of a deny read that holds write paths. */
static const char *cl_held_why(struct cl *c, const struct cl_held *h)
{
    const char *why = "Claude Code's sandbox runtime mounts an "
                      "empty tmpfs on it and binds the write paths at or "
                      "below it back, readable from Bash: ";
    if (h->sure && h->may)
        return cp_arena_cat(c->a, why, h->sure,
                            "; and where they lie at or "
                            "below it: ",
                            h->may, (char *)NULL);
    if (h->sure)
        return cp_arena_cat(c->a, why, h->sure, (char *)NULL);
    return cp_arena_cat(c->a, why, "where they lie at or below it, ", h->may,
                        (char *)NULL);
}

/* The runtime's own write paths (and the session temp dir) at or below
 * literal prefix q, under the same root. */
static void cl_held_runtime(struct cl *c, const struct cp_path *q, bool glob,
                            struct cl_held *h)
{
    for (size_t i = 0; i < CL_NRUNTIME; i++) {
        const struct cp_path *w = &c->runtime_paths[i];
        if (!c->runtime_ok[i] || !q->root != !w->root ||
            (q->root && strcmp(q->root, w->root) != 0))
            continue;
        enum cp_rel rel = cl_rt_rel(c, i, q, true);
        cl_held_add(c, h, glob && rel == CP_REL_YES ? CP_REL_MAY : rel,
                    cl_runtime_writable[i]);
    }
}

/* A deny-read path that holds a write path: the runtime binds it back
 * over its tmpfs, readable (looser); one that holds the working directory
 * while it is read-only: Bash cannot start (stricter). */
static void cl_fact_held(struct cl *c, struct cl_facts *f,
                         const struct cp_rule *r, const struct cp_path *q)
{
    struct cl_held h = {NULL, NULL, 0, 0};
    bool glob = r->u.path.has_glob;
    cl_held_roots(c, &f->sets, q, glob, f->cwd, &h);
    enum cp_rel proj = f->has_proj ? cl_holds(q, &f->proj) : CP_REL_NO;
    if (glob && proj == CP_REL_YES)
        proj = CP_REL_MAY;
    if (f->cwd)
        cl_held_add(c, &h, proj,
                    cp_arena_cat(c->a, cp_path_format(c->a, &f->proj),
                                 " (the working directory)", (char *)NULL));
    cl_held_runtime(c, q, glob, &h);
    if (h.nsure || h.nmay) {
        cl_fid(c, r, CP_FID_NOT_ENFORCED, h.nsure ? CP0773 : CP_DIAG__COUNT,
               cl_held_why(c, &h));
    }
    if (!f->has_proj || f->cwd || proj == CP_REL_NO)
        return;
    cl_also_stricter(
        c, r,
        cp_arena_cat(c->a,
                     proj == CP_REL_YES ? ""
                                        : "where it holds "
                                          "the working directory, ",
                     "Bash cannot start: "
                     "Claude Code's sandbox runtime cannot create the "
                     "mount points of the files it always protects "
                     "(.gitconfig, ...) in the working directory, "
                     "which this rule hides and the artifact keeps "
                     "read-only, so every command fails",
                     (char *)NULL));
    struct cl_fid *x = &c->fids[c->cur];
    if (proj == CP_REL_YES && x->code == CP_DIAG__COUNT)
        x->code = CP0774;
}

/* A literal deny write whose parent lies strictly below a write root (or
 * the writable working directory): where a directory between them is
 * missing at the start, the runtime mounts an empty read-only directory
 * on the first missing one, so creating it fails (stricter). */
static void cl_fact_deny_write(struct cl *c, struct cl_facts *f,
                               const struct cp_rule *r)
{
    const struct cp_path *p = &r->u.path;
    if (p->has_glob || c->coop)
        return;
    const struct cp_path *w = cp_pathset_outermost_strict_ancestor(
        &f->sets.writes, p);
    bool deep = w && cp_ospath_depth(p) >= cp_ospath_depth(w) + 2;
    if (!deep && f->cwd && cp_ospath_is_prefix(&f->proj, p))
        deep = p->nsegs >= f->proj.nsegs + 2;
    if (!deep)
        return;
    cl_also_stricter(c, r,
                     "where a directory between its write root and it is "
                     "missing when the command starts, Claude Code's "
                     "sandbox runtime mounts an empty read-only directory "
                     "on the first missing one, so Bash cannot create it "
                     "(git init with a denied .git/hooks)");
}

/* A deny-read path surely or for some binding inside a glob-free write
 * root, or in the working directory when Bash may write it: an empty
 * tmpfs there. */
static void cl_fact_deny_read(struct cl *c, struct cl_facts *f,
                              const struct cp_rule *r)
{
    /* A glob is taken as its literal prefix: it may then be reported
     * where no match lies in a write root, never missed. */
    struct cp_path q = r->u.path;
    q.nsegs = 0;
    while (q.nsegs < r->u.path.nsegs &&
           r->u.path.segs[q.nsegs].kind == CP_SEG_LIT)
        q.nsegs++;
    q.has_glob = false;
    if (!c->coop)
        cl_fact_held(c, f, r, &q);
    bool inside = (f->cwd && cl_may_rel(&f->proj, &q, false)) ||
                  cp_pathset_overlaps(&f->sets.writes, &q) != CP_OSREL_NO;
    if (!inside || cl_denied_write(&f->sets, &r->u.path))
        return;
    f->ntmpfs++;
    const char *why = "where it lies in a write root, Claude Code's "
                      "sandbox shows it as an empty tmpfs, so what Bash "
                      "writes there never reaches the disk";
    cl_also_stricter(c, r, why);
}

static void cl_stricter_facts(struct cl *c)
{
    struct cl_facts f;
    cl_facts_init(c, &f);
    for (size_t i = 0; i < c->p->nrules; i++) {
        const struct cp_rule *r = c->p->rules[i];
        if (r->kind != CP_R_WRITE && r->kind != CP_R_DENY_READ &&
            r->kind != CP_R_DENY_WRITE)
            continue;
        c->cur = i;
        if (r->kind == CP_R_WRITE) {
            cl_fact_write(c, &f, r);
            continue;
        }
        cl_qmark(c, r);
        if (r->kind == CP_R_DENY_READ)
            cl_fact_deny_read(c, &f, r);
        else
            cl_fact_deny_write(c, &f, r);
    }
    c->nprot = f.nprot;
    c->ntmpfs = f.ntmpfs;
}

/* Sets up the run: the profile, the fidelity table, the patterns of the
 * runtime's own paths; the stem must be valid UTF-8. */
static void cl_prepare(struct cl *c)
{
    const struct cp_policy *p = c->p;
    c->coop = p->profile == CP_PROFILE_COOPERATIVE;
    c->fids = cp_arena_alloc(c->a,
                             (p->nrules ? p->nrules : 1) * sizeof *c->fids);
    cl_reserve_lists(c);
    for (size_t i = 0; i < CL_NRUNTIME; i++) {
        size_t off;
        c->runtime_ok[i] = cp_path_parse(c->a, cl_runtime_pattern[i],
                                         strlen(cl_runtime_pattern[i]), false,
                                         &c->runtime_paths[i], &off) == NULL;
    }

    if (!p->stem || !cp_utf8_valid(p->stem, strlen(p->stem)))
        cl_report(c, CP0751, NULL,
                  "the policy file name is not valid UTF-8: a JSON settings "
                  "file cannot hold it");
}

/* Lowers every rule by its kind. */
static void cl_lower_rules(struct cl *c)
{
    const struct cp_policy *p = c->p;
    unsigned ngate = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        c->cur = i;
        switch (r->kind) {
        case CP_R_WRITE:
        case CP_R_EXEC:
        case CP_R_DENY_READ:
        case CP_R_DENY_WRITE:
        case CP_R_DENY_EXEC:
            cl_path_rule(c, r);
            break;
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            cl_gate(c, r, ++ngate);
            break;
        case CP_R_NET_ALLOW:
        case CP_R_NET_DENY:
            cl_net(c, r);
            break;
        case CP_R_NET_SOCKET:
            cl_socket(c, r);
            break;
        }
    }
}

/* The rules' findings as diagnostics, in rule order. */
static void cl_rule_diags(struct cl *c)
{
    const struct cp_policy *p = c->p;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        const struct cl_fid *f = &c->fids[i];
        if (!f->why || f->code == CP_DIAG__COUNT || !cl_reporting(c, f->code))
            continue;
        const char *how = f->fid == CP_FID_STRICTER ? "enforced stricter"
                                                    : "not fully enforced";
        struct cp_diag *g = cp_diag_report_cat(
            c->d, f->code, cl_loc(r), "claude: rule '",
            cp_rule_kind_text(r->kind), r->text && *r->text ? " " : "",
            r->text ? r->text : "", "' is ", how, ": ", f->why, (char *)NULL);
        cl_implicit_note(g, r);
    }
}

/* The policy-wide losses of the sandbox runtime and the Edit and Write
 * tools (or, cooperative, that there is no sandbox block). */
static void cl_runtime_notes(struct cl *c)
{
    if (!c->coop) {
        const char *lost = cl_runtime_lost(c);
        if (lost)
            cl_report(c, CP0763, NULL,
                      "claude: Claude Code's sandbox runtime keeps %s writable "
                      "for Bash (where present), whatever the policy says",
                      lost);
        cl_report(c, CP0758, NULL,
                  "claude: Claude Code's Write, Edit, MultiEdit and "
                  "NotebookEdit run outside the sandbox: the gate hook "
                  "denies their paths outside the write roots and inside "
                  "deny-write targets (symbolic links resolved; write "
                  "denies also mirrored as Edit deny rules), but cannot see "
                  "a link or file swapped in after its check");
    } else {
        cl_report(c, CP0761, NULL,
                  "claude: cooperative policy: no sandbox block, only "
                  "permission rules and the gate hook");
    }
}

/* Where the network decision differs from the proxy's (spec/runtime.md
 * 14.3): per rule in --fidelity, counted here. */
static void cl_net_notes(struct cl *c)
{
    /* No net rule: the model allows every host, but the artifact names
     * no allowedDomains, so the client asks (stricter; -p refuses). */
    if (!c->net_restricted && !c->coop)
        cl_report(c, CP0776, NULL,
                  "claude: the policy has no net rule: Claude Code's sandbox "
                  "asks the user before Bash reaches each new domain, and "
                  "under -p (no one to ask) refuses it; add 'net allow' "
                  "rules for the hosts the agent needs");
    if (c->nnames)
        cl_report(c, CP0733, NULL,
                  "claude: Claude Code's sandbox runtime decides a "
                  "connection on the name alone and connects to any address "
                  "it resolves to (loopback, private, link-local, cloud "
                  "metadata, this host's own); confpol's proxy refuses those "
                  "unless a rule names the address (%zu net rule%s; "
                  "--fidelity lists them)",
                  c->nnames, c->nnames == 1 ? "" : "s");
    if (c->nlocalport)
        cl_report(c, CP0734, NULL,
                  "claude: %zu 'localhost:PORT' rule%s left out of "
                  "allowedDomains (stricter): under confpol run the proxy "
                  "connects %s to the host's loopback, under Claude Code "
                  "Bash cannot reach %s",
                  c->nlocalport, c->nlocalport == 1 ? " is" : "s are",
                  c->nlocalport == 1 ? "it" : "them",
                  c->nlocalport == 1 ? "it" : "them");
}

/* The policy-wide notes on rules stricter by Claude Code's facts and on
 * the spelling of PROJECT. */
static void cl_policy_notes(struct cl *c)
{
    if (c->nprot)
        cl_report(c, CP0770, NULL,
                  "claude: Claude Code never lets Bash write .git/hooks, "
                  ".git/config (a nested repository's too), .mcp.json, "
                  ".claude/settings*.json, "
                  ".claude/{commands,agents,skills,hooks}, .gitconfig, "
                  ".gitmodules, .ripgreprc, .vscode/, .idea/ and shell rc "
                  "files in the project, shell rc files or ~/.claude, even "
                  "inside a write root (%zu write rule%s; --fidelity lists "
                  "them)",
                  c->nprot, c->nprot == 1 ? "" : "s");
    if (c->nlate && !c->coop)
        cl_report(c, CP0775, NULL,
                  "claude: Claude Code's sandbox runtime mounts nothing on "
                  "a deny-read path absent when the command starts: created "
                  "while it runs, Bash reads it (%zu deny-read rule%s; "
                  "--fidelity lists them)",
                  c->nlate, c->nlate == 1 ? "" : "s");
    if (c->ntmpfs)
        cl_report(c, CP0771, NULL,
                  "claude: %zu deny-read path%s may lie in a write root or "
                  "the working directory: Claude Code's sandbox shows %s as "
                  "an empty tmpfs, so writes there never reach the disk (add "
                  "'deny write' for the same paths to say so in the policy)",
                  c->ntmpfs, c->ntmpfs == 1 ? "" : "s",
                  c->ntmpfs == 1 ? "it" : "them");
    if (c->project_ro)
        cl_report(c, CP0772, c->project_ro,
                  "claude: this write root may hold PROJECT (depending on "
                  "the params' values): the artifact denies writing the "
                  "whole project (Claude Code would let Bash write its "
                  "working directory); build with -D PROJECT=/abs/path");
    if (c->project_relative && c->net_restricted && !c->coop)
        cl_report(
            c, CP0759, NULL,
            "claude: the artifact limits the network and spells "
            "PROJECT paths relative to the project: no settings file "
            "enforces both, so confpol install refuses it; build with "
            "-D PROJECT=/abs/path and install into ~/.claude/settings.json");
    if (c->project_relative)
        cl_report(c, CP0762, NULL,
                  "claude: paths under PROJECT are written relative to the "
                  "project ('./x', '/x'): install the artifact only into "
                  "PROJECT/.claude/settings.json or settings.local.json, or "
                  "build with -D PROJECT=/abs/path; Claude Code loads a "
                  "project settings file only when started in the project's "
                  "root, not in a subdirectory");
}

static bool cl_run(struct cl *c)
{
    const struct cp_policy *p = c->p;
    cl_prepare(c);
    cl_lower_rules(c);
    for (size_t i = 0; i < p->ncontent; i++)
        if (!cp_utf8_valid(p->content[i].text, p->content[i].len))
            cl_report(c, CP0751, NULL,
                      "%s (%s): content pattern is not valid UTF-8: a JSON "
                      "settings file cannot hold it",
                      p->content[i].id, p->content[i].where);
    if (c->net_restricted)
        cl_push(c, &c->perm_deny, "WebFetch");
    if (!c->coop) {
        cl_default_write(c);
        cl_stricter_facts(c);
    }
    cl_dedup_lists(c);

    /* Diagnostics, in rule order, then the policy-wide ones. */
    cl_rule_diags(c);
    cl_runtime_notes(c);
    cl_policy_notes(c);
    cl_net_notes(c);
    return c->errors == 0;
}

/* ---- printing ------------------------------------------------------------ */

/* The canonical layout of cp_json_print (settings/settings.c) with a
 * two-space unit, written as it goes: a member or element starts with ","
 * unless first, a newline and the indentation; a non-empty container ends
 * with a newline, the outer indentation and its bracket; an empty one is
 * "[]".  The artifact's bytes must be those of that printer. */
struct cl_jw {
    struct cp_buf *b;
    size_t depth;
    bool first;
};

static void jw_sep(struct cl_jw *w)
{
    size_t ind = 2 * w->depth;
    char *d = cp_ob_room(w->b, 2 + ind);
    size_t k = 0;
    if (!w->first)
        d[k++] = ',';
    d[k++] = '\n';
    memset(d + k, ' ', ind);
    w->b->len += k + ind;
    w->b->data[w->b->len] = '\0';
    w->first = false;
}

static void jw_key(struct cl_jw *w, const char *key)
{
    jw_sep(w);
    cp_json_quote(w->b, key, strlen(key));
    cp_ob_add(w->b, ": ", 2);
}

static void jw_open(struct cl_jw *w, char ch)
{
    cp_ob_addc(w->b, ch);
    w->depth++;
    w->first = true;
}

static void jw_close(struct cl_jw *w, char ch)
{
    w->depth--;
    w->first = true; /* no comma before the closing line */
    jw_sep(w);
    cp_ob_addc(w->b, ch);
}

static void jw_str(struct cl_jw *w, const char *s)
{
    cp_json_quote(w->b, s, strlen(s));
}

static void jw_bool(struct cl_jw *w, const char *key, bool v)
{
    jw_key(w, key);
    cp_ob_adds(w->b, v ? "true" : "false");
}

/* The strings printed lie scattered over the analysis's arena and the
 * policy's: the printer asks for the one CL_AHEAD entries on while it
 * copies this one, so that it waits for fewer cache misses (the write step
 * of the 100,000-rule bench policy, median CPU of 15 runs each: 24.9 ms
 * with, 32.4 ms without; no change at 10,000 rules, whose strings stay in
 * the cache). */
static void jw_list(struct cl_jw *w, const char *key, const struct cl_list *l)
{
    jw_key(w, key);
    if (!l->n) {
        cp_ob_add(w->b, "[]", 2);
        return;
    }
    jw_open(w, '[');
    for (size_t i = 0; i < l->n; i++) {
        if (i + CL_AHEAD < l->n)
            __builtin_prefetch(l->v[i + CL_AHEAD]);
        jw_sep(w);
        cp_json_quote(w->b, l->v[i], l->len[i]);
    }
    jw_close(w, ']');
}

/* A words row's "programs": the names its first word takes, the key the
 * hook decides from whether a command line can reach the row. */
static void cl_gate_programs(struct cl_jw *w, const struct cp_gate_key *k)
{
    jw_key(w, CP_CV_PROGRAMS);
    jw_open(w, '[');
    for (size_t i = 0; i < k->n; i++) {
        jw_sep(w);
        jw_str(w, k->names[i]);
    }
    jw_close(w, ']');
}

/* confpol.content: the detector classes in force and the content deny
 * patterns, which the gate applies to what file tools write. */
static void cl_write_content(struct cl_jw *w, const struct cp_policy *p)
{
    jw_key(w, CP_CV_CONTENT);
    jw_open(w, '{');
    jw_key(w, CP_CV_CONTENT_CLASSES);
    if (!p->content_classes) {
        cp_ob_add(w->b, "[]", 2);
    } else {
        jw_open(w, '[');
        for (unsigned c = 0; c < CP_CC__COUNT; c++)
            if (p->content_classes & (1u << c)) {
                jw_sep(w);
                jw_str(w, cp_content_class_name(c));
            }
        jw_close(w, ']');
    }
    jw_key(w, CP_CV_CONTENT_RULES);
    if (!p->ncontent) {
        cp_ob_add(w->b, "[]", 2);
    } else {
        jw_open(w, '[');
        for (size_t i = 0; i < p->ncontent; i++) {
            const struct cp_content_rule *r = &p->content[i];
            jw_sep(w);
            jw_open(w, '{');
            jw_key(w, CP_CV_ID);
            jw_str(w, r->id);
            jw_key(w, CP_CV_KIND);
            jw_str(w, r->regex ? CP_CV_KIND_REGEX : CP_CV_KIND_TEXT);
            jw_key(w, CP_CV_PATTERN);
            jw_str(w, r->text);
            jw_key(w, CP_CV_WHERE);
            jw_str(w, r->where);
            jw_close(w, '}');
        }
        jw_close(w, ']');
    }
    jw_close(w, '}');
}

/* One write or deny-write path for the gate's path check, as unquoted
 * confpol path text (cp_path_parse reads it back exactly): the root as
 * "/", "~" or "${NAME}" (a param bound at build is written as its
 * value), a literal segment with '*', '?' and '\' escaped, a glob segment
 * as stored (its escapes kept), "**" for any segments. */
static const char *cl_gate_path_text(const struct cl *c,
                                     const struct cp_path *pp)
{
    struct cp_path bound = *pp;
    for (size_t i = 0; pp->root && i < c->p->nparams; i++) {
        const struct cp_param *q = &c->p->params[i];
        if (strcmp(q->name, pp->root) == 0 && q->value &&
            cp_path_bind(c->a, pp, q->value, &bound) != NULL)
            bound = *pp;
    }
    struct cp_buf b = {0};
    if (!bound.root)
        cp_ob_adds(&b, bound.nsegs ? "" : "/");
    else if (strcmp(bound.root, "HOME") == 0)
        cp_ob_addc(&b, '~');
    else
        cp_ob_adds(&b, cp_arena_printf(c->a, "${%s}", bound.root));
    for (size_t i = 0; i < bound.nsegs; i++) {
        const struct cp_seg *s = &bound.segs[i];
        cp_ob_addc(&b, '/');
        if (s->kind == CP_SEG_ANY) {
            cp_ob_adds(&b, "**");
            continue;
        }
        for (size_t j = 0; j < s->len; j++) {
            char ch = s->s[j];
            if (s->kind == CP_SEG_LIT && (ch == '*' || ch == '?' || ch == '\\'))
                cp_ob_addc(&b, '\\');
            cp_ob_addc(&b, ch);
        }
    }
    const char *r = cp_arena_strndup(c->a, b.data ? b.data : "", b.len);
    cp_buf_free(&b);
    return r;
}

/* confpol.paths: the write roots and deny-write targets, which the gate
 * decides the file tools' paths against (the client runs those tools
 * outside its sandbox). */
static void cl_write_paths(struct cl_jw *w, const struct cl *c)
{
    static const enum cp_rule_kind kinds[2] = {CP_R_DENY_WRITE, CP_R_WRITE};
    static const char *const keys[2] = {CP_CV_PATHS_DENY_WRITE,
                                        CP_CV_PATHS_WRITE};
    jw_key(w, CP_CV_PATHS);
    jw_open(w, '{');
    for (size_t k = 0; k < 2; k++) {
        jw_key(w, keys[k]);
        size_t n = 0;
        for (size_t i = 0; i < c->p->nrules; i++) {
            const struct cp_rule *r = c->p->rules[i];
            if (r->kind != kinds[k])
                continue;
            if (!n++)
                jw_open(w, '[');
            jw_sep(w);
            jw_str(w, cl_gate_path_text(c, &r->u.path));
        }
        if (n)
            jw_close(w, ']');
        else
            cp_ob_add(w->b, "[]", 2);
    }
    jw_close(w, '}');
}

/* Appends the settings object of a lowered, error-free policy.  Keys in
 * byte order at every level (the seed's sort_keys layout). */
static void cl_write(const struct cl *c, struct cp_buf *out)
{
    const struct cp_policy *p = c->p;
    size_t start = out->len, pin_at = 0;
    struct cl_jw w = {.b = out, .depth = 0, .first = true};
    jw_open(&w, '{');

    jw_key(&w, CP_CV_CONFPOL);
    jw_open(&w, '{');
    cl_write_content(&w, p);
    jw_bool(&w, CP_CV_FAIL_CLOSED, cl_fail_closed(p));
    jw_key(&w, CP_CV_GATES);
    if (!c->gates.n) {
        cp_ob_add(out, "[]", 2);
    } else {
        jw_open(&w, '[');
        for (size_t i = 0; i < c->gates.n; i++) {
            const struct cl_gate_out *g = &c->gates.v[i];
            if (i + CL_AHEAD < c->gates.n) {
                __builtin_prefetch(g[CL_AHEAD].id);
                __builtin_prefetch(g[CL_AHEAD].pattern);
                __builtin_prefetch(g[CL_AHEAD].where);
            }
            jw_sep(&w);
            jw_open(&w, '{');
            jw_key(&w, CP_CV_ID);
            jw_str(&w, g->id);
            jw_key(&w, CP_CV_KIND);
            jw_str(&w, g->kind);
            jw_key(&w, CP_CV_PATTERN);
            jw_str(&w, g->pattern);
            if (g->key.kind == CP_GATE_KEY_PROGRAMS)
                cl_gate_programs(&w, &g->key);
            jw_key(&w, CP_CV_VERDICT);
            jw_str(&w, g->verdict);
            jw_key(&w, CP_CV_WHERE);
            jw_str(&w, g->where);
            jw_close(&w, '}');
        }
        jw_close(&w, ']');
    }
    cl_write_paths(&w, c);
    jw_key(&w, CP_CV_PROFILE);
    jw_str(&w, cp_profile_text(p->profile));
    jw_bool(&w, CP_CV_PROJECT_RELATIVE, c->project_relative);
    jw_key(&w, CP_CV_STEM);
    jw_str(&w, p->stem);
    jw_key(&w, CP_CV_VERSION);
    cp_ob_addc(out, '1');
    jw_close(&w, '}');

    {
        /* Every policy gets the hook: it decides the file tools' paths
         * even without gate or content rules.  The pin is written as zeros, then patched with the digest of
         * the finished artifact (cp_gate_pin_digest reads it as zeros). */
        static const char pre[] = "confpol-gate --sha256 ";
        struct cp_buf cmd = {0};
        cp_ob_adds(&cmd, pre);
        cp_ob_adds(&cmd, "00000000000000000000000000000000000000000000000000000"
                         "00000000000 ");
        cp_shell_quote(&cmd, cp_arena_printf(c->a, "%s.claude.json", p->stem));
        jw_key(&w, CP_CV_HOOKS);
        jw_open(&w, '{');
        jw_key(&w, CP_CV_PRE_TOOL_USE);
        jw_open(&w, '[');
        jw_sep(&w);
        jw_open(&w, '{');
        jw_key(&w, CP_CV_HOOKS);
        jw_open(&w, '[');
        jw_sep(&w);
        jw_open(&w, '{');
        jw_key(&w, CP_CV_HOOK_COMMAND);
        pin_at = out->len + 1 + (sizeof pre - 1); /* after the quote */
        cp_json_quote(out, cmd.data, cmd.len);
        /* a hook that cannot start (confpol removed), crashes or times
         * out blocks the call instead of letting it through (client
         * 2.1.332; older clients ignore the key) */
        jw_key(&w, CP_CV_ON_FAILURE);
        jw_str(&w, "block");
        jw_key(&w, CP_CV_HOOK_TYPE);
        jw_str(&w, "command");
        jw_close(&w, '}');
        jw_close(&w, ']');
        jw_key(&w, CP_CV_MATCHER);
        jw_str(&w, CP_GATE_HOOK_MATCHER);
        jw_close(&w, '}');
        jw_close(&w, ']');
        jw_close(&w, '}');
        cp_buf_free(&cmd);
    }

    if (c->perm_ask.n || c->perm_deny.n) {
        jw_key(&w, "permissions");
        jw_open(&w, '{');
        if (c->perm_ask.n)
            jw_list(&w, "ask", &c->perm_ask);
        if (c->perm_deny.n)
            jw_list(&w, "deny", &c->perm_deny);
        jw_close(&w, '}');
    }

    if (!c->coop) {
        jw_key(&w, "sandbox");
        jw_open(&w, '{');
        jw_bool(&w, "allowUnsandboxedCommands", false);
        jw_bool(&w, "autoAllowBashIfSandboxed", false);
        jw_bool(&w, "enabled", true);
        jw_bool(&w, "failIfUnavailable", p->fail == CP_FAIL_CLOSED);
        jw_key(&w, "filesystem");
        jw_open(&w, '{');
        jw_list(&w, "allowWrite", &c->allow_write);
        jw_list(&w, "denyRead", &c->deny_read);
        jw_list(&w, "denyWrite", &c->deny_write);
        jw_close(&w, '}');
        if (c->net_restricted) {
            jw_key(&w, "network");
            jw_open(&w, '{');
            if (c->sockets.n)
                jw_list(&w, "allowUnixSockets", &c->sockets);
            jw_list(&w, "allowedDomains", &c->domains);
            jw_bool(&w, "strictAllowlist", true);
            jw_close(&w, '}');
        }
        jw_close(&w, '}');
    }
    jw_close(&w, '}');
    cp_ob_addc(out, '\n');
    if (pin_at) {
        char hex[CP_SHA256_HEX];
        cp_gate_pin_digest(out->data + start, out->len - start, hex);
        memcpy(out->data + pin_at, hex, 64);
    }
}

/* ---- the backend interface -------------------------------------------------- */

static const char cl_not_lowered[] =
    "not lowered (the rule cannot be spelled for this target)";

static struct cp_analysis *cl_analyse(const struct cp_policy *p,
                                      const struct cp_backend_opts *o,
                                      struct cp_arena *a, struct cp_diags *d,
                                      enum cp_report rep)
{
    struct cl *c = cp_arena_alloc(a, sizeof *c);
    cp_analysis_init(&c->head, &cp_backend_claude, p, o, a, d, rep);
    c->p = p;
    c->a = a;
    c->d = c->head.d;
    c->warnings = rep == CP_REPORT_ALL;
    cl_run(c);
    c->head.errors = c->errors;
    c->head.fid = cp_arena_alloc(a, (p->nrules + 1) * sizeof *c->head.fid);
    c->head.why = cp_arena_alloc(a, (p->nrules + 1) * sizeof *c->head.why);
    for (size_t i = 0; i < p->nrules; i++) {
        c->head.fid[i] = c->fids[i].why ? c->fids[i].fid : CP_FID_NOT_ENFORCED;
        c->head.why[i] = c->fids[i].why ? c->fids[i].why : cl_not_lowered;
    }
    return &c->head;
}

/* Step 2: the settings object (the claude target writes one for every
 * policy, cooperative ones included). */
static void cl_write_step(const struct cp_analysis *an, struct cp_diags *d,
                          struct cp_buf *out)
{
    (void)d;
    cl_write((const struct cl *)an, out);
}

const struct cp_backend cp_backend_claude = {
    .name = "claude",
    .suffix = ".claude.json",
    .truncation_detected = true,
    .enforces_gates = true,
    .analyse = cl_analyse,
    .write = cl_write_step,
};

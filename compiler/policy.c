/* SPDX-License-Identifier: MIT */
/* Printable forms of the resolved policy's values (confpol syntax), and the
 * small helpers the semantic phases share (compiler/sema.h). */
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "match.h"
#include "policy.h"
#include "sema.h"

const char *cp_rule_kind_text(enum cp_rule_kind k)
{
    switch (k) {
    case CP_R_WRITE:
        return "write";
    case CP_R_EXEC:
        return "exec";
    case CP_R_DENY_READ:
        return "deny read";
    case CP_R_DENY_WRITE:
        return "deny write";
    case CP_R_DENY_EXEC:
        return "deny exec";
    case CP_R_GATE_ASK:
        return "gate ask";
    case CP_R_GATE_DENY:
        return "gate deny";
    case CP_R_NET_ALLOW:
        return "net allow";
    case CP_R_NET_DENY:
        return "net deny";
    case CP_R_NET_SOCKET:
        return "net socket";
    }
    return "?";
}

const char *cp_access_text(enum cp_access a)
{
    switch (a) {
    case CP_ACC_READ:
        return "read";
    case CP_ACC_WRITE:
        return "write";
    case CP_ACC_EXEC:
        return "exec";
    case CP_ACC_NET:
        return "net";
    case CP_ACC_GATE:
        return "gate";
    case CP_ACC_CONTENT:
        return "content";
    case CP_ACC_SOCKET:
        return "socket";
    }
    return "?";
}

const char *cp_verdict_text(enum cp_verdict v)
{
    switch (v) {
    case CP_ALLOW:
        return "allow";
    case CP_ASK:
        return "ask";
    case CP_DENY:
        return "deny";
    }
    return "?";
}

const char *cp_profile_text(enum cp_profile p)
{
    switch (p) {
    case CP_PROFILE_COOPERATIVE:
        return "cooperative";
    case CP_PROFILE_CONFINED:
        return "confined";
    case CP_PROFILE_EXCLUSIVE:
        return "exclusive";
    }
    return "?";
}

/* Bytes a bare (unquoted) path segment may hold as written; anything else
 * forces the quoted form. */
static bool pol_bare_byte(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9'))
        return true;
    return strchr("._-+,@%=:", c) != NULL && c != '\0';
}

static void pol_root(struct cp_buf *b, const char *root)
{
    if (!root)
        return;
    if (strcmp(root, "HOME") == 0)
        cp_buf_addc(b, '~');
    else
        cp_buf_printf(b, "${%s}", root);
}

/* A path prints bare when every literal segment holds only bare bytes (glob
 * segments are printed as written: they came from bare text).  Otherwise a
 * glob-free path prints quoted ("${PROJECT}/a b"); a path mixing globs with
 * such literals cannot be written in one argument and prints bare, as close
 * as the syntax allows (spec/semantics.md, "Printing"). */
const char *cp_path_format(struct cp_arena *a, const struct cp_path *p)
{
    bool bare = true;
    for (size_t i = 0; i < p->nsegs && bare; i++) {
        const struct cp_seg *s = &p->segs[i];
        if (s->kind != CP_SEG_LIT)
            continue;
        for (size_t j = 0; j < s->len; j++)
            if (!pol_bare_byte((unsigned char)s->s[j])) {
                bare = false;
                break;
            }
    }
    struct cp_buf b = {0};
    if (bare || p->has_glob) {
        pol_root(&b, p->root);
        for (size_t i = 0; i < p->nsegs; i++) {
            cp_buf_addc(&b, '/');
            if (p->segs[i].kind == CP_SEG_ANY)
                cp_buf_adds(&b, "**");
            else
                cp_buf_add(&b, p->segs[i].s, p->segs[i].len);
        }
        if (!p->root && p->nsegs == 0)
            cp_buf_addc(&b, '/');
    } else {
        struct cp_buf in = {0};
        pol_root(&in, p->root);
        for (size_t i = 0; i < p->nsegs; i++) {
            cp_buf_addc(&in, '/');
            cp_buf_add(&in, p->segs[i].s, p->segs[i].len);
        }
        if (!p->root && p->nsegs == 0)
            cp_buf_addc(&in, '/');
        cp_sema_quote(&b, in.data, in.len);
        cp_buf_free(&in);
    }
    const char *r = cp_arena_strndup(a, b.data ? b.data : "", b.len);
    cp_buf_free(&b);
    return r;
}

void cp_policy_free(struct cp_policy *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nrules; i++) {
        struct cp_rule *r = p->rules[i];
        if (r->kind == CP_R_GATE_ASK || r->kind == CP_R_GATE_DENY)
            cp_gate_free(&r->u.gate);
    }
    for (size_t i = 0; i < p->ncontent; i++)
        cp_content_rule_free(&p->content[i]);
}

/* ---- sema.h ---------------------------------------------------------- */

void cp_sema_quote(struct cp_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    cp_buf_addc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            cp_buf_addc(b, '\\');
            cp_buf_addc(b, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            cp_buf_addc(b, '\\');
            cp_buf_addc(b, 'x');
            cp_buf_addc(b, hex[c >> 4]);
            cp_buf_addc(b, hex[c & 15]);
        } else {
            cp_buf_addc(b, (char)c);
        }
    }
    cp_buf_addc(b, '"');
}

const char *cp_sema_rule_text(struct cp_arena *a, const struct cp_rule *r)
{
    if (r->kind == CP_R_NET_DENY)
        return "net deny";
    /* Without printf: the checker asks for one per finding. */
    return cp_arena_cat(a, cp_rule_kind_text(r->kind), " ",
                        r->text ? r->text : "", (char *)NULL);
}

const char *cp_sema_origin_text(enum cp_origin o)
{
    switch (o) {
    case CP_ORIGIN_SOURCE:
        return "the policy";
    case CP_ORIGIN_CONFINED:
        return "profile confined";
    case CP_ORIGIN_EXCLUSIVE:
        return "profile exclusive";
    }
    return "?";
}

/* The value of param `name` in `p`, or NULL when unbound or unknown. */
static const char *cp_sema_param_value(const struct cp_policy *p,
                                       const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < p->nparams; i++)
        if (strcmp(p->params[i].name, name) == 0)
            return p->params[i].value;
    return NULL;
}

void cp_sema_bind(struct cp_arena *a, const struct cp_policy *p,
                  struct cp_path *path)
{
    const char *v = path->root ? cp_sema_param_value(p, path->root) : NULL;
    struct cp_path out;
    if (!v || cp_path_bind(a, path, v, &out) != NULL)
        return;
    *path = out;
}

const char *cp_sema_subject(struct cp_arena *a, const struct cp_policy *p,
                            const char *text, size_t len, struct cp_path *out)
{
    size_t off;
    const char *msg = cp_path_parse(a, text, len, true, out, &off);
    if (msg)
        return msg;
    if (out->root) {
        bool known = false;
        for (size_t i = 0; i < p->nparams; i++)
            if (strcmp(p->params[i].name, out->root) == 0)
                known = true;
        if (!known)
            return "unknown param";
    }
    cp_sema_bind(a, p, out);
    return NULL;
}

const char *cp_sema_default_why(enum cp_access acc, enum cp_verdict v,
                                const struct cp_policy *p)
{
    switch (acc) {
    case CP_ACC_READ:
        return "no 'deny read' rule matches; reading is allowed by default";
    case CP_ACC_WRITE:
        return "no 'write' rule matches; writing is denied by default";
    case CP_ACC_EXEC:
        if (p->has_exec)
            return "no 'exec' rule matches; exec is an allow-list in this "
                   "policy";
        return "no 'deny exec' or 'deny read' rule matches; exec is allowed "
               "by default";
    case CP_ACC_NET:
        return v == CP_ALLOW ? "the policy has no net rule; the network is open"
                             : "no 'net allow' domain matches";
    case CP_ACC_GATE:
        return "no gate pattern matches; the command is allowed";
    case CP_ACC_CONTENT:
        return v == CP_ALLOW ? "no content detector or 'content deny' pattern "
                               "finds anything; the write is allowed"
                             : "a content detector or 'content deny' pattern "
                               "finds something; the write is denied";
    case CP_ACC_SOCKET:
        return v == CP_ALLOW
                   ? "the policy has no 'net deny' or 'net allow'; every Unix "
                     "socket is reachable"
                   : "no 'net socket' rule names this socket; with a 'net "
                     "allow' list every other Unix socket is closed";
    }
    return "";
}

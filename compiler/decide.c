/* SPDX-License-Identifier: MIT */
/* The decision model (spec/semantics.md, "Decisions"): one function answers
 * every question, for explain, expect, the gate hook and the tests.
 *
 * A path question scans the path rules once.  A rule whose root equals the
 * subject's is first filtered by its literal prefix (a byte comparison of
 * its leading literal segments with the subject's), and only the survivors
 * go through the exact relation cp_path_contains(rule, subject), which for
 * a concrete subject is "the rule covers it".  A rule with another root is
 * related exactly by cp_path_contains as well; CP_REL_MAY there means an
 * unbound param decides, and the documented assumption (params name
 * directories unrelated to every other root) treats it as no match while
 * recording the param when another binding would change the verdict. */
#include <ctype.h>
#include <string.h>

#include "content.h"
#include "match.h"
#include "policy.h"
#include "sema.h"
#include "shell_read.h"

struct dc_set {
    struct cp_vec yes;     /* rules that match */
    bool may;              /* some rule may match, depending on a param */
    const char *may_param; /* the first such param */
    const struct cp_rule *may_rule; /* and its rule */
};

static bool dc_same_root(const char *x, const char *y)
{
    if (!x || !y)
        return x == y;
    return x == y || strcmp(x, y) == 0;
}

static enum cp_rel dc_rel(const struct cp_path *rule,
                          const struct cp_path *subj, const char **param)
{
    *param = NULL;
    if (dc_same_root(rule->root, subj->root)) {
        size_t k = cp_path_literal_prefix(rule);
        if (k > subj->nsegs)
            return CP_REL_NO;
        for (size_t i = 0; i < k; i++) {
            const struct cp_seg *x = &rule->segs[i], *y = &subj->segs[i];
            if (x->len != y->len || memcmp(x->s, y->s, x->len) != 0)
                return CP_REL_NO;
        }
    }
    enum cp_rel r = cp_path_contains(rule, subj, param);
    if (r == CP_REL_MAY && !*param)
        *param = subj->root ? subj->root : rule->root;
    return r;
}

static void dc_add(struct cp_arena *a, struct dc_set *s,
                   const struct cp_rule *r, enum cp_rel rel, const char *param)
{
    if (rel == CP_REL_YES) {
        cp_vec_push(a, &s->yes, (void *)r);
    } else if (rel == CP_REL_MAY) {
        if (!s->may) {
            s->may_param = param;
            s->may_rule = r;
        }
        s->may = true;
    }
}

static void dc_out(struct cp_decision *out, enum cp_verdict v,
                   const struct cp_vec *rules)
{
    out->verdict = v;
    out->rules = rules ? (const struct cp_rule **)rules->items : NULL;
    out->nrules = rules ? rules->len : 0;
    out->by_default = out->nrules == 0;
}

/* The verdict of a path access from "a deny matches" and "an allow matches"
 * (allow_list: the access is an allow-list). */
static enum cp_verdict dc_verdict(bool deny, bool allow, bool allow_list)
{
    if (deny)
        return CP_DENY;
    if (allow_list && !allow)
        return CP_DENY;
    return CP_ALLOW;
}

/* The set a path rule of KIND adds to when deciding access ACC: the
 * denies, the allows, or none (NULL). */
static struct dc_set *dc_set_for(enum cp_rule_kind kind, enum cp_access acc,
                                 struct dc_set *deny, struct dc_set *allow)
{
    switch (kind) {
    case CP_R_WRITE:
        return acc == CP_ACC_WRITE ? allow : NULL;
    case CP_R_EXEC:
        return acc == CP_ACC_EXEC ? allow : NULL;
    case CP_R_DENY_READ:
        return acc == CP_ACC_READ || acc == CP_ACC_EXEC ? deny : NULL;
    case CP_R_DENY_WRITE:
        return acc == CP_ACC_WRITE ? deny : NULL;
    case CP_R_DENY_EXEC:
        return acc == CP_ACC_EXEC ? deny : NULL;
    case CP_R_GATE_ASK:
    case CP_R_GATE_DENY:
    case CP_R_NET_ALLOW:
    case CP_R_NET_DENY:
    case CP_R_NET_SOCKET:
        break;
    }
    return NULL;
}

/* Would a binding that makes a MAY relation hold change the verdict V?
 * Then out names the param and the rule. */
static void dc_unbound(struct cp_decision *out, enum cp_verdict v,
                       const struct dc_set *deny, const struct dc_set *allow,
                       bool allow_list)
{
    bool dy = deny->yes.len > 0, ay = allow->yes.len > 0;
    if (deny->may && dc_verdict(true, ay, allow_list) != v) {
        out->unbound_param = deny->may_param;
        out->unbound_rule = deny->may_rule;
    } else if (allow->may && dc_verdict(dy, true, allow_list) != v) {
        out->unbound_param = allow->may_param;
        out->unbound_rule = allow->may_rule;
    } else if (deny->may && allow->may &&
               dc_verdict(true, true, allow_list) != v) {
        out->unbound_param = deny->may_param;
        out->unbound_rule = deny->may_rule;
    }
}

static void dc_socket(const struct cp_policy *p, const struct cp_path *subj,
                      struct cp_arena *a, struct cp_decision *out);

void cp_sema_decide_path(const struct cp_policy *p, enum cp_access acc,
                         const struct cp_path *subjp, struct cp_arena *a,
                         struct cp_decision *out)
{
    if (acc == CP_ACC_SOCKET) {
        dc_socket(p, subjp, a, out);
        return;
    }
    const struct cp_path subj = *subjp;
    memset(out, 0, sizeof *out);
    struct dc_set deny = {0}, allow = {0};
    bool allow_list = acc == CP_ACC_WRITE ||
                      (acc == CP_ACC_EXEC && p->has_exec);
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        struct dc_set *set = dc_set_for(r->kind, acc, &deny, &allow);
        if (!set)
            continue;
        const char *param;
        enum cp_rel rel = dc_rel(&r->u.path, &subj, &param);
        dc_add(a, set, r, rel, param);
    }
    bool dy = deny.yes.len > 0, ay = allow.yes.len > 0;
    enum cp_verdict v = dc_verdict(dy, ay, allow_list);
    if (v == CP_DENY && dy)
        dc_out(out, v, &deny.yes);
    else if (v == CP_ALLOW && allow_list)
        dc_out(out, v, &allow.yes);
    else
        dc_out(out, v, NULL);
    dc_unbound(out, v, &deny, &allow, allow_list);
}

/* Does the socket rule R name exactly the path SUBJ?  YES when both are
 * the same path; MAY when an unbound param decides (then *param names it);
 * NO otherwise.  A socket rule names one path, never what lies beneath.
 * With different roots (a param on one side at least) the two are equal
 * for some binding exactly when the shorter list of segments is a suffix of
 * the longer one, and an absolute side is not the shorter one: a param may
 * be any directory, and neither path holds a glob. */
static enum cp_rel dc_same_path(const struct cp_path *r,
                                const struct cp_path *subj, const char **param)
{
    *param = NULL;
    if (dc_same_root(r->root, subj->root))
        return cp_path_cmp(r, subj) == 0 ? CP_REL_YES : CP_REL_NO;
    if ((!r->root && r->nsegs < subj->nsegs) ||
        (!subj->root && subj->nsegs < r->nsegs))
        return CP_REL_NO;
    size_t n = r->nsegs < subj->nsegs ? r->nsegs : subj->nsegs;
    for (size_t i = 1; i <= n; i++) {
        const struct cp_seg *x = &r->segs[r->nsegs - i];
        const struct cp_seg *y = &subj->segs[subj->nsegs - i];
        if (x->len != y->len || memcmp(x->s, y->s, x->len) != 0)
            return CP_REL_NO;
    }
    *param = subj->root ? subj->root : r->root;
    return CP_REL_MAY;
}

/* Socket (spec/semantics.md, "Unix sockets"): without a network rule every
 * socket is reachable; otherwise only a socket a `net socket` rule names,
 * and never one beneath a deny-read region (the sandbox cannot see it).
 * Denied by the `net deny` rule, or by default under an allow-list. */
static void dc_socket(const struct cp_policy *p, const struct cp_path *subj,
                      struct cp_arena *a, struct cp_decision *out)
{
    memset(out, 0, sizeof *out);
    if (p->net == CP_NET_ALL) {
        dc_out(out, CP_ALLOW, NULL);
        return;
    }
    struct cp_decision rd;
    cp_sema_decide_path(p, CP_ACC_READ, subj, a, &rd);
    if (rd.verdict == CP_DENY) {
        *out = rd;
        return;
    }
    struct cp_vec named = {0}, denies = {0};
    struct dc_set may = {0};
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind == CP_R_NET_DENY)
            cp_vec_push(a, &denies, (void *)r);
        if (r->kind != CP_R_NET_SOCKET)
            continue;
        const char *param;
        enum cp_rel rel = dc_same_path(&r->u.path, subj, &param);
        if (rel == CP_REL_YES)
            cp_vec_push(a, &named, (void *)r);
        else
            dc_add(a, &may, r, rel, param);
    }
    if (named.len) {
        dc_out(out, CP_ALLOW, &named);
    } else {
        dc_out(out, CP_DENY, denies.len ? &denies : NULL);
        if (may.may) {
            out->unbound_param = may.may_param;
            out->unbound_rule = may.may_rule;
        }
    }
    if (!named.len || !rd.unbound_param)
        return;
    out->unbound_param = rd.unbound_param; /* a deny read may cover it */
    out->unbound_rule = rd.unbound_rule;
}

static int dc_net(const struct cp_policy *p, const char *subject,
                  struct cp_arena *a, struct cp_decision *out)
{
    struct cp_domain req;
    if (cp_net_host_parse(a, subject, strlen(subject), &req))
        return -1;
    struct cp_net_rule *nr = cp_arena_alloc(a, (p->nrules + 1) * sizeof *nr);
    const struct cp_rule **by = cp_arena_alloc(a, (p->nrules + 1) * sizeof *by);
    size_t *match = cp_arena_alloc(a, (p->nrules + 1) * sizeof *match);
    size_t n = 0, nm = 0;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        if (r->kind != CP_R_NET_DENY && r->kind != CP_R_NET_ALLOW)
            continue;
        nr[n].dom = r->kind == CP_R_NET_ALLOW ? &r->u.dom : NULL;
        by[n++] = r;
    }
    enum cp_verdict v = cp_net_decide(nr, n, &req, match, &nm);
    struct cp_vec rules = {0};
    for (size_t i = 0; i < nm; i++)
        cp_vec_push(a, &rules, (void *)by[match[i]]);
    dc_out(out, v, nm ? &rules : NULL);
    return 0;
}

/* The policy's rules as gate rows (cp_gate_decide): its gate rules. */
static enum cp_verdict dc_gate_verdict(void *ctx, size_t i)
{
    const struct cp_rule *r = ((const struct cp_policy *)ctx)->rules[i];
    return r->kind == CP_R_GATE_DENY  ? CP_DENY
           : r->kind == CP_R_GATE_ASK ? CP_ASK
                                      : CP_ALLOW;
}

static int dc_gate_match(void *ctx, size_t i, struct cp_gate_subject *s,
                         struct cp_arena *a, const char **err)
{
    (void)err;
    const struct cp_rule *r = ((const struct cp_policy *)ctx)->rules[i];
    return cp_gate_subject_matches(&r->u.gate, s, a);
}

static int dc_gate(const struct cp_policy *p, const char *line,
                   struct cp_arena *a, struct cp_decision *out)
{
    struct cp_gate_rows rows = {.n = p->nrules,
                                .ctx = (void *)p,
                                .verdict = dc_gate_verdict,
                                .match = dc_gate_match};
    struct cp_gate_result g;
    cp_gate_decide(&rows, cp_gate_subject_new(a, line), true, a, &g);
    struct cp_vec hit = {0};
    for (size_t i = 0; i < g.nrows; i++)
        cp_vec_push(a, &hit, (void *)p->rules[g.rows[i]]);
    dc_out(out, g.verdict, g.nrows ? &hit : NULL);
    out->gate_why = g.why;
    if (g.unreadable) {
        out->by_default = false;
        out->gate_unreadable = true;
    }
    return 0;
}

/* Content: deny when a detector in force or a `content deny` pattern finds
 * something in the text (the findings come from cp_content_scan; content
 * rules are not in p->rules, so the decision lists no rule). */
static int dc_content(const struct cp_policy *p, const char *text,
                      struct cp_arena *a, struct cp_decision *out)
{
    struct cp_content_scan s = {0};
    cp_content_scan(a, p->content_classes, p->content, p->ncontent, "content",
                    text, strlen(text), &s);
    dc_out(out, s.n ? CP_DENY : CP_ALLOW, NULL);
    return 0;
}

int cp_decide(const struct cp_policy *p, enum cp_access acc,
              const char *subject, struct cp_arena *a, struct cp_decision *out)
{
    memset(out, 0, sizeof *out);
    if (!subject)
        return -1;
    switch (acc) {
    case CP_ACC_READ:
    case CP_ACC_WRITE:
    case CP_ACC_EXEC:
    case CP_ACC_SOCKET: {
        struct cp_path subj;
        if (cp_sema_subject(a, p, subject, strlen(subject), &subj) != NULL)
            return -1;
        cp_sema_decide_path(p, acc, &subj, a, out);
        return 0;
    }
    case CP_ACC_NET:
        return dc_net(p, subject, a, out);
    case CP_ACC_GATE:
        return dc_gate(p, subject, a, out);
    case CP_ACC_CONTENT:
        return dc_content(p, subject, a, out);
    }
    return -1;
}

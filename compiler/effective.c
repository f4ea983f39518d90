/* SPDX-License-Identifier: MIT */
/* --print-effective: the resolved policy in confpol syntax, one rule per
 * line, bound params substituted, each rule followed by a comment naming
 * where it comes from (file:line, or the profile that added it and why).
 * The output parses as a confpol policy (spec/semantics.md, "Effective
 * policy"). */
#include <string.h>

#include "confpol.h"
#include "content.h"
#include "sema.h"

static void ef_origin(struct cp_buf *b, const struct cp_rule *r)
{
    if (r->origin != CP_ORIGIN_SOURCE) {
        cp_buf_printf(b, "  # implicit: %s: %s", cp_sema_origin_text(r->origin),
                      r->why ? r->why : "");
    } else if (r->loc.src) {
        cp_buf_printf(b, "  # %s:%u", r->loc.src->path, r->loc.line);
    }
    if (r->flags & CP_RF_REDUNDANT)
        cp_buf_adds(b, r->origin == CP_ORIGIN_SOURCE && r->loc.src
                           ? " (redundant: covered by another rule)"
                           : "  # redundant: covered by another rule");
    cp_buf_addc(b, '\n');
}

static void ef_regex(struct cp_buf *b, const char *t)
{
    cp_buf_adds(b, "re\"");
    for (; *t; t++) {
        if (*t == '"')
            cp_buf_addc(b, '\\');
        cp_buf_addc(b, *t);
    }
    cp_buf_addc(b, '"');
}

static void ef_domain(struct cp_buf *b, const struct cp_domain *d)
{
    struct cp_arena *a = cp_arena_new();
    cp_buf_printf(b, "%s", cp_domain_format(a, d));
    cp_arena_free(a);
}

/* The content rules: the detector classes in force (a comment), each class
 * switched off, each `content deny` pattern. */
static void ef_content(const struct cp_policy *p, struct cp_buf *out)
{
    cp_buf_adds(out, "\n# content detectors in force (what file tools write is "
                     "scanned):");
    if (!p->content_classes)
        cp_buf_adds(out, " none");
    for (unsigned c = 0; c < CP_CC__COUNT; c++)
        if (p->content_classes & (1u << c))
            cp_buf_printf(out, " %s", cp_content_class_name(c));
    cp_buf_addc(out, '\n');
    for (unsigned c = 0; p->content_off_loc && c < CP_CC__COUNT; c++)
        if (p->content_off_loc[c].src)
            cp_buf_printf(
                out, "content allow %s  # %s:%u\n", cp_content_class_name(c),
                p->content_off_loc[c].src->path, p->content_off_loc[c].line);
    for (size_t i = 0; i < p->ncontent; i++) {
        const struct cp_content_rule *r = &p->content[i];
        cp_buf_adds(out, "content deny ");
        if (r->regex)
            ef_regex(out, r->text);
        else
            cp_sema_quote(out, r->text, r->len);
        cp_buf_printf(out, "  # %s (%s)\n", r->where, r->id);
    }
}

void cp_print_effective(const struct cp_policy *p, struct cp_buf *out)
{
    struct cp_arena *a = cp_arena_new();
    cp_buf_printf(out,
                  "# effective policy of %s: every rule confpol "
                  "enforces\nconfpol 1\n\n",
                  p->main_path ? p->main_path : "");
    if (p->profile_defaulted)
        cp_buf_printf(out,
                      "# profile %s (defaulted: no profile statement, "
                      "the gate hook stays fail-open)\n",
                      cp_profile_text(p->profile));
    else
        cp_buf_printf(out, "profile %s\n", cp_profile_text(p->profile));
    if (p->fail_written)
        cp_buf_printf(out, "fail %s\n",
                      p->fail == CP_FAIL_OPEN ? "open" : "closed");
    else
        cp_buf_printf(out, "# fail %s (the default)\n",
                      p->fail == CP_FAIL_OPEN ? "open" : "closed");
    cp_buf_addc(out, '\n');
    for (size_t i = 0; i < p->nparams; i++) {
        const struct cp_param *pm = &p->params[i];
        bool builtin = !pm->loc.src;
        if (builtin)
            cp_buf_printf(out, "# param %s", pm->name);
        else
            cp_buf_printf(out, "param %s", pm->name);
        if (pm->value)
            cp_buf_printf(out, "  # bound with -D %s=%s\n", pm->name,
                          pm->value);
        else
            cp_buf_printf(out,
                          "%s# unbound: bound when the policy is applied\n",
                          builtin ? " " : "  ");
    }
    if (p->nrules)
        cp_buf_addc(out, '\n');
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        cp_buf_adds(out, cp_rule_kind_text(r->kind));
        switch (r->kind) {
        case CP_R_WRITE:
        case CP_R_EXEC:
        case CP_R_DENY_READ:
        case CP_R_DENY_WRITE:
        case CP_R_DENY_EXEC:
        case CP_R_NET_SOCKET:
            cp_buf_printf(out, " %s", cp_path_format(a, &r->u.path));
            break;
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            cp_buf_addc(out, ' ');
            if (r->u.gate.kind == CP_GATE_REGEX)
                ef_regex(out, r->u.gate.text);
            else if (r->u.gate.kind == CP_GATE_UNKNOWN)
                cp_buf_adds(out, "unknown");
            else
                cp_sema_quote(out, r->u.gate.text, strlen(r->u.gate.text));
            break;
        case CP_R_NET_ALLOW:
            cp_buf_addc(out, ' ');
            ef_domain(out, &r->u.dom);
            break;
        case CP_R_NET_DENY:
            break;
        }
        ef_origin(out, r);
    }
    ef_content(p, out);
    if (p->nexpects)
        cp_buf_addc(out, '\n');
    for (size_t i = 0; i < p->nexpects; i++) {
        const struct cp_expect *e = &p->expects[i];
        cp_buf_printf(out, "expect %s %s ", cp_verdict_text(e->verdict),
                      cp_access_text(e->access));
        if (cp_access_is_path(e->access))
            cp_buf_adds(out, cp_path_format(a, &e->path));
        else if (e->access == CP_ACC_GATE || e->access == CP_ACC_CONTENT)
            cp_sema_quote(out, e->subject, strlen(e->subject));
        else
            cp_buf_adds(out, e->subject);
        cp_buf_addc(out, '\n');
    }
    cp_arena_free(a);
}

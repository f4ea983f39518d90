/* SPDX-License-Identifier: MIT */
/* Fidelity of the Landlock enforcer (`confpol run --enforcer landlock`,
 * spec/runtime.md §12) as a target of its own in `build --fidelity`.  It
 * writes no artifact: it applies the .bwrap artifact, so every rule starts
 * from the bwrap rating (what bwrap does not enforce, Landlock does not
 * either) and is then rated for the lowering of §12.2, the strictest
 * finding winning. */
#include "backend.h"
#include "fidelity.h"
#include "ospath.h"

#include <stddef.h>

static const char
    why_write_exact[] = "Landlock write rights beneath P (cross-directory "
                        "rename needs ABI 2, truncation ABI 3)";
static const char why_write_around[] =
    "a denied path lies beneath (or may, by a param's value): granted around "
    "it; no entry "
    "can be created, removed or renamed in the directories on the way to it";
static const char
    why_deny_write[] = "partially: contents, creation, removal and renaming "
                       "denied by granting around P (a "
                       "missing P: nothing can be created in its parent); "
                       "the mode bits, timestamps and extended "
                       "attributes of the user's own files are not covered by "
                       "Landlock (set-ID bits and owner changes are refused "
                       "everywhere by seccomp; --enforcer bwrap is exact)";
static const char why_deny_read_meta[] =
    "partially: contents and listing denied by granting around P (its "
    "ancestors cannot be listed, entries added to them later cannot be read; "
    "a missing P: nothing can be created in its parent); its metadata is not "
    "hidden: stat (size, times, owner, mode), access, readlink (symlink "
    "targets), getxattr and listxattr (extended attributes) and inotify "
    "(names of entries created, changed or removed) work on P and beneath it; "
    "confpol run --enforcer landlock refuses it without --allow-unenforced "
    "(--enforcer bwrap hides it)";
static const char why_deny_exec[] =
    "masked as bwrap does, granted around P: its ancestors cannot be listed "
    "and entries added to them later cannot be read; a missing P: nothing "
    "can be created in its parent; the mask hides contents, not metadata, so "
    "confpol run --enforcer landlock refuses it without --allow-unenforced";
static const char why_exec[] = "partially: Landlock EXECUTE beneath P; `ld.so "
                               "FILE`, interpreters and memfd execution "
                               "run readable files outside the list (no noexec "
                               "mount without a namespace); an entry that is "
                               "a symbolic link grants the program it "
                               "resolves to at launch, which may then run "
                               "under any name (its own path, another link "
                               "to it)";
static const char
    why_net_deny[] = "no IP socket (seccomp) and TCP bind/connect handled by "
                     "Landlock (ABI 4); no Unix socket "
                     "either (the host's ssh agent, docker socket, abstract "
                     "sockets; inside the sandbox too: "
                     "stricter, socketpair works)";
static const char why_net_socket[] =
    "the Landlock enforcer starts no socket supervisor: every Unix socket "
    "stays closed, the named one too (confpol-run warns at launch)";
static const char why_net_allow[] =
    "the Landlock enforcer starts no filtering proxy: all IP is denied";

/* Rates every rule from bwrap's rating of the same policy and options:
 * the analysis is bwrap's, its fidelity replaced by Landlock's. */
static struct cp_analysis *landlock_analyse(const struct cp_policy *p,
                                            const struct cp_backend_opts *o,
                                            struct cp_arena *a,
                                            struct cp_diags *diags,
                                            enum cp_report rep)
{
    (void)diags, (void)rep; /* rated only: nothing to report */
    struct cp_analysis *an = cp_backend_bwrap.analyse(p, o, a, NULL,
                                                      CP_REPORT_NONE);
    enum cp_fidelity *fid = an->fid;
    const char **why = an->why;
    for (size_t i = 0; i < p->nrules; i++) {
        const struct cp_rule *r = p->rules[i];
        enum cp_fidelity f = CP_FID_EXACT;
        const char *w = NULL;
        switch (r->kind) {
        case CP_R_WRITE:
            w = why_write_exact;
            for (size_t j = 0; j < p->nrules && w == why_write_exact; j++) {
                const struct cp_rule *d = p->rules[j];
                if (d->kind != CP_R_DENY_WRITE && d->kind != CP_R_DENY_READ &&
                    d->kind != CP_R_DENY_EXEC)
                    continue;
                const struct cp_path *one[1] = {&r->u.path};
                struct cp_pathset s;
                cp_pathset_init(a, &s, one, 1);
                if (cp_pathset_overlaps(&s, &d->u.path) != CP_OSREL_NO) {
                    w = why_write_around;
                    f = CP_FID_STRICTER;
                }
            }
            break;
        case CP_R_DENY_WRITE:
            f = CP_FID_NOT_ENFORCED, w = why_deny_write;
            break;
        case CP_R_DENY_READ:
            f = CP_FID_NOT_ENFORCED, w = why_deny_read_meta;
            break;
        case CP_R_DENY_EXEC:
            /* Masked like a deny read: the metadata that leaks is not
             * what the rule denies, but the launch is refused the same. */
            f = CP_FID_STRICTER, w = why_deny_exec;
            break;
        case CP_R_EXEC:
            f = CP_FID_NOT_ENFORCED, w = why_exec;
            break;
        case CP_R_NET_DENY:
            f = CP_FID_STRICTER, w = why_net_deny;
            break;
        case CP_R_NET_ALLOW:
            f = CP_FID_STRICTER, w = why_net_allow;
            break;
        case CP_R_NET_SOCKET:
            if (p->net != CP_NET_ALL)
                f = CP_FID_STRICTER, w = why_net_socket;
            break;
        case CP_R_GATE_ASK:
        case CP_R_GATE_DENY:
            break; /* bwrap's rating: the claude target's hook */
        }
        /* The strictest wins; bwrap's reason where it is the stricter. */
        if (w && f >= fid[i]) {
            fid[i] = f;
            why[i] = w;
        }
    }
    an->be = &cp_backend_landlock;
    return an;
}

/* Rated only: `build --fidelity` lists it beside bwrap; it is not in
 * cp_backends[] because it writes no file of its own. */
const struct cp_backend cp_backend_landlock = {
    .name = "landlock",
    .suffix = NULL,
    .analyse = landlock_analyse,
};

/* SPDX-License-Identifier: MIT */
/* Reads a .bwrap record stream (spec/artifacts.md) and validates all of it
 * before anything is applied: a defect anywhere rejects the whole file. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "artifact_vocab.h"
#include "netmatch.h"
#include "sha256.h"

/* The tags, their names and arities: util/artifact_vocab.c. */
#define cp_rt_tags cp_bw_tags
#define CP_RT_NTAGS ((int)CP_BW_NTAGS)

const char *cp_rt_tag_name(enum cp_rt_tag t)
{
    return (size_t)t < CP_RT_NTAGS ? cp_rt_tags[t].name : "?";
}

static bool is_ident(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* REST (or PATTERN): empty, or '/'-led segments, none empty, '.' or '..'. */
static const char *rest_problem(const char *s)
{
    if (!*s)
        return NULL;
    if (*s != '/')
        return "does not start with '/'";
    const char *p = s;
    while (*p) {
        const char *seg = ++p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - seg);
        if (n == 0)
            return *p || p == s + 1 ? "has an empty segment" : "ends with '/'";
        if ((n == 1 && seg[0] == '.') ||
            (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return "has a '.' or '..' segment";
    }
    return NULL;
}

static bool name_in(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return true;
    return false;
}

void cp_rt_artifact_free(struct cp_rt_artifact *a)
{
    free(a->buf);
    free(a->recs);
    free(a->params);
    free(a->needed);
    free(a->sockparams);
    memset(a, 0, sizeof *a);
}

/* Formats first (the message may quote fields of buf), then frees. */
#define BAD(...)                                                               \
    (cp_rt_fail(e, CP_RT_EXIT_ERROR, "invalid artifact: " __VA_ARGS__),        \
     cp_rt_artifact_free(a), CP_RT_EXIT_ERROR)

/* Splits buf into records; each field is a C string inside buf.  *end:
 * the offset after the last record read (the 'end' trailer's, or len). */
static int split_records(struct cp_rt_artifact *a, size_t *end,
                         struct cp_rt_err *e)
{
    size_t len = a->len, cap = 16, pos = 0;
    a->recs = cp_xmalloc(cap * sizeof *a->recs);
    while (pos < len) {
        size_t off = pos;
        const char *tag = a->buf + pos;
        pos += strlen(tag) + 1;
        size_t t = 0;
        while (t < CP_RT_NTAGS && strcmp(cp_rt_tags[t].name, tag))
            t++;
        size_t idx = a->nrecs;
        if (t == CP_RT_NTAGS && idx == 0)
            return BAD(
                "not a confpol bwrap artifact (no 'confpol-bwrap' header)");
        if (t == CP_RT_NTAGS)
            return BAD("record %zu (offset %zu): unknown tag '%.64s'", idx + 1,
                       off, tag);
        const char *f[3] = {"", "", ""};
        for (int i = 0; i < cp_rt_tags[t].arity; i++) {
            if (pos >= len)
                return BAD("truncated: record %zu '%s' (offset %zu) has %d of "
                           "its %d fields",
                           idx + 1, tag, off, i, cp_rt_tags[t].arity);
            f[i] = a->buf + pos;
            pos += strlen(f[i]) + 1;
        }
        if (a->nrecs == cap) {
            cap *= 2;
            a->recs = cp_xrealloc(a->recs, cap * sizeof *a->recs);
        }
        a->recs[a->nrecs++] = (struct cp_rt_rec){(enum cp_rt_tag)t, f[0], f[1],
                                                 f[2], off};
        if (t == CP_RT_T_END)
            break;
    }
    *end = pos;
    return 0;
}

/* Structure: header first, end last, end's count and digest. */
static int check_structure(struct cp_rt_artifact *a, size_t pos,
                           struct cp_rt_err *e)
{
    size_t len = a->len;
    if (a->recs[0].tag != CP_RT_T_HEADER)
        return BAD("not a confpol bwrap artifact (no 'confpol-bwrap' header)");
    if (strcmp(a->recs[0].f1, "1"))
        return BAD("unsupported version '%.32s' (this runtime reads version 1)",
                   a->recs[0].f1);
    const struct cp_rt_rec *end = &a->recs[a->nrecs - 1];
    if (end->tag != CP_RT_T_END)
        return BAD("truncated: no 'end' trailer");
    if (pos != len)
        return BAD("%zu bytes of data after the 'end' trailer (offset %zu)",
                   len - pos, pos);
    const char *c = end->f1;
    if (!*c || (c[0] == '0' && c[1]) || strspn(c, "0123456789") != strlen(c) ||
        strlen(c) > 9)
        return BAD("trailer count '%.32s' is not a number", c);
    size_t count = (size_t)strtoul(c, NULL, 10);
    if (count != a->nrecs - 1)
        return BAD("trailer says %zu records, the file has %zu", count,
                   a->nrecs - 1);
    char hex[CP_SHA256_HEX];
    cp_sha256_hex(a->buf, end->off, hex);
    if (strcmp(hex, end->f2))
        return BAD("SHA-256 mismatch: the trailer says '%.64s', the content "
                   "hashes to %s "
                   "(corrupted or edited)",
                   end->f2, hex);
    return 0;
}

/* Parse state of the record checks. */
struct rparse {
    size_t pcap; /* capacity of a->params */
    bool seen_profile, seen_fail;
};

static void push_param(struct cp_rt_artifact *a, struct rparse *ps,
                       const char *name)
{
    if (a->nparams == ps->pcap) {
        ps->pcap *= 2;
        a->params = cp_xrealloc(a->params, ps->pcap * sizeof *a->params);
    }
    a->params[a->nparams++] = name;
}

static int check_profile(struct cp_rt_artifact *a, struct rparse *ps, size_t i,
                         struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    if (ps->seen_profile)
        return BAD("record %zu (offset %zu): second 'profile'", i + 1, r->off);
    ps->seen_profile = true;
    if (strcmp(r->f1, "confined") && strcmp(r->f1, "exclusive"))
        return BAD("record %zu (offset %zu): unknown profile '%.64s'", i + 1,
                   r->off, r->f1);
    a->profile = r->f1;
    return 0;
}

static int check_fail(struct cp_rt_artifact *a, struct rparse *ps, size_t i,
                      struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    if (ps->seen_fail)
        return BAD("record %zu (offset %zu): second 'fail'", i + 1, r->off);
    ps->seen_fail = true;
    if (!strcmp(r->f1, "open"))
        a->fail_open = true;
    else if (strcmp(r->f1, "closed"))
        return BAD("record %zu (offset %zu): 'fail' must be 'closed' or "
                   "'open', not '%.64s'",
                   i + 1, r->off, r->f1);
    return 0;
}

static int check_param(struct cp_rt_artifact *a, struct rparse *ps, size_t i,
                       struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    if (!is_ident(r->f1))
        return BAD("record %zu (offset %zu): bad param name '%.64s'", i + 1,
                   r->off, r->f1);
    if (name_in(a->params, a->nparams, r->f1))
        return BAD("record %zu (offset %zu): param '%s' declared twice", i + 1,
                   r->off, r->f1);
    push_param(a, ps, r->f1);
    return 0;
}

/* Validated with the decision model's own parser; the proxy decides with
 * these rules. */
static int check_net(struct cp_rt_artifact *a, size_t i, struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    struct cp_arena *ar = cp_arena_new();
    struct cp_domain d;
    const char *why = *r->f1 ? cp_domain_parse(ar, r->f1, strlen(r->f1), &d)
                             : NULL;
    int rc = 0;
    if (why)
        rc = BAD("record %zu 'net' (offset %zu): '%.200s': %s", i + 1, r->off,
                 r->f1, why);
    cp_arena_free(ar);
    return rc;
}

/* A record with ROOT REST (or ROOT PATTERN) fields. */
static int check_path_rec(struct cp_rt_artifact *a, size_t i,
                          struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    const char *tn = cp_rt_tags[r->tag].name;
    const char *why = rest_problem(r->f2);
    if (why)
        return BAD("record %zu '%s' (offset %zu): path '%.200s' %s", i + 1, tn,
                   r->off, r->f2, why);
    if (*r->f1 && !is_ident(r->f1))
        return BAD("record %zu '%s' (offset %zu): bad param name '%.64s'",
                   i + 1, tn, r->off, r->f1);
    return 0;
}

/* socket ROOT REST WHERE: a path as for the other path records (its WHERE
 * is only quoted in messages). */
static int check_socket(struct cp_rt_artifact *a, size_t i, struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    if (!*r->f1 && !*r->f2)
        return BAD("record %zu 'socket' (offset %zu): empty path", i + 1,
                   r->off);
    if (!*r->f3)
        return BAD("record %zu 'socket' (offset %zu): no rule location", i + 1,
                   r->off);
    return check_path_rec(a, i, e);
}

static int check_record(struct cp_rt_artifact *a, struct rparse *ps, size_t i,
                        struct cp_rt_err *e)
{
    const struct cp_rt_rec *r = &a->recs[i];
    switch (r->tag) {
    case CP_RT_T_HEADER:
        if (i != 0)
            return BAD("record %zu (offset %zu): second 'confpol-bwrap' header",
                       i + 1, r->off);
        return 0;
    case CP_RT_T_END:
    case CP_RT_T_ARG:
        return 0;
    case CP_RT_T_PROFILE:
        return check_profile(a, ps, i, e);
    case CP_RT_T_FAIL:
        return check_fail(a, ps, i, e);
    case CP_RT_T_PARAM:
        return check_param(a, ps, i, e);
    case CP_RT_T_NET:
        return check_net(a, i, e);
    case CP_RT_T_SOCKET:
        return check_socket(a, i, e);
    case CP_RT_T_EXEC:
        a->has_exec = true;
        /* fall through */
    case CP_RT_T_BIND:
    case CP_RT_T_RO:
    case CP_RT_T_PIN:
    case CP_RT_T_PINRO:
    case CP_RT_T_MASK:
    case CP_RT_T_MASKGLOB:
    case CP_RT_T_ROGLOB:
        return check_path_rec(a, i, e);
    }
    return 0;
}

/* The needed params that only `socket` records use, each as the whole
 * path (REST empty): their values name sockets, not directories. */
static void collect_sockparams(struct cp_rt_artifact *a)
{
    a->sockparams = cp_xmalloc((a->nneeded + 1) * sizeof *a->sockparams);
    for (size_t k = 0; k < a->nneeded; k++) {
        bool sock_only = true;
        for (size_t i = 0; i < a->nrecs && sock_only; i++) {
            const struct cp_rt_rec *r = &a->recs[i];
            bool uses = (r->tag >= CP_RT_T_BIND && r->tag <= CP_RT_T_EXEC) ||
                        r->tag == CP_RT_T_SOCKET;
            if (uses && !strcmp(r->f1, a->needed[k]))
                sock_only = r->tag == CP_RT_T_SOCKET && !*r->f2;
        }
        if (sock_only)
            a->sockparams[a->nsockparams++] = a->needed[k];
    }
}

/* Every root must be declared, except HOME and PROJECT (always known). */
static int collect_needed(struct cp_rt_artifact *a, struct rparse *ps,
                          struct cp_rt_err *e)
{
    a->needed = cp_xmalloc((a->nrecs + 1) * sizeof *a->needed);
    for (size_t i = 0; i < a->nrecs; i++) {
        const struct cp_rt_rec *r = &a->recs[i];
        bool rooted = (r->tag >= CP_RT_T_BIND && r->tag <= CP_RT_T_EXEC) ||
                      r->tag == CP_RT_T_SOCKET;
        if (!rooted || !*r->f1)
            continue;
        if (!name_in(a->needed, a->nneeded, r->f1))
            a->needed[a->nneeded++] = r->f1;
        if (name_in(a->params, a->nparams, r->f1))
            continue;
        if (strcmp(r->f1, "HOME") && strcmp(r->f1, "PROJECT"))
            return BAD(
                "record %zu '%s' (offset %zu): param '%.64s' is not declared",
                i + 1, cp_rt_tags[r->tag].name, r->off, r->f1);
        push_param(a, ps, r->f1);
    }
    collect_sockparams(a);
    return 0;
}

int cp_rt_artifact_parse(struct cp_rt_artifact *a, const void *data, size_t len,
                         struct cp_rt_err *e)
{
    memset(a, 0, sizeof *a);
    if (len == 0)
        return BAD("empty file");
    if (len > CP_RT_MAX_ARTIFACT)
        return BAD("larger than %u bytes", CP_RT_MAX_ARTIFACT);
    if (((const char *)data)[len - 1] != '\0')
        return BAD("truncated: the last field is not terminated by a NUL byte");
    a->buf = cp_xmalloc(len);
    memcpy(a->buf, data, len);
    a->len = len;
    size_t pos;
    int rc = split_records(a, &pos, e);
    if (rc || (rc = check_structure(a, pos, e)))
        return rc;
    struct rparse ps = {.pcap = 4};
    a->params = cp_xmalloc(ps.pcap * sizeof *a->params);
    for (size_t i = 0; i < a->nrecs; i++)
        if ((rc = check_record(a, &ps, i, e)))
            return rc;
    return collect_needed(a, &ps, e);
}

int cp_rt_artifact_load(struct cp_rt_artifact *a, const char *path,
                        struct cp_rt_err *e)
{
    memset(a, 0, sizeof *a);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat below
     * refuses anything but a regular file, where the flag has no effect. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "cannot open '%s': %s", path,
                          strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR, "'%s' is not a regular file",
                          path);
    }
    if ((unsigned long long)st.st_size > CP_RT_MAX_ARTIFACT) {
        close(fd);
        return cp_rt_fail(e, CP_RT_EXIT_ERROR,
                          "'%s': invalid artifact: larger than %u bytes", path,
                          CP_RT_MAX_ARTIFACT);
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = cp_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap > CP_RT_MAX_ARTIFACT) {
                free(buf);
                close(fd);
                return cp_rt_fail(
                    e, CP_RT_EXIT_ERROR,
                    "'%s': invalid artifact: larger than %u bytes", path,
                    CP_RT_MAX_ARTIFACT);
            }
            cap *= 2;
            buf = cp_xrealloc(buf, cap);
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            free(buf);
            close(fd);
            return cp_rt_fail(e, CP_RT_EXIT_ERROR, "cannot read '%s': %s", path,
                              strerror(err));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    int rc = cp_rt_artifact_parse(a, buf, len, e);
    free(buf);
    if (rc) {
        char tmp[sizeof e->msg];
        snprintf(tmp, sizeof tmp, "'%.200s': %.1800s", path, e->msg);
        memcpy(e->msg, tmp, sizeof tmp);
    }
    return rc;
}

/* SPDX-License-Identifier: MIT */
/* The Landlock enforcer: applies a .bwrap artifact without any namespace,
 * with Landlock (and a small seccomp filter) alone, for hosts where
 * bubblewrap cannot create its namespaces.  Landlock only grants, so every
 * deny is made by granting less (spec/runtime.md §12):
 *
 *   write root W        the write rights beneath W;
 *   carve-out D in W    W minus D: each existing entry along the way from W
 *                       to D granted on its own, the directories on that
 *                       way themselves get nothing (no entry can be created,
 *                       removed or renamed directly in them: stricter);
 *   deny read D         the same over the read grant of `--ro-bind / /`;
 *   missing D           its nearest existing parent is such a directory:
 *                       nothing can be created there (stricter), nothing is
 *                       created on the host;
 *   exec entries        EXECUTE beneath them (and the loaders), else
 *                       EXECUTE goes with every read grant;
 *   net deny            no socket but AF_UNIX/AF_NETLINK (seccomp), and
 *                       TCP bind/connect handled without a port (ABI 4).
 *
 * Rules are tied to inodes, not names: renaming an ancestor moves the
 * grant with it, and a directory that lost its create/remove rights
 * cannot be renamed away, so no pin is needed. */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libc_compat.h"

#include "arena.h"
#include "landlock_abi.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

extern char **environ;

/* The test-only cap (spec/runtime.md §12.7): never set it in production. */
#define CP_LL_TEST_CAP_ENV "CONFPOL_TEST_LANDLOCK_ABI"

/* More grants than this: the policy is not meant for Landlock. */
#define LL_MAX_GRANTS 20000

/* ---- probing ---------------------------------------------------------------- */

static bool try_ruleset(uint64_t fs, uint64_t net, uint64_t scoped, size_t size)
{
    struct ll_attr a = {fs, net, scoped};
    long fd = syscall(SYS_landlock_create_ruleset, &a, size, 0);
    if (fd < 0)
        return false;
    close((int)fd);
    return true;
}

/* The ABI cap of CP_LL_TEST_CAP_ENV (tests force an older ABI with it):
 * the number when it is a whole number below abi, else -1. */
static int ll_test_cap(int abi)
{
    const char *cap = getenv(CP_LL_TEST_CAP_ENV);
    if (!cap || !*cap)
        return -1;
    char *end;
    long c = strtol(cap, &end, 10);
    return *end == '\0' && c >= 0 && c < abi ? (int)c : -1;
}

void cp_ll_probe(struct cp_ll_features *f)
{
    memset(f, 0, sizeof *f);
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
    f->kernel_abi = abi < 0 ? -errno : (int)abi;
    f->abi = f->kernel_abi;
    if (f->abi < 1)
        return;
    int c = ll_test_cap(f->abi);
    if (c >= 0) {
        f->abi = c;
        f->capped_by = CP_LL_TEST_CAP_ENV;
    }
    if (f->abi < 1)
        return;
    /* Each feature is tried, not inferred from the number: a kernel may
     * report an ABI without all of its features. */
    unsigned have = 0;
    if (!try_ruleset(LL_ABI1_FS, 0, 0, 8)) {
        f->abi = -EOPNOTSUPP;
        return;
    }
    if (try_ruleset(LL_REFER, 0, 0, 8))
        have |= CP_LL_F_REFER;
    if (try_ruleset(LL_TRUNCATE, 0, 0, 8))
        have |= CP_LL_F_TRUNCATE;
    if (try_ruleset(0, LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, 0, 16))
        have |= CP_LL_F_NET;
    if (try_ruleset(LL_IOCTL_DEV, 0, 0, 8))
        have |= CP_LL_F_IOCTL;
    if (try_ruleset(0, 0, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, 24))
        have |= CP_LL_F_SCOPE;
    /* The log flags of restrict_self: an unknown flag is EINVAL, a known
     * one reaches the descriptor check (EBADF); nothing is restricted.
     * Without no_new_privs or CAP_SYS_ADMIN the kernel answers EPERM
     * first: then only the number tells. */
    if (syscall(SYS_landlock_restrict_self, -1, LL_RESTRICT_LOG_NEW_EXEC_ON) <
            0 &&
        (errno == EBADF || (errno == EPERM && f->kernel_abi >= 7)))
        have |= CP_LL_F_LOG;
    static const unsigned by_abi[] = {0,
                                      0,
                                      CP_LL_F_REFER,
                                      CP_LL_F_TRUNCATE,
                                      CP_LL_F_NET,
                                      CP_LL_F_IOCTL,
                                      CP_LL_F_SCOPE,
                                      CP_LL_F_LOG};
    unsigned allowed = 0;
    for (int i = 1; i <= f->abi && i < (int)(sizeof by_abi / sizeof by_abi[0]);
         i++)
        allowed |= by_abi[i];
    f->feat = have & allowed;
}

void cp_ll_features_text(const struct cp_ll_features *f, char *buf, size_t size)
{
    if (f->abi < 1) {
        snprintf(buf, size, "unavailable (%s)",
                 f->abi == 0 ? "capped to 0 by " CP_LL_TEST_CAP_ENV
                             : strerror(-f->abi));
        return;
    }
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{CP_LL_F_REFER, "refer"}, {CP_LL_F_TRUNCATE, "truncate"},
                 {CP_LL_F_NET, "net-tcp"}, {CP_LL_F_IOCTL, "ioctl-dev"},
                 {CP_LL_F_SCOPE, "scope"}, {CP_LL_F_LOG, "audit-log"}};
    int n = snprintf(buf, size, "ABI %d", f->abi);
    if (f->capped_by)
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                      " (kernel ABI %d, capped by %s)", f->kernel_abi,
                      f->capped_by);
    n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                  "; features:");
    bool any = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (f->feat & names[i].bit) {
            n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                          " %s", names[i].name);
            any = true;
        }
    if (!any)
        snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0,
                 " none beyond ABI 1");
}

/* ---- planning -------------------------------------------------------------- */

struct ll_target {
    char *path; /* canonical: the protected entry (may not exist) */
    bool read;  /* deny read (mask) too */
};

struct llp {
    struct cp_ll_plan *pl;
    const struct cp_rt_params *params;
    bool unenforced_ok;
    bool partial_ok; /* --allow-partial (or --allow-unenforced) */
    int io_err;      /* the first failed look while planning grants */
    char io_path[PATH_MAX];
    struct cp_rt_err *e;
    struct ll_target *t;
    size_t nt, capt;
    struct cp_rt_strv wroots;   /* canonical write roots */
    struct cp_rt_strv wmissing; /* write roots missing at launch */
    struct cp_rt_strv execs;    /* exec entries as written (joined) */
    struct cp_rt_strv
        wsplit; /* write roots' directories granted around a target */
    struct cp_rt_strv rsplit; /* the same for the read grant */
    bool read_root, dev, chdir_set;
    char chdir[PATH_MAX];
    bool overflow;
};

/* A note said once per plan: the same text pushed twice (a note per
 * record, several records alike) is kept once.  Not launch.c's
 * strv_pushf, which keeps every line it is given (its warnings and
 * stricter lines are per record) in a larger buffer. */
static void plan_note(struct cp_rt_strv *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void plan_note(struct cp_rt_strv *s, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], buf))
            return;
    cp_rt_strv_push(s, buf);
}

/* Cannot enforce something with Landlock: fail (126), or with fail open /
 * --allow-unenforced a warning said once.  launch.c's unenforceable() is
 * the bwrap planner's: its message names no enforcer and keeps every
 * warning, so the two differ in text and stay two. */
static int ll_unenforceable(struct llp *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int ll_unenforceable(struct llp *L, const char *fmt, ...)
{
    char buf[1800];
    va_list ap;
    va_start(ap, fmt);
    cp_rt_vfmt(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (L->unenforced_ok) {
        plan_note(&L->pl->warnings, "not enforced: %s", buf);
        return 0;
    }
    return cp_rt_fail(L->e, CP_RT_EXIT_CANNOT,
                      "cannot enforce with Landlock: %s", buf);
}

/* A look at `path` failed while planning: gone (nothing to grant) is
 * fine; any other error would drop a grant silently, so the plan fails
 * (cp_ll_plan_build says which). */
static void ll_io_error(struct llp *L, const char *path)
{
    if (errno == ENOENT || errno == ENOTDIR || L->io_err)
        return;
    L->io_err = errno;
    snprintf(L->io_path, sizeof L->io_path, "%s", path);
}

/* A grant of `access` on the file at the canonical `path`, as `st` (its
 * lstat when the caller decided on it; NULL: taken here) shows it.  A path
 * that is a symlink now, or gone, is not granted (fail closed). */
static void grant_id(struct llp *L, const char *path, const struct stat *st,
                     uint64_t access, bool dent);
static void grant(struct llp *L, const char *path, const struct stat *st,
                  uint64_t access)
{
    grant_id(L, path, st, access, false);
}

/* grant of `path` whose identity `st` is, with `dent`, its directory
 * entry's (the inode number readdir gave, the directory's device): a
 * mount point there shows its mounted root when applied (ll_entry_ok). */
static void grant_id(struct llp *L, const char *path, const struct stat *st,
                     uint64_t access, bool dent)
{
    struct cp_ll_plan *pl = L->pl;
    struct stat own;
    if (!st && lstat(path, &own) < 0) {
        ll_io_error(L, path);
        return;
    }
    if (!st)
        st = &own;
    if (S_ISLNK(st->st_mode))
        return;
    if (pl->ng >= LL_MAX_GRANTS) {
        L->overflow = true;
        return;
    }
    if (pl->ng == pl->capg) {
        pl->capg = pl->capg ? 2 * pl->capg : 64;
        pl->g = cp_xrealloc(pl->g, pl->capg * sizeof *pl->g);
    }
    struct cp_ll_grant *g = &pl->g[pl->ng++];
    g->path = cp_xstrdup(path);
    g->access = access;
    g->dev = st->st_dev;
    g->ino = st->st_ino;
    g->type = st->st_mode & S_IFMT;
    g->dirent_id = dent;
}

static void add_target(struct llp *L, const char *path, bool read)
{
    for (size_t i = 0; i < L->nt; i++)
        if (!strcmp(L->t[i].path, path)) {
            L->t[i].read |= read;
            return;
        }
    if (L->nt == L->capt) {
        L->capt = L->capt ? 2 * L->capt : 16;
        L->t = cp_xrealloc(L->t, L->capt * sizeof *L->t);
    }
    L->t[L->nt].path = cp_xstrdup(path);
    L->t[L->nt].read = read;
    L->nt++;
}

/* The symlinks among the components of `path` (as written), each as the
 * link itself: canonical parent + name.  Protecting the link keeps the
 * sandbox from replacing it by a directory of its own at the protected
 * name (stricter than following it only). */
struct link_target {
    struct llp *L;
    bool read;
};

static bool add_link_target(void *ctx, const char *link, const char *parent)
{
    const struct link_target *t = ctx;
    char *at = cp_rt_path_child(parent, strrchr(link, '/') + 1);
    add_target(t->L, at, t->read);
    free(at);
    return false; /* every one */
}

static void add_link_targets(struct llp *L, const char *path, bool read)
{
    struct link_target t = {L, read};
    cp_rt_path_links(path, add_link_target, &t);
}

/* A deny target (ro: deny write; mask: deny read, which bwrap makes
 * unwritable too).  spec/runtime.md §12.2. */
static int deny_target(struct llp *L, const char *path, bool read)
{
    const char *what = read ? "deny-read target" : "deny-write target";
    add_link_targets(L, path, read);
    char *real = cp_rt_walk_real(path);
    if (real) {
        struct stat st;
        if (stat(real, &st) == 0 && !S_ISDIR(st.st_mode) && st.st_nlink > 1) {
            int rc = ll_unenforceable(
                L,
                "%s '%s' has %lu hard links; a Landlock rule protects "
                "one name, and another name of the same file may be %s",
                what, real, (unsigned long)st.st_nlink,
                read ? "readable" : "writable");
            if (rc) {
                free(real);
                return rc;
            }
        }
        add_target(L, real, read);
        free(real);
        return 0;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return ll_unenforceable(L, "%s '%s': %s", what, path, strerror(errno));
    /* Missing: protect its first missing component C. */
    char *c = cp_xstrdup(path);
    for (char *s = c + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char ch = *s;
        *s = '\0';
        struct stat st;
        if (stat(c, &st) < 0 || ch == '\0')
            break;
        *s = ch;
    }
    struct stat lst;
    if (lstat(c, &lst) == 0) {
        int rc = ll_unenforceable(
            L,
            "%s '%s': '%s' is a dangling symlink, which the sandbox "
            "could satisfy by creating its target",
            what, path, c);
        free(c);
        return rc;
    }
    char *slash = strrchr(c, '/');
    *slash = '\0';
    char *pr = cp_rt_walk_real(*c ? c : "/");
    if (pr) {
        char *cc = cp_rt_path_child(pr, slash + 1);
        add_target(L, cc, read);
        free(cc);
        free(pr);
    }
    free(c);
    return 0;
}

/* Never written through a write root above them: bwrap gives the sandbox
 * its own /dev and /proc, and /sys stays read-only (a write root named
 * inside them is granted as written). */
static const char *const pseudo_fs[] = {"/dev", "/proc", "/sys"};

/* Is any target (of the kind) at `path` (exact) or strictly beneath it? */
static int target_rel(const struct llp *L, const char *path, bool read_only)
{
    int rel = 0; /* 0 none, 1 beneath, 2 exact or above */
    /* The read grant never covers the host's /dev wholesale (its disks,
     * the user's terminals in /dev/pts): it is granted around it, and
     * grant_minus gives /dev its names only. */
    if (read_only && L->dev && cp_rt_path_beneath(path, "/dev") &&
        strcmp(path, "/dev"))
        rel = 1;
    for (size_t i = 0; !read_only && i < sizeof pseudo_fs / sizeof pseudo_fs[0];
         i++)
        if (cp_rt_path_beneath(path, pseudo_fs[i]) &&
            strcmp(path, pseudo_fs[i]))
            rel = 1;
    for (size_t i = 0; i < L->nt; i++) {
        if (read_only && !L->t[i].read)
            continue;
        if (cp_rt_path_beneath(L->t[i].path, path))
            return 2;
        if (cp_rt_path_beneath(path, L->t[i].path))
            rel = 1;
    }
    return rel;
}

static void grant_minus_st(struct llp *L, const char *x, const struct stat *sp,
                           bool dent, uint64_t access, bool read_kind,
                           int depth);

/* Grants `access` beneath X minus the targets: X itself gets nothing when
 * a target lies beneath it, and each of its entries is handled on its own. */
static void grant_minus(struct llp *L, const char *x, uint64_t access,
                        bool read_kind, int depth)
{
    struct stat st;
    if (lstat(x, &st) < 0) {
        ll_io_error(L, x);
        return;
    }
    grant_minus_st(L, x, &st, false, access, read_kind, depth);
}

struct ll_dent {
    char *name;
    unsigned char type; /* DT_* */
    ino_t ino;
};

static int ll_dent_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ll_dent *)a)->name,
                  ((const struct ll_dent *)b)->name);
}

/* The identity of entry `de` of the directory X (its device xdev) without
 * a look at it, when that is enough: it is granted whole (no target at or
 * beneath it) or skipped (a symlink), and the kernel says which mounts
 * are mount roots (ll_entry_ok).  A crowded ancestor has one rule per
 * entry: its names are then resolved once, when applied, not twice. */
static bool ll_dent_stat(const struct llp *L, const char *child,
                         const struct ll_dent *de, dev_t xdev, bool read_kind,
                         struct stat *st)
{
    if (!L->pl->mount_root_attr || de->type == DT_UNKNOWN)
        return false;
    memset(st, 0, sizeof *st);
    st->st_dev = xdev;
    st->st_ino = de->ino;
    st->st_mode = DTTOIF(de->type);
    if (S_ISLNK(st->st_mode))
        return true;
    return !(read_kind && !strcmp(child, "/dev")) &&
           target_rel(L, child, read_kind) == 0;
}

/* Does readdir's inode number of every entry of this directory (fd) equal
 * what stat says, a mount point's aside?  On ext2/3/4, XFS and tmpfs it
 * does; overlayfs (layers on several file systems), btrfs (a subvolume
 * shows another device) and network or FUSE file systems may answer
 * otherwise, and a launch would be refused as changed: there each entry
 * is looked at. */
static bool ll_dent_fs(int fd)
{
    struct statfs sf;
    if (fstatfs(fd, &sf) < 0)
        return false;
    switch ((unsigned long)sf.f_type) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x58465342UL: /* xfs */
    case 0x01021994UL: /* tmpfs */
        return true;
    default:
        return false;
    }
}

/* The entries of the directory X (open as d), in byte order, each handled
 * on its own; looked at beneath X's descriptor (one name to resolve, not
 * the whole path) where readdir's answer is not enough. */
static void grant_minus_entries(struct llp *L, const char *x, DIR *d,
                                uint64_t access, bool read_kind, int depth)
{
    struct ll_dent *v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    struct stat xst;
    int err;
    dev_t xdev = fstat(dirfd(d), &xst) == 0 && ll_dent_fs(dirfd(d)) ? xst.st_dev
                                                                    : 0;
    while ((de = cp_rt_readdir(d, &err))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = cp_xrealloc(v, cap * sizeof *v);
        }
        v[n].name = cp_xstrdup(de->d_name);
        v[n].type = xdev ? de->d_type : DT_UNKNOWN;
        v[n].ino = de->d_ino;
        n++;
    }
    if (err) { /* the entries not read would go ungranted, silently */
        errno = err;
        ll_io_error(L, x);
    }
    /* Sorted: the plan does not depend on directory order. */
    if (n > 1)
        qsort(v, n, sizeof *v, ll_dent_cmp);
    for (size_t i = 0; i < n; i++) {
        char *child = cp_rt_path_child(x, v[i].name);
        struct stat cst;
        if (L->overflow) {
            /* nothing more is granted */
        } else if (ll_dent_stat(L, child, &v[i], xdev, read_kind, &cst)) {
            grant_minus_st(L, child, &cst, true, access, read_kind, depth + 1);
        } else if (fstatat(dirfd(d), v[i].name, &cst, AT_SYMLINK_NOFOLLOW) <
                   0) {
            ll_io_error(L, child);
        } else {
            grant_minus_st(L, child, &cst, false, access, read_kind, depth + 1);
        }
        free(child);
        free(v[i].name);
    }
    free(v);
}

/* grant_minus of X as `sp` (its lstat, or with `dent` its directory
 * entry) shows it. */
static void grant_minus_st(struct llp *L, const char *x, const struct stat *sp,
                           bool dent, uint64_t access, bool read_kind,
                           int depth)
{
    if (L->overflow)
        return;
    struct stat st = *sp;
    if (S_ISLNK(st.st_mode))
        return; /* a link: access through it is checked at its target */
    if (read_kind && !strcmp(x, "/dev")) {
        /* Never the host's /dev wholesale (disks, memory): the names, and
         * the devices bwrap's --dev gives. */
        grant(L, "/dev", &st, LL_READ_DIR);
        return;
    }
    int rel = target_rel(L, x, read_kind);
    if (rel == 2)
        return;
    for (size_t i = 0;
         !read_kind && depth && i < sizeof pseudo_fs / sizeof pseudo_fs[0]; i++)
        if (!strcmp(x, pseudo_fs[i])) {
            plan_note(&L->pl->notes,
                      "'%s' is not written through the write root above it "
                      "(bwrap gives the sandbox its own); name it to allow "
                      "writes there",
                      x);
            return;
        }
    if (rel == 0) {
        grant_id(L, x, &st,
                 S_ISDIR(st.st_mode) ? access : access & ~LL_DIR_ONLY, dent);
        return;
    }
    cp_rt_strv_push(read_kind ? &L->rsplit : &L->wsplit, x);
    DIR *d = opendir(x);
    if (!d) {
        ll_io_error(L, x);
        return;
    }
    grant_minus_entries(L, x, d, access, read_kind, depth);
    closedir(d);
}

/* The devices of bwrap's --dev that are not the user's: /dev/pts and
 * /dev/ptmx are not among them (the host's /dev/pts holds the user's other
 * terminals; ll_dev_grants adds the controlling one). */
static const char *const dev_nodes[] = {"/dev/null",    "/dev/zero",
                                        "/dev/full",    "/dev/random",
                                        "/dev/urandom", "/dev/tty"};

/* The controlling terminal's device number (field 7 of /proc/self/stat,
 * the kernel's new_encode_dev form); 0 when there is none. */
static dev_t ctty_dev(void)
{
    long tty = cp_rt_proc_stat_field(0, 5);
    if (tty <= 0)
        return 0;
    unsigned long u = (unsigned long)tty;
    return makedev((u >> 8) & 0xfffu, (u & 0xffu) | ((u >> 12) & 0xfff00u));
}

/* --dev /dev: the fixed devices, and the controlling terminal the command
 * inherits, by the name one of its standard descriptors has (a terminal
 * of the user's that is not the controlling one gets nothing). */
static void ll_dev_grants(struct llp *L)
{
    for (size_t i = 0; i < sizeof dev_nodes / sizeof dev_nodes[0]; i++)
        if (access(dev_nodes[i], F_OK) == 0)
            grant(L, dev_nodes[i], NULL, LL_DEV);
    dev_t ct = ctty_dev();
    char name[PATH_MAX] = "";
    for (int fd = 0; ct && fd <= 2 && !*name; fd++) {
        struct stat st;
        if (!isatty(fd) || ttyname_r(fd, name, sizeof name) != 0 ||
            !cp_rt_path_beneath("/dev", name) || stat(name, &st) < 0 ||
            !S_ISCHR(st.st_mode) || st.st_rdev != ct)
            name[0] = '\0';
    }
    if (*name)
        grant(L, name, NULL, LL_DEV);
    plan_note(&L->pl->notes,
              "no pseudo-terminal can be allocated (/dev/ptmx and /dev/pts "
              "are not granted: a new terminal's name is not known before it "
              "exists, and /dev/pts holds the user's other terminals); the "
              "controlling terminal%s%s and /dev/tty are reachable",
              *name ? " " : " (none)", name);
}

/* Namespace options: what they protect is said in the plan's notes. */
static const char *const ll_ns_opts[] = {
    "--unshare-user",       "--unshare-pid",    "--unshare-uts",
    "--unshare-cgroup-try", "--unshare-cgroup", "--disable-userns",
    "--die-with-parent",    "--new-session",    "--unshare-all",
    "--unshare-user-try",
};

/* The word of record i when it is an `arg` record, else NULL. */
static const char *ll_arg_at(const struct cp_rt_artifact *a, size_t i)
{
    return i < a->nrecs && a->recs[i].tag == CP_RT_T_ARG ? a->recs[i].f1 : NULL;
}

/* An option with values that has a Landlock meaning: the number of value
 * words it takes (0: not one of these). */
static size_t ll_arg_valued(struct llp *L, const char *o, const char *v1,
                            const char *v2)
{
    if (!strcmp(o, "--ro-bind") && v2 && !strcmp(v1, v2)) {
        if (!strcmp(v1, "/"))
            L->read_root = true;
        return 2; /* the host read-only: read access is granted anyway */
    }
    if (!strcmp(o, "--dev") && v1 && !strcmp(v1, "/dev")) {
        L->dev = true;
        return 1;
    }
    if (!strcmp(o, "--proc") && v1 && !strcmp(v1, "/proc"))
        return 1; /* the host's procfs: other processes are beyond ptrace (Landlock) */
    if (!strcmp(o, "--cap-drop") && v1 && !strcmp(v1, "ALL")) {
        L->pl->drop_caps = true;
        return 1;
    }
    if (!strcmp(o, "--chdir") && v1) {
        snprintf(L->chdir, sizeof L->chdir, "%s", v1);
        L->chdir_set = true;
        return 1;
    }
    return 0;
}

/* An option without values that has a Landlock meaning (or needs none). */
static bool ll_arg_flag(struct llp *L, const char *o)
{
    if (!strcmp(o, "--unshare-net")) {
        L->pl->net_deny = true;
        return true;
    }
    if (!strcmp(o, "--unshare-ipc")) {
        plan_note(&L->pl->notes,
                  "no IPC namespace: System V IPC and POSIX message queues of "
                  "the host stay reachable (bwrap: --unshare-ipc)");
        return true;
    }
    for (size_t i = 0; i < sizeof ll_ns_opts / sizeof ll_ns_opts[0]; i++)
        if (!strcmp(o, ll_ns_opts[i]))
            return true;
    return false;
}

/* Interprets the `arg` records: the options the bwrap backend emits have a
 * Landlock meaning; any other cannot be enforced here. */
static int ll_args(struct llp *L, const struct cp_rt_artifact *a)
{
    for (size_t i = 0; i < a->nrecs; i++) {
        const char *o = ll_arg_at(a, i);
        if (!o)
            continue;
        const char *v1 = ll_arg_at(a, i + 1);
        const char *v2 = v1 ? ll_arg_at(a, i + 2) : NULL;
        size_t used = ll_arg_valued(L, o, v1, v2);
        if (used) {
            i += used;
            continue;
        }
        if (ll_arg_flag(L, o))
            continue;
        int rc = ll_unenforceable(
            L, "the bwrap option '%s' has no Landlock lowering", o);
        if (rc)
            return rc;
    }
    return 0;
}

/* An exec entry reached through a symlink whose own location is writable
 * grants whatever the link is later pointed at: not granted (stricter). */
struct replaceable {
    const struct llp *L;
    char *link;
    size_t size;
};

static bool link_in_write_root(void *ctx, const char *link, const char *parent)
{
    const struct replaceable *r = ctx;
    for (size_t i = 0; i < r->L->wroots.n; i++)
        if (cp_rt_path_beneath(r->L->wroots.v[i], parent)) {
            snprintf(r->link, r->size, "%s", link);
            return true;
        }
    return false;
}

static bool replaceable_link(const struct llp *L, const char *path, char *link,
                             size_t size)
{
    struct replaceable r = {L, link, size};
    return cp_rt_path_links(path, link_in_write_root, &r);
}

/* Records the plan does not lower: read by the parser, or by ll_args. */
static bool ll_rec_skipped(const struct cp_rt_rec *r)
{
    return r->tag == CP_RT_T_HEADER || r->tag == CP_RT_T_PROFILE ||
           r->tag == CP_RT_T_FAIL || r->tag == CP_RT_T_PARAM ||
           r->tag == CP_RT_T_ARG || r->tag == CP_RT_T_END;
}

/* The record's path: its param's root joined with f2; NULL for a glob
 * record (its pattern is matched under the root). */
static char *ll_rec_path(const struct cp_rt_rec *r, const char *root)
{
    if (r->tag == CP_RT_T_MASKGLOB || r->tag == CP_RT_T_ROGLOB)
        return NULL;
    return cp_rt_path_join(root, r->f2);
}

/* A write root, kept at its canonical place; one reached through a
 * symlink is left read-only (said in a note). */
static int ll_write_root(struct llp *L, const char *path)
{
    int rc = 0;
    char *real = cp_rt_walk_real(path);
    if (real && strcmp(real, path))
        plan_note(
            &L->pl->notes,
            "write root '%s' resolves to '%s' through a symlink: "
            "left read-only (name '%s' in the policy to allow writes there)",
            path, real, real);
    else if (real)
        cp_rt_strv_push(&L->wroots, real);
    else if (errno == ENOENT || errno == ENOTDIR)
        cp_rt_strv_push(&L->wmissing, path);
    else
        rc = ll_unenforceable(L, "write root '%s': %s", path, strerror(errno));
    free(real);
    return rc;
}

/* A deny glob: each of its matches under root is a deny target. */
static int ll_deny_glob(struct llp *L, const struct cp_rt_rec *r,
                        const char *root)
{
    struct cp_rt_strv m;
    char *unread;
    int rc = 0, g = cp_rt_glob_matches(root, r->f2, &m, &unread);
    if (g < 0)
        rc = ll_unenforceable(
            L,
            "the glob '%s' under '%s' matches too many paths; use "
            "directory-level rules",
            r->f2, root);
    else if (g > 0)
        rc = ll_unenforceable(L,
                              "the glob '%s' under '%s' cannot be matched: "
                              "'%s' cannot be read (%s), and could hold a "
                              "match",
                              r->f2, root, unread, strerror(g));
    free(unread);
    for (size_t k = 0; !rc && k < m.n; k++)
        rc = deny_target(L, m.v[k], r->tag == CP_RT_T_MASKGLOB);
    cp_rt_strv_free(&m);
    return rc;
}

/* One filesystem record (BIND..EXEC).  An if-chain, not a switch: a
 * record type added later and not lowered here is refused by the caller's
 * range check, never skipped. */
static int ll_lower(struct llp *L, const struct cp_rt_rec *r, const char *root,
                    const char *path)
{
    if (r->tag == CP_RT_T_BIND)
        return ll_write_root(L, path);
    if (r->tag == CP_RT_T_PIN || r->tag == CP_RT_T_PINRO)
        return 0; /* grants follow inodes; the way to a carve-out cannot be renamed */
    if (r->tag == CP_RT_T_RO || r->tag == CP_RT_T_MASK)
        return deny_target(L, path, r->tag == CP_RT_T_MASK);
    if (r->tag == CP_RT_T_MASKGLOB || r->tag == CP_RT_T_ROGLOB)
        return ll_deny_glob(L, r, root);
    if (r->tag == CP_RT_T_EXEC)
        cp_rt_strv_push(&L->execs, path);
    return 0;
}

/* One record of the artifact: lowered, skipped, or refused. */
static int ll_record(struct llp *L, const struct cp_rt_rec *r, bool *net_noted)
{
    if (ll_rec_skipped(r))
        return 0;
    if (r->tag == CP_RT_T_NET) {
        /* The allow-list's rules are the proxy's (spec/runtime.md 14);
         * this enforcer does not start it yet, and --unshare-net
         * already denies every connection: stricter, said once. */
        if (!*net_noted)
            plan_note(
                &L->pl->notes,
                "network allow-list enforced as 'net deny' (stricter): "
                "the Landlock enforcer does not start the filtering proxy");
        *net_noted = true;
        return 0;
    }
    if (r->tag == CP_RT_T_SOCKET) {
        if (!L->pl->net_deny) /* a socket rule comes with a net rule */
            return cp_rt_fail(L->e, CP_RT_EXIT_ERROR,
                              "invalid artifact: 'socket' records without "
                              "--unshare-net");
        /* Without a network namespace the supervisor's IP answers would
         * reach the host; the filter keeps every Unix socket closed. */
        plan_note(&L->pl->partial,
                  "network: the Unix socket named at %s stays closed "
                  "(stricter): the Landlock enforcer refuses every Unix "
                  "socket",
                  r->f3);
        return 0;
    }
    if (r->tag < CP_RT_T_BIND || r->tag > CP_RT_T_EXEC)
        return ll_unenforceable(
            L, "the artifact record '%s' has no Landlock lowering",
            cp_rt_tag_name(r->tag));
    const char *root = "/";
    if (*r->f1 && !(root = cp_rt_params_get(L->params, r->f1)))
        return cp_rt_fail(L->e, CP_RT_EXIT_ERROR, "param %s is unbound", r->f1);
    char *path = ll_rec_path(r, root);
    int rc = ll_lower(L, r, root, path);
    free(path);
    return rc;
}

/* The filesystem rights the ruleset handles: ABI 1's and those probed. */
static uint64_t ll_handled(const struct cp_ll_features *f)
{
    uint64_t handled = LL_ABI1_FS;
    if (f->feat & CP_LL_F_REFER)
        handled |= LL_REFER;
    if (f->feat & CP_LL_F_TRUNCATE)
        handled |= LL_TRUNCATE;
    if (f->feat & CP_LL_F_IOCTL)
        handled |= LL_IOCTL_DEV;
    return handled;
}

/* EXECUTE on the exec entries, the command and their loaders, at their
 * canonical places; an entry behind a replaceable symlink is not granted. */
static void ll_exec_grants(struct llp *L, const char *cmd)
{
    struct cp_rt_strv xg = {0};
    cp_rt_exec_grants(L->execs.v, L->execs.n, cmd, &xg);
    for (size_t i = 0; i < xg.n; i++) {
        char link[PATH_MAX];
        if (access(xg.v[i], F_OK) < 0)
            continue; /* nothing to grant: fail closed */
        if (replaceable_link(L, xg.v[i], link, sizeof link)) {
            plan_note(&L->pl->notes,
                      "exec entry '%s' passes through the symlink '%s' in a "
                      "write root, which the sandbox could point elsewhere: "
                      "not granted "
                      "(name its target in the policy)",
                      xg.v[i], link);
            continue;
        }
        char *real = cp_rt_walk_real(xg.v[i]);
        if (real)
            grant(L, real, NULL, LL_EXECUTE);
        free(real);
    }
    cp_rt_strv_free(&xg);
}

/* Every grant: reading (minus deny-read targets), the devices, the write
 * roots (minus the carve-outs), execution. */
static void ll_grants(struct llp *L, const char *cmd)
{
    struct cp_ll_plan *pl = L->pl;
    pl->handled_fs = ll_handled(&pl->f);
    uint64_t read = LL_READ | (pl->exec_on ? 0 : LL_EXECUTE);
    if (L->read_root)
        grant_minus(L, "/", read, true, 0);
    if (L->dev)
        ll_dev_grants(L);
    for (size_t i = 0; i < L->wroots.n; i++)
        grant_minus(L, L->wroots.v[i], LL_WRITE, false, 0);
    if (pl->exec_on)
        ll_exec_grants(L, cmd);
}

/* What the grants made stricter than the policy. */
static void ll_stricter_notes(struct llp *L)
{
    struct cp_ll_plan *pl = L->pl;
    /* A missing write root gets no grant; beneath another write root the
     * sandbox may create it and write there, elsewhere it cannot. */
    for (size_t i = 0; i < L->wmissing.n; i++) {
        bool beneath = false;
        for (size_t k = 0; k < L->wroots.n && !beneath; k++)
            beneath = cp_rt_path_beneath(L->wroots.v[k], L->wmissing.v[i]);
        if (!beneath)
            plan_note(&pl->notes,
                      "write root '%s' does not exist: writing there is "
                      "denied (create it before the launch)",
                      L->wmissing.v[i]);
    }
    for (size_t i = 0; i < L->wsplit.n; i++)
        plan_note(
            &pl->notes,
            "'%s' lies on the way from a write root to a denied path: its "
            "existing entries are granted one by one; nothing can be created, "
            "removed or "
            "renamed directly in it",
            L->wsplit.v[i]);
    for (size_t i = 0; i < L->rsplit.n; i++)
        plan_note(&pl->notes,
                  "'%s' is an ancestor of a deny-read path (or of /dev, whose "
                  "devices are granted one by one): it cannot be listed, and "
                  "entries added to it later cannot be read",
                  L->rsplit.v[i]);
    for (size_t i = 0; i < L->nt; i++) {
        struct stat st;
        if (lstat(L->t[i].path, &st) < 0)
            plan_note(&pl->notes,
                      "missing deny target: '%s' cannot be created (nothing is "
                      "created on the host)",
                      L->t[i].path);
    }
    if (!(pl->f.feat & CP_LL_F_REFER) && L->wroots.n)
        plan_note(
            &pl->notes,
            "Landlock ABI %d has no REFER right: renaming or linking across "
            "directories fails everywhere",
            pl->f.abi);
}

/* What the kernel's ABI leaves to seccomp or undone, and what a namespace
 * did that is done otherwise. */
static void ll_abi_notes(struct cp_ll_plan *pl)
{
    const struct cp_ll_features *f = &pl->f;
    if (!(f->feat & CP_LL_F_TRUNCATE)) {
        pl->no_truncate = true;
        plan_note(
            &pl->notes,
            "Landlock ABI %d cannot deny truncation: truncate(2), openat2 and "
            "read-only opens with O_TRUNC are refused everywhere (seccomp)",
            f->abi);
    }
    if (f->feat & CP_LL_F_SCOPE)
        pl->scope = true;
    else
        plan_note(
            &pl->notes,
            "Landlock ABI %d cannot scope signals: processes of the same user "
            "outside the sandbox can be signalled (bwrap: pid namespace)",
            f->abi);
    if (!pl->net_deny)
        return;
    /* Filesystem Unix sockets (an ssh agent, the docker socket) are
     * outside the network too; Landlock's right for them is ABI 9,
     * which this runtime does not use yet: no Unix socket at all. */
    pl->unix_deny = true;
    plan_note(&pl->notes,
              "network: no Unix socket can be created (seccomp: filesystem "
              "sockets such as an ssh agent or the docker socket are beyond "
              "Landlock's "
              "ABI %d; stream socketpairs still work)%s",
              f->abi,
              f->feat & CP_LL_F_SCOPE
                  ? "; abstract Unix sockets are scoped as well"
                  : "");
    plan_note(&pl->notes,
              "network: no IP socket can be created (seccomp)%s; loopback "
              "inside the sandbox is gone too",
              f->feat & CP_LL_F_NET
                  ? " and TCP bind/connect are denied (Landlock)"
                  : "");
}

/* Partly enforced: said on every launch, -q or not. */
static void ll_partial_notes(struct cp_ll_plan *pl)
{
    plan_note(&pl->partial,
              "partly enforced: the mode bits (set-ID bits excepted), "
              "timestamps and extended "
              "attributes of the user's own files outside the write roots "
              "(carve-outs "
              "included) can still be changed: Landlock has no right for them "
              "(--enforcer bwrap enforces them)");
    if (pl->exec_on)
        plan_note(&pl->partial,
                  "partly enforced: the exec allow-list is Landlock's EXECUTE "
                  "right; `ld.so FILE`, interpreters and memfd execution run "
                  "readable files "
                  "outside it (an accident guard, as under bwrap)");
}

/* A deny-read target's metadata: Landlock has no right for stat, access,
 * readlink, getxattr or inotify, and without a mount namespace nothing
 * hides the name.  Looser than the policy, so refused (126) unless the
 * user allows it (--allow-unenforced, fail open): then one warning per
 * target.  spec/runtime.md §12.2. */
static int ll_read_metadata(struct llp *L)
{
    static const char
        what[] = "deny read '%s': Landlock withholds reading and listing only; "
                 "its metadata is not hidden: stat (size, times, owner, mode), "
                 "access, readlink (symlink targets), getxattr and listxattr "
                 "(extended attributes) and inotify (names of entries created, "
                 "changed or removed) work on it and beneath it (--enforcer "
                 "bwrap hides it; --allow-partial runs with it visible)";
    for (size_t i = 0; i < L->nt; i++) {
        if (!L->t[i].read)
            continue;
        if (L->partial_ok && !L->unenforced_ok) {
            /* Accepted with --allow-partial: said at every launch. */
            plan_note(&L->pl->partial, what, L->t[i].path);
            continue;
        }
        int rc = ll_unenforceable(L, what, L->t[i].path);
        if (rc)
            return rc;
    }
    return 0;
}

/* Frees the planner's own state (the plan keeps the grants and notes). */
static void ll_planner_free(struct llp *L)
{
    for (size_t i = 0; i < L->nt; i++)
        free(L->t[i].path);
    free(L->t);
    cp_rt_strv_free(&L->wroots);
    cp_rt_strv_free(&L->wmissing);
    cp_rt_strv_free(&L->execs);
    cp_rt_strv_free(&L->wsplit);
    cp_rt_strv_free(&L->rsplit);
}

/* Does statx say which files are mount roots (Linux 5.8)?  Without it an
 * entry's identity is taken by a look at it (ll_dent_stat). */
static bool ll_mount_root_attr(void)
{
    struct statx sx;
    return statx(AT_FDCWD, "/", AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) == 0 &&
           (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT);
}

int cp_ll_plan_build(struct cp_ll_plan *pl, const struct cp_rt_artifact *a,
                     const struct cp_rt_params *p,
                     const struct cp_ll_features *f, const char *cmd,
                     unsigned ok, struct cp_rt_err *e)
{
    memset(pl, 0, sizeof *pl);
    pl->f = *f;
    struct llp L = {.pl = pl,
                    .params = p,
                    .unenforced_ok = ok & CP_LL_OK_UNENFORCED,
                    .partial_ok = ok & (CP_LL_OK_UNENFORCED | CP_LL_OK_PARTIAL),
                    .e = e};
    int rc = ll_args(&L, a);
    pl->exec_on = a->has_exec;
    pl->mount_root_attr = ll_mount_root_attr();
    bool net_noted = false;
    for (size_t i = 0; i < a->nrecs && !rc; i++)
        rc = ll_record(&L, &a->recs[i], &net_noted);
    if (!rc)
        rc = ll_read_metadata(&L);
    if (!rc) {
        ll_grants(&L, cmd);
        if (L.io_err)
            rc = cp_rt_fail(e, CP_RT_EXIT_CANNOT,
                            "cannot enforce with Landlock: '%s': %s (its grant "
                            "cannot be planned)",
                            L.io_path, strerror(L.io_err));
        else if (L.overflow)
            rc = cp_rt_fail(
                e, CP_RT_EXIT_CANNOT,
                "cannot enforce with Landlock: the policy "
                "needs more than %d Landlock rules (carve-outs in large "
                "directories); use --enforcer bwrap",
                LL_MAX_GRANTS);
    }
    if (!rc) {
        ll_stricter_notes(&L);
        ll_abi_notes(pl);
        ll_partial_notes(pl);
    }
    ll_planner_free(&L);
    if (!rc && L.chdir_set)
        pl->chdir = cp_xstrdup(L.chdir);
    if (rc)
        cp_ll_plan_free(pl);
    return rc;
}

void cp_ll_plan_free(struct cp_ll_plan *pl)
{
    for (size_t i = 0; i < pl->ng; i++)
        free(pl->g[i].path);
    free(pl->g);
    cp_rt_strv_free(&pl->notes);
    cp_rt_strv_free(&pl->partial);
    cp_rt_strv_free(&pl->warnings);
    free(pl->chdir);
    memset(pl, 0, sizeof *pl);
}

static void rights_text(uint64_t a, char *buf, size_t size)
{
    static const char *const names[] = {
        "execute",    "write_file",  "read_file", "read_dir",
        "remove_dir", "remove_file", "make_char", "make_dir",
        "make_reg",   "make_sock",   "make_fifo", "make_block",
        "make_sym",   "refer",       "truncate",  "ioctl_dev"};
    size_t n = 0;
    buf[0] = '\0';
    /* The whole write set (as far as the ABI has it) in one word. */
    uint64_t tree = LL_MAKE_REG | LL_MAKE_DIR | LL_REMOVE_FILE | LL_REMOVE_DIR;
    if ((a & tree) == tree) {
        n += (size_t)snprintf(buf + n, size - n, "write");
        a &= ~LL_WRITE;
    }
    for (int i = 0; i < 16; i++)
        if (a & (1ULL << i))
            n += (size_t)snprintf(buf + n, size > n ? size - n : 0, "%s%s",
                                  n ? "," : "", names[i]);
}

static void cp_ll_plan_print(FILE *out, const struct cp_ll_plan *pl)
{
    char ft[256];
    cp_ll_features_text(&pl->f, ft, sizeof ft);
    fprintf(out, "landlock: %s\n", ft);
    for (size_t i = 0; i < pl->ng; i++) {
        char r[256];
        rights_text(pl->g[i].access & pl->handled_fs, r, sizeof r);
        fprintf(out, "grant %s %s\n", r, pl->g[i].path);
    }
    fprintf(out, "network: %s\n",
            !pl->net_deny ? "not restricted"
            : pl->f.feat & CP_LL_F_NET
                ? "denied (no IP socket; TCP bind/connect denied by Landlock)"
                : "denied (no IP socket)");
    fprintf(out, "scoped: %s\n",
            pl->scope
                ? (pl->net_deny ? "signals, abstract Unix sockets" : "signals")
                : "nothing (ABI < 6)");
    fprintf(out, "seccomp: %s%s%s%s\n", cp_rt_seccomp_text,
            pl->net_deny ? ", IP sockets refused" : "",
            pl->unix_deny ? ", Unix sockets refused" : "",
            pl->no_truncate ? ", truncation refused" : "");
    fprintf(out, "capabilities: %s\n", pl->drop_caps ? "all dropped" : "kept");
    for (size_t i = 0; i < pl->notes.n; i++)
        fprintf(out, "note: %s\n", pl->notes.v[i]);
    for (size_t i = 0; i < pl->partial.n; i++)
        fprintf(out, "warning: %s\n", pl->partial.v[i]);
    for (size_t i = 0; i < pl->warnings.n; i++)
        fprintf(out, "warning: %s\n", pl->warnings.v[i]);
}

/* ---- applying ----------------------------------------------------------------- */

static int drop_caps(void)
{
    for (int c = 0; c <= 63; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno == EINVAL)
            break; /* past the last capability */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3,
                                         .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* The directory of the grants being applied, open without following a
 * symlink at any component: the entries of a split directory follow each
 * other in the plan, and each is then opened beneath it by its one name
 * (O_NOFOLLOW) instead of by its whole path from "/". */
struct ll_parent {
    char path[PATH_MAX];
    int fd; /* -1: not open (or it could not be opened: errno in err) */
    int err;
};

static int ll_entry_mount(const struct ll_parent *pc, const char *name,
                          const struct cp_ll_grant *g);

/* g's path opened as cp_rt_reopen does, beneath the cached parent. */
static int ll_reopen(struct ll_parent *pc, const struct cp_ll_grant *g,
                     const struct stat *want)
{
    const char *path = g->path;
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (!slash || !slash[1] || n >= sizeof pc->path)
        return cp_rt_reopen(path, want);
    if (strncmp(pc->path, path, n) || pc->path[n] != '\0' ||
        (pc->fd < 0 && !pc->err)) {
        if (pc->fd >= 0)
            close(pc->fd);
        memcpy(pc->path, path, n);
        pc->path[n] = '\0';
        pc->fd = cp_rt_open_nofollow(n ? pc->path : "/", O_PATH | O_DIRECTORY);
        pc->err = pc->fd < 0 ? errno : 0;
    }
    if (pc->fd < 0) {
        errno = pc->err;
        return -1;
    }
    int fd = cp_rt_reopen_at(pc->fd, slash + 1, want);
    if (fd < 0 && errno == ESTALE && g->dirent_id)
        fd = ll_entry_mount(pc, slash + 1, g);
    return fd;
}

/* A grant planned from its directory entry (dirent_id) whose name now
 * holds another file: still the planned one when it is a mount root of
 * the planned type on another device than the directory's, which is what
 * a mount point shows (a rename cannot move a file across devices, and
 * statx tells a mount root from a btrfs subvolume, which can be renamed).
 * The descriptor, or -1 with errno ESTALE. */
static int ll_entry_mount(const struct ll_parent *pc, const char *name,
                          const struct cp_ll_grant *g)
{
    int fd = openat(pc->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct statx sx;
    if (fd < 0)
        return -1;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) ==
            0 &&
        (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
        (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
        (sx.stx_mode & S_IFMT) == g->type &&
        makedev(sx.stx_dev_major, sx.stx_dev_minor) != g->dev)
        return fd;
    close(fd);
    errno = ESTALE;
    return -1;
}

/* The descriptor of a planned grant in *fd: the path opened without
 * following a symlink at any component (spec/runtime.md §5), and still the
 * file the plan saw.  0 with *fd -1 when it is gone (nothing is granted:
 * fail closed); CP_RT_EXIT_CHANGED in e when it was replaced. */
static int ll_grant_fd(struct ll_parent *pc, const struct cp_ll_grant *g,
                       int *fd, struct cp_rt_err *e)
{
    struct stat want = {.st_dev = g->dev, .st_ino = g->ino, .st_mode = g->type};
    *fd = ll_reopen(pc, g, &want);
    if (*fd >= 0 || errno == ENOENT || errno == ENOTDIR)
        return 0;
    return cp_rt_fail(e, CP_RT_EXIT_CHANGED,
                      "'%s' changed since the launch was planned (%s): "
                      "another process replaced it; nothing was run",
                      g->path, cp_rt_changed_why(errno));
}

/* One grant added to the ruleset: 0 (also when the path is gone),
 * CP_RT_EXIT_CHANGED (replaced) or CP_RT_EXIT_CANNOT with e. */
static int ll_add_grant(int rs, struct ll_parent *pc,
                        const struct cp_ll_grant *g, uint64_t handled,
                        struct cp_rt_err *e)
{
    int fd;
    int rc = ll_grant_fd(pc, g, &fd, e);
    if (rc || fd < 0)
        return rc;
    uint64_t acc = g->access & handled;
    if (g->type != S_IFDIR)
        acc &= ~LL_DIR_ONLY;
    struct ll_path_beneath pb = {.allowed_access = acc, .parent_fd = fd};
    long r = acc ? syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &pb,
                           0)
                 : 0;
    int err = errno;
    close(fd);
    if (r < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock_add_rule '%s': %s",
                          g->path, strerror(err));
    return 0;
}

/* Restricts this process; returns 0 or fills e. */
static int ll_apply(const struct cp_ll_plan *pl, bool log, struct cp_rt_err *e)
{
    const struct cp_ll_features *f = &pl->f;
    struct ll_attr attr = {.handled_access_fs = pl->handled_fs};
    size_t size = 8;
    if (f->feat & CP_LL_F_NET) {
        size = 16;
        if (pl->net_deny)
            attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
    }
    if (f->feat & CP_LL_F_SCOPE) {
        size = 24;
        attr.scoped = LL_SCOPE_SIGNAL |
                      (pl->net_deny ? LL_SCOPE_ABSTRACT_UNIX : 0);
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock_create_ruleset: %s",
                          strerror(errno));
    struct ll_parent pc = {.fd = -1};
    for (size_t i = 0; i < pl->ng; i++) {
        int rc = ll_add_grant(rs, &pc, &pl->g[i], pl->handled_fs, e);
        if (rc) {
            if (pc.fd >= 0)
                close(pc.fd);
            close(rs);
            return rc;
        }
    }
    if (pc.fd >= 0)
        close(pc.fd);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        close(rs);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "PR_SET_NO_NEW_PRIVS: %s",
                          strerror(errno));
    }
    if (pl->drop_caps) {
        int r = drop_caps();
        if (r < 0) {
            close(rs);
            return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "dropping capabilities: %s",
                              strerror(-r));
        }
    }
    unsigned flags = log && (f->feat & CP_LL_F_LOG)
                         ? LL_RESTRICT_LOG_NEW_EXEC_ON
                         : 0;
    if (syscall(SYS_landlock_restrict_self, rs, flags) < 0) {
        int err = errno;
        close(rs);
        return cp_rt_fail(e, CP_RT_EXIT_CANNOT, "landlock_restrict_self: %s",
                          strerror(err));
    }
    close(rs);
    struct cp_ll_seccomp so = {.net_deny = pl->net_deny,
                               .inet_tcp_ok = false,
                               .unix_deny = pl->unix_deny,
                               .no_truncate = pl->no_truncate};
    return cp_ll_seccomp_install(&so, e);
}

/* Placeholders are only planned by a dry run, never created. */
static int dry_placeholder(void *ctx, const char *path)
{
    (void)ctx;
    (void)path;
    return 0;
}

static int dry_run_bwrap(const struct cp_rt_artifact *a,
                         const struct cp_rt_params *p,
                         const struct cp_rt_launch *l)
{
    struct cp_rt_host host = {.make_placeholder = dry_placeholder};
    struct cp_rt_plan pl;
    struct cp_rt_err e = {0};
    if (cp_rt_plan_build(&pl, a, p, &host, a->fail_open || l->allow_unenforced,
                         &e)) {
        cp_rt_eprintf("%s: %s\n", l->prog, e.msg);
        return e.status;
    }
    int abi = cp_rt_landlock_abi();
    if (pl.exec_on)
        printf("landlock (exec allow-list, inside the sandbox): %s%d\n",
               abi >= 1 ? "ABI " : "unavailable: ", abi >= 1 ? abi : -abi);
    printf("bwrap words:");
    for (size_t i = 0; i < pl.words.n; i++)
        printf(" %s", pl.words.v[i]);
    putchar('\n');
    for (size_t i = 0; i < pl.exec.n; i++)
        printf("exec %s\n", pl.exec.v[i]);
    for (size_t i = 0; i < pl.verify_ro.n; i++)
        printf("verify read-only %s\n", pl.verify_ro.v[i]);
    printf("seccomp: %s\n", cp_rt_seccomp_text);
    for (size_t i = 0; i < pl.placeholders.n; i++)
        printf("placeholder (created for the run, removed after) %s\n",
               pl.placeholders.v[i]);
    for (size_t i = 0; i < pl.stricter.n; i++)
        printf("note: %s\n", pl.stricter.v[i]);
    for (size_t i = 0; i < pl.warnings.n; i++)
        printf("warning: %s\n", pl.warnings.v[i]);
    cp_rt_plan_free(&pl);
    return 0;
}

/* The plan's notes (unless quiet), what is partly enforced and what is
 * not enforced, on stderr before the command starts. */
static void ll_say_plan(const char *prog, const struct cp_ll_plan *pl,
                        bool quiet, const char *open_why)
{
    if (!quiet)
        for (size_t i = 0; i < pl->notes.n; i++)
            cp_rt_eprintf("%s: note: landlock: %s\n", prog, pl->notes.v[i]);
    for (size_t i = 0; i < pl->partial.n; i++)
        cp_rt_warn(prog, "landlock: %s", pl->partial.v[i]);
    for (size_t i = 0; i < pl->warnings.n; i++)
        cp_rt_warn(prog, "%s (%s)", pl->warnings.v[i], open_why);
}

/* Runs the command in the restricted process; returns only on failure,
 * with the launcher's exit status. */
static int ll_exec(const char *prog, char *const cmd[], bool exec_on)
{
    execvp(cmd[0], cmd);
    int err = errno;
    if (err == ENOENT) {
        cp_rt_eprintf("%s: %s: command not found\n", prog, cmd[0]);
        return CP_RT_EXIT_NOTFOUND;
    }
    cp_rt_eprintf("%s: cannot execute %s: %s%s\n", prog, cmd[0], strerror(err),
                  err == EACCES && exec_on ? " (is it in the exec allow-list?)"
                                           : "");
    return CP_RT_EXIT_CANNOT;
}

/* What the supervised child needs to start the command. */
struct ll_start {
    const struct cp_rt_launch *l;
    struct cp_ll_plan *pl;
    bool open_ok;
    const char *open_why;
};

static int ll_start_child(void *ctx);

/* Plans, then starts CMD in a supervised child that applies the plan to
 * itself (spec/runtime.md §12, "Process lifetime"). */
static int cp_rt_run_landlock(const struct cp_rt_artifact *a,
                              const struct cp_rt_params *p,
                              const struct cp_rt_launch *l)
{
    const char *prog = l->prog;
    bool open_ok = a->fail_open || l->allow_unenforced;
    const char *open_why = l->allow_unenforced ? "--allow-unenforced"
                                               : "'fail open' in the policy";
    struct cp_ll_features f;
    cp_ll_probe(&f);
    if (f.abi < 1) {
        char ft[256];
        cp_ll_features_text(&f, ft, sizeof ft);
        if (!open_ok || l->dry_run) {
            cp_rt_eprintf(
                "%s: cannot enforce the policy: Landlock is %s; refusing "
                "to run (use "
                "--allow-unenforced to run unconfined)\n",
                prog, ft);
            return CP_RT_EXIT_CANNOT;
        }
        cp_rt_warn(prog,
                   "cannot enforce the policy (Landlock is %s): running %s "
                   "UNCONFINED (%s)",
                   ft, l->cmd[0], open_why);
        return cp_rt_exec_unconfined(prog, l->cmd);
    }
    struct cp_ll_plan pl;
    struct cp_rt_err e = {0};
    unsigned ok = (open_ok ? CP_LL_OK_UNENFORCED : 0) |
                  (l->allow_partial ? CP_LL_OK_PARTIAL : 0);
    if (cp_ll_plan_build(&pl, a, p, &f, l->cmd[0], ok, &e)) {
        cp_rt_eprintf("%s: %s%s\n", prog, e.msg,
                      e.status == CP_RT_EXIT_CANNOT
                          ? "; refusing to run (use --allow-unenforced to "
                            "run anyway)"
                          : "");
        return e.status;
    }
    if (l->dry_run) {
        cp_ll_plan_print(stdout, &pl);
        cp_ll_plan_free(&pl);
        return 0;
    }
    ll_say_plan(prog, &pl, l->quiet, open_why);
    struct ll_start st = {.l = l,
                          .pl = &pl,
                          .open_ok = open_ok,
                          .open_why = open_why};
    int rc = cp_rt_supervise(ll_start_child, &st, prog);
    cp_ll_plan_free(&pl);
    return rc;
}

/* The child of cp_rt_supervise: applies the plan to itself and execs the
 * command (returns only on failure, with the status to exit with). */
static int ll_start_child(void *ctx)
{
    const struct ll_start *st = ctx;
    const struct cp_rt_launch *l = st->l;
    const char *prog = l->prog;
    struct cp_ll_plan *plp = st->pl;
    struct cp_rt_err e = {0};
    if (ll_apply(plp, l->explain, &e)) {
        if (!st->open_ok || e.status != CP_RT_EXIT_CANNOT) {
            cp_rt_eprintf(
                "%s: cannot enforce the policy: %s; refusing to run (use "
                "--allow-unenforced to run unconfined)\n",
                prog, e.msg);
            return e.status;
        }
        /* Nothing was restricted unless restrict_self succeeded; a failed
         * seccomp install leaves Landlock on, which only denies more. */
        cp_rt_warn(prog,
                   "cannot enforce the policy (%s): running %s with what was "
                   "applied (%s)",
                   e.msg, l->cmd[0], st->open_why);
        return cp_rt_exec_unconfined(prog, l->cmd);
    }
    if (plp->chdir && chdir(plp->chdir) < 0) {
        cp_rt_eprintf("%s: cannot change to '%s': %s\n", prog, plp->chdir,
                      strerror(errno));
        return CP_RT_EXIT_CANNOT;
    }
    return ll_exec(prog, l->cmd, plp->exec_on);
}

/* ---- choosing the enforcer --------------------------------------------------- */

int cp_rt_enforcer_parse(const char *s, enum cp_rt_enforcer *out)
{
    if (!strcmp(s, "auto"))
        *out = CP_RT_ENF_AUTO;
    else if (!strcmp(s, "bwrap"))
        *out = CP_RT_ENF_BWRAP;
    else if (!strcmp(s, "landlock"))
        *out = CP_RT_ENF_LANDLOCK;
    else
        return -1;
    return 0;
}

int cp_rt_bwrap_probe(const char *bwrap, char *why, size_t size)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) < 0) {
        snprintf(why, size, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = cp_rt_fork();
    if (pid == 0) {
        dup2(ep[1], 1);
        dup2(ep[1], 2);
        char *argv[] = {"bwrap",
                        "--ro-bind",
                        "/",
                        "/",
                        "--unshare-user",
                        "--unshare-pid",
                        "--unshare-net",
                        "--die-with-parent",
                        "--",
                        "/bin/true",
                        NULL};
        execve(bwrap, argv, environ);
        _exit(127);
    }
    close(ep[1]);
    char text[4096];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof text - 1 &&
           (n = read(ep[0], text + len, sizeof text - 1 - len)) > 0)
        len += (size_t)n;
    text[len] = '\0';
    close(ep[0]);
    int ws = 0;
    while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        return 0;
    snprintf(why, size, "%s", len ? strtok(text, "\n") : "no error text");
    return -1;
}

/* What choosing Landlock changes, in one line. */
static const char ll_changes[] = "no namespaces: carve-outs and deny-read "
                                 "paths are made by granting around them "
                                 "(their parents cannot gain new entries), "
                                 "missing deny targets cannot be created, "
                                 "nothing is mounted or created on the host";

int cp_rt_run(const struct cp_rt_artifact *a, const struct cp_rt_params *p,
              struct cp_rt_launch *l)
{
    if (l->dry_run) {
        char why[512] = "";
        bool use_bwrap = l->enforcer == CP_RT_ENF_BWRAP;
        if (l->enforcer == CP_RT_ENF_AUTO) {
            char *bwrap = cp_rt_find_bwrap();
            if (!bwrap)
                snprintf(why, sizeof why,
                         "bubblewrap (bwrap) is not installed");
            use_bwrap = bwrap && cp_rt_bwrap_probe(bwrap, why, sizeof why) == 0;
            free(bwrap);
            printf("enforcer: %s (auto: %s)\n",
                   use_bwrap ? "bwrap" : "landlock",
                   use_bwrap ? "bwrap can create its namespaces" : why);
        } else {
            printf("enforcer: %s\n", use_bwrap ? "bwrap" : "landlock");
        }
        return use_bwrap ? dry_run_bwrap(a, p, l) : cp_rt_run_landlock(a, p, l);
    }
    /* The caller's descriptors stay with the caller (spec/runtime.md §6):
     * none but 0-2 and --keep-fd reaches the sandbox, the proxy or the
     * janitor. */
    if (cp_rt_close_inherited(l->keep, l->nkeep) < 0) {
        cp_rt_eprintf("%s: cannot close the inherited descriptors: %s\n",
                      l->prog, strerror(errno));
        return CP_RT_EXIT_CANNOT;
    }
    if (l->enforcer == CP_RT_ENF_LANDLOCK)
        return cp_rt_run_landlock(a, p, l);
    if (l->enforcer == CP_RT_ENF_BWRAP)
        return cp_rt_run_bwrap(a, p, l);
    char why[600] = "";
    l->fallback_why = why;
    l->fallback_why_size = sizeof why;
    int rc = cp_rt_run_bwrap(a, p, l);
    l->fallback_why = NULL;
    if (rc != CP_RT_FALLBACK)
        return rc;
    if (!l->quiet)
        cp_rt_eprintf("%s: enforcer: landlock (auto: %s); %s\n", l->prog, why,
                      ll_changes);
    return cp_rt_run_landlock(a, p, l);
}

/* SPDX-License-Identifier: MIT */
/* confpol claude --whole: the watch over the client's automatic memory
 * (CONFIG/projects/NAME/memory/).  The client must write CONFIG/projects
 * (its transcripts), so the agent can write there too, and a later
 * session, run outside any confinement, loads the memory files of its
 * project.  A denied glob cannot be a mount inside a write root, so
 * every memory file is copied before the session (into confpol's own
 * directory, which the policy denies to the agent) and compared after
 * it: whatever is new, changed or gone is put back and said, the
 * client's own writes too, since the client and the agent cannot be told
 * apart (spec/settings-wiring.md, "--whole").  Symbolic links are
 * never followed: every access is relative to a directory opened
 * O_NOFOLLOW. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* What is copied at most: beyond it confpol refuses to start. */
#define CP_MEM_MAX_ENTRIES 10000
#define CP_MEM_MAX_BYTES (64u << 20)
/* Directories deeper than this are not walked (said, and refused). */
#define CP_MEM_MAX_DEPTH 64

#define CP_MEM_DIRFLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* One entry of the copy: its name under projects/, its type ('F' file,
 * 'D' directory, 'L' symbolic link, 'O' other), its mode and its data
 * (a file's content, a link's target). */
struct cp_ment {
    char type;
    bool seen, redo;
    unsigned mode;
    char *name;
    const char *data;
    size_t dlen;
};

/* One walk: the copy being made or checked, and what came of it. */
struct cp_mem {
    const char *root; /* CONFIG/projects, for the messages */
    struct cp_buf snap;
    size_t entries, bytes;
    struct cp_ment *e;
    size_t n;
    int back;
    bool over, err;
};

static void cp_mem_fail(struct cp_mem *m, const char *name, const char *what)
{
    fprintf(stderr, "confpol claude: %s/%s: %s\n", m->root, name, what);
    m->err = true;
}

static int cp_mem_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted (NULL-terminated, heap). */
static char **cp_mem_names(int fd)
{
    int d = dup(fd);
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    size_t n = 0, cap = 8;
    char **v = cp_xmalloc(cap * sizeof *v);
    if (!dir) {
        if (d >= 0)
            close(d);
        v[0] = NULL;
        return v;
    }
    rewinddir(dir);
    const struct dirent *de;
    while ((de = readdir(dir))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (n + 1 >= cap)
            v = cp_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = cp_xstrdup(de->d_name);
    }
    closedir(dir);
    qsort(v, n, sizeof *v, cp_mem_cmp);
    v[n] = NULL;
    return v;
}

static void cp_mem_names_free(char **v)
{
    for (size_t i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}

static char cp_mem_type(mode_t mode)
{
    if (S_ISREG(mode))
        return 'F';
    if (S_ISDIR(mode))
        return 'D';
    return S_ISLNK(mode) ? 'L' : 'O';
}

/* Reads a regular file (not following a link, not blocking on a FIFO
 * put in its place) into OUT; at most LIMIT bytes. */
static bool cp_mem_slurp(int dirfd, const char *base, size_t limit,
                         struct cp_buf *out)
{
    int fd = openat(dirfd, base,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    char chunk[65536];
    ssize_t r = 0;
    while (out->len <= limit && (r = read(fd, chunk, sizeof chunk)) > 0)
        cp_buf_add(out, chunk, (size_t)r);
    close(fd);
    return r >= 0 && out->len <= limit;
}

/* A link's target (heap; NULL when it cannot be read). */
static char *cp_mem_link(int dirfd, const char *base, size_t *len)
{
    char t[4096];
    ssize_t r = readlinkat(dirfd, base, t, sizeof t);
    if (r < 0 || (size_t)r >= sizeof t)
        return NULL;
    *len = (size_t)r;
    char *s = cp_xmalloc((size_t)r + 1);
    memcpy(s, t, (size_t)r);
    s[r] = '\0';
    return s;
}

/* ---- the copy before the session ---- */

/* Appends one entry to the copy: "T MODE NAMELEN DATALEN\n" NAME DATA. */
static void cp_mem_put(struct cp_mem *m, char type, unsigned mode,
                       const char *name, const char *data, size_t dlen)
{
    if (++m->entries > CP_MEM_MAX_ENTRIES ||
        (m->bytes += dlen) > CP_MEM_MAX_BYTES) {
        m->over = true;
        return;
    }
    cp_buf_printf(&m->snap, "%c %o %zu %zu\n", type, mode, strlen(name), dlen);
    cp_buf_adds(&m->snap, name);
    if (dlen)
        cp_buf_add(&m->snap, data, dlen);
}

static void cp_mem_rec_dir(struct cp_mem *m, int fd, const char *rel,
                           int depth);

static void cp_mem_rec(struct cp_mem *m, int dirfd, const char *base,
                       const char *name, int depth)
{
    struct stat st;
    if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        cp_mem_fail(m, name, strerror(errno));
        return;
    }
    char t = cp_mem_type(st.st_mode);
    unsigned mode = (unsigned)st.st_mode & 07777;
    struct cp_buf data = {0};
    char *link = NULL;
    size_t llen = 0;
    if (t == 'F' && !cp_mem_slurp(dirfd, base, CP_MEM_MAX_BYTES, &data)) {
        if (data.len > CP_MEM_MAX_BYTES)
            m->over = true;
        else
            cp_mem_fail(m, name, "cannot be read");
    } else if (t == 'L' && !(link = cp_mem_link(dirfd, base, &llen)))
        cp_mem_fail(m, name, "cannot be read");
    cp_mem_put(m, t, mode, name, link ? link : data.data,
               link ? llen : data.len);
    free(link);
    cp_buf_free(&data);
    if (t != 'D' || m->over || m->err)
        return;
    int fd = openat(dirfd, base, CP_MEM_DIRFLAGS);
    if (fd < 0 || depth >= CP_MEM_MAX_DEPTH)
        cp_mem_fail(m, name, fd < 0 ? strerror(errno) : "too deep");
    else
        cp_mem_rec_dir(m, fd, name, depth + 1);
    if (fd >= 0)
        close(fd);
}

static void cp_mem_rec_dir(struct cp_mem *m, int fd, const char *rel, int depth)
{
    char **v = cp_mem_names(fd);
    for (size_t i = 0; v[i] && !m->over && !m->err; i++) {
        struct cp_buf name = {0};
        cp_buf_printf(&name, "%s/%s", rel, v[i]);
        cp_mem_rec(m, fd, v[i], name.data, depth);
        cp_buf_free(&name);
    }
    cp_mem_names_free(v);
}

/* Calls FN on each watched entry directly in projects/: a link there
 * (it would redirect a project's memory) and each NAME/memory. */
typedef void cp_mem_fn(struct cp_mem *m, int dirfd, const char *base,
                       const char *name, int depth);

static void cp_mem_projects(struct cp_mem *m, int pfd, cp_mem_fn *fn)
{
    char **v = cp_mem_names(pfd);
    for (size_t i = 0; v[i] && !m->over; i++) {
        struct stat st;
        if (fstatat(pfd, v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            fn(m, pfd, v[i], v[i], 0);
            continue;
        }
        int fd = S_ISDIR(st.st_mode) ? openat(pfd, v[i], CP_MEM_DIRFLAGS) : -1;
        if (fd >= 0 && fstatat(fd, "memory", &st, AT_SYMLINK_NOFOLLOW) == 0) {
            struct cp_buf name = {0};
            cp_buf_printf(&name, "%s/memory", v[i]);
            fn(m, fd, "memory", name.data, 0);
            cp_buf_free(&name);
        }
        if (fd >= 0)
            close(fd);
    }
    cp_mem_names_free(v);
}

/* ---- the check after it ---- */

static int cp_mem_ecmp(const void *a, const void *b)
{
    return strcmp(((const struct cp_ment *)a)->name,
                  ((const struct cp_ment *)b)->name);
}

/* One number of a header, then SEP; false when it is not one. */
static bool cp_mem_num(const char **p, int base, char sep, size_t *v)
{
    char *end;
    if (**p < '0' || **p > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(*p, &end, base);
    if (errno || *end != sep)
        return false;
    *v = (size_t)x;
    *p = end + 1;
    return true;
}

/* One header "T MODE NAMELEN DATALEN\n" at P (before END, the buffer
 * NUL-terminated after it); its length, 0 when it is not one. */
static size_t cp_mem_header(const char *p, const char *end, char *t,
                            unsigned *mode, size_t *nl, size_t *dl)
{
    const char *q = p + 2, *eol = memchr(p, '\n', (size_t)(end - p));
    size_t m = 0;
    if (!eol || eol - p < 8 || p[1] != ' ' || !p[0] || !strchr("FDLO", p[0]) ||
        !cp_mem_num(&q, 8, ' ', &m) || !cp_mem_num(&q, 10, ' ', nl) ||
        !cp_mem_num(&q, 10, '\n', dl) || q != eol + 1)
        return 0;
    *t = p[0];
    *mode = (unsigned)m & 07777;
    return (size_t)(q - p);
}

static bool cp_mem_parse(struct cp_mem *m, const struct cp_buf *b)
{
    size_t cap = 0;
    const char *p = b->data, *end = b->data + b->len;
    while (p < end) {
        char t;
        unsigned mode;
        size_t nl, dl, used = cp_mem_header(p, end, &t, &mode, &nl, &dl);
        if (!used || (size_t)(end - p) - used < nl ||
            (size_t)(end - p) - used - nl < dl)
            return false;
        p += used;
        if (m->n == cap)
            m->e = cp_xrealloc(m->e, (cap = cap * 2 + 16) * sizeof *m->e);
        struct cp_ment *e = &m->e[m->n++];
        *e = (struct cp_ment){t,      false, false, mode, cp_xmalloc(nl + 1),
                              p + nl, dl};
        memcpy(e->name, p, nl);
        e->name[nl] = '\0';
        p += nl + dl;
    }
    if (m->n)
        qsort(m->e, m->n, sizeof *m->e, cp_mem_ecmp);
    return true;
}

static struct cp_ment *cp_mem_find(struct cp_mem *m, const char *name)
{
    struct cp_ment key = {.name = (char *)name};
    return m->n ? bsearch(&key, m->e, m->n, sizeof *m->e, cp_mem_ecmp) : NULL;
}

/* Removes what is under a directory, links not followed. */
static bool cp_mem_rm_tree(int fd, int depth)
{
    char **v = cp_mem_names(fd);
    bool ok = depth < CP_MEM_MAX_DEPTH;
    for (size_t i = 0; v[i] && ok; i++) {
        struct stat st;
        if (fstatat(fd, v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(fd, v[i], CP_MEM_DIRFLAGS);
            ok = sub >= 0 && cp_mem_rm_tree(sub, depth + 1);
            if (sub >= 0)
                close(sub);
        }
        ok = ok &&
             unlinkat(fd, v[i], S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) == 0;
    }
    cp_mem_names_free(v);
    return ok;
}

static bool cp_mem_remove(int dirfd, const char *base, const struct stat *st)
{
    if (!S_ISDIR(st->st_mode))
        return unlinkat(dirfd, base, 0) == 0;
    int fd = openat(dirfd, base, CP_MEM_DIRFLAGS);
    bool ok = fd >= 0 && cp_mem_rm_tree(fd, 0);
    if (fd >= 0)
        close(fd);
    return ok && unlinkat(dirfd, base, AT_REMOVEDIR) == 0;
}

/* Writes a file whole under a new name, then renames it over BASE: the
 * name is replaced, never written through (a hard link, a FIFO). */
static bool cp_mem_write(int dirfd, const char *base, const struct cp_ment *e)
{
    char tmp[64];
    static unsigned seq;
    snprintf(tmp, sizeof tmp, ".confpol-memory.%ld.%u", (long)getpid(), seq++);
    int fd = openat(dirfd, tmp,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    size_t off = 0;
    while (off < e->dlen) {
        ssize_t w = write(fd, e->data + off, e->dlen - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    bool ok = off == e->dlen && fchmod(fd, (mode_t)e->mode) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && renameat(dirfd, tmp, dirfd, base) == 0)
        return true;
    unlinkat(dirfd, tmp, 0);
    return false;
}

/* Makes entry E again as BASE in DIRFD. */
static bool cp_mem_make(int dirfd, const char *base, const struct cp_ment *e)
{
    switch (e->type) {
    case 'F':
        return cp_mem_write(dirfd, base, e);
    case 'D':
        return mkdirat(dirfd, base, (mode_t)e->mode) == 0 || errno == EEXIST;
    case 'L': {
        char *t = cp_xmalloc(e->dlen + 1);
        memcpy(t, e->data, e->dlen);
        t[e->dlen] = '\0';
        bool ok = symlinkat(t, dirfd, base) == 0;
        free(t);
        return ok;
    }
    default:
        errno = ENOTSUP;
        return false;
    }
}

static bool cp_mem_same_file(int dirfd, const char *base, const struct stat *st,
                             const struct cp_ment *e)
{
    if ((size_t)st->st_size != e->dlen ||
        ((unsigned)st->st_mode & 07777) != e->mode)
        return false;
    struct cp_buf now = {0};
    bool same = cp_mem_slurp(dirfd, base, e->dlen, &now) &&
                now.len == e->dlen &&
                (e->dlen == 0 || memcmp(now.data, e->data, e->dlen) == 0);
    cp_buf_free(&now);
    return same;
}

static bool cp_mem_same_link(int dirfd, const char *base,
                             const struct cp_ment *e)
{
    size_t len = 0;
    char *t = cp_mem_link(dirfd, base, &len);
    bool same = t && len == e->dlen && memcmp(t, e->data, len) == 0;
    free(t);
    return same;
}

static void cp_mem_said(struct cp_mem *m, const char *name, const char *what)
{
    fprintf(stderr,
            "confpol claude: %s/%s: the session %s the automatic memory a "
            "later session loads: put back\n",
            m->root, name, what);
    m->back++;
}

static void cp_mem_chk_dir(struct cp_mem *m, int fd, const char *rel,
                           int depth);

/* An entry of the same type as before: compared, and put back. */
static void cp_mem_chk_same(struct cp_mem *m, int dirfd, const char *base,
                            const struct stat *st, struct cp_ment *e, int depth)
{
    if (e->type == 'F' && !cp_mem_same_file(dirfd, base, st, e)) {
        if (!cp_mem_write(dirfd, base, e))
            cp_mem_fail(m, e->name, strerror(errno));
        cp_mem_said(m, e->name, "changed this file of");
    } else if (e->type == 'L' && !cp_mem_same_link(dirfd, base, e)) {
        if (unlinkat(dirfd, base, 0) != 0 || !cp_mem_make(dirfd, base, e))
            cp_mem_fail(m, e->name, strerror(errno));
        cp_mem_said(m, e->name, "changed this link of");
    } else if (e->type == 'D') {
        int fd = openat(dirfd, base, CP_MEM_DIRFLAGS);
        if (fd < 0 || depth >= CP_MEM_MAX_DEPTH)
            cp_mem_fail(m, e->name, fd < 0 ? strerror(errno) : "too deep");
        else
            cp_mem_chk_dir(m, fd, e->name, depth + 1);
        if (fd >= 0)
            close(fd);
    }
}

static void cp_mem_chk(struct cp_mem *m, int dirfd, const char *base,
                       const char *name, int depth)
{
    struct stat st;
    if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return; /* gone: made again below */
    struct cp_ment *e = cp_mem_find(m, name);
    if (e && e->type == cp_mem_type(st.st_mode)) {
        e->seen = true;
        cp_mem_chk_same(m, dirfd, base, &st, e, depth);
        return;
    }
    if (!cp_mem_remove(dirfd, base, &st))
        cp_mem_fail(m, name, strerror(errno));
    if (e) /* replaced by another type: made again below */
        e->redo = true;
    cp_mem_said(m, name, e ? "replaced this entry of" : "added this to");
}

static void cp_mem_chk_dir(struct cp_mem *m, int fd, const char *rel, int depth)
{
    char **v = cp_mem_names(fd);
    for (size_t i = 0; v[i]; i++) {
        struct cp_buf name = {0};
        cp_buf_printf(&name, "%s/%s", rel, v[i]);
        cp_mem_chk(m, fd, v[i], name.data, depth);
        cp_buf_free(&name);
    }
    cp_mem_names_free(v);
}

/* Opens the directory that holds NAME (its last component in *base),
 * never through a link; the project's directory is made when gone. */
static int cp_mem_parent(int pfd, char *name, const char **base)
{
    int fd = dup(pfd);
    char *p = name, *slash;
    bool first = true;
    while (fd >= 0 && (slash = strchr(p, '/'))) {
        *slash = '\0';
        int sub = openat(fd, p, CP_MEM_DIRFLAGS);
        if (sub < 0 && errno == ENOENT && first && mkdirat(fd, p, 0700) == 0)
            sub = openat(fd, p, CP_MEM_DIRFLAGS);
        *slash = '/';
        close(fd);
        fd = sub;
        p = slash + 1;
        first = false;
    }
    *base = p;
    return fd;
}

/* What was there before and is gone (or was replaced) is made again,
 * parents first (the entries are sorted). */
static void cp_mem_restore(struct cp_mem *m, int pfd)
{
    for (size_t i = 0; i < m->n; i++) {
        struct cp_ment *e = &m->e[i];
        if (e->seen)
            continue;
        if (e->type == 'O') { /* a FIFO or a device is not made again */
            fprintf(stderr,
                    "confpol claude: %s/%s: gone after the session, and not "
                    "made again (not a file, directory or link)\n",
                    m->root, e->name);
            continue;
        }
        const char *base;
        int fd = cp_mem_parent(pfd, e->name, &base);
        if (fd < 0 || !cp_mem_make(fd, base, e))
            cp_mem_fail(m, e->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (!e->redo)
            cp_mem_said(m, e->name, "removed this from");
    }
}

/* ---- begin and end ---- */

static char *cp_mem_path(const char *dir, const char *leaf)
{
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%s/%s", dir, leaf);
    return b.data;
}

/* CONFIG/projects opened without following a link (-1: not there; -2:
 * a link or not a directory, said). */
static int cp_mem_open_projects(const char *root, bool make)
{
    int fd = open(root, CP_MEM_DIRFLAGS);
    if (fd < 0 && errno == ENOENT && make && mkdir(root, 0700) == 0)
        fd = open(root, CP_MEM_DIRFLAGS);
    if (fd >= 0 || errno == ENOENT)
        return fd;
    fprintf(stderr,
            "confpol claude: %s: not a directory (%s): a link there is not "
            "followed; the automatic memory cannot be watched\n",
            root, strerror(errno));
    return -2;
}

/* Checks the projects directory against the copy SNAP; the changes put
 * back, -1 when something could not be. */
static int cp_mem_check(const char *root, const struct cp_buf *snap)
{
    struct cp_mem m = {.root = root};
    int back = -1;
    if (!cp_mem_parse(&m, snap)) {
        fprintf(stderr, "confpol claude: the copy of %s is damaged\n", root);
        goto out;
    }
    int pfd = cp_mem_open_projects(root, m.n > 0);
    if (pfd == -2)
        goto out;
    if (pfd >= 0) {
        cp_mem_projects(&m, pfd, cp_mem_chk);
        cp_mem_restore(&m, pfd);
        close(pfd);
    } else if (m.n) {
        cp_mem_fail(&m, "", strerror(errno));
    }
    if (m.back)
        fprintf(stderr,
                "confpol claude: %d change%s to the automatic memory under "
                "%s %s put back: the agent may have made %s, and what the "
                "client wrote there in the session is not kept\n",
                m.back, m.back == 1 ? "" : "s", root,
                m.back == 1 ? "was" : "were", m.back == 1 ? "it" : "them");
    back = m.err ? -1 : m.back;
out:
    for (size_t i = 0; i < m.n; i++)
        free(m.e[i].name);
    free(m.e);
    return back;
}

/* Copies the projects directory's memory into SNAP: 0, 1 when it is
 * larger than what is copied or cannot be watched (said), 2 on I/O. */
static int cp_mem_copy(const char *root, struct cp_buf *snap)
{
    struct cp_mem m = {.root = root};
    int pfd = cp_mem_open_projects(root, false);
    if (pfd == -2)
        return 1;
    if (pfd >= 0) {
        cp_mem_projects(&m, pfd, cp_mem_rec);
        close(pfd);
    }
    *snap = m.snap;
    if (m.over) {
        fprintf(stderr,
                "confpol claude: the automatic memory under %s holds more "
                "than %d entries or %u MiB, more than confpol copies to put "
                "it back after the session: not started (remove what is "
                "no longer needed there)\n",
                root, CP_MEM_MAX_ENTRIES, CP_MEM_MAX_BYTES >> 20);
        return 1;
    }
    return m.err ? 2 : 0;
}

/* Held from the copy to the check: two sessions at once would each put
 * back what the other changed, and the second would copy what the first
 * planted, then make it again after the first's check removed it. */
static int cp_mem_lockfd = -1;

static int cp_mem_lock(const char *dir)
{
    char *lock = cp_mem_path(dir, "../memory.lock");
    int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = 0;
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        fprintf(stderr,
                "confpol claude: %s: %s: another confpol claude --whole "
                "session is running; its check of the automatic memory and "
                "this one's would undo each other: not started\n",
                lock, err == EWOULDBLOCK ? "locked" : strerror(err));
        if (fd >= 0)
            close(fd);
        rc = err == EWOULDBLOCK ? 1 : 2;
    } else {
        cp_mem_lockfd = fd;
    }
    free(lock);
    return rc;
}

int cp_claude_memory_begin(const char *dir)
{
    char *cfg = cp_claude_config_dir(),
         *snap = cp_mem_path(dir, "memory.before");
    char *root = cfg ? cp_mem_path(cfg, "projects") : NULL;
    struct cp_buf prev = {0}, cur = {0};
    int rc = root ? cp_mem_lock(dir) : 2;
    if (rc != 0)
        goto out;
    if (cp_cli_read_file(snap, &prev)) {
        fprintf(stderr,
                "confpol claude: the last session in this project ended "
                "before its check of the automatic memory under %s: checking "
                "it now\n",
                root);
        if (cp_mem_check(root, &prev) < 0) {
            rc = 2;
            goto out;
        }
    }
    rc = cp_mem_copy(root, &cur);
    if (rc == 0 &&
        (cp_cli_write_atomic(snap, cur.data ? cur.data : "", cur.len) != 0 ||
         chmod(snap, 0600) != 0)) {
        fprintf(stderr, "confpol claude: %s: %s\n", snap, strerror(errno));
        rc = 2;
    }
out:
    free(cfg);
    free(root);
    free(snap);
    cp_buf_free(&prev);
    cp_buf_free(&cur);
    return rc;
}

int cp_claude_memory_end(const char *dir)
{
    char *cfg = cp_claude_config_dir(),
         *snap = cp_mem_path(dir, "memory.before");
    char *root = cfg ? cp_mem_path(cfg, "projects") : NULL;
    struct cp_buf prev = {0};
    int back = 0;
    if (root && cp_cli_read_file(snap, &prev)) {
        back = cp_mem_check(root, &prev);
        if (back >= 0)
            unlink(snap);
    }
    if (cp_mem_lockfd >= 0)
        close(cp_mem_lockfd);
    cp_mem_lockfd = -1;
    free(cfg);
    free(root);
    free(snap);
    cp_buf_free(&prev);
    return back;
}

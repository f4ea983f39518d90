/* SPDX-License-Identifier: MIT */
/* Placeholders by identity (spec/runtime.md §5): the parent directory of a
 * path opened without following a symlink, and the removal of what the
 * janitor made only while it is still that.  Linked by the janitor, which
 * removes at the end, and by the launcher, which removes what is left when
 * the janitor was killed. */
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

/* The parent directory of the absolute `path`, opened without following a
 * symlink at any component; *name points at the last component.  -1 with
 * errno. */
int cp_rt_parent_open(const char *path, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1]) {
        errno = EINVAL;
        return -1;
    }
    *name = slash + 1;
    if (slash == path)
        return cp_rt_open_nofollow("/", O_PATH | O_DIRECTORY);
    char *parent = cp_xstrndup(path, (size_t)(slash - path));
    int fd = cp_rt_open_nofollow(parent, O_PATH | O_DIRECTORY);
    int err = errno;
    free(parent);
    errno = err;
    return fd;
}

/* Removes what the janitor made at `path` if it is still that: the
 * parent found without a symlink and still the same directory, the name
 * still the same file (an empty file, or a directory rmdir accepts).
 * Anything else is not ours any more: left alone. */
void cp_rt_placeholder_remove(const char *path,
                              const struct cp_rt_placeholder *ph)
{
    const char *name;
    int pfd = cp_rt_parent_open(path, &name);
    struct stat pst;
    if (pfd < 0)
        return;
    if (fstat(pfd, &pst) < 0 || pst.st_dev != ph->pdev ||
        pst.st_ino != ph->pino) {
        close(pfd);
        return;
    }
    for (int tries = 0; tries < 40; tries++) {
        struct stat st;
        if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            st.st_dev != ph->dev || st.st_ino != ph->ino)
            break;
        if (S_ISREG(st.st_mode) && st.st_size == 0)
            unlinkat(pfd, name, 0); /* still the empty file we made */
        if (!S_ISDIR(st.st_mode) || unlinkat(pfd, name, AT_REMOVEDIR) == 0 ||
            errno != EBUSY)
            break;
        usleep(50 * 1000);
    }
    close(pfd);
}

/* SPDX-License-Identifier: MIT */
/* Landlock helpers shared by the Landlock enforcer (ll_enforce.c) and the
 * stage (stage.c): the ABI probe, the ELF interpreter of a program, and
 * the EXECUTE grants of an exec allow-list.
 *
 * EXECUTE is an accident guard, not a boundary (spec/runtime.md): the
 * dynamic loader must be executable for any dynamic program to start, and
 * `ld.so FILE`, `sh FILE` or `python3 FILE` run a readable file that has no
 * EXECUTE grant. */
#include "runtime.h"
#include "landlock_abi.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int cp_rt_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
    if (abi < 0)
        return -errno;
    return (int)abi;
}

int cp_rt_elf_interp(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char id[EI_NIDENT];
    int rc = -1;
    if (pread(fd, id, sizeof id, 0) != (ssize_t)sizeof id ||
        memcmp(id, ELFMAG, SELFMAG))
        goto out;
    uint64_t phoff, phnum, phentsize;
    bool is64 = id[EI_CLASS] == ELFCLASS64;
    if (is64) {
        Elf64_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            goto out;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else if (id[EI_CLASS] == ELFCLASS32) {
        Elf32_Ehdr eh;
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
            goto out;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        goto out;
    }
    if (phnum > 4096 ||
        phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
        goto out;
    for (uint64_t i = 0; i < phnum; i++) {
        uint64_t type, off, filesz;
        if (is64) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(phoff + i * phentsize)) !=
                (ssize_t)sizeof ph)
                goto out;
            type = ph.p_type, off = ph.p_offset, filesz = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(phoff + i * phentsize)) !=
                (ssize_t)sizeof ph)
                goto out;
            type = ph.p_type, off = ph.p_offset, filesz = ph.p_filesz;
        }
        if (type != PT_INTERP)
            continue;
        if (filesz == 0 || filesz > size)
            goto out;
        if (pread(fd, buf, (size_t)filesz, (off_t)off) != (ssize_t)filesz)
            goto out;
        buf[filesz - 1] = '\0';
        rc = buf[0] == '/' ? 0 : -1;
        break;
    }
out:
    close(fd);
    return rc;
}

/* The standard dynamic loaders: granted so that allowed dynamic programs
 * can start (Landlock checks EXECUTE on the ELF interpreter too). */
static const char *const std_loaders[] = {
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux-armhf.so.3",
    "/lib/ld-linux.so.2",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/ld-musl-aarch64.so.1",
    "/lib64/ld64.so.2",
    "/lib/ld-linux-riscv64-lp64d.so.1",
};

/* PATH search as execvp does it, to find the command's file. */
static bool find_in_path(const char *cmd, char *out, size_t size)
{
    if (strchr(cmd, '/')) {
        snprintf(out, size, "%s", cmd);
        return true;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t n = c ? (size_t)(c - path) : strlen(path);
        if (snprintf(out, size, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd) <
                (int)size &&
            access(out, X_OK) == 0)
            return true;
        path += n + (c ? 1 : 0);
        if (!c)
            break;
    }
    return false;
}

static bool under_entry(char *const *execs, size_t nexec, const char *file)
{
    char *real = cp_rt_realpath(file);
    bool allowed = false;
    for (size_t i = 0; real && i < nexec && !allowed; i++) {
        char *er = cp_rt_realpath(execs[i]);
        if (er) {
            size_t n = strlen(er);
            allowed = !strncmp(er, real, n) &&
                      (real[n] == '\0' || real[n] == '/' ||
                       (n == 1 && er[0] == '/'));
            free(er);
        }
    }
    free(real);
    return allowed;
}

void cp_rt_exec_grants(char *const *execs, size_t nexec, const char *cmd,
                       struct cp_rt_strv *out)
{
    char interp[PATH_MAX];
    for (size_t i = 0; i < nexec; i++) {
        cp_rt_strv_push(out, execs[i]);
        struct stat st;
        if (stat(execs[i], &st) == 0 && S_ISREG(st.st_mode) &&
            cp_rt_elf_interp(execs[i], interp, sizeof interp) == 0)
            cp_rt_strv_push(out, interp);
    }
    /* The command's own interpreter: only if the command itself may run. */
    char file[PATH_MAX];
    if (cmd && find_in_path(cmd, file, sizeof file) &&
        cp_rt_elf_interp(file, interp, sizeof interp) == 0 &&
        under_entry(execs, nexec, file))
        cp_rt_strv_push(out, interp);
    for (size_t i = 0; i < sizeof std_loaders / sizeof std_loaders[0]; i++)
        cp_rt_strv_push(out, std_loaders[i]);
}

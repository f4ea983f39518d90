/* SPDX-License-Identifier: MIT */
/* Landlock's kernel interface (include/uapi/linux/landlock.h), the one
 * copy for the Landlock enforcer and the stage's exec allow-list: an own
 * copy because the installed header may be older than the kernel, and
 * these values are ABI. */
#ifndef CP_LANDLOCK_ABI_H
#define CP_LANDLOCK_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

#define LL_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_REMOVE_DIR (1ULL << 4)
#define LL_REMOVE_FILE (1ULL << 5)
#define LL_MAKE_CHAR (1ULL << 6)
#define LL_MAKE_DIR (1ULL << 7)
#define LL_MAKE_REG (1ULL << 8)
#define LL_MAKE_SOCK (1ULL << 9)
#define LL_MAKE_FIFO (1ULL << 10)
#define LL_MAKE_BLOCK (1ULL << 11)
#define LL_MAKE_SYM (1ULL << 12)
#define LL_REFER (1ULL << 13)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)
#define LL_ABI1_FS ((1ULL << 13) - 1)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define LL_RESTRICT_LOG_NEW_EXEC_ON (1U << 1)

/* Rights that only a directory rule may carry. */
#define LL_DIR_ONLY                                                            \
    (LL_READ_DIR | LL_REMOVE_DIR | LL_REMOVE_FILE | LL_MAKE_CHAR |             \
     LL_MAKE_DIR | LL_MAKE_REG | LL_MAKE_SOCK | LL_MAKE_FIFO | LL_MAKE_BLOCK | \
     LL_MAKE_SYM | LL_REFER)
#define LL_READ (LL_READ_FILE | LL_READ_DIR)
#define LL_WRITE                                                               \
    (LL_WRITE_FILE | LL_TRUNCATE | LL_REMOVE_DIR | LL_REMOVE_FILE |            \
     LL_MAKE_CHAR | LL_MAKE_DIR | LL_MAKE_REG | LL_MAKE_SOCK | LL_MAKE_FIFO |  \
     LL_MAKE_BLOCK | LL_MAKE_SYM | LL_REFER)
#define LL_DEV (LL_READ_FILE | LL_WRITE_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

struct ll_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The size of the ruleset attribute every ABI accepts (its first field). */
#define LL_ATTR_SIZE_V1 offsetof(struct ll_attr, handled_access_net)

#endif

/* SPDX-License-Identifier: MIT */
/* The runtime API: read and validate a .bwrap artifact, bind its params,
 * derive the bwrap argv from the records and the host state, and launch
 * the command confined (bwrap, then a Landlock stage inside the sandbox).
 * Behaviour is specified in spec/runtime.md.  Nothing here depends on the
 * parser: confpol-run links libc, this directory and the few util/
 * objects RUN_SRCS names in the Makefile (spec/runtime.md
 * §11.1).
 *
 * Errors: the one idiom of runtime/.  A function that can fail returns 0
 * or an exit status (CP_RT_EXIT_ERROR, CP_RT_EXIT_CANNOT,
 * CP_RT_EXIT_NOTFOUND) and fills its struct cp_rt_err with cp_rt_fail();
 * it prints nothing.  Only the entry points print, once, as
 * "PROG: MESSAGE" on stderr: main, cp_rt_run and the cp_rt_run_*
 * launchers, the stage (which reports over its status socket instead),
 * and `--check`/`--dry-run` reports.  Warnings that do not stop the launch
 * are collected (struct cp_rt_plan's warnings, stricter, notes) and
 * printed by the entry point too.  Two kinds of callee return an errno
 * value instead, because their caller decides what it means: the host
 * callbacks of struct cp_rt_host (EROFS: "nobody may create here") and
 * the janitor.  Nothing exits but main and forked children (_exit). */
#ifndef CP_RUNTIME_H
#define CP_RUNTIME_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "artifact_vocab.h"

/* Exit statuses of the runtime's own failures (spec/runtime.md). */
#define CP_RT_EXIT_ERROR 125    /* bad artifact, bad params, internal error */
#define CP_RT_EXIT_CANNOT 126   /* cannot enforce (bwrap, userns, Landlock) */
#define CP_RT_EXIT_NOTFOUND 127 /* the command was not found */
/* A path changed between planning and use: another process is at work.
 * An error, not "cannot enforce": refused even under fail open or
 * --allow-unenforced, which would otherwise run the command unconfined
 * (spec/runtime.md §5, "Descriptors, not paths"). */
#define CP_RT_EXIT_CHANGED CP_RT_EXIT_ERROR

/* bubblewrap's MAX_ARGS (bubblewrap.c): every word it parses counts, also
 * those read through --args. */
#define CP_RT_MAX_BWRAP_ARGS 9000
/* Refuse artifacts larger than this before reading them into memory. */
#define CP_RT_MAX_ARTIFACT (64u * 1024 * 1024)

struct cp_rt_err {
    int status;     /* 0, CP_RT_EXIT_ERROR or CP_RT_EXIT_CANNOT */
    char msg[2048]; /* one line, no prefix, no final period */
};

/* Fills e (status and message) and returns status. */
int cp_rt_fail(struct cp_rt_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* vsnprintf into dst, except that a text longer than size - 1 keeps its
 * head and its tail with " ... " between them: a message that names a
 * long path keeps its reason, which comes after the path. */
void cp_rt_vfmt(char *dst, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* fork(2): the C library's under glibc, the system call alone under musl
 * (runtime/rtutil.c says why). */
pid_t cp_rt_fork(void);
/* realpath(path, NULL), with one leading '/' under every C library. */
char *cp_rt_realpath(const char *path);
/* A message on stderr in one write(2), not through stdio: musl's
 * unbuffered stderr writes a line in pieces, and a piece that fails loses
 * the newline, so that what the command writes next joins the line. */
void cp_rt_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An entry point's warning: "PROG: warning: MESSAGE" on stderr (the one
 * copy for the launcher and the Landlock enforcer). */
void cp_rt_warn(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- artifact (runtime/artifact.c) ----------------------------------- */

/* The .bwrap record tags: util/artifact_vocab.h defines them once, for the
 * back end that writes them and this reader. */
enum cp_rt_tag {
    CP_RT_T_HEADER = CP_BW_HEADER,     /* confpol-bwrap VERSION */
    CP_RT_T_PROFILE = CP_BW_PROFILE,   /* profile NAME */
    CP_RT_T_FAIL = CP_BW_FAIL,         /* fail closed|open */
    CP_RT_T_PARAM = CP_BW_PARAM,       /* param NAME */
    CP_RT_T_ARG = CP_BW_ARG,           /* arg WORD */
    CP_RT_T_BIND = CP_BW_BIND,         /* bind ROOT REST */
    CP_RT_T_RO = CP_BW_RO,             /* ro ROOT REST */
    CP_RT_T_PIN = CP_BW_PIN,           /* pin ROOT REST */
    CP_RT_T_PINRO = CP_BW_PINRO,       /* pinro ROOT REST */
    CP_RT_T_MASK = CP_BW_MASK,         /* mask ROOT REST */
    CP_RT_T_MASKGLOB = CP_BW_MASKGLOB, /* maskglob ROOT PATTERN */
    CP_RT_T_ROGLOB = CP_BW_ROGLOB,     /* roglob ROOT PATTERN */
    CP_RT_T_EXEC = CP_BW_EXEC,         /* exec ROOT REST */
    CP_RT_T_END = CP_BW_END,           /* end COUNT SHA256 */
    CP_RT_T_NET = CP_BW_NET, /* net PATTERN WHERE (PATTERN "" for net deny) */
    CP_RT_T_SOCKET = CP_BW_SOCKET, /* socket ROOT REST WHERE */
};

struct cp_rt_rec {
    enum cp_rt_tag tag;
    const char *f1; /* first field after the tag, or "" */
    const char *f2; /* second field, or "" */
    const char *f3; /* third field (socket's WHERE), or "" */
    size_t off;     /* byte offset of the tag field */
};

struct cp_rt_artifact {
    char *buf; /* owned copy of the bytes; fields point into it */
    size_t len;
    struct cp_rt_rec *recs; /* every record, header and end included */
    size_t nrecs;
    const char *profile; /* "confined", "exclusive" or NULL */
    bool fail_open;
    const char **params; /* declared names, and HOME/PROJECT when used */
    size_t nparams;
    const char **needed; /* names some record uses as its root */
    size_t nneeded;
    const char **sockparams; /* needed names used only as a whole socket path */
    size_t nsockparams;
    bool has_exec;
};

/* Validates the whole stream (encoding, tags, arities, field syntax,
 * params, trailer count and SHA-256) before anything else may use it.
 * Returns 0, or CP_RT_EXIT_ERROR with e->msg saying what and where. */
int cp_rt_artifact_parse(struct cp_rt_artifact *a, const void *data, size_t len,
                         struct cp_rt_err *e);
/* Reads a file (at most CP_RT_MAX_ARTIFACT bytes) and parses it. */
int cp_rt_artifact_load(struct cp_rt_artifact *a, const char *path,
                        struct cp_rt_err *e);
void cp_rt_artifact_free(struct cp_rt_artifact *a);
const char *cp_rt_tag_name(enum cp_rt_tag t);

/* ---- params (runtime/params.c) --------------------------------------- */

struct cp_rt_define { /* -D NAME=VALUE, split */
    char name[128];
    const char *value;
};

struct cp_rt_binding {
    char *name;
    char *value;
};

struct cp_rt_params {
    struct cp_rt_binding *v;
    size_t n;
    char **ignored; /* -D names the artifact does not use: noted, ignored */
    size_t nignored;
};

/* Splits "NAME=VALUE"; returns 0 or CP_RT_EXIT_ERROR. */
int cp_rt_define_split(const char *text, struct cp_rt_define *out,
                       struct cp_rt_err *e);
/* Checks one value: absolute, no control byte, equal to its realpath (so
 * no '..', '.', '//', trailing '/' or symlink), and a directory. */
int cp_rt_param_check(const char *name, const char *value, struct cp_rt_err *e);
/* The one canonicalisation of a param value (spec/semantics.md, "Binding
 * params"): an explicit value must already be canonical (checked as by
 * cp_rt_param_check); an implicit one (HOME from the environment, PROJECT
 * from the working directory) is resolved with realpath and must be a
 * directory.  Returns the value (heap) or NULL with `e` set. */
char *cp_rt_param_canon(const char *name, const char *value, bool implicit,
                        struct cp_rt_err *e);
/* Binds every name in `needed`: from `defines` first, else HOME from
 * `home_env`, PROJECT from `cwd` (canonicalised).  A define naming a param
 * in `known` (or HOME/PROJECT) that is not needed is checked, then listed
 * in out->ignored; a define naming none is an error, so is an unbound
 * needed param. */
int cp_rt_params_bind(struct cp_rt_params *out, const char *const *needed,
                      size_t nneeded, const char *const *known, size_t nknown,
                      const struct cp_rt_define *defines, size_t ndefines,
                      const char *home_env, const char *cwd,
                      struct cp_rt_err *e);
/* The names cp_rt_params_bind_names binds: as above, and `sockets`, the
 * params used only as the whole path of `socket` records, whose values
 * name a socket (canonical as far as it exists; not a directory). */
struct cp_rt_bind_names {
    const char *const *needed;
    size_t nneeded;
    const char *const *known;
    size_t nknown;
    const char *const *sockets;
    size_t nsockets;
};
int cp_rt_params_bind_names(struct cp_rt_params *out,
                            const struct cp_rt_bind_names *names,
                            const struct cp_rt_define *defines, size_t ndefines,
                            const char *home_env, const char *cwd,
                            struct cp_rt_err *e);
const char *cp_rt_params_get(const struct cp_rt_params *p, const char *name);
void cp_rt_params_free(struct cp_rt_params *p);

/* ---- paths (runtime/launch.c) ------------------------------------------ */

/* Is `path` equal to `root` or beneath it?  Both canonical ("/" is above
 * every absolute path).  The one copy for the launcher and the Landlock
 * enforcer. */
bool cp_rt_path_beneath(const char *root, const char *path);

/* A binding taken implicitly (PROJECT from the current directory, HOME
 * from the environment) under which a write root or exec entry of the
 * artifact covers / or, for PROJECT, HOME: CP_RT_EXIT_ERROR with e (the
 * user passes -D to mean it), else 0.  spec/runtime.md §3. */
struct cp_rt_artifact;
int cp_rt_params_sane(const struct cp_rt_artifact *a,
                      const struct cp_rt_params *p,
                      const struct cp_rt_define *defines, size_t ndefines,
                      struct cp_rt_err *e);

/* ---- descriptors, not paths (runtime/fdpath.c) ------------------------ */

/* readdir telling the end from a failure: NULL with *err 0 at the end,
 * or with the error (EIO, ...).  A directory read that fails must never
 * read as a shorter directory: a grant, a deny glob's match or an
 * inherited descriptor would be dropped without a word. */
struct dirent *cp_rt_readdir(DIR *d, int *err);

/* Opens the absolute `path` without following a symlink at any component
 * (openat2 RESOLVE_NO_SYMLINKS, else an O_NOFOLLOW walk): -1 with ELOOP
 * where one is met.  O_CLOEXEC is added to flags.  spec/runtime.md §5. */
int cp_rt_open_nofollow(const char *path, int flags);
/* Whether cp_rt_open_nofollow resolves in one openat2 (true until a call
 * found it missing): then it costs one system call, not one per
 * component. */
bool cp_rt_have_openat2(void);
/* The same beneath dirfd (path relative, or absolute from "/"). */
int cp_rt_openat_nofollow(int dirfd, const char *path, int flags);
/* DIR "/" NAME (heap; "/" NAME under the root). */
char *cp_rt_path_child(const char *dir, const char *name);
/* A record's path: ROOT followed by REST ("" or "/..."), "/" + "/x" being
 * "/x" (heap).  The one copy of both planners. */
char *cp_rt_path_join(const char *root, const char *rest);
/* strcmp of two char * for qsort (both planners sort names). */
int cp_rt_cmp_str(const void *a, const void *b);
/* Same device, inode and file type. */
struct stat;
bool cp_rt_same_file(const struct stat *a, const struct stat *b);
/* Opens `path` without following a symlink and checks it is still the
 * file `want` (device, inode, type): the O_PATH descriptor, or -1 with
 * errno (ENOENT, ENOTDIR: gone; ELOOP: a symlink on the way; ESTALE:
 * another file is there). */
int cp_rt_reopen(const char *path, const struct stat *want);
/* cp_rt_reopen of the single name `name` beneath the directory dirfd
 * (itself opened without following a symlink): O_NOFOLLOW, so a symlink
 * there is ELOOP as openat2 says it, another file ESTALE. */
int cp_rt_reopen_at(int dirfd, const char *name, const struct stat *want);
/* The words for cp_rt_reopen's errno in a "changed since planning"
 * message. */
const char *cp_rt_changed_why(int err);
/* Closes every descriptor from 3 up but those in keep (--keep-fd): the
 * caller's descriptors are the caller's, not the sandbox's (a socket or
 * file opened before the launch would pass into it).  0 or -1. */
int cp_rt_close_inherited(const int *keep, size_t n);
/* Numeric field `field` of /proc/PID/stat (pid 0: this process), counted
 * after the command name: 2 the parent, 3 the process group, 4 the
 * session, 5 the controlling terminal.  -1 when it cannot be read. */
long cp_rt_proc_stat_field(long pid, int field);
/* The N of --keep-fd N: an open descriptor from 3 up.  0, or
 * CP_RT_EXIT_ERROR with e. */
int cp_rt_keep_fd_parse(const char *s, int *out, struct cp_rt_err *e);

/* ---- resolving a path (runtime/walk.c) --------------------------------- */

/* What cp_rt_walk_path found: the canonical existing prefix, the missing
 * rest ("" when everything exists), or a symlink it would not follow. */
struct cp_rt_walk {
    char *real;
    char *rest;
    char *link;    /* a symlink the sandbox could replace (not followed) */
    bool via_link; /* a symlink was followed on the way */
};
/* realpath of the absolute `path`, one component at a time beneath the
 * descriptor of the one before (O_NOFOLLOW), the one resolution of both
 * planners.  A symlink met in directory D is followed unless may_follow
 * (NULL: always) says no for D; then w->link names it and nothing else is
 * set.  A missing component ends the walk: w->real is what exists,
 * w->rest what does not.  0 or an errno. */
int cp_rt_walk_path(const char *path,
                    bool (*may_follow)(void *ctx, const char *dir), void *ctx,
                    struct cp_rt_walk *w);
void cp_rt_walk_free(struct cp_rt_walk *w);
/* cp_rt_walk_path following every symlink, for what realpath(3) did: the
 * canonical path (heap), or NULL with errno (ENOENT when a part is
 * missing). */
char *cp_rt_walk_real(const char *path);
/* Calls fn(ctx, LINK, PARENT) for each component of `path` (as written)
 * that is a symlink now, LINK that component's path as written and PARENT
 * the canonical path of its directory, until fn returns true; returns
 * whether one did.  The symlinks on a target's way, for both what the
 * Landlock planner protects and what it will not grant through. */
bool cp_rt_path_links(const char *path,
                      bool (*fn)(void *ctx, const char *link,
                                 const char *parent),
                      void *ctx);

/* ---- plan: records + host state -> bwrap words (runtime/launch.c) ------ */

/* How planning creates a placeholder directory on the host.  Returns 0,
 * or an errno value (EROFS, EACCES, EPERM: the parent cannot be written
 * at all, so the sandbox cannot create there either). */
struct cp_rt_host {
    int (*make_placeholder)(void *ctx, const char *path);
    /* Optional: creates an ordinary directory (mode 0755) that is removed
     * at exit when it is still empty; the missing ancestors of a missing
     * deny target are made with it, so that only the target itself is a
     * read-only placeholder.  NULL: the first missing component is the
     * placeholder. */
    int (*make_dir)(void *ctx, const char *path);
    /* Optional: creates an empty placeholder file (mode 0444), for a
     * missing deny-read target.  NULL: make_placeholder is used. */
    int (*make_file)(void *ctx, const char *path);
    void *ctx;
};

struct cp_rt_strv {
    char **v;
    size_t n, cap;
};
void cp_rt_strv_push(struct cp_rt_strv *s, const char *str);
void cp_rt_strv_free(struct cp_rt_strv *s);

/* The identity of one mount of the bwrap words (runtime/mountid.c). */
struct cp_rt_mountid {
    size_t word; /* index of its option in the plan's words */
    dev_t dev;   /* the bind source as planning saw it (has_id) */
    ino_t ino;
    mode_t type;
    bool has_id; /* a bind (else a tmpfs: only its place is verified) */
    bool verify; /* the stage checks it (the runtime's own, not hidden) */
};

/* Descriptors the bwrap child inherits. */
struct cp_rt_fds {
    int *v;
    size_t n, cap;
};

struct cp_rt_plan {
    struct cp_rt_strv words;   /* bwrap words, in order, before "--" */
    struct cp_rt_mountid *ids; /* the binds' and own mounts' identities */
    size_t nids, capids;
    struct cp_rt_strv exec;         /* Landlock EXECUTE grants (canonical) */
    struct cp_rt_strv verify_ro;    /* checked read-only inside the sandbox */
    struct cp_rt_strv verify_mount; /* --verify-mount words for the stage */
    struct cp_rt_strv placeholders; /* created on the host */
    struct cp_rt_strv warnings;     /* printed on stderr before launch */
    struct cp_rt_strv
        stricter;     /* enforced more strictly than written: printed too */
    bool exec_on;     /* an exec allow-list is in force */
    char *proxy_sock; /* the proxy's socket: the stage bridges to it */
    bool unix_closed; /* the stage closes Unix sockets (seccomp) */
    struct cp_rt_strv sockets; /* named sockets: PATH WHERE pairs, bound */
    const char *prog;          /* the stage's message prefix (not owned) */
    /* A line the stage writes on stderr, in one write, just before it
     * executes the command (which enforcer auto kept; not owned). */
    const char *say;
    const int *keep; /* --keep-fd: the stage keeps them open (not owned) */
    size_t nkeep;
};

/* Derives the words from the records in order.  `unenforced_ok`: a record
 * that cannot be enforced soundly is applied as far as possible with a
 * warning instead of failing with CP_RT_EXIT_CANNOT. */
int cp_rt_plan_build(struct cp_rt_plan *pl, const struct cp_rt_artifact *a,
                     const struct cp_rt_params *p, const struct cp_rt_host *h,
                     bool unenforced_ok, struct cp_rt_err *e);
void cp_rt_plan_free(struct cp_rt_plan *pl);

/* The arity of a bwrap option the planner knows, or -1. */
int cp_rt_bwrap_nargs(const char *opt);
/* Does the option place a mount at its last value (the binds, --proc,
 * --dev, --tmpfs, --mqueue)?  From the same table. */
bool cp_rt_bwrap_mounts(const char *opt);

/* ---- mount identities (runtime/mountid.c; spec/runtime.md §5) -------- */

/* Records the identity of every bind source of pl->words (end of
 * planning).  0 or CP_RT_EXIT_CANNOT (a source became a symlink). */
int cp_rt_plan_identities(struct cp_rt_plan *pl, struct cp_rt_err *e);
/* At spawn: opens each bind source without following a symlink, checks it
 * is the planned file (else CP_RT_EXIT_CANNOT), keeps the descriptor in
 * fds and, with bind_fd, rewrites the words to --bind-fd/--ro-bind-fd.
 * Appends the stage's "--verify-mount ID PATH" words to verify. */
int cp_rt_bind_fds(struct cp_rt_plan *pl, bool bind_fd, struct cp_rt_fds *fds,
                   struct cp_rt_strv *verify, struct cp_rt_err *e);
void cp_rt_fds_close(struct cp_rt_fds *fds);
/* Does this bwrap take --bind-fd (bubblewrap 0.8.0 and later)?  Read
 * from its binary, which names every option it parses: no process. */
bool cp_rt_bwrap_has_bind_fd(const char *bwrap);
/* Inside the sandbox: `path` has no symlink on its way, is the root of a
 * mount and, unless id is "-", the file "DEV:INO:TYPE".  0, or -1 with
 * the reason in why. */
int cp_rt_verify_mount(const char *id, const char *path, char *why,
                       size_t size);
/* The directories on the way to the path verified last, open (O_PATH,
 * each beneath the one before, never through a symlink): the stage
 * verifies its mounts in the plan's order, which keeps the paths beneath
 * one directory together, so that a directory shared by several paths is
 * opened once, not once per path (inside the sandbox openat2 is refused,
 * and a path costs a system call per component).  Zeroed to start;
 * cp_rt_vwalk_free closes it. */
#define CP_RT_VWALK_DEPTH 64
struct cp_rt_vwalk {
    int fd[CP_RT_VWALK_DEPTH];     /* fd[i]: the directory after i components */
    size_t end[CP_RT_VWALK_DEPTH]; /* its path's length in `path` */
    size_t n;                      /* descriptors open (0: none yet) */
    char path[PATH_MAX];
};
/* cp_rt_verify_mount resolving through vw (NULL: from "/" every time). */
int cp_rt_verify_mount_at(struct cp_rt_vwalk *vw, const char *id,
                          const char *path, char *why, size_t size);
void cp_rt_vwalk_free(struct cp_rt_vwalk *vw);

/* Two NUL-separated streams, each passed in an inherited memfd: `bwrap`
 * gets the runtime's fixed words and the plan words through `--args FD`;
 * the stage gets its options (--keep-fd N, --landlock, --exec P,
 * --verify-ro P), "--" and the command.  bubblewrap 0.8 ignores a command
 * inside an --args file, so bwrap's own argv is only `bwrap --args FD --
 * confpol-stage FD FD FD`.  Returns 0, or CP_RT_EXIT_ERROR when bwrap's
 * argument cap would be exceeded. */
int cp_rt_args_stream(const struct cp_rt_plan *pl, char *const *cmd,
                      size_t ncmd, struct cp_rt_strv *bwrap_words,
                      struct cp_rt_strv *stage_words, struct cp_rt_err *e);

/* ---- helper programs (runtime/helper.c; spec/runtime.md §11.1) ------- */

#define CP_RT_STAGE_EXE "confpol-stage"
#define CP_RT_JANITOR_EXE "confpol-janitor"

struct cp_rt_helper {
    char *path; /* DIR/NAME, DIR the launcher's own directory */
    int fd;     /* O_PATH, close-on-exec: the file that was checked */
};
/* Opens the helper `name` next to this program's own binary (the
 * directory of /proc/self/exe, as a descriptor; never PATH) and checks it:
 * a regular executable file, not a symlink, writable by its owner alone,
 * owned by root or the launcher's owner.  0, or CP_RT_EXIT_ERROR with e
 * (a refusal, never a fallback to running unconfined). */
int cp_rt_helper_open(const char *name, struct cp_rt_helper *h,
                      struct cp_rt_err *e);
void cp_rt_helper_close(struct cp_rt_helper *h);

/* ---- placeholders and the janitor (runtime/placeholder.c, janitor.c) -- */

/* What the janitor made: a name in a directory, both by identity. */
struct cp_rt_placeholder {
    dev_t pdev, dev;
    ino_t pino, ino;
};
/* The janitor's answer to a request: 0 or an errno, and what it made. */
struct cp_rt_janitor_reply {
    int err;
    struct cp_rt_placeholder ph;
};
/* The parent directory of the absolute `path`, opened without following a
 * symlink at any component; *name points at the last component.  -1 with
 * errno. */
int cp_rt_parent_open(const char *path, const char **name);
/* Removes what the janitor made at `path` if it is still that (parent and
 * name by identity, an empty file or a directory rmdir accepts); anything
 * else is left alone. */
void cp_rt_placeholder_remove(const char *path,
                              const struct cp_rt_placeholder *ph);
/* The janitor's loop on its socket: requests "M|D|F PATH" (placeholder
 * directory, ordinary directory, placeholder file) and "P PID" (the
 * sandbox to wait for); at EOF removes what it made and exits. */
_Noreturn void cp_rt_janitor_main(int sock);
/* The descriptor the janitor's socket has when confpol-janitor starts. */
#define CP_RT_JANITOR_FD 3

/* ---- launch (runtime/launch.c) --------------------------------------- */

/* Which enforcer applies the artifact (spec/runtime.md §12). */
enum cp_rt_enforcer {
    CP_RT_ENF_AUTO, /* bwrap when it can create its namespaces, else Landlock */
    CP_RT_ENF_BWRAP, /* bubblewrap + the Landlock stage inside (exec lists) */
    CP_RT_ENF_LANDLOCK, /* Landlock (+ a seccomp filter) alone, no namespace */
};

struct cp_rt_launch {
    const char *prog; /* message prefix: "confpol-run", "confpol run" */
    char *const *cmd; /* CMD [ARG]..., NULL-terminated */
    size_t ncmd;
    bool allow_unenforced; /* --allow-unenforced */
    bool allow_partial;    /* --allow-partial: partly enforced rules run */
    enum cp_rt_enforcer enforcer;
    bool quiet;      /* -q: no enforcer line, no notes */
    bool dry_run;    /* --dry-run: print the plan, run nothing */
    bool explain;    /* --explain-denials */
    const int *keep; /* --keep-fd N: descriptors passed into the sandbox */
    size_t nkeep;
    /* Set by cp_rt_run for --enforcer auto: cp_rt_run_bwrap returns
     * CP_RT_FALLBACK with the reason here instead of failing when bwrap is
     * missing or cannot create its namespaces. */
    char *fallback_why;
    size_t fallback_why_size;
};

#define CP_RT_FALLBACK (-2)

/* Applies the artifact and runs the command; returns the exit status to
 * use (the command's, or 125/126/127).  May not return: when it runs the
 * command unconfined (fail open) it execs it. */
int cp_rt_run_bwrap(const struct cp_rt_artifact *a,
                    const struct cp_rt_params *p, const struct cp_rt_launch *l);
/* Runs the command without any confinement (exec); returns 126/127 only
 * when the exec fails. */
int cp_rt_exec_unconfined(const char *prog, char *const *cmd);
/* `confpol-run --check`: reports bwrap, user namespaces and the Landlock
 * ABI on `out`; returns 0 when all are usable, else 126. */
int cp_rt_check(FILE *out);
/* Hint for a bwrap error text (bwrap.md §11), or NULL. */
const char *cp_rt_bwrap_hint(const char *bwrap_stderr);
/* Does the text say that bwrap could not create its namespaces? */
bool cp_rt_bwrap_ns_failure(const char *bwrap_stderr);
/* bwrap on PATH (absolute entries only), heap, or NULL. */
char *cp_rt_find_bwrap(void);
/* Matches of a glob record's pattern under root, in byte order, a match
 * beneath an earlier one dropped: 0; -1 when over the limits (out holds
 * the matches found so far); or the error of a look that failed otherwise
 * than by a missing path (a directory that cannot be listed could hold a
 * match), *unread then naming where (heap; NULL otherwise).  out is always
 * initialised. */
int cp_rt_glob_matches(const char *root, const char *pat,
                       struct cp_rt_strv *out, char **unread);

/* ---- Landlock stage (runtime/landlock.c, runtime/stage.c) ------------------------------- */

/* ABI version, or -errno (ENOSYS, EOPNOTSUPP) when unavailable. */
int cp_rt_landlock_abi(void);
/* The stage inside the sandbox (confpol-stage, runtime/stage.c): argv =
 * STATUS_FD ERR_FD ARGS_FD, where ARGS_FD holds [--keep-fd N]...
 * [--landlock] [--exec P]... [--verify-ro P]... -- CMD [ARG]...
 * NUL-separated.  Never returns on success. */
int cp_rt_stage_main(int argc, char **argv);
/* PT_INTERP of an ELF file into buf; returns 0 or -1 (not ELF, static). */
int cp_rt_elf_interp(const char *path, char *buf, size_t size);
/* Every path that gets EXECUTE for an exec allow-list: the entries, the
 * PT_INTERP of each entry that is a file, CMD's PT_INTERP when CMD lies
 * under an entry, and the standard loaders (spec/runtime.md §7.3). */
void cp_rt_exec_grants(char *const *execs, size_t nexec, const char *cmd,
                       struct cp_rt_strv *out);

/* ---- named Unix sockets (runtime/unixsock.c; spec/runtime.md §14.5) ---- */

/* Connects answered at once; the next one gets EAGAIN. */
#define CP_RT_UNIX_MAX_THREADS 64

struct cp_rt_unix_id {
    dev_t dev;
    ino_t ino;
    int pin; /* O_PATH descriptor held for the run: the inode number
              * cannot be reused by another file while it is open */
};
struct cp_rt_unix_set { /* the sockets the sandbox may connect to */
    struct cp_rt_unix_id *v;
    size_t n;
};
/* named = PATH WHERE pairs (n words): each PATH is stat'ed (following
 * symlinks, as connect does); a socket joins the set, anything else is
 * left out with a warning naming the path and its rule (stricter). */
void cp_rt_unix_resolve(char *const *named, size_t n, const char *prog,
                        struct cp_rt_unix_set *set);
/* Closes the pins (the supervisor keeps its own copies) and frees. */
void cp_rt_unix_set_free(struct cp_rt_unix_set *set);
/* Starts the supervisor (a grandchild, reparented to the namespace's init),
 * installs the filter that hands it every connect (sets no_new_privs) and
 * passes it the listener.  0, or CP_RT_EXIT_CANNOT with e's message.
 * *pid_out (may be NULL): the supervisor's pid. */
int cp_rt_unix_supervise(const struct cp_rt_unix_set *set, const char *prog,
                         pid_t *pid_out, struct cp_rt_err *e);
/* The filter of the supervised mode (runtime/ll_seccomp.c): AF_UNIX
 * stream and seqpacket sockets only, connect notified on *listener. */
int cp_rt_unix_notify_install(int *listener, struct cp_rt_err *e);

/* ---- Landlock enforcer (runtime/ll_enforce.c, runtime/ll_seccomp.c) ---- */

/* Features found by trying each one (not only the ABI number). */
#define CP_LL_F_REFER 0x01u    /* ABI 2 */
#define CP_LL_F_TRUNCATE 0x02u /* ABI 3 */
#define CP_LL_F_NET 0x04u      /* ABI 4: TCP bind/connect */
#define CP_LL_F_IOCTL 0x08u    /* ABI 5 */
#define CP_LL_F_SCOPE 0x10u    /* ABI 6: abstract Unix sockets, signals */
#define CP_LL_F_LOG 0x20u      /* ABI 7: audit log flags */

struct cp_ll_features {
    int kernel_abi; /* reported by the kernel, or -errno */
    int abi; /* the ABI used: kernel_abi capped by the test-only setting */
    unsigned feat;         /* CP_LL_F_* present and within the cap */
    const char *capped_by; /* name of the test-only setting when it capped */
};
/* Probes Landlock; CONFPOL_TEST_LANDLOCK_ABI (test-only) caps the ABI. */
void cp_ll_probe(struct cp_ll_features *f);
/* One line: "ABI 7 (kernel ABI 7; refer truncate net ioctl-dev scope log)". */
void cp_ll_features_text(const struct cp_ll_features *f, char *buf,
                         size_t size);

struct cp_ll_grant {
    char *path;
    uint64_t access; /* LANDLOCK_ACCESS_FS_* */
    dev_t dev;       /* the identity seen when planning: applying opens */
    ino_t ino;       /* the path without following a symlink and refuses */
    mode_t type;     /* the launch unless it is still this file */
    bool dirent_id;  /* dev and ino are its directory entry's (readdir):
                        a mount point shows its mounted root */
};

struct cp_ll_plan {
    struct cp_ll_features f;
    uint64_t handled_fs;
    struct cp_ll_grant *g;
    size_t ng, capg;
    bool net_deny;    /* TCP bind/connect denied; other sockets filtered */
    bool unix_deny;   /* socket(AF_UNIX) refused (no scope, net denied) */
    bool no_truncate; /* ABI < 3: truncation filtered by seccomp */
    bool scope;       /* abstract Unix sockets and signals scoped */
    bool drop_caps;
    bool exec_on;
    bool mount_root_attr;    /* statx says which files are mount roots */
    char *chdir;             /* --chdir of the artifact, or NULL */
    struct cp_rt_strv notes; /* stricter than written: printed (not with -q) */
    struct cp_rt_strv
        partial; /* partly enforced (metadata, the loader): always printed */
    struct cp_rt_strv warnings; /* not enforced (fail open): always printed */
};

/* What a launch accepts of cp_ll_plan_build: a record that cannot be
 * enforced (warned, applied as far as possible), or one only partly
 * enforced (Landlock's deny read: the metadata shows; warned). */
#define CP_LL_OK_UNENFORCED 1U /* --allow-unenforced, fail open: both */
#define CP_LL_OK_PARTIAL 2U    /* --allow-partial */
/* Lowers the records for Landlock (spec/runtime.md §12).  A record that
 * cannot be enforced fails with CP_RT_EXIT_CANNOT unless ok allows it. */
int cp_ll_plan_build(struct cp_ll_plan *pl, const struct cp_rt_artifact *a,
                     const struct cp_rt_params *p,
                     const struct cp_ll_features *f, const char *cmd,
                     unsigned ok, struct cp_rt_err *e);
void cp_ll_plan_free(struct cp_ll_plan *pl);

struct cp_ll_seccomp {
    bool net_deny, inet_tcp_ok, unix_deny, no_truncate;
};
/* Installs the filter (no_new_privs must be set); 0 or CP_RT_EXIT_CANNOT
 * with e's message. */
int cp_ll_seccomp_install(const struct cp_ll_seccomp *o, struct cp_rt_err *e);
/* The same confinement filter for bwrap (--add-seccomp-fd): a memfd
 * holding the program, read from its start, not close-on-exec; the fd, or
 * -1 with e filled (its status is e->status). */
int cp_rt_seccomp_memfd(struct cp_rt_err *e);
/* What the confinement filter refuses, for --dry-run. */
extern const char cp_rt_seccomp_text[];

/* Runs CMD under the chosen enforcer (auto falls back from bwrap to
 * Landlock); --dry-run prints the plan instead.  May not return. */
int cp_rt_run(const struct cp_rt_artifact *a, const struct cp_rt_params *p,
              struct cp_rt_launch *l);
int cp_rt_enforcer_parse(const char *s, enum cp_rt_enforcer *out);
/* Tries a minimal bwrap sandbox; 0, or -1 with the first error line. */
int cp_rt_bwrap_probe(const char *bwrap, char *why, size_t size);

/* Runs child_fn(ctx) in a forked child, in a session of its own, that
 * dies with the runtime, the runtime a child subreaper: SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT are forwarded to its process group; when it exits
 * every descendant left is killed.
 * Returns its status as a shell reports it (128+N for signal N).
 * runtime/supervise.c; spec/runtime.md §12. */
int cp_rt_supervise(int (*child_fn)(void *), void *ctx, const char *prog);

/* ---- macOS Seatbelt (runtime/seatbelt.c) ------------------------------- */

/* Names from the profile's ";; confpol-param NAME" lines, in order. */
int cp_rt_sb_params(const char *text, size_t len, struct cp_rt_strv *names,
                    struct cp_rt_err *e);
/* Names from the ";; confpol-ancestors NAME" lines (each one of names). */
int cp_rt_sb_ancestors(const char *text, size_t len,
                       const struct cp_rt_strv *names, struct cp_rt_strv *anc,
                       struct cp_rt_err *e);
/* The anchored AppleMatch regex of "/" and every proper ancestor of the
 * absolute path value (malloc'ed): the value of -D NAME:ancestors. */
char *cp_rt_sb_ancestors_regex(const char *value);
/* The param a profile with a `net allow` list names for the proxy's port
 * (spec/backends.md, SBPL, Network): bound by the runtime, never by -D. */
#define CP_RT_SB_PROXY_PARAM "confpol:proxy-port"
/* sandbox-exec -f PROFILE -D NAME=VALUE... -D NAME:ancestors=REGEX... [-D
 * confpol:proxy-port=PORT] -- CMD [ARG]...; anc may be NULL, proxy_port 0
 * (none). */
int cp_rt_sb_argv(const char *profile_path, const struct cp_rt_strv *names,
                  const struct cp_rt_strv *anc, const struct cp_rt_params *p,
                  unsigned proxy_port, char *const *cmd, size_t ncmd,
                  struct cp_rt_strv *out, struct cp_rt_err *e);
/* The ";; confpol-net PATTERN WHERE" lines as an artifact of `net` records
 * (f1 PATTERN, f2 WHERE; off the line's byte offset), the proxy's input;
 * each PATTERN validated with the decision model's parser.  nrecs 0: the
 * profile has no net allow list. */
int cp_rt_sb_net(const char *text, size_t len, struct cp_rt_artifact *a,
                 struct cp_rt_err *e);
/* What the macOS path reads from a profile's header comments. */
struct cp_rt_sb_profile {
    struct cp_rt_strv names;   /* ;; confpol-param NAME */
    struct cp_rt_strv anc;     /* ;; confpol-ancestors NAME */
    struct cp_rt_artifact net; /* ;; confpol-net PATTERN WHERE */
};
int cp_rt_sb_read(const char *text, size_t len, struct cp_rt_sb_profile *sp,
                  struct cp_rt_err *e);
void cp_rt_sb_profile_free(struct cp_rt_sb_profile *sp);
/* The decision of the macOS path, given the bound params and, for a
 * profile with a net allow list, the port of the proxy already started:
 * sandbox-exec's argv (the port bound as confpol:proxy-port) and the
 * command's environment (envp with the proxy's variables, spec/runtime.md
 * 14.7; left empty without a proxy: the environment is inherited as it
 * is).  A net allow list without a port is an error. */
int cp_rt_sb_plan(const char *profile_path, const struct cp_rt_sb_profile *sp,
                  const struct cp_rt_params *p, unsigned proxy_port,
                  char *const *envp, char *const *cmd, size_t ncmd,
                  struct cp_rt_strv *argv, struct cp_rt_strv *env,
                  struct cp_rt_err *e);
/* Reads the profile, binds its params, starts the proxy for a net allow
 * list (TCP mode: 127.0.0.1, a free port) and runs the command under
 * `sandbox_exec`; with a proxy, waits and stops it.  Returns the command's
 * status or 125/126 (macOS, and the CP_RT_PORTABLE test build only). */
int cp_rt_sb_run(const char *prog, const char *profile_path,
                 const char *sandbox_exec, const struct cp_rt_define *defines,
                 size_t ndefines, char *const *cmd, size_t ncmd);
/* Binds the params of a .sb file and runs sandbox-exec (macOS), or
 * explains that it needs macOS and returns 126. */
int cp_rt_run_sbpl(const char *prog, const char *profile_path,
                   const struct cp_rt_define *defines, size_t ndefines,
                   char *const *cmd, size_t ncmd);

#endif

/* SPDX-License-Identifier: MIT */
/* confpol install, uninstall and verify --claude: the file side of the
 * settings wiring of settings/settings.c (spec/settings-wiring.md).  Reads
 * the files, resolves the paths the hook needs, writes atomically and
 * keeps SETTINGS.bak. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "settings.h"

/* Settings files and artifacts are small; anything larger is refused. */
#define CP_INSTALL_MAX_FILE (64u * 1024 * 1024)

enum cp_inst_cmd { CMD_INSTALL, CMD_UNINSTALL, CMD_VERIFY };

static const char *const cp_inst_names[] = {"install", "uninstall", "verify"};

static void cp_inst_usage(enum cp_inst_cmd c, FILE *out)
{
    switch (c) {
    case CMD_INSTALL:
        fputs(
            "usage: confpol install --claude [-q] SETTINGS.json "
            "ARTIFACT.claude.json\n"
            "       confpol install --codex [-q] [CONFIG.toml] "
            "ARTIFACT.codex.toml\n"
            "\n"
            "Merges the artifact of 'confpol build --target claude' into a "
            "live\n"
            "Claude Code settings file: sets the sandbox switches, adds the\n"
            "sandbox lists and permission rules that are missing, and wires "
            "the\n"
            "PreToolUse hook 'confpol gate ARTIFACT' once (absolute paths).  "
            "Every\n"
            "other key keeps its bytes.  What was added is recorded under the\n"
            "top-level key \"confpolInstalled\" so that uninstall removes "
            "exactly\n"
            "that.  The file is replaced atomically and its previous content "
            "kept\n"
            "in SETTINGS.json.bak.  Refuses (exit 1, file unchanged) a file "
            "that is\n"
            "not valid JSON, has the wrong type where install writes, or "
            "would\n"
            "still not enforce the policy afterwards, and a file that Claude "
            "Code\n"
            "would skip whole (a wrong type or value anywhere, an invalid "
            "hook,\n"
            "over 2 MiB).  A second install changes nothing.  Says what it did "
            "in\n"
            "one line; -q silences that line.\n"
            "\n"
            "--codex: puts the profile of 'confpol build --target codex' "
            "into a\n"
            "Codex config.toml (default $CODEX_HOME/config.toml, else\n"
            "~/.codex/config.toml) as two blocks between '# >>> confpol' "
            "lines\n"
            "(default_permissions at the start, the tables at the end) and "
            "its\n"
            "exec-policy rules into rules/confpol.rules beside it.  Refuses a "
            "file\n"
            "that sets default_permissions, [permissions.confpol], "
            "sandbox_mode\n"
            "or [sandbox_workspace_write], or that it cannot read as TOML.\n"
            "\n"
            "Exit status: 0 installed (or nothing to do), 1 refused, 2 usage "
            "or I/O.\n",
            out);
        return;
    case CMD_UNINSTALL:
        fputs("usage: confpol uninstall --claude [-q] SETTINGS.json "
              "ARTIFACT.claude.json\n"
              "       confpol uninstall --codex [-q] [CONFIG.toml] "
              "ARTIFACT.codex.toml\n"
              "\n"
              "Removes from the settings file exactly what 'confpol install' "
              "added\n"
              "for this artifact (as recorded under \"confpolInstalled\"); "
              "entries\n"
              "that were there before, or that were changed since, stay.  "
              "Writes\n"
              "atomically and keeps SETTINGS.json.bak.  The artifact file "
              "itself is\n"
              "not needed.  --codex: removes the two blocks and the rules "
              "file;\n"
              "the file is back byte for byte (removed when install made "
              "it).\n"
              "\n"
              "Exit status: 0 removed (or nothing installed), 1 refused, 2 "
              "usage or I/O.\n",
              out);
        return;
    case CMD_VERIFY:
        fputs(
            "usage: confpol verify --claude [-q] [-D NAME=VALUE]... "
            "SETTINGS.json FILE\n"
            "       confpol verify --codex [-q] [CONFIG.toml] "
            "ARTIFACT.codex.toml\n"
            "\n"
            "Checks that the live settings file enforces the policy.  FILE is "
            "a\n"
            "policy (NAME.confpol, compiled in memory with the claude backend "
            "and\n"
            "the given -D bindings) or an artifact (NAME.claude.json).  "
            "Checks\n"
            "the sandbox switches, every deny list entry and permission rule,\n"
            "entries that would loosen the policy (extra allowWrite, "
            "allowRead,\n"
            "excludedCommands, Edit allow rules, ...) and that the PreToolUse "
            "hook\n"
            "runs an existing confpol on an artifact with the same gate "
            "table;\n"
            "first, that Claude Code loads the file at all (its schema, its "
            "size\n"
            "limit, its hook shapes).  Prints one line per gap, then one line "
            "of\n"
            "result (-q silences the result line).  --codex: the installed "
            "blocks\n"
            "and rules file hold the artifact, the rest of the file does not "
            "set\n"
            "what would replace the profile, and no project layer (in the "
            "current\n"
            "directory or above) or /etc/codex file could loosen it.\n"
            "\n"
            "Exit status: 0 enforced, 1 gaps (or the policy has errors), 2 "
            "usage or I/O.\n",
            out);
        return;
    }
}

/* Why the last cp_inst_read failed when errno alone would not say it (a
 * FIFO, a device, a directory where a file is read), else NULL. */
static char cp_inst_why_buf[96];
static const char *cp_inst_why;

/* The reason of the last failed cp_inst_read. */
static const char *cp_inst_err(void)
{
    return cp_inst_why ? cp_inst_why : strerror(errno);
}

/* What a file that is not a regular file is, for the messages. */
static const char *cp_inst_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* Refuses (errno EINVAL or EISDIR, the reason in cp_inst_why) what is not
 * a regular file. */
static bool cp_inst_regular(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return true;
    snprintf(cp_inst_why_buf, sizeof cp_inst_why_buf, "%s, not a regular file",
             cp_inst_kind(st->st_mode));
    cp_inst_why = cp_inst_why_buf;
    errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
    return false;
}

/* Reads a regular file whole.  A FIFO or device (named on the command
 * line, or by a settings file) must not block nor feed verify: it is
 * refused after stat, before it is opened, and the descriptor is checked
 * again (O_NONBLOCK: a FIFO put there in between cannot block the open). */
static bool cp_inst_read(const char *path, struct cp_buf *out, bool *missing)
{
    if (missing)
        *missing = false;
    cp_inst_why = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (missing && errno == ENOENT)
            *missing = true;
        return false;
    }
    if (!cp_inst_regular(&st))
        return false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (missing && errno == ENOENT)
            *missing = true;
        return false;
    }
    if (fstat(fd, &st) != 0 || !cp_inst_regular(&st)) {
        int e = errno;
        close(fd);
        errno = e;
        return false;
    }
    if ((uintmax_t)st.st_size > CP_INSTALL_MAX_FILE) {
        close(fd);
        errno = EFBIG;
        return false;
    }
    char chunk[65536];
    bool ok = true;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ok = false;
            break;
        }
        if (n == 0)
            break;
        if (out->len + (size_t)n > CP_INSTALL_MAX_FILE) {
            errno = EFBIG;
            ok = false;
            break;
        }
        cp_buf_add(out, chunk, (size_t)n);
    }
    int e = errno;
    close(fd);
    errno = e;
    if (ok && !out->data)
        cp_buf_adds(out, "");
    return ok;
}

static bool cp_inst_read_cb(const char *path, struct cp_buf *out, void *ud)
{
    (void)ud;
    return cp_inst_read(path, out, NULL);
}

static bool cp_inst_is_exec(const char *path, void *ud)
{
    struct stat st;
    (void)ud;
    return path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* `path` with its directory resolved and its name kept (heap): the path
 * under which Claude Code reads a settings file, symbolic link or not.
 * NULL (errno) when the directory cannot be resolved. */
static char *cp_inst_logical(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        errno = EINVAL;
        return NULL;
    }
    char *dir = slash ? cp_xstrdup(path) : cp_xstrdup(".");
    if (slash)
        dir[slash - path == 0 ? 1 : slash - path] = '\0';
    char *rd = realpath(dir, NULL);
    free(dir);
    if (!rd)
        return NULL;
    size_t n = strlen(rd) + strlen(base) + 2;
    char *res = cp_xmalloc(n);
    snprintf(res, n, "%s%s%s", rd, strcmp(rd, "/") == 0 ? "" : "/", base);
    free(rd);
    return res;
}

/* Absolute path of `path`: realpath when it exists, else realpath of its
 * directory plus its name.  Heap; NULL (errno) on failure. */
static char *cp_inst_abspath(const char *path)
{
    char *r = realpath(path, NULL);
    if (r || errno != ENOENT)
        return r;
    return cp_inst_logical(path);
}

static int cp_inst_write(const char *cmd, const char *settings,
                         const struct cp_buf *prev, bool existed,
                         const struct cp_buf *next)
{
    if (existed) {
        size_t n = strlen(settings) + 5;
        char *bak = cp_xmalloc(n);
        snprintf(bak, n, "%s.bak", settings);
        /* The backup is as private as the file it keeps. */
        struct stat like;
        int r = stat(settings, &like) != 0
                    ? -1
                    : cp_cli_write_atomic_like(
                          bak, prev->data ? prev->data : "", prev->len, &like);
        if (r != 0)
            fprintf(stderr, "confpol %s: %s: %s\n", cmd, bak, strerror(errno));
        free(bak);
        if (r != 0)
            return 2;
    }
    if (cp_cli_write_atomic(settings, next->data ? next->data : "",
                            next->len)) {
        fprintf(stderr, "confpol %s: %s: %s\n", cmd, settings, strerror(errno));
        return 2;
    }
    return 0;
}

static void cp_inst_print_lines(FILE *out, const char *prefix,
                                const struct cp_buf *b)
{
    const char *p = b->data ? b->data : "";
    while (*p) {
        size_t l = strcspn(p, "\n");
        fprintf(out, "%s: %.*s\n", prefix, (int)l, p);
        p += l;
        if (*p)
            p++;
    }
}

static bool cp_inst_suffix(const char *s, const char *suf)
{
    size_t l = strlen(s), k = strlen(suf);
    return l >= k && strcmp(s + l - k, suf) == 0;
}

/* Compiles a policy in memory and lowers it with the claude backend. */
static int cp_inst_compile(struct cp_cli_common *c, const char *file,
                           struct cp_buf *art)
{
    struct cp_ctx cx;
    int rc = 0;
    cp_ctx_init(&cx);
    if (!cp_cli_apply(c, &cx)) {
        cp_ctx_free(&cx);
        return 2;
    }
    cx.main_path = file;
    if (cp_compile(&cx) || !cx.policy) {
        rc = cp_diag_errors(&cx.diags) ? 1 : 2;
    } else {
        struct cp_backend_opts bo = {0};
        if (!cp_backend_emit(&cp_backend_claude, cx.policy, &bo, cx.arena,
                             &cx.diags, art))
            rc = 1;
    }
    if (rc)
        cp_cli_print_diags(c, &cx);
    cp_ctx_free(&cx);
    return rc;
}

/* The target of a symbolic link at path, or NULL (heap). */
static char *cp_inst_readlink(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return NULL;
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return cp_xstrdup(buf);
}

/* Uninstall left only what install created: remove the file, or put the
 * dangling symbolic link back. */
static int cp_inst_restore(const char *settings, const char *link)
{
    if (unlink(settings) != 0 || (link && symlink(link, settings) != 0)) {
        fprintf(stderr, "confpol uninstall: %s: %s\n", settings,
                strerror(errno));
        return 2;
    }
    return 0;
}

/* The project a settings file belongs to: DIR of DIR/.claude/settings.json
 * or settings.local.json (heap), else NULL. */
static char *cp_inst_project_of(const char *settings)
{
    const char *base = strrchr(settings, '/');
    if (!base || (strcmp(base, "/settings.json") != 0 &&
                  strcmp(base, "/settings.local.json") != 0))
        return NULL;
    size_t dl = (size_t)(base - settings);
    if (dl < 8 || memcmp(settings + dl - 8, "/.claude", 8) != 0)
        return NULL;
    char *dir = cp_xmalloc(dl - 8 + 2);
    memcpy(dir, settings, dl - 8);
    dir[dl - 8] = '\0';
    if (!dir[0])
        strcpy(dir, "/");
    return dir;
}

/* For each artifact recorded in the live settings, a note saying how it
 * was built (with -D or without) and how to verify against it. */
static void cp_inst_note_installed(const char *shown, const struct cp_buf *live)
{
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *root = NULL;
    if (!live->data || cp_json_parse(a, live->data, live->len, &root) ||
        root->type != CP_J_OBJ) {
        cp_arena_free(a);
        return;
    }
    const struct cp_jnode *recs = cp_json_get(root, CP_SETTINGS_RECORD_KEY,
                                              NULL);
    for (size_t i = 0; recs && recs->type == CP_J_ARR && i < recs->n; i++) {
        const struct cp_jnode *ap = cp_json_get(recs->items[i], "artifact",
                                                NULL);
        if (!ap || ap->type != CP_J_STR)
            continue;
        struct cp_buf ab = {0};
        struct cp_jnode *art = NULL;
        if (cp_inst_read(ap->s, &ab, NULL) &&
            !cp_json_parse(a, ab.data, ab.len, &art) && art->type == CP_J_OBJ) {
            const struct cp_jnode *meta = cp_json_get(art, "confpol", NULL);
            const struct cp_jnode *pr = meta ? cp_json_get(meta,
                                                           "projectRelative",
                                                           NULL)
                                             : NULL;
            printf("%s: note: the installed artifact %s was built %s; "
                   "verify against it: confpol verify --claude %s %s\n",
                   shown, ap->s,
                   pr && pr->type == CP_J_FALSE
                       ? "with -D (its paths are absolute)"
                       : "without -D (its paths are project-relative)",
                   shown, ap->s);
        }
        cp_buf_free(&ab);
    }
    cp_arena_free(a);
}

/* verify compiled a policy and found gaps: say with which PROJECT, and how
 * the installed artifact was built, when the two may not be the same. */
static void cp_inst_how_built(const struct cp_cli_common *c, const char *shown,
                              const char *settings, const struct cp_buf *live)
{
    const char *project = NULL;
    for (size_t i = 0; i < c->ndefines; i++)
        if (strcmp(c->defines[i].name, "PROJECT") == 0 &&
            strcmp(cp_cli_define_from(c, i), "-D") == 0)
            project = c->defines[i].value;
    char *cwd = project ? NULL : getcwd(NULL, 0);
    char *owner = cp_inst_project_of(settings);
    char *rp = project ? realpath(project, NULL) : NULL;
    const char *used = rp ? rp : project ? project : cwd ? cwd : "?";
    printf("%s: note: verify built the policy with PROJECT=%s (%s)\n", shown,
           used, project ? "-D PROJECT" : "the current directory");
    if (owner && strcmp(owner, used) != 0)
        printf("%s: note: this settings file belongs to the project %s: run "
               "verify there, or pass -D PROJECT=%s\n",
               shown, owner, owner);
    cp_inst_note_installed(shown, live);
    free(rp);
    free(cwd);
    free(owner);
}

/* One run of install, uninstall or verify: the command line, the files
 * read and the buffers written.  cp_inst_free releases it. */
struct cp_inst {
    enum cp_inst_cmd cmd;
    const char *name;
    struct cp_cli_common c;
    const char *pos[2]; /* SETTINGS.json, the artifact or policy */
    size_t npos;
    bool claude, codex, quiet;
    char *defcfg; /* --codex with one argument: the config.toml of CODEX_HOME */
    char *settings; /* the file read and written (links resolved) */
    char *logical;  /* the path Claude Code reads it under (its scope) */
    char *artpath, *gate, *home, *cfgdir, *link;
    struct cp_buf live, art, out, msg;
    bool have_live;
    int lockfd; /* the directory of `settings`, locked (install, uninstall) */
    struct cp_settings_env env;
};

static void cp_inst_free(struct cp_inst *st)
{
    free(st->link);
    free(st->defcfg);
    free(st->home);
    free(st->cfgdir);
    free(st->settings);
    free(st->logical);
    if (st->lockfd > 0)
        close(st->lockfd); /* and so unlocked */
    free(st->artpath);
    free(st->gate);
    cp_buf_free(&st->live);
    cp_buf_free(&st->art);
    cp_buf_free(&st->out);
    cp_buf_free(&st->msg);
    cp_cli_common_free(&st->c);
}

/* Takes one positional argument; false (after the usage) when there are
 * more than two. */
static bool cp_inst_positional(struct cp_inst *st, const char *a)
{
    if (st->npos < 2) {
        st->pos[st->npos++] = a;
        return true;
    }
    fprintf(stderr, "confpol %s: too many arguments\n", st->name);
    cp_inst_usage(st->cmd, stderr);
    return false;
}

/* An option other than --help, --claude, -q: verify takes the common
 * compile options.  Returns -1 when the option was consumed, else the exit
 * status (the message was printed). */
static int cp_inst_option(struct cp_inst *st, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int r = st->cmd == CMD_VERIFY ? cp_cli_common_opt(&st->c, argc, argv, i)
                                  : 0;
    if (r < 0)
        return 2;
    if (r == 0) {
        cp_cli_unknown_option(
            st->name, a,
            (const char *const[]){"--claude", "--codex", "--help", NULL},
            st->cmd == CMD_VERIFY);
        return 2;
    }
    return -1;
}

/* Reads the command line.  Returns -1 to go on, else the exit status. */
static int cp_inst_args(struct cp_inst *st, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = -1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_inst_usage(st->cmd, stdout);
            return 0;
        } else if (strcmp(a, "--claude") == 0) {
            st->claude = true;
        } else if (strcmp(a, "--codex") == 0) {
            st->codex = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            st->quiet = true;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                if (!cp_inst_positional(st, argv[i]))
                    return 2;
        } else if (a[0] == '-' && a[1]) {
            r = cp_inst_option(st, argc, argv, &i);
        } else if (!cp_inst_positional(st, a)) {
            r = 2;
        }
        if (r >= 0)
            return r;
    }
    return -1;
}

/* A client's file NAME in the directory the variable ENV names when set,
 * else in ~/DOTDIR (heap; NULL when neither ENV nor HOME is set). */
static char *cp_inst_client_file(const char *env, const char *dotdir,
                                 const char *name)
{
    const char *dir = getenv(env), *h = getenv("HOME");
    struct cp_buf p = {0};
    if (dir && *dir)
        cp_buf_printf(&p, "%s/%s", dir, name);
    else if (h && *h)
        cp_buf_printf(&p, "%s/%s/%s", h, dotdir, name);
    return p.data;
}

/* --codex: [CONFIG.toml] ARTIFACT.codex.toml; CONFIG.toml defaults to
 * $CODEX_HOME/config.toml, else ~/.codex/config.toml. */
static int cp_inst_codex_args(struct cp_inst *st)
{
    if (st->npos == 1) {
        st->defcfg = cp_inst_client_file("CODEX_HOME", ".codex", "config.toml");
        st->pos[1] = st->pos[0];
        st->pos[0] = st->defcfg;
        st->npos = st->defcfg ? 2 : 1;
    }
    if (st->npos != 2) {
        fprintf(stderr,
                "confpol %s: expected [CONFIG.toml] ARTIFACT.codex.toml "
                "(and CODEX_HOME or HOME set)\n",
                st->name);
        cp_inst_usage(st->cmd, stderr);
        return 2;
    }
    if (st->cmd == CMD_VERIFY && cp_inst_suffix(st->pos[1], ".confpol")) {
        fprintf(stderr,
                "confpol verify --codex: %s: give the artifact "
                "(confpol build --target codex -D PROJECT=... -D HOME=...)\n",
                st->pos[1]);
        return 2;
    }
    return -1;
}

/* The two arguments every command needs.  Returns -1 to go on, else the
 * exit status. */
static int cp_inst_check_args(struct cp_inst *st)
{
    if (st->codex && !st->claude)
        return cp_inst_codex_args(st);
    if (st->claude == st->codex) {
        fprintf(stderr,
                "confpol %s: say which settings: --claude or --codex "
                "(one of them)\n",
                st->name);
        cp_inst_usage(st->cmd, stderr);
        return 2;
    }
    if (st->npos != 2) {
        fprintf(stderr, "confpol %s: expected SETTINGS.json and %s\n", st->name,
                st->cmd == CMD_VERIFY ? "FILE" : "ARTIFACT.claude.json");
        cp_inst_usage(st->cmd, stderr);
        return 2;
    }
    return -1;
}

/* install into a project that has no .claude/ yet: the directory is
 * created (mode 0700: Claude Code's own directories are private), only
 * that one, only when its parent exists.  True when it was created. */
static bool cp_inst_make_claude_dir(const struct cp_inst *st)
{
    const char *p = st->pos[0];
    const char *slash = strrchr(p, '/');
    if (st->cmd != CMD_INSTALL || !slash)
        return false;
    char *dir = cp_xstrndup(p, (size_t)(slash - p));
    const char *ds = strrchr(dir, '/');
    bool ok = strcmp(ds ? ds + 1 : dir, ".claude") == 0 &&
              mkdir(dir, 0700) == 0;
    if (ok && !st->quiet)
        fprintf(stderr, "confpol install: created %s (mode 0700)\n", dir);
    free(dir);
    errno = ENOENT;
    return ok;
}

/* A project settings file that is a symbolic link must stay inside the
 * project: install writes where it points.  False (printed) otherwise. */
static bool cp_inst_link_inside(const struct cp_inst *st)
{
    if (strcmp(st->settings, st->logical) == 0 || st->cmd == CMD_VERIFY)
        return true;
    char *owner = cp_inst_project_of(st->logical);
    bool ok = true;
    if (owner && !(st->home && strcmp(owner, st->home) == 0)) {
        size_t ol = strlen(owner);
        ok = strcmp(owner, "/") == 0 ||
             (strncmp(st->settings, owner, ol) == 0 && st->settings[ol] == '/');
        if (!ok)
            fprintf(stderr,
                    "confpol %s: %s is a symbolic link to %s, outside the "
                    "project %s: refused (%s would write outside the "
                    "project)\n",
                    st->name, st->pos[0], st->settings, owner, st->name);
    }
    free(owner);
    return ok;
}

/* st->logical and st->settings from SETTINGS as given.  Returns -1 to go
 * on, else the exit status (printed). */
static int cp_inst_paths(struct cp_inst *st)
{
    const char *p = st->pos[0];
    if (!*p) {
        fprintf(stderr, "confpol %s: the settings path is empty\n", st->name);
        return 2;
    }
    st->logical = cp_inst_logical(p);
    if (!st->logical && errno == ENOENT && cp_inst_make_claude_dir(st))
        st->logical = cp_inst_logical(p);
    if (!st->logical) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, p,
                errno == ENOENT ? "its directory does not exist"
                : errno == EINVAL
                    ? "not a file name (it ends in '/', '.' or '..')"
                    : strerror(errno));
        return 2;
    }
    st->settings = realpath(st->logical, NULL);
    if (!st->settings && errno != ENOENT) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, p, strerror(errno));
        return 2;
    }
    if (!st->settings)
        st->settings = cp_xstrdup(st->logical);
    /* Canonical, like SETTINGS: a symlinked $HOME must still be recognised
     * as the directory of the user settings file. */
    const char *envhome = getenv("HOME"), *envcd = getenv("CLAUDE_CONFIG_DIR");
    st->home = envhome ? realpath(envhome, NULL) : NULL;
    st->cfgdir = envcd && *envcd ? realpath(envcd, NULL) : NULL;
    return cp_inst_link_inside(st) ? -1 : 1;
}

/* How long install and uninstall wait for another one on the same
 * directory (seconds). */
#define CP_INSTALL_LOCK_WAIT 30

/* Serialises install and uninstall: an exclusive lock (flock) on the
 * directory that holds the settings file, so that nothing is left behind
 * and two runs on one file cannot both read the old content and lose one
 * record.  Waits at most CP_INSTALL_LOCK_WAIT s.  Returns -1 to go on,
 * else the exit status (printed). */
static int cp_inst_lock(struct cp_inst *st)
{
    char *dir = cp_xstrdup(st->settings);
    char *slash = strrchr(dir, '/');
    slash[slash == dir ? 1 : 0] = '\0';
    st->lockfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = -1;
    if (st->lockfd < 0) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, dir, strerror(errno));
        rc = 2;
    }
    for (int i = 0; rc < 0 && flock(st->lockfd, LOCK_EX | LOCK_NB) != 0; i++) {
        if ((errno != EWOULDBLOCK && errno != EINTR) ||
            i >= CP_INSTALL_LOCK_WAIT * 100) {
            fprintf(stderr,
                    "confpol %s: %s: cannot lock its directory %s (%s): "
                    "another install or uninstall there did not finish in "
                    "%d s\n",
                    st->name, st->pos[0], dir,
                    errno == EWOULDBLOCK ? "held" : strerror(errno),
                    CP_INSTALL_LOCK_WAIT);
            rc = 2;
            break;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    free(dir);
    return rc;
}

/* Is `name` a temporary file cp_cli_write_atomic makes for `base`:
 * BASE.tmp.XXXXXX, X from mkstemp's alphabet? */
static bool cp_inst_tmp_name(const char *name, const char *base)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
        return false;
    const char *x = name + bl + 5;
    size_t i = 0;
    for (; x[i]; i++)
        if (!((x[i] >= 'a' && x[i] <= 'z') || (x[i] >= 'A' && x[i] <= 'Z') ||
              (x[i] >= '0' && x[i] <= '9')))
            return false;
    return i == 6;
}

/* Removes one stale temporary: a regular file, and still the same one
 * (device and inode) when it is unlinked. */
static bool cp_inst_unlink_tmp(int dfd, const char *name)
{
    struct stat a, b;
    int fd = openat(dfd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return false;
    bool ok = fstat(fd, &a) == 0 && S_ISREG(a.st_mode) &&
              fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
              a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
              unlinkat(dfd, name, 0) == 0;
    close(fd);
    return ok;
}

/* An install or uninstall killed between its temporary file and the
 * rename leaves SETTINGS.tmp.XXXXXX or SETTINGS.bak.tmp.XXXXXX behind.
 * Under the lock no other run is writing one, so those of this file are
 * removed (said on stderr unless -q). */
static void cp_inst_sweep(const struct cp_inst *st)
{
    const char *base = strrchr(st->settings, '/') + 1;
    size_t bl = strlen(base);
    char *bak = cp_xmalloc(bl + 5);
    snprintf(bak, bl + 5, "%s.bak", base);
    int dfd = dup(st->lockfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d && dfd >= 0)
        close(dfd);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if ((cp_inst_tmp_name(e->d_name, base) ||
             cp_inst_tmp_name(e->d_name, bak)) &&
            cp_inst_unlink_tmp(dirfd(d), e->d_name) && !st->quiet)
            fprintf(stderr,
                    "confpol %s: removed %s, left by an interrupted "
                    "install or uninstall\n",
                    st->name, e->d_name);
    }
    if (d)
        closedir(d);
    free(bak);
}

/* Reads the live settings (missing is fine) and fills st->env.  False on
 * an I/O error (printed). */
static bool cp_inst_open(struct cp_inst *st)
{
    bool missing = false;
    st->have_live = cp_inst_read(st->settings, &st->live, &missing);
    if (!st->have_live && !missing) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, st->pos[0],
                cp_inst_err());
        return false;
    }
    const char *envhome = getenv("HOME"), *envcd = getenv("CLAUDE_CONFIG_DIR");
    st->env = (struct cp_settings_env){
        .settings_path = st->logical,
        .home = st->home ? st->home : envhome,
        .config_dir = st->cfgdir ? st->cfgdir : envcd,
        .read_file = cp_inst_read_cb,
        .is_exec = cp_inst_is_exec,
    };
    return true;
}

/* The file is still what was read: another program (an editor, the
 * client) may have written it since, and replacing it would lose that
 * write.  False (printed) otherwise. */
static bool cp_inst_unchanged(const struct cp_inst *st)
{
    struct cp_buf now = {0};
    bool missing = false;
    bool have = cp_inst_read(st->settings, &now, &missing);
    bool same = have ? st->have_live && now.len == st->live.len &&
                           memcmp(now.data, st->live.data, now.len) == 0
                     : missing && !st->have_live;
    cp_buf_free(&now);
    if (!same)
        fprintf(stderr,
                "confpol %s: %s changed while %s ran (another program wrote "
                "it): nothing written, run %s again\n",
                st->name, st->pos[0], st->name, st->name);
    return same;
}

/* ---- the other settings files Claude Code merges ----------------------- */

int cp_cli_claude_merged(const char *file, int src, bool whole, const char *art,
                         size_t alen, const char *lead, struct cp_buf *out)
{
    struct cp_buf text = {0}, rep = {0};
    bool missing = false;
    int n = 0;
    if (!cp_inst_read(file, &text, &missing)) {
        if (!missing) {
            cp_buf_printf(out,
                          "%s%s: cannot be read (%s): confpol cannot tell "
                          "what Claude Code takes from it\n",
                          lead, file, cp_inst_err());
            n = 1;
        }
        cp_buf_free(&text);
        return n;
    }
    n = (whole ? cp_settings_loosening_whole : cp_settings_loosening)(
        text.data, text.len, (enum cp_settings_source)src, art, alen, &rep);
    const char *p = rep.data ? rep.data : "";
    while (*p) {
        size_t l = strcspn(p, "\n");
        cp_buf_printf(out, "%s%s: %.*s\n", lead, file, (int)l, p);
        p += l + (p[l] != '\0');
    }
    cp_buf_free(&rep);
    cp_buf_free(&text);
    return n;
}

static int cp_inst_strcmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The files of DIR/managed-settings.d that the client reads, in its
 * order: names ending in .json, not starting with '.', files or symbolic
 * links, sorted. */
static void cp_inst_dropins(const char *dir, char ***v, size_t *n,
                            const char *lead, struct cp_buf *out, int *bad)
{
    char *dd = cp_xmalloc(strlen(dir) + 20);
    sprintf(dd, "%s/managed-settings.d", dir);
    DIR *d = opendir(dd);
    if (!d && errno != ENOENT && errno != ENOTDIR) {
        cp_buf_printf(out,
                      "%s%s: cannot be listed (%s): confpol cannot tell what "
                      "Claude Code takes from it\n",
                      lead, dd, strerror(errno));
        ++*bad;
    }
    size_t first = *n;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || l < 5 ||
            strcmp(e->d_name + l - 5, ".json") != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            continue;
        *v = cp_xrealloc(*v, (*n + 2) * sizeof **v);
        (*v)[*n] = cp_xmalloc(strlen(dd) + l + 2);
        sprintf((*v)[*n], "%s/%s", dd, e->d_name);
        ++*n;
    }
    if (d)
        closedir(d);
    qsort(*v + first, *n - first, sizeof **v, cp_inst_strcmp);
    free(dd);
}

/* The directories of managed settings: on WSL the Windows one (when the
 * client is told to inherit it, it comes first; read whenever present),
 * then the platform's (reference §5). */
static const char *const cp_inst_managed_dirs[] = {
#ifdef __APPLE__
    "/Library/Application Support/ClaudeCode",
#else
    "/mnt/c/Program Files/ClaudeCode",
    "/etc/claude-code",
#endif
};

int cp_cli_claude_managed(const char *art, size_t alen, bool whole,
                          const char *lead, const char *skip,
                          struct cp_buf *out)
{
    char **v = cp_xmalloc(sizeof *v);
    size_t n = 0;
    int loose = 0;
    /* Server-managed settings, cached by the client; when present they
     * come before the files (the first tier that has settings wins). */
    char *rs = cp_inst_client_file("CLAUDE_CONFIG_DIR", ".claude",
                                   "remote-settings.json");
    if (rs)
        v[n++] = rs;
    for (size_t i = 0; i < sizeof cp_inst_managed_dirs / sizeof(char *); i++) {
        v = cp_xrealloc(v, (n + 2) * sizeof *v);
        v[n] = cp_xmalloc(strlen(cp_inst_managed_dirs[i]) + 24);
        sprintf(v[n++], "%s/managed-settings.json", cp_inst_managed_dirs[i]);
        cp_inst_dropins(cp_inst_managed_dirs[i], &v, &n, lead, out, &loose);
    }
    char *rskip = skip ? realpath(skip, NULL) : NULL;
    for (size_t i = 0; i < n; i++) {
        char *r = realpath(v[i], NULL);
        if (!(rskip && r && strcmp(r, rskip) == 0))
            loose += cp_cli_claude_merged(v[i], CP_SETTINGS_MANAGED, whole, art,
                                          alen, lead, out);
        free(r);
        free(v[i]);
    }
    free(rskip);
    free(v);
    return loose;
}

/* verify: the artifact (read, or compiled from a policy) against the live
 * settings; one line per gap, then the result line. */
static int cp_inst_verify(struct cp_inst *st)
{
    const char **pos = st->pos;
    if (cp_inst_suffix(pos[1], ".confpol")) {
        /* PROJECT where `confpol claude` binds it, the current directory,
         * unless the settings file is a project's own: there install put
         * the symbolic artifact, whose paths are relative to it. */
        char *owner = cp_inst_project_of(st->logical);
        if (!owner || (st->env.home && strcmp(owner, st->env.home) == 0))
            cp_cli_bind_project(&st->c);
        free(owner);
        int r = cp_inst_compile(&st->c, pos[1], &st->art);
        if (r)
            return r;
    } else if (!cp_inst_read(pos[1], &st->art, NULL)) {
        fprintf(stderr, "confpol verify: %s: %s\n", pos[1], cp_inst_err());
        return 2;
    }
    if (!st->have_live) {
        fprintf(stdout, "%s: gap: the settings file does not exist\n", pos[0]);
        return 1;
    }
    int gaps = cp_settings_verify(&st->env, st->live.data, st->live.len,
                                  st->art.data, st->art.len, &st->msg);
    if (gaps < 0) {
        cp_inst_print_lines(stderr, pos[0], &st->msg);
        return 1;
    }
    /* Managed settings override every switch of this file and add to
     * its lists. */
    gaps += cp_cli_claude_managed(st->art.data, st->art.len, false,
                                  "gap: managed settings ", st->settings,
                                  &st->msg);
    cp_inst_print_lines(stdout, pos[0], &st->msg);
    if (gaps && cp_inst_suffix(pos[1], ".confpol"))
        cp_inst_how_built(&st->c, pos[0], st->logical, &st->live);
    if (!st->quiet && gaps)
        printf("confpol verify: %s does not enforce %s: %d gap%s\n", pos[0],
               pos[1], gaps, gaps == 1 ? "" : "s");
    else if (!st->quiet)
        printf("confpol verify: %s enforces %s\n", pos[0], pos[1]);
    return gaps ? 1 : 0;
}

/* install: merge, then write (nothing when already installed). */
static int cp_inst_install(struct cp_inst *st)
{
    const char **pos = st->pos;
    if (!cp_inst_read(st->artpath, &st->art, NULL)) {
        fprintf(stderr, "confpol install: %s: %s\n", pos[1], cp_inst_err());
        return 2;
    }
    st->gate = cp_cli_gate_program("install");
    if (!st->gate)
        return 2;
    st->env.gate_path = st->gate;
    if (!st->have_live)
        st->env.dangling_link = st->link = cp_inst_readlink(st->settings);
    if (cp_settings_install(&st->env, st->have_live ? st->live.data : NULL,
                            st->live.len, st->art.data, st->art.len, &st->out,
                            &st->msg) != 0) {
        cp_inst_print_lines(stderr, pos[0], &st->msg);
        return 1;
    }
    if (st->have_live && st->out.len == st->live.len &&
        memcmp(st->out.data, st->live.data, st->live.len) == 0) {
        if (!st->quiet) /* already installed: nothing to write */
            printf("confpol install: %s already enforces %s: nothing "
                   "changed\n",
                   pos[0], pos[1]);
        return 0;
    }
    if (!cp_inst_unchanged(st))
        return 2;
    int rc = cp_inst_write(st->name, st->settings, &st->live, st->have_live,
                           &st->out);
    if (rc == 0 && !st->quiet)
        printf("confpol install: installed %s into %s (%s)\n", pos[1], pos[0],
               st->have_live ? "previous content in .bak"
               : st->link    ? "it was a dangling symbolic link: uninstall "
                               "puts the link back"
                             : "new file: uninstall removes it");
    return rc;
}

/* uninstall: remove what install recorded; when only install's own bytes
 * are left, put back what stood at the path before. */
static int cp_inst_uninstall(struct cp_inst *st)
{
    const char **pos = st->pos;
    if (!st->have_live) {
        fprintf(stderr, "confpol uninstall: %s: no such file\n", pos[0]);
        return 2;
    }
    size_t removed = 0;
    const char *olink = NULL;
    struct cp_arena *oa = cp_arena_new();
    int origin = cp_settings_origin(oa, st->live.data, st->live.len,
                                    st->artpath, &olink);
    olink = olink ? (st->link = cp_xstrdup(olink)) : NULL;
    cp_arena_free(oa);
    if (cp_settings_uninstall(&st->env, st->live.data, st->live.len, &st->out,
                              &removed, &st->msg) != 0) {
        cp_inst_print_lines(stderr, pos[0], &st->msg);
        return 1;
    }
    if (st->out.len == st->live.len &&
        memcmp(st->out.data, st->live.data, st->live.len) == 0) {
        if (!st->quiet)
            printf("confpol uninstall: %s holds nothing installed from %s: "
                   "nothing changed\n",
                   pos[0], st->artpath);
        return 0;
    }
    if (!cp_inst_unchanged(st))
        return 2;
    int rc;
    if (origin && st->out.len == 3 && memcmp(st->out.data, "{}\n", 3) == 0) {
        /* Only install's own bytes were left: put back what stood there. */
        rc = cp_inst_restore(st->settings, olink);
        if (rc == 0 && !st->quiet)
            printf("confpol uninstall: removed %s from %s (%s)\n", pos[1],
                   pos[0],
                   olink ? "the dangling symbolic link is back"
                         : "install had created it: removed");
        return rc;
    }
    rc = cp_inst_write(st->name, st->settings, &st->live, true, &st->out);
    if (rc == 0 && !st->quiet)
        printf("confpol uninstall: removed %zu change%s of %s from %s "
               "(previous content in .bak)\n",
               removed, removed == 1 ? "" : "s", pos[1], pos[0]);
    return rc;
}

/* ---- --codex: a Codex config.toml and CODEX_HOME/rules ------------------ */

/* The first line of the rules file install writes: it names the artifact,
 * so that install and uninstall touch only a file of theirs. */
#define CP_INST_RULES_MARK "# confpol install: the exec-policy rules of "

/* CODEX_HOME/rules/confpol.rules beside the config file (heap): Codex reads
 * the rules of the directory that holds its config.toml. */
static char *cp_inst_rules_path(const struct cp_inst *st, bool dir)
{
    const char *slash = strrchr(st->logical, '/');
    size_t dl = slash ? (size_t)(slash - st->logical) : 0;
    struct cp_buf p = {0};
    cp_buf_printf(&p, "%.*s/rules%s", (int)dl, st->logical,
                  dir ? "" : "/confpol.rules");
    return p.data;
}

/* What the rules file of this artifact holds (the mark, then the rules);
 * empty when the artifact has none.  `made`: install creates rules/. */
static void cp_inst_rules_text(const struct cp_inst *st, bool made,
                               struct cp_buf *out)
{
    struct cp_buf r = {0};
    if (cp_codex_rules(&st->art, &r) && r.len)
        cp_buf_printf(out, "%s%s%s\n%s", CP_INST_RULES_MARK, st->artpath,
                      made ? " (rules/ made by install)" : "", r.data);
    cp_buf_free(&r);
}

/* Is the rules file ours (its mark names this artifact)?  *made: install
 * created rules/.  False also when it is missing (*missing). */
static bool cp_inst_rules_ours(const struct cp_inst *st, const char *path,
                               struct cp_buf *have, bool *missing, bool *made)
{
    struct cp_buf m = {0};
    cp_buf_printf(&m, "%s%s", CP_INST_RULES_MARK, st->artpath);
    bool ok = cp_inst_read(path, have, missing) && have->len > m.len &&
              memcmp(have->data, m.data, m.len) == 0 &&
              (have->data[m.len] == '\n' || have->data[m.len] == ' ');
    *made = ok && have->data[m.len] == ' ';
    cp_buf_free(&m);
    return ok;
}

/* install --codex: the rules file first (refused when one not ours is
 * there), then config.toml. */
static int cp_inst_codex_rules_install(const struct cp_inst *st)
{
    char *dir = cp_inst_rules_path(st, true),
         *path = cp_inst_rules_path(st, false);
    struct cp_buf have = {0}, want = {0};
    bool missing = false, made = false, ours;
    int rc = 0;
    ours = cp_inst_rules_ours(st, path, &have, &missing, &made);
    struct stat sd;
    bool mkd = stat(dir, &sd) != 0;
    cp_inst_rules_text(st, ours ? made : mkd, &want);
    if (!ours && !missing) {
        fprintf(stderr,
                "confpol install: %s exists and was not written by install "
                "of %s: refused, nothing written\n",
                path, st->pos[1]);
        rc = 1;
    } else if (want.len && mkd && mkdir(dir, 0700) != 0) {
        fprintf(stderr, "confpol install: %s: %s\n", dir, strerror(errno));
        rc = 2;
    } else if (want.len &&
               !(ours && have.len == want.len &&
                 memcmp(have.data, want.data, want.len) == 0) &&
               cp_cli_write_atomic(path, want.data, want.len) != 0) {
        fprintf(stderr, "confpol install: %s: %s\n", path, strerror(errno));
        rc = 2;
    } else if (!want.len && ours && unlink(path) != 0) {
        rc = 2;
    }
    cp_buf_free(&have);
    cp_buf_free(&want);
    free(dir);
    free(path);
    return rc;
}

/* uninstall --codex: the rules file of this artifact, and rules/ when
 * install made it and it is empty. */
static int cp_inst_codex_rules_remove(const struct cp_inst *st)
{
    char *dir = cp_inst_rules_path(st, true),
         *path = cp_inst_rules_path(st, false);
    struct cp_buf have = {0};
    bool missing = false, made = false;
    int rc = 0;
    if (cp_inst_rules_ours(st, path, &have, &missing, &made)) {
        if (unlink(path) != 0) {
            fprintf(stderr, "confpol uninstall: %s: %s\n", path,
                    strerror(errno));
            rc = 2;
        } else if (made) {
            (void)rmdir(dir); /* only when empty */
        }
    }
    cp_buf_free(&have);
    free(dir);
    free(path);
    return rc;
}

static int cp_inst_codex_install(struct cp_inst *st)
{
    if (cp_codex_install(st->artpath, st->have_live ? st->live.data : NULL,
                         st->live.len, st->art.data, st->art.len, &st->out,
                         &st->msg) != 0) {
        cp_inst_print_lines(stderr, st->pos[0], &st->msg);
        return 1;
    }
    int rc = cp_inst_codex_rules_install(st);
    if (rc)
        return rc;
    if (st->have_live && st->out.len == st->live.len &&
        memcmp(st->out.data, st->live.data, st->live.len) == 0) {
        if (!st->quiet)
            printf("confpol install: %s already enforces %s: nothing "
                   "changed\n",
                   st->pos[0], st->pos[1]);
        return 0;
    }
    if (!cp_inst_unchanged(st))
        return 2;
    rc = cp_inst_write(st->name, st->settings, &st->live, st->have_live,
                       &st->out);
    if (rc == 0 && !st->quiet)
        printf("confpol install: installed %s into %s (%s)\n", st->pos[1],
               st->pos[0],
               st->have_live ? "previous content in .bak"
                             : "new file: uninstall removes it");
    return rc;
}

static int cp_inst_codex_uninstall(struct cp_inst *st)
{
    bool created = false;
    if (!st->have_live) {
        fprintf(stderr, "confpol uninstall: %s: no such file\n", st->pos[0]);
        return 2;
    }
    int found = cp_codex_uninstall(st->artpath, st->live.data, st->live.len,
                                   &st->out, &created);
    int rc = cp_inst_codex_rules_remove(st);
    if (!found) {
        if (!st->quiet && rc == 0)
            printf("confpol uninstall: %s holds nothing installed from %s: "
                   "nothing changed\n",
                   st->pos[0], st->artpath);
        return rc;
    }
    if (rc || !cp_inst_unchanged(st))
        return 2;
    if (created && st->out.len == 0) {
        rc = cp_inst_restore(st->settings, NULL);
        if (rc == 0 && !st->quiet)
            printf("confpol uninstall: removed %s from %s (install had "
                   "created it: removed)\n",
                   st->pos[1], st->pos[0]);
        return rc;
    }
    rc = cp_inst_write(st->name, st->settings, &st->live, true, &st->out);
    if (rc == 0 && !st->quiet)
        printf("confpol uninstall: removed %s from %s (previous content in "
               ".bak)\n",
               st->pos[1], st->pos[0]);
    return rc;
}

/* verify --codex: the blocks, the rules file, the layers Codex merges. */
static int cp_inst_codex_verify(struct cp_inst *st)
{
    if (!st->have_live) {
        printf("%s: gap: the file does not exist\n", st->pos[0]);
        return 1;
    }
    int gaps = cp_codex_verify(st->artpath, st->live.data, st->live.len,
                               st->art.data, st->art.len, &st->msg);
    if (gaps < 0) {
        cp_inst_print_lines(stderr, st->pos[1], &st->msg);
        return 2;
    }
    char *path = cp_inst_rules_path(st, false);
    struct cp_buf have = {0}, want = {0};
    bool missing = false, made = false;
    bool ours = cp_inst_rules_ours(st, path, &have, &missing, &made);
    cp_inst_rules_text(st, made, &want);
    if (want.len && !(ours && have.len == want.len &&
                      memcmp(have.data, want.data, want.len) == 0)) {
        cp_buf_printf(&st->msg,
                      "gap: %s does not hold the artifact's exec-policy "
                      "rules\n",
                      path);
        gaps++;
    }
    cp_buf_free(&have);
    cp_buf_free(&want);
    free(path);
    cp_inst_print_lines(stdout, st->pos[0], &st->msg);
    char *cwd = getcwd(NULL, 0);
    gaps += cp_codex_managed("verify") +
            (cwd ? cp_codex_project_layers("verify", cwd) : 0);
    free(cwd);
    if (!st->quiet)
        printf(gaps ? "confpol verify: %s does not enforce %s: %d gap%s\n"
                    : "confpol verify: %s enforces %s\n",
               st->pos[0], st->pos[1], gaps, gaps == 1 ? "" : "s");
    return gaps ? 1 : 0;
}

static int cp_inst_codex(struct cp_inst *st)
{
    st->artpath = cp_inst_abspath(st->pos[1]);
    if (!st->artpath) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, st->pos[1],
                strerror(errno));
        return 2;
    }
    if (st->cmd != CMD_UNINSTALL &&
        !cp_inst_read(st->artpath, &st->art, NULL)) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, st->pos[1],
                cp_inst_err());
        return 2;
    }
    if (st->cmd == CMD_UNINSTALL)
        return cp_inst_codex_uninstall(st);
    return st->cmd == CMD_INSTALL ? cp_inst_codex_install(st)
                                  : cp_inst_codex_verify(st);
}

/* After the command line and the live settings: the command itself. */
static int cp_inst_run(struct cp_inst *st)
{
    if (st->codex)
        return cp_inst_codex(st);
    if (st->cmd == CMD_VERIFY)
        return cp_inst_verify(st);
    st->artpath = cp_inst_abspath(st->pos[1]);
    if (!st->artpath) {
        fprintf(stderr, "confpol %s: %s: %s\n", st->name, st->pos[1],
                strerror(errno));
        return 2;
    }
    st->env.artifact_path = st->artpath;
    return st->cmd == CMD_INSTALL ? cp_inst_install(st) : cp_inst_uninstall(st);
}

static int cp_inst_main(enum cp_inst_cmd cmd, int argc, char **argv)
{
    struct cp_inst st = {.cmd = cmd, .name = cp_inst_names[cmd]};
    st.c.cmd = st.name;
    int rc = cp_inst_args(&st, argc, argv);
    if (rc < 0)
        rc = cp_inst_check_args(&st);
    if (rc < 0)
        rc = cp_inst_paths(&st);
    if (rc < 0 && st.cmd != CMD_VERIFY && (rc = cp_inst_lock(&st)) < 0)
        cp_inst_sweep(&st);
    if (rc < 0)
        rc = cp_inst_open(&st) ? cp_inst_run(&st) : 2;
    cp_inst_free(&st);
    return rc;
}

int cp_cmd_install(int argc, char **argv)
{
    return cp_inst_main(CMD_INSTALL, argc, argv);
}

int cp_cmd_uninstall(int argc, char **argv)
{
    return cp_inst_main(CMD_UNINSTALL, argc, argv);
}

int cp_cmd_verify(int argc, char **argv)
{
    return cp_inst_main(CMD_VERIFY, argc, argv);
}

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
#include <sys/stat.h>
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
        fputs("usage: confpol install --claude [-q] SETTINGS.json ARTIFACT.claude.json\n"
              "\n"
              "Merges the artifact of 'confpol build --target claude' into a live\n"
              "Claude Code settings file: sets the sandbox switches, adds the\n"
              "sandbox lists and permission rules that are missing, and wires the\n"
              "PreToolUse hook 'confpol gate ARTIFACT' once (absolute paths).  Every\n"
              "other key keeps its bytes.  What was added is recorded under the\n"
              "top-level key \"confpolInstalled\" so that uninstall removes exactly\n"
              "that.  The file is replaced atomically and its previous content kept\n"
              "in SETTINGS.json.bak.  Refuses (exit 1, file unchanged) a file that is\n"
              "not valid JSON, has the wrong type where install writes, or would\n"
              "still not enforce the policy afterwards, and a file that Claude Code\n"
              "would skip whole (a wrong type or value anywhere, an invalid hook,\n"
              "over 2 MiB).  A second install changes nothing.  Says what it did in\n"
              "one line; -q silences that line.\n"
              "\n"
              "Exit status: 0 installed (or nothing to do), 1 refused, 2 usage or I/O.\n",
              out);
        return;
    case CMD_UNINSTALL:
        fputs("usage: confpol uninstall --claude [-q] SETTINGS.json ARTIFACT.claude.json\n"
              "\n"
              "Removes from the settings file exactly what 'confpol install' added\n"
              "for this artifact (as recorded under \"confpolInstalled\"); entries\n"
              "that were there before, or that were changed since, stay.  Writes\n"
              "atomically and keeps SETTINGS.json.bak.  The artifact file itself is\n"
              "not needed.\n"
              "\n"
              "Exit status: 0 removed (or nothing installed), 1 refused, 2 usage or I/O.\n",
              out);
        return;
    case CMD_VERIFY:
        fputs("usage: confpol verify --claude [-q] [-D NAME=VALUE]... SETTINGS.json FILE\n"
              "\n"
              "Checks that the live settings file enforces the policy.  FILE is a\n"
              "policy (NAME.confpol, compiled in memory with the claude backend and\n"
              "the given -D bindings) or an artifact (NAME.claude.json).  Checks\n"
              "the sandbox switches, every deny list entry and permission rule,\n"
              "entries that would loosen the policy (extra allowWrite, allowRead,\n"
              "excludedCommands, Edit allow rules, ...) and that the PreToolUse hook\n"
              "runs an existing confpol on an artifact with the same gate table;\n"
              "first, that Claude Code loads the file at all (its schema, its size\n"
              "limit, its hook shapes).  Prints one line per gap, then one line of\n"
              "result (-q silences the result line).\n"
              "\n"
              "Exit status: 0 enforced, 1 gaps (or the policy has errors), 2 usage or I/O.\n",
              out);
        return;
    }
}

/* Set when the last failed read met a FIFO, device or socket. */
static bool cp_inst_notreg;

/* The reason of the last failed cp_inst_read. */
static const char *cp_inst_err(void)
{
    return cp_inst_notreg && errno == EINVAL ? "not a regular file"
                                             : strerror(errno);
}

/* Reads a regular file whole (a FIFO or device named by a settings file
 * must not block or feed verify: refused with EINVAL). */
static bool cp_inst_read(const char *path, struct cp_buf *out, bool *missing)
{
    if (missing)
        *missing = false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (missing && errno == ENOENT)
            *missing = true;
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        cp_inst_notreg = !S_ISDIR(st.st_mode);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
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

/* Absolute path of `path`: realpath when it exists, else realpath of its
 * directory plus its name.  Heap; NULL (errno) on failure. */
static char *cp_inst_abspath(const char *path)
{
    char *r = realpath(path, NULL);
    if (r || errno != ENOENT)
        return r;
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

static int cp_inst_write(const char *cmd, const char *settings,
                         const struct cp_buf *prev, bool existed,
                         const struct cp_buf *next)
{
    if (existed) {
        size_t n = strlen(settings) + 5;
        char *bak = cp_xmalloc(n);
        snprintf(bak, n, "%s.bak", settings);
        int r = cp_cli_write_atomic(bak, prev->data ? prev->data : "", prev->len);
        if (r != 0)
            fprintf(stderr, "confpol %s: %s: %s\n", cmd, bak, strerror(errno));
        free(bak);
        if (r != 0)
            return 2;
    }
    if (cp_cli_write_atomic(settings, next->data ? next->data : "", next->len)) {
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
        if (!cp_backend_emit(&cp_backend_claude, cx.policy, &bo, cx.arena, &cx.diags, art))
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
    if (unlink(settings) != 0 ||
        (link && symlink(link, settings) != 0)) {
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

/* verify compiled a policy and found gaps: say with which PROJECT, and how
 * the installed artifact was built, when the two may not be the same. */
static void cp_inst_how_built(const struct cp_cli_common *c, const char *shown,
                              const char *settings, const struct cp_buf *live)
{
    const char *project = NULL;
    for (size_t i = 0; i < c->ndefines; i++)
        if (strcmp(c->defines[i].name, "PROJECT") == 0)
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
    struct cp_arena *a = cp_arena_new();
    struct cp_jnode *root = NULL;
    if (live->data && !cp_json_parse(a, live->data, live->len, &root) &&
        root->type == CP_J_OBJ) {
        const struct cp_jnode *recs =
            cp_json_get(root, CP_SETTINGS_RECORD_KEY, NULL);
        for (size_t i = 0; recs && recs->type == CP_J_ARR && i < recs->n; i++) {
            const struct cp_jnode *ap =
                cp_json_get(recs->items[i], "artifact", NULL);
            if (!ap || ap->type != CP_J_STR)
                continue;
            struct cp_buf ab = {0};
            struct cp_jnode *art = NULL;
            if (cp_inst_read(ap->s, &ab, NULL) &&
                !cp_json_parse(a, ab.data, ab.len, &art) &&
                art->type == CP_J_OBJ) {
                const struct cp_jnode *meta = cp_json_get(art, "confpol", NULL);
                const struct cp_jnode *pr =
                    meta ? cp_json_get(meta, "projectRelative", NULL) : NULL;
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
    }
    cp_arena_free(a);
    free(rp);
    free(cwd);
    free(owner);
}

static int cp_inst_main(enum cp_inst_cmd cmd, int argc, char **argv)
{
    const char *name = cp_inst_names[cmd];
    struct cp_cli_common c = {.cmd = name};
    const char *pos[2] = {NULL, NULL};
    size_t npos = 0;
    bool claude = false, quiet = false;
    int rc = 2;
    char *settings = NULL, *artpath = NULL, *self = NULL, *home = NULL, *cfgdir = NULL;
    char *link = NULL;
    struct cp_buf live = {0}, art = {0}, out = {0}, msg = {0};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cp_inst_usage(cmd, stdout);
            rc = 0;
            goto done;
        } else if (strcmp(a, "--claude") == 0) {
            claude = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) {
                if (npos == 2)
                    goto too_many;
                pos[npos++] = argv[i];
            }
        } else if (a[0] == '-' && a[1]) {
            int r = cmd == CMD_VERIFY ? cp_cli_common_opt(&c, argc, argv, &i) : 0;
            if (r < 0)
                goto done;
            if (r == 0) {
                cp_cli_unknown_option(
                    name, a, (const char *const[]){"--claude", "--help", NULL},
                    cmd == CMD_VERIFY);
                goto done;
            }
        } else {
            if (npos == 2)
                goto too_many;
            pos[npos++] = a;
        }
    }
    if (!claude) {
        fprintf(stderr, "confpol %s: say which settings: --claude (the only "
                        "kind supported)\n", name);
        cp_inst_usage(cmd, stderr);
        goto done;
    }
    if (npos != 2) {
        fprintf(stderr, "confpol %s: expected SETTINGS.json and %s\n", name,
                cmd == CMD_VERIFY ? "FILE" : "ARTIFACT.claude.json");
        cp_inst_usage(cmd, stderr);
        goto done;
    }

    settings = cp_inst_abspath(pos[0]);
    if (!settings) {
        fprintf(stderr, "confpol %s: %s: %s\n", name, pos[0], strerror(errno));
        goto done;
    }
    bool missing = false;
    bool have_live = cp_inst_read(settings, &live, &missing);
    if (!have_live && !missing) {
        fprintf(stderr, "confpol %s: %s: %s\n", name, pos[0], strerror(errno));
        goto done;
    }

    /* Canonical, like SETTINGS: a symlinked $HOME must still be recognised
     * as the directory of the user settings file. */
    const char *envhome = getenv("HOME"), *envcd = getenv("CLAUDE_CONFIG_DIR");
    home = envhome ? realpath(envhome, NULL) : NULL;
    cfgdir = envcd && *envcd ? realpath(envcd, NULL) : NULL;
    struct cp_settings_env env = {
        .settings_path = settings,
        .home = home ? home : envhome,
        .config_dir = cfgdir ? cfgdir : envcd,
        .read_file = cp_inst_read_cb,
        .is_exec = cp_inst_is_exec,
    };

    if (cmd == CMD_VERIFY) {
        if (cp_inst_suffix(pos[1], ".confpol")) {
            int r = cp_inst_compile(&c, pos[1], &art);
            if (r) {
                rc = r;
                goto done;
            }
        } else if (!cp_inst_read(pos[1], &art, NULL)) {
            fprintf(stderr, "confpol verify: %s: %s\n", pos[1], cp_inst_err());
            goto done;
        }
        if (!have_live) {
            fprintf(stdout, "%s: gap: the settings file does not exist\n",
                    pos[0]);
            rc = 1;
            goto done;
        }
        int gaps = cp_settings_verify(&env, live.data, live.len, art.data,
                                      art.len, &msg);
        if (gaps < 0) {
            cp_inst_print_lines(stderr, pos[0], &msg);
            rc = 1;
        } else {
            cp_inst_print_lines(stdout, pos[0], &msg);
            rc = gaps ? 1 : 0;
            if (gaps && cp_inst_suffix(pos[1], ".confpol"))
                cp_inst_how_built(&c, pos[0], settings, &live);
            if (!quiet && gaps)
                printf("confpol verify: %s does not enforce %s: %d gap%s\n",
                       pos[0], pos[1], gaps, gaps == 1 ? "" : "s");
            else if (!quiet)
                printf("confpol verify: %s enforces %s\n", pos[0], pos[1]);
        }
        goto done;
    }

    artpath = cp_inst_abspath(pos[1]);
    if (!artpath) {
        fprintf(stderr, "confpol %s: %s: %s\n", name, pos[1], strerror(errno));
        goto done;
    }
    env.artifact_path = artpath;

    if (cmd == CMD_INSTALL) {
        if (!cp_inst_read(artpath, &art, NULL)) {
            fprintf(stderr, "confpol install: %s: %s\n", pos[1], cp_inst_err());
            goto done;
        }
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0) {
            fprintf(stderr, "confpol install: cannot find the confpol binary "
                            "(/proc/self/exe): %s\n", strerror(errno));
            goto done;
        }
        buf[n] = '\0';
        self = cp_xstrdup(buf);
        env.confpol_path = self;
        if (!have_live)
            env.dangling_link = link = cp_inst_readlink(settings);
        if (cp_settings_install(&env, have_live ? live.data : NULL, live.len,
                                art.data, art.len, &out, &msg) != 0) {
            cp_inst_print_lines(stderr, pos[0], &msg);
            rc = 1;
            goto done;
        }
        if (have_live && out.len == live.len &&
            memcmp(out.data, live.data, live.len) == 0) {
            rc = 0; /* already installed: nothing to write */
            if (!quiet)
                printf("confpol install: %s already enforces %s: nothing "
                       "changed\n", pos[0], pos[1]);
            goto done;
        }
        rc = cp_inst_write(name, settings, &live, have_live, &out);
        if (rc == 0 && !quiet)
            printf("confpol install: installed %s into %s (%s)\n", pos[1],
                   pos[0],
                   have_live ? "previous content in .bak"
                   : link    ? "it was a dangling symbolic link: uninstall "
                               "puts the link back"
                             : "new file: uninstall removes it");
        goto done;
    }

    /* uninstall */
    if (!have_live) {
        fprintf(stderr, "confpol uninstall: %s: no such file\n", pos[0]);
        goto done;
    }
    size_t removed = 0;
    const char *olink = NULL;
    struct cp_arena *oa = cp_arena_new();
    int origin = cp_settings_origin(oa, live.data, live.len, artpath, &olink);
    olink = olink ? (link = cp_xstrdup(olink)) : NULL;
    cp_arena_free(oa);
    if (cp_settings_uninstall(&env, live.data, live.len, &out, &removed,
                              &msg) != 0) {
        cp_inst_print_lines(stderr, pos[0], &msg);
        rc = 1;
        goto done;
    }
    if (out.len == live.len && memcmp(out.data, live.data, live.len) == 0) {
        if (!quiet)
            printf("confpol uninstall: %s holds nothing installed from %s: "
                   "nothing changed\n", pos[0], artpath);
        rc = 0;
        goto done;
    }
    if (origin && out.len == 3 && memcmp(out.data, "{}\n", 3) == 0) {
        /* Only install's own bytes were left: put back what stood there. */
        rc = cp_inst_restore(settings, olink);
        if (rc == 0 && !quiet)
            printf("confpol uninstall: removed %s from %s (%s)\n", pos[1],
                   pos[0],
                   olink ? "the dangling symbolic link is back"
                         : "install had created it: removed");
        goto done;
    }
    rc = cp_inst_write(name, settings, &live, true, &out);
    if (rc == 0 && !quiet)
        printf("confpol uninstall: removed %zu change%s of %s from %s "
               "(previous content in .bak)\n",
               removed, removed == 1 ? "" : "s", pos[1], pos[0]);
    goto done;

too_many:
    fprintf(stderr, "confpol %s: too many arguments\n", name);
    cp_inst_usage(cmd, stderr);
done:
    free(link);
    free(home);
    free(cfgdir);
    free(settings);
    free(artpath);
    free(self);
    cp_buf_free(&live);
    cp_buf_free(&art);
    cp_buf_free(&out);
    cp_buf_free(&msg);
    cp_cli_common_free(&c);
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

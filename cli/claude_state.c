/* SPDX-License-Identifier: MIT */
/* confpol claude --whole: the watch over the client's state file
 * (~/.claude.json).  The client must write it (its counters, its
 * per-project state), so the policy lets the agent write it too; but some
 * of its keys make a later session, run outside any confinement, start an
 * MCP server, take environment variables, skip a trust dialog or approve
 * tools.  Those keys are copied before the session (into confpol's own
 * directory, which the policy denies to the agent) and compared after it:
 * every change is put back and said (spec/settings-wiring.md, "--whole").
 * A session that ended before its check (confpol killed) is checked at
 * the next start. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"

/* Keys of the state file a later session acts on, at the top level and
 * in each entry of "projects" (from the client's defaults: its global
 * and per-project configuration). */
static const char *const cp_state_top[] = {
    "mcpServers",
    "env",
    "hooks",
    "customApiKeyResponses",
    "primaryApiKey",
    "apiKeyHelper",
    "bypassPermissionsModeAccepted",
    "enableAllProjectMcpServers",
    "hasClaudeMdExternalIncludesApproved",
};
static const char *const cp_state_project[] = {
    "allowedTools",
    "mcpContextUris",
    "mcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "enableAllProjectMcpServers",
    "hasTrustDialogAccepted",
    "hasTrustDialogHooksAccepted",
    "hasClaudeMdExternalIncludesApproved",
    "env",
    "hooks",
};

#define CP_STATE_N(a) (sizeof(a) / sizeof((a)[0]))

static bool cp_state_read(const char *path, struct cp_buf *out)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        cp_buf_add(out, chunk, (size_t)n);
    close(fd);
    if (!out->data)
        cp_buf_adds(out, "");
    return n == 0;
}

static char *cp_state_snapshot(const char *dir)
{
    struct cp_buf b = {0};
    cp_buf_printf(&b, "%s/claude.json.before", dir);
    return b.data;
}

/* An empty value: what the client writes for a key it never had. */
static bool cp_state_empty(const struct cp_jnode *v)
{
    return v->type == CP_J_NULL || v->type == CP_J_FALSE ||
           ((v->type == CP_J_ARR || v->type == CP_J_OBJ) && v->n == 0);
}

/* Sets key in a parsed object (every occurrence), or adds it. */
static void cp_state_put(struct cp_arena *a, struct cp_jnode *obj,
                         const char *key, struct cp_jnode *v)
{
    bool found = false;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->members[i].key, key) == 0) {
            obj->members[i].val = v;
            found = true;
        }
    if (found)
        return;
    /* a parsed object's members are sized exactly: copy them */
    struct cp_jmember *m = cp_arena_alloc(a, (obj->n + 1) * sizeof *m);
    if (obj->n)
        memcpy(m, obj->members, obj->n * sizeof *m);
    m[obj->n].key = key;
    m[obj->n].klen = strlen(key);
    m[obj->n].kstart = 0;
    m[obj->n].val = v;
    obj->members = m;
    obj->n++;
}

static void cp_state_del(struct cp_jnode *obj, const char *key)
{
    size_t k = 0;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->members[i].key, key) != 0)
            obj->members[k++] = obj->members[i];
    obj->n = k;
}

/* One comparison: the state file, the project, what was put back. */
struct cp_state_cmp {
    struct cp_arena *a;
    const char *file, *project;
    int back; /* changes put back */
};

/* Puts key of `after` back to its value in `before` (NULL: absent) when
 * they differ.  `where` names the object for the message. */
static void cp_state_fix(struct cp_state_cmp *c, struct cp_jnode *after,
                         const struct cp_jnode *before, const char *key,
                         const char *where)
{
    const struct cp_jnode *b = before ? cp_json_get(before, key, NULL) : NULL;
    const struct cp_jnode *x = cp_json_get(after, key, NULL);
    if ((b && x && cp_json_equal(b, x)) || (!b && !x) ||
        (!b && cp_state_empty(x)))
        return;
    bool trust = strcmp(key, "hasTrustDialogAccepted") == 0;
    if (trust && where && strcmp(where, c->project) == 0 && x &&
        x->type == CP_J_TRUE) {
        /* the user accepted this project's trust dialog in the session */
        fprintf(stderr,
                "confpol claude: %s: projects[\"%s\"].%s became true "
                "(kept: this project's trust dialog)\n",
                c->file, where, key);
        return;
    }
    if (b)
        cp_state_put(c->a, after, key, cp_json_copy(c->a, b));
    else
        cp_state_del(after, key);
    fprintf(stderr,
            "confpol claude: %s: the session changed %s%s%s%s, which a "
            "later session acts on: put back\n",
            c->file, where ? "projects[\"" : "", where ? where : "",
            where ? "\"]." : "", key);
    c->back++;
}

static void cp_state_compare(struct cp_state_cmp *c, struct cp_jnode *after,
                             const struct cp_jnode *before)
{
    for (size_t i = 0; i < CP_STATE_N(cp_state_top); i++)
        cp_state_fix(c, after, before, cp_state_top[i], NULL);
    struct cp_jnode *pa = cp_json_get(after, "projects", NULL);
    const struct cp_jnode *pb = before ? cp_json_get(before, "projects", NULL)
                                       : NULL;
    if (pb && pb->type != CP_J_OBJ)
        pb = NULL;
    if (!pa || pa->type != CP_J_OBJ) {
        if (pb) /* the whole table replaced: its entries come back */
            cp_state_fix(c, after, before, "projects", NULL);
        return;
    }
    for (size_t i = 0; i < pa->n; i++) {
        struct cp_jnode *e = pa->members[i].val;
        const struct cp_jnode *eb = pb ? cp_json_get(pb, pa->members[i].key,
                                                     NULL)
                                       : NULL;
        if (eb && eb->type != CP_J_OBJ)
            eb = NULL;
        if (e->type != CP_J_OBJ) {
            fprintf(stderr,
                    "confpol claude: %s: projects[\"%s\"] is not an "
                    "object: removed\n",
                    c->file, pa->members[i].key);
            pa->members[i].val = eb ? cp_json_copy(c->a, eb)
                                    : cp_json_new(c->a, CP_J_OBJ);
            c->back++;
            continue;
        }
        for (size_t k = 0; k < CP_STATE_N(cp_state_project); k++)
            cp_state_fix(c, e, eb, cp_state_project[k], pa->members[i].key);
    }
}

/* The state file after the session against the snapshot `before` (its
 * text; NULL: there was no file).  Returns the changes put back, -1 when
 * the file could not be written. */
static int cp_state_check(const char *file, const char *project,
                          const struct cp_buf *before)
{
    struct cp_arena *a = cp_arena_new();
    struct cp_buf now = {0}, out = {0};
    struct cp_jnode *bd = NULL, *ad = NULL;
    struct cp_state_cmp c = {a, file, project, 0};
    if (before && (cp_json_parse(a, before->data, before->len, &bd) ||
                   bd->type != CP_J_OBJ))
        bd = NULL; /* a file the client could not read held nothing */
    bool readable = cp_state_read(file, &now);
    if (!readable && errno == ENOENT && !before)
        goto out;
    if (!readable || cp_json_parse(a, now.data, now.len, &ad) ||
        ad->type != CP_J_OBJ) {
        /* replaced by something else than a JSON object: the whole file
         * comes back */
        fprintf(stderr,
                "confpol claude: %s: the session left it unreadable or "
                "not a JSON object: put back as it was\n",
                file);
        if (before)
            cp_buf_add(&out, before->data, before->len);
        else
            cp_buf_adds(&out, "{}\n");
        c.back++;
    } else {
        cp_state_compare(&c, ad, bd);
        if (c.back) {
            cp_json_print(&out, ad, "", "  ", false);
            cp_buf_addc(&out, '\n');
        }
    }
    /* the client writes it 0600: it may hold keys */
    if (c.back > 0 && (cp_cli_write_atomic(file, out.data, out.len) != 0 ||
                       chmod(file, 0600) != 0)) {
        fprintf(stderr, "confpol claude: %s: %s\n", file, strerror(errno));
        c.back = -1;
    }
out:
    cp_buf_free(&now);
    cp_buf_free(&out);
    cp_arena_free(a);
    return c.back;
}

/* Says how many changes were put back. */
static void cp_state_said(const char *file, int back)
{
    if (back > 0)
        fprintf(stderr,
                "confpol claude: %d change%s to %s that a later session "
                "would act on %s put back: the agent may have made %s\n",
                back, back == 1 ? "" : "s", file, back == 1 ? "was" : "were",
                back == 1 ? "it" : "them");
}

int cp_claude_state_begin(const char *dir, const char *project)
{
    char *file = cp_claude_state_file(), *snap = cp_state_snapshot(dir);
    struct cp_buf prev = {0}, cur = {0};
    int rc = 0;
    if (!file) {
        rc = 2;
        goto out;
    }
    /* A snapshot still there: the last session was not checked. */
    if (cp_state_read(snap, &prev)) {
        fprintf(stderr,
                "confpol claude: the last session in this project ended "
                "before its check of %s: checking it now\n",
                file);
        int back = cp_state_check(file, project, prev.len ? &prev : NULL);
        cp_state_said(file, back);
        if (back < 0) {
            rc = 2;
            goto out;
        }
    }
    if (!cp_state_read(file, &cur))
        cp_buf_adds(&cur, "");
    if (cp_cli_write_atomic(snap, cur.data, cur.len) != 0 ||
        chmod(snap, 0600) != 0) {
        fprintf(stderr, "confpol claude: %s: %s\n", snap, strerror(errno));
        rc = 2;
    }
out:
    free(file);
    free(snap);
    cp_buf_free(&prev);
    cp_buf_free(&cur);
    return rc;
}

int cp_claude_state_end(const char *dir, const char *project)
{
    char *file = cp_claude_state_file(), *snap = cp_state_snapshot(dir);
    struct cp_buf prev = {0};
    int back = 0;
    if (file && cp_state_read(snap, &prev)) {
        back = cp_state_check(file, project, prev.len ? &prev : NULL);
        cp_state_said(file, back);
        if (back >= 0)
            unlink(snap);
    }
    free(file);
    free(snap);
    cp_buf_free(&prev);
    return back;
}

/* SPDX-License-Identifier: MIT */
/* Bump allocator in 64 KiB chunks (large requests get their own chunk), a
 * string interning table, and the heap buffer used for emitted output. */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CP_ARENA_CHUNK (64 * 1024)

struct cp_chunk {
    struct cp_chunk *next;
    size_t size, used;
    max_align_t data[]; /* aligned for any type */
};

struct cp_intern {
    const char **slots; /* open addressing, power-of-two size */
    size_t cap, count;
};

struct cp_arena {
    struct cp_chunk *head;
    size_t used;
    struct cp_intern strs;
};

_Noreturn void cp_die_oom(void)
{
    fputs("confpol: out of memory\n", stderr);
    abort();
}

void *cp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        cp_die_oom();
    return p;
}

void *cp_xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p)
        cp_die_oom();
    return p;
}

void *cp_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        cp_die_oom();
    return p;
}

char *cp_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cp_xmalloc(n), s, n);
}

struct cp_arena *cp_arena_new(void)
{
    return cp_xcalloc(1, sizeof(struct cp_arena));
}

void cp_arena_free(struct cp_arena *a)
{
    if (!a)
        return;
    for (struct cp_chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a->strs.slots);
    free(a);
}

void *cp_arena_alloc(struct cp_arena *a, size_t n)
{
    const size_t align = sizeof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    struct cp_chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > CP_ARENA_CHUNK / 4 ? n : CP_ARENA_CHUNK;
        c = cp_xmalloc(sizeof(*c) + size);
        c->size = size;
        c->used = 0;
        if (size == n && a->head) {
            /* A large block: keep the current chunk at the head. */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->used += n;
    memset(p, 0, n);
    return p;
}

char *cp_arena_strndup(struct cp_arena *a, const char *s, size_t n)
{
    char *p = cp_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cp_arena_strdup(struct cp_arena *a, const char *s)
{
    return cp_arena_strndup(a, s, strlen(s));
}

char *cp_arena_printf(struct cp_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        cp_die_oom();
    char *p = cp_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

static uint64_t cp_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

const char *cp_arena_intern(struct cp_arena *a, const char *s, size_t n)
{
    struct cp_intern *t = &a->strs;
    if (t->count * 2 >= t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 256;
        const char **ns = cp_xcalloc(ncap, sizeof(*ns));
        for (size_t i = 0; i < t->cap; i++) {
            const char *e = t->slots[i];
            if (!e)
                continue;
            size_t j = cp_hash(e, strlen(e)) & (ncap - 1);
            while (ns[j])
                j = (j + 1) & (ncap - 1);
            ns[j] = e;
        }
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    size_t j = cp_hash(s, n) & (t->cap - 1);
    for (;;) {
        const char *e = t->slots[j];
        if (!e)
            break;
        if (strncmp(e, s, n) == 0 && e[n] == '\0')
            return e;
        j = (j + 1) & (t->cap - 1);
    }
    const char *copy = cp_arena_strndup(a, s, n);
    t->slots[j] = copy;
    t->count++;
    return copy;
}

size_t cp_arena_used(const struct cp_arena *a)
{
    return a->used;
}

size_t cp_vec_push(struct cp_arena *a, struct cp_vec *v, void *item)
{
    if (v->len == v->cap) {
        size_t ncap = v->cap ? v->cap * 2 : 8;
        void **ni = cp_arena_alloc(a, ncap * sizeof(*ni));
        if (v->len)
            memcpy(ni, v->items, v->len * sizeof(*ni));
        v->items = ni;
        v->cap = ncap;
    }
    v->items[v->len++] = item;
    return v->len;
}

static void cp_buf_grow(struct cp_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    b->data = cp_xrealloc(b->data, ncap);
    b->cap = ncap;
}

void cp_buf_add(struct cp_buf *b, const void *p, size_t n)
{
    cp_buf_grow(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void cp_buf_addc(struct cp_buf *b, char c)
{
    cp_buf_add(b, &c, 1);
}

void cp_buf_adds(struct cp_buf *b, const char *s)
{
    cp_buf_add(b, s, strlen(s));
}

void cp_buf_vprintf(struct cp_buf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        cp_die_oom();
    cp_buf_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void cp_buf_printf(struct cp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cp_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void cp_buf_reset(struct cp_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void cp_buf_free(struct cp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *cp_buf_steal(struct cp_buf *b, size_t *len)
{
    if (!b->data)
        cp_buf_grow(b, 0), b->data[0] = '\0';
    char *d = b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

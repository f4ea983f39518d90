/* SPDX-License-Identifier: MIT */
/* Bump allocator in chunks (large requests get their own chunk), a string
 * interning table, and the heap buffer used for emitted output.  A chunk
 * from the heap is zeroed as it is handed out, not when it is taken from
 * malloc: only the pages used are touched (a short-lived process, such as
 * the gate hook, pays a page fault for each page it touches, and zeroing
 * whole chunks was half of the hook's faults); a mapped chunk is zero
 * already. */
#include "arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Chunks start at 64 KiB and double with the arena up to 8 MiB.  From
 * CP_ARENA_MAP on they are mapped directly, 2 MiB-aligned, and offered to
 * the kernel for transparent huge pages: a large compilation writes
 * hundreds of MiB once, and one fault per 2 MiB instead of per 4 KiB page
 * is most of its system time. */
#define CP_ARENA_CHUNK (64 * 1024)
#define CP_ARENA_CHUNK_MAX (8 * 1024 * 1024)
#define CP_ARENA_MAP (2 * 1024 * 1024)

struct cp_chunk {
    struct cp_chunk *next;
    size_t size, used;
    size_t maplen;      /* mapped with cp_chunk_map: bytes to unmap, else 0 */
    max_align_t data[]; /* aligned for any type */
};

/* A zeroed chunk able to hold `size` bytes. */
static struct cp_chunk *cp_chunk_new(size_t size)
{
    struct cp_chunk *c = NULL;
    size_t len = (sizeof(*c) + size + CP_ARENA_MAP - 1) &
                 ~(size_t)(CP_ARENA_MAP - 1);
    if (size >= CP_ARENA_MAP) {
        /* Over-map by one alignment unit and trim both ends. */
        char *m = mmap(NULL, len + CP_ARENA_MAP, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            uintptr_t at = ((uintptr_t)m + CP_ARENA_MAP - 1) &
                           ~(uintptr_t)(CP_ARENA_MAP - 1);
            size_t head = at - (uintptr_t)m;
            if (head)
                munmap(m, head);
            if (CP_ARENA_MAP - head)
                munmap((char *)at + len, CP_ARENA_MAP - head);
#ifdef MADV_HUGEPAGE
            (void)madvise((void *)at, len, MADV_HUGEPAGE);
#endif
            c = (struct cp_chunk *)at;
            c->maplen = len;
            size = len - sizeof(*c);
        }
    }
    if (!c) {
        c = cp_xmalloc(sizeof(*c) + size);
        c->maplen = 0;
    }
    c->size = size;
    return c;
}

static void cp_chunk_free(struct cp_chunk *c)
{
    if (c->maplen)
        munmap(c, c->maplen);
    else
        free(c);
}

struct cp_intern {
    const char **slots; /* open addressing, power-of-two size */
    size_t cap, count;
};

struct cp_arena {
    struct cp_chunk *head;
    size_t used;
    struct cp_intern strs;
};

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
        cp_chunk_free(c);
    }
    free(a->strs.slots);
    free(a);
}

void cp_arena_reset(struct cp_arena *a)
{
    struct cp_chunk *keep = NULL;
    for (struct cp_chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        if (!keep && !c->maplen && c->size == CP_ARENA_CHUNK) {
            keep = c; /* a chunk of the first size: the one to reuse */
            continue;
        }
        cp_chunk_free(c);
    }
    if (keep) { /* its bytes are zeroed again as they are handed out */
        keep->used = 0;
        keep->next = NULL;
    }
    a->head = keep;
    a->used = 0;
    free(a->strs.slots);
    memset(&a->strs, 0, sizeof a->strs);
}

/* `n` bytes from a new chunk (the slow path of cp_arena_take, out of line
 * so that the fast path inlines into the allocators). */
static __attribute__((noinline)) void *cp_arena_take_new(struct cp_arena *a,
                                                         size_t n, bool zero)
{
    size_t chunk = CP_ARENA_CHUNK;
    while (chunk < CP_ARENA_CHUNK_MAX && chunk < a->used / 8)
        chunk *= 2;
    size_t size = n > chunk / 4 ? n : chunk;
    struct cp_chunk *c = cp_chunk_new(size);
    if (size == n && a->head) {
        /* A large block: keep the current chunk at the head. */
        c->next = a->head->next;
        a->head->next = c;
    } else {
        c->next = a->head;
        a->head = c;
    }
    c->used = n;
    a->used += n;
    if (zero && !c->maplen)
        memset(c->data, 0, n);
    return c->data;
}

/* `n` bytes aligned to `align` (a power of two), zeroed when `zero` says
 * so (a string's bytes are all written by its caller).  A mapped chunk's
 * pages come zero from the system and the arena never hands a byte out
 * twice, so they are not written here; a heap chunk's bytes are zeroed as
 * they are handed out. */
static inline void *cp_arena_take(struct cp_arena *a, size_t n, size_t align,
                                  bool zero)
{
    struct cp_chunk *c = a->head;
    if (!c)
        return cp_arena_take_new(a, n, zero);
    size_t at = (c->used + align - 1) & ~(align - 1);
    if (at > c->size || c->size - at < n)
        return cp_arena_take_new(a, n, zero);
    c->used = at + n;
    a->used += n;
    char *p = (char *)c->data + at;
    if (zero && !c->maplen)
        memset(p, 0, n);
    return p;
}

void *cp_arena_alloc(struct cp_arena *a, size_t n)
{
    return cp_arena_take(a, n ? n : 1, sizeof(max_align_t), true);
}

/* Strings need no alignment: packing them saves a third of their space. */
char *cp_arena_strndup(struct cp_arena *a, const char *s, size_t n)
{
    char *p = cp_arena_take(a, n + 1, 1, false);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *cp_arena_strdup(struct cp_arena *a, const char *s)
{
    return cp_arena_strndup(a, s, strlen(s));
}

/* The first lengths are kept from the measuring pass (the callers pass a
 * handful of strings). */
size_t cp_vcat_len(va_list ap, size_t len[CP_VCAT_KEEP])
{
    size_t n = 0, k = 0;
    for (const char *x; (x = va_arg(ap, const char *)); k++) {
        size_t l = strlen(x);
        if (k < CP_VCAT_KEEP)
            len[k] = l;
        n += l;
    }
    return n;
}

void cp_vcat_copy(char *dst, size_t n, va_list ap,
                  const size_t len[CP_VCAT_KEEP])
{
    size_t at = 0, k = 0;
    for (const char *x; at < n && (x = va_arg(ap, const char *)); k++) {
        size_t l = k < CP_VCAT_KEEP ? len[k] : strlen(x);
        if (l > n - at)
            l = n - at;
        memcpy(dst + at, x, l);
        at += l;
    }
}

char *cp_arena_cat(struct cp_arena *a, ...)
{
    size_t len[CP_VCAT_KEEP] = {0};
    va_list ap;
    va_start(ap, a);
    size_t n = cp_vcat_len(ap, len);
    va_end(ap);
    char *t = cp_arena_take(a, n + 1, 1, false);
    va_start(ap, a);
    cp_vcat_copy(t, n, ap, len);
    va_end(ap);
    t[n] = '\0';
    return t;
}

/* Formats once into a stack buffer and copies; only a longer text is
 * formatted a second time, into the arena. */
char *cp_arena_printf(struct cp_arena *a, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        cp_die_oom();
    if ((size_t)n < sizeof(tmp))
        return cp_arena_strndup(a, tmp, (size_t)n);
    char *p = cp_arena_take(a, (size_t)n + 1, 1, false);
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

size_t cp_vec_push(struct cp_arena *a, struct cp_vec *v, void *item)
{
    if (v->len == v->cap) {
        size_t ncap = v->cap ? v->cap * 2 : 2; /* most lists hold one item */
        void **ni = cp_arena_alloc(a, ncap * sizeof(*ni));
        if (v->len)
            memcpy(ni, v->items, v->len * sizeof(*ni));
        v->items = ni;
        v->cap = ncap;
    }
    v->items[v->len++] = item;
    return v->len;
}

void cp_buf_grow(struct cp_buf *b, size_t extra)
{
    if (b->data && b->len + extra + 1 <= b->cap)
        return;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    b->data = cp_xrealloc(b->data, ncap);
    b->cap = ncap;
}

extern inline void cp_buf_add(struct cp_buf *b, const void *p, size_t n);
extern inline void cp_buf_addc(struct cp_buf *b, char c);
extern inline void cp_buf_adds(struct cp_buf *b, const char *s);
extern inline char *cp_buf_extend(struct cp_buf *b, size_t n);

/* Formats straight into the free space; only a text that does not fit is
 * formatted a second time, after growing. */
void cp_buf_vprintf(struct cp_buf *b, const char *fmt, va_list ap)
{
    cp_buf_grow(b, 64);
    va_list aq;
    va_copy(aq, ap);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->data + b->len, room, fmt, aq);
    va_end(aq);
    if (n < 0)
        cp_die_oom();
    if ((size_t)n >= room) {
        cp_buf_grow(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    }
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

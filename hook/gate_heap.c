/* SPDX-License-Identifier: MIT */
/* The allocator of confpol-gate when it is linked against musl (Makefile,
 * GATE_HEAP): malloc, calloc, realloc, free and the aligned allocations,
 * in place of musl's.
 *
 * Why: musl's allocator gives memory back to the system as soon as it is
 * free and maps it again at the next request.  One hook call made 21 mmap
 * and 19 munmap calls and paid a page fault each time a page came back:
 * 0.25 ms of a call that must answer within 1 ms (spec/gate.md,
 * "Latency").  A hook call is one short process that ends with exit, so
 * this allocator keeps what it maps: a small block (a power of two from 16
 * bytes to 256 KiB) is cut from a region of 1 MiB or reused from the free
 * list of its size; only a larger block is a mapping of its own, unmapped
 * when freed and grown with mremap (the 1 MiB inputs).
 *
 * Each block starts with a 16-byte header (which keeps every block 16-byte
 * aligned, as max_align_t asks): its size class, or its mapping's length,
 * and a check word made from its own address.  free and realloc abort on a
 * header that is not one this allocator wrote (a write before the block, or
 * a pointer it never handed out, a block freed twice): a corrupted heap ends the call, which the
 * client then treats as a failed hook, never as an answer.
 *
 * Single-threaded: confpol-gate starts no thread, and its one signal
 * handler (gate_deadline.c) allocates nothing.  The unit tests include
 * this file with CP_HEAP_NAME renaming the functions
 * (tests/unit/test_gate_heap.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef CP_HEAP_NAME
#define CP_HEAP_NAME(f) f
#endif

#define CP_HEAP_HDR 16u
#define CP_HEAP_MIN_SHIFT 4u                /* 16 bytes */
#define CP_HEAP_CLASSES 15u                 /* up to 256 KiB */
#define CP_HEAP_REGION (1024u * 1024u)      /* what one mapping holds */
#define CP_HEAP_LARGE ((uintptr_t)1 << 63)  /* a mapping of its own */
#define CP_HEAP_FREED ((uintptr_t)1 << 62)  /* on a free list */
#define CP_HEAP_CHECK 0x9e3779b97f4a7c15ull /* header check word */

struct cp_heap_free {
    struct cp_heap_free *next;
};

static struct {
    char *next, *end; /* the current region's unused part */
    struct cp_heap_free *free[CP_HEAP_CLASSES];
} cp_heap;

static size_t cp_heap_class_size(unsigned k)
{
    return (size_t)1 << (k + CP_HEAP_MIN_SHIFT);
}

/* The smallest class holding n bytes; CP_HEAP_CLASSES when none does. */
static unsigned cp_heap_class_of(size_t n)
{
    unsigned k = 0;
    while (k < CP_HEAP_CLASSES && cp_heap_class_size(k) < n)
        k++;
    return k;
}

static void *cp_heap_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Writes the header of the block at h (tag: class or LARGE|length) and
 * returns the block's user pointer. */
static void *cp_heap_seal(char *h, uintptr_t tag)
{
    uintptr_t *w = (uintptr_t *)(void *)h;
    w[0] = tag;
    w[1] = (uintptr_t)h ^ CP_HEAP_CHECK;
    return h + CP_HEAP_HDR;
}

/* The tag of user pointer p's block; aborts when its header is not one
 * cp_heap_seal wrote. */
static uintptr_t cp_heap_tag(void *p)
{
    char *h = (char *)p - CP_HEAP_HDR;
    const uintptr_t *w = (const uintptr_t *)(void *)h;
    bool ok = w[1] == ((uintptr_t)h ^ CP_HEAP_CHECK) &&
              !(w[0] & CP_HEAP_FREED) &&
              ((w[0] & CP_HEAP_LARGE) || w[0] < CP_HEAP_CLASSES);
    if (!ok)
        abort();
    return w[0];
}

/* A block of class k; *fresh is true when its bytes were never used (a
 * new mapping's, hence zero). */
static void *cp_heap_small(unsigned k, bool *fresh)
{
    struct cp_heap_free *f = cp_heap.free[k];
    if (f) {
        cp_heap.free[k] = f->next;
        *fresh = false;
        return cp_heap_seal((char *)f - CP_HEAP_HDR, k);
    }
    size_t need = CP_HEAP_HDR + cp_heap_class_size(k);
    if ((size_t)(cp_heap.end - cp_heap.next) < need) {
        char *r = cp_heap_map(CP_HEAP_REGION);
        if (!r)
            return NULL;
        cp_heap.next = r; /* the old region's rest is left unused */
        cp_heap.end = r + CP_HEAP_REGION;
    }
    char *h = cp_heap.next;
    cp_heap.next += need;
    *fresh = true;
    return cp_heap_seal(h, k);
}

static void *cp_heap_large(size_t n)
{
    if (n > SIZE_MAX / 2)
        return NULL;
    size_t len = (CP_HEAP_HDR + n + 4095u) & ~(size_t)4095u;
    char *h = cp_heap_map(len);
    return h ? cp_heap_seal(h, CP_HEAP_LARGE | len) : NULL;
}

/* n bytes; *fresh as for cp_heap_small. */
static void *cp_heap_alloc(size_t n, bool *fresh)
{
    unsigned k = cp_heap_class_of(n ? n : 1);
    void *p;
    *fresh = true;
    if (k < CP_HEAP_CLASSES)
        p = cp_heap_small(k, fresh);
    else
        p = cp_heap_large(n);
    if (!p)
        errno = ENOMEM;
    return p;
}

/* How many bytes a block with this tag holds. */
static size_t cp_heap_capacity(uintptr_t tag)
{
    if (tag & CP_HEAP_LARGE)
        return (size_t)(tag & ~CP_HEAP_LARGE) - CP_HEAP_HDR;
    return cp_heap_class_size((unsigned)tag);
}

void *CP_HEAP_NAME(malloc)(size_t n)
{
    bool fresh;
    return cp_heap_alloc(n, &fresh);
}

void *CP_HEAP_NAME(calloc)(size_t m, size_t n)
{
    size_t len;
    if (__builtin_mul_overflow(m, n, &len)) {
        errno = ENOMEM;
        return NULL;
    }
    bool fresh;
    void *p = cp_heap_alloc(len, &fresh);
    if (p && !fresh)
        memset(p, 0, len);
    return p;
}

void CP_HEAP_NAME(free)(void *p)
{
    if (!p)
        return;
    uintptr_t tag = cp_heap_tag(p);
    char *h = (char *)p - CP_HEAP_HDR;
    if (tag & CP_HEAP_LARGE) {
        munmap(h, (size_t)(tag & ~CP_HEAP_LARGE));
        return;
    }
    *(uintptr_t *)(void *)h = tag | CP_HEAP_FREED;
    struct cp_heap_free *f = p;
    f->next = cp_heap.free[tag];
    cp_heap.free[tag] = f;
}

/* A large block grown or shrunk in place or moved by the kernel: no copy
 * of the 1 MiB an input buffer holds. */
static void *cp_heap_remap(void *p, uintptr_t tag, size_t n)
{
    size_t len = (CP_HEAP_HDR + n + 4095u) & ~(size_t)4095u;
    char *h = (char *)p - CP_HEAP_HDR;
    char *q = mremap(h, (size_t)(tag & ~CP_HEAP_LARGE), len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    return cp_heap_seal(q, CP_HEAP_LARGE | len);
}

void *CP_HEAP_NAME(realloc)(void *p, size_t n)
{
    if (!p)
        return CP_HEAP_NAME(malloc)(n);
    uintptr_t tag = cp_heap_tag(p);
    size_t cap = cp_heap_capacity(tag);
    if (n <= cap && (!(tag & CP_HEAP_LARGE) || n > cap / 2))
        return p;
    if ((tag & CP_HEAP_LARGE) && cp_heap_class_of(n) == CP_HEAP_CLASSES)
        return n > SIZE_MAX / 2 ? (errno = ENOMEM, NULL)
                                : cp_heap_remap(p, tag, n);
    void *q = CP_HEAP_NAME(malloc)(n);
    if (!q)
        return NULL;
    memcpy(q, p, n < cap ? n : cap);
    CP_HEAP_NAME(free)(p);
    return q;
}

/* Blocks aligned beyond 16 bytes are not asked for by confpol-gate's code
 * nor by the parts of musl it links: refused rather than half-done. */
void *CP_HEAP_NAME(aligned_alloc)(size_t align, size_t n)
{
    if (align > CP_HEAP_HDR || (align & (align - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    return CP_HEAP_NAME(malloc)(n);
}

int CP_HEAP_NAME(posix_memalign)(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || align > CP_HEAP_HDR ||
        (align & (align - 1)) != 0)
        return EINVAL;
    void *p = CP_HEAP_NAME(malloc)(n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

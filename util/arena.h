/* SPDX-License-Identifier: MIT */
/* One arena per compilation, plus a growable byte buffer for emitted output. */
#ifndef CP_ARENA_H
#define CP_ARENA_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct cp_arena;

/* Out of memory is fatal here and only here: callers never check NULL.
 * CP_NONNULL_RET says so to the compiler and the static analyzer (a size
 * of 0 allocates one byte). */
#define CP_NONNULL_RET __attribute__((returns_nonnull))
_Noreturn void cp_die_oom(void);
void *cp_xmalloc(size_t n) CP_NONNULL_RET;
void *cp_xcalloc(size_t n, size_t m) CP_NONNULL_RET;
void *cp_xrealloc(void *p, size_t n) CP_NONNULL_RET;
char *cp_xstrdup(const char *s) CP_NONNULL_RET;
/* The n bytes at s (no NUL among them) as a NUL-terminated heap string. */
char *cp_xstrndup(const char *s, size_t n) CP_NONNULL_RET;

struct cp_arena *cp_arena_new(void);
void cp_arena_free(struct cp_arena *a);
/* Everything allocated from a is gone; its memory (one chunk of the first
 * size) is kept for what comes next: a scratch arena used over and over
 * touches the same pages, not new ones. */
void cp_arena_reset(struct cp_arena *a);
/* Zeroed, aligned for any type.  Lives until cp_arena_free. */
void *cp_arena_alloc(struct cp_arena *a, size_t n) CP_NONNULL_RET;
char *cp_arena_strndup(struct cp_arena *a, const char *s,
                       size_t n) CP_NONNULL_RET;
char *cp_arena_strdup(struct cp_arena *a, const char *s) CP_NONNULL_RET;
/* Concatenation without a format to parse, for the texts built per rule of
 * a large policy.  cp_vcat_len: the total length of AP's NULL-terminated
 * list of strings, the first CP_VCAT_KEEP lengths kept in LEN;
 * cp_vcat_copy: the list (AP started again) into DST, N bytes at most. */
enum { CP_VCAT_KEEP = 8 };
size_t cp_vcat_len(va_list ap, size_t len[CP_VCAT_KEEP]);
void cp_vcat_copy(char *dst, size_t n, va_list ap,
                  const size_t len[CP_VCAT_KEEP]);
/* The concatenation of the NULL-terminated list of strings after A. */
char *cp_arena_cat(struct cp_arena *a, ...) CP_NONNULL_RET
    __attribute__((sentinel));
char *cp_arena_printf(struct cp_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) CP_NONNULL_RET;
/* Interned strings: equal contents give the same pointer (compare with ==). */
const char *cp_arena_intern(struct cp_arena *a, const char *s, size_t n);

/* Growable pointer array stored in the arena: push returns the new count. */
struct cp_vec {
    void **items;
    size_t len, cap;
};
size_t cp_vec_push(struct cp_arena *a, struct cp_vec *v, void *item);

/* Growable byte buffer on the heap (outputs outlive the arena). */
struct cp_buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len, cap;
};
/* Room for `extra` more bytes and the NUL; the slow path of the adders. */
void cp_buf_grow(struct cp_buf *b, size_t extra);
inline void cp_buf_add(struct cp_buf *b, const void *p, size_t n);
inline void cp_buf_addc(struct cp_buf *b, char c);
inline void cp_buf_adds(struct cp_buf *b, const char *s);
/* Appends `n` bytes left for the caller to fill; returns where they start. */
inline char *cp_buf_extend(struct cp_buf *b, size_t n);

/* The adders are inline: the renderers and back ends call them for every
 * few bytes of output.  arena.c holds their external definitions.  A NULL
 * data always has cap 0; the adders test it anyway, so that the static
 * analyzer (make lint) sees no path that writes through it. */
inline void cp_buf_add(struct cp_buf *b, const void *p, size_t n)
{
    if (!b->data || b->len + n + 1 > b->cap)
        cp_buf_grow(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

inline void cp_buf_addc(struct cp_buf *b, char c)
{
    if (!b->data || b->len + 2 > b->cap)
        cp_buf_grow(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

inline void cp_buf_adds(struct cp_buf *b, const char *s)
{
    cp_buf_add(b, s, strlen(s));
}

inline char *cp_buf_extend(struct cp_buf *b, size_t n)
{
    if (!b->data || b->len + n + 1 > b->cap)
        cp_buf_grow(b, n);
    char *p = b->data + b->len;
    b->len += n;
    b->data[b->len] = '\0';
    return p;
}
void cp_buf_printf(struct cp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cp_buf_vprintf(struct cp_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void cp_buf_reset(struct cp_buf *b);
void cp_buf_free(struct cp_buf *b);
/* Take ownership of the data (NUL-terminated); b becomes empty. */
char *cp_buf_steal(struct cp_buf *b, size_t *len);

#endif

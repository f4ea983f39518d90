/* SPDX-License-Identifier: MIT */
#include "text.h"

#include <stdbool.h>
#include <string.h>

#include "arena.h"
#include "hash.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

const char *cp_utoa(char *buf, unsigned long v)
{
    char *p = buf + CP_UTOA_LEN - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

const char *cp_find_byte(const char *p, size_t n, char c)
{
#ifdef __SSE2__
    const __m128i want = _mm_set1_epi8(c);
    size_t i = 0;
    for (; n - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i b = _mm_loadu_si128(
            (const __m128i *)(const void *)(p + i + 16));
        unsigned ma = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, want));
        unsigned mb = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, want));
        if (ma | mb)
            return p + i +
                   (ma ? (size_t)__builtin_ctz(ma)
                       : 16 + (size_t)__builtin_ctz(mb));
    }
    for (; i < n; i++)
        if (p[i] == c)
            return p + i;
    return NULL;
#else
    return memchr(p, c, n);
#endif
}

int cp_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The byte of the \xHH escape at s[i] (n bytes in s), or -1 if there is
 * none there. */
static int hex_escape(const char *s, size_t n, size_t i)
{
    if (s[i + 1] != 'x' || i + 3 >= n)
        return -1;
    int hi = cp_hex_digit(s[i + 2]), lo = cp_hex_digit(s[i + 3]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

size_t cp_unquote(const char *s, size_t n, char *out, size_t *map,
                  size_t *nul_at)
{
    size_t k = 0;
    *nul_at = n;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (map)
            map[k] = i;
        if (c == '\\' && i + 1 < n) {
            int v = hex_escape(s, n, i);
            if (v >= 0) {
                if (v == 0 && *nul_at == n)
                    *nul_at = i;
                c = (char)v;
                i += 3;
            } else if (s[i + 1] == '"' || s[i + 1] == '\\') {
                c = s[++i];
            }
        }
        out[k++] = c;
    }
    if (map)
        map[k] = n;
    out[k] = '\0';
    return k;
}

void cp_shell_quote(struct cp_buf *b, const char *s)
{
    bool plain = *s != '\0' && *s != '-';
    for (const char *p = s; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./:=+@%,-", *p);
    if (plain) {
        cp_buf_adds(b, s);
        return;
    }
    cp_buf_addc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            cp_buf_adds(b, "'\\''");
        else
            cp_buf_addc(b, *p);
    }
    cp_buf_addc(b, '\'');
}

static size_t nameset_slot(const struct cp_nameset *s, const char *name)
{
    size_t cap = sizeof s->name / sizeof s->name[0];
    size_t h = cp_fnv32(CP_FNV32_OFFSET, name, strlen(name)) & (cap - 1);
    while (s->name[h] && strcmp(s->name[h], name) != 0)
        h = (h + 1) & (cap - 1);
    return h;
}

bool cp_nameset_put(struct cp_nameset *s, const char *name, int value)
{
    size_t h = nameset_slot(s, name);
    if (s->name[h])
        return true;
    if (s->n >= CP_NAMESET_MAX)
        return false;
    s->name[h] = name;
    s->value[h] = value;
    s->n++;
    return true;
}

int cp_nameset_get(const struct cp_nameset *s, const char *name)
{
    size_t h = nameset_slot(s, name);
    return s->name[h] ? s->value[h] : -1;
}

/* SPDX-License-Identifier: MIT */
/* Diagnostics are records in a sink; renderers print them GCC-style, as JSON
 * or as SARIF 2.1.0.  Every code is listed in compiler/diag_codes.def and in
 * spec/diagnostics.md. */
#ifndef CP_DIAG_H
#define CP_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "source.h"

enum cp_severity {
    CP_SEV_NOTE,    /* informational, never changes the exit status */
    CP_SEV_WARNING, /* exit 0 unless -Werror */
    CP_SEV_ERROR,   /* exit 1 */
};

/* One row per diagnostic code.  ORDER: keep in sync with diag_codes.def. */
enum cp_diag_code {
#define CP_DIAG(id, name, sev, summary) id,
#include "diag_codes.def"
#undef CP_DIAG
    CP_DIAG__COUNT
};

struct cp_diag_note {
    struct cp_loc loc; /* loc.src may be NULL: note without location */
    char *msg;
};

struct cp_diag {
    enum cp_diag_code code;
    enum cp_severity sev; /* after -W options and -Werror */
    struct cp_loc loc;    /* loc.src may be NULL for command-line problems */
    char *msg;
    struct cp_diag_note *notes;
    size_t nnotes;
    char *suggestion;      /* one-line fix-it, printed as "note: ..." or NULL */
    struct cp_diags *sink; /* whose text blocks hold msg, notes, suggestion */
};

struct cp_diags {
    struct cp_diag *items;
    size_t len, cap;
    size_t nerrors, nwarnings;
    size_t nusage; /* errors of the command line and I/O (CP08xx) */
    bool werror;   /* -Werror */
    /* 0 default, 1 -Wname, -1 -Wno-name, 2 -Werror=name */
    signed char wstate[CP_DIAG__COUNT];
    /* Text rendering: colour escapes (--color), every diagnostic instead of
     * grouping a code's many warnings (--all-diagnostics), and no summary
     * line (a caller that prints one for several sinks). */
    bool color, all, no_summary;
    /* Backend records are deduplicated across targets (the same rule and
     * cause under sbpl and bwrap is one record "sbpl, bwrap: ..."): their
     * keys in the order reported, chained per source line. */
    struct cp_diag_seen *seen;
    size_t nseen, seencap;
    struct cp_diag_lines *lines; /* per source, the newest key of each line */
    size_t nlines, lastlines;
    unsigned gen; /* incremented each time held records are released */
    /* The source of the last diagnostic cp_diags_flush_text wrote: its
     * "In file included from" lines are not repeated. */
    const struct cp_source *flushed_src;
    /* The texts of messages, notes and suggestions, packed in blocks
     * freed together (a large policy holds hundreds of thousands until
     * they are rendered; a malloc and a free each were 3% of the
     * instructions of a check, by callgrind). */
    struct cp_diag_text *texts;
    /* The policy file the records are about (set by the caller before
     * rendering): SARIF places a record without location there. */
    const char *main_path;
};

/* Static facts about a code. */
const char *cp_diag_code_id(enum cp_diag_code c);   /* "CP0101" */
const char *cp_diag_code_name(enum cp_diag_code c); /* "unknown-profile" */
enum cp_severity cp_diag_code_default(enum cp_diag_code c);
/* "note", "warning" or "error": the word of the text and SARIF renderers. */
const char *cp_diag_sev_word(enum cp_severity s);
const char *cp_diag_code_summary(enum cp_diag_code c);
/* The option that controls a code ("claude-net-prompt"), or NULL for an
 * error, which no option can change. */
const char *cp_diag_code_flag(enum cp_diag_code c);
/* The spec file that documents a code ("spec/semantics.md"), by its range
 * (spec/diagnostics.md 5). */
const char *cp_diag_code_doc(enum cp_diag_code c);
/* The code whose id ("CP0759", any case) or name is `s`, or -1. */
int cp_diag_code_lookup(const char *s);
/* -Wname / -Wno-name (NAME may also be the code, "CP0759"); returns false
 * if no warning or note has that name. */
bool cp_diags_set_warning(struct cp_diags *d, const char *name, bool on);
/* -Werror=NAME: that warning alone becomes an error. */
bool cp_diags_set_werror(struct cp_diags *d, const char *name);

/* Notes printed only when asked for (spec/diagnostics.md 3, "Quiet
 * notes"): CP0602, and every note of a target (CP07xx), a fact stricter
 * than written by design that `build --fidelity` lists.  Sets them off in
 * D unless an -W option set them; TARGETS false keeps the targets' on. */
bool cp_diag_code_quiet(enum cp_diag_code c);
void cp_diags_quiet(struct cp_diags *d, bool targets);

void cp_diags_init(struct cp_diags *d);
void cp_diags_free(struct cp_diags *d);

/* Adds a record with the code's default severity (adjusted by -W options;
 * a disabled warning or note returns NULL and records nothing).  `loc` may be
 * NULL.  Returns the record so that notes can be attached; the pointer is
 * valid until the next cp_diag_report on the same sink. */
struct cp_diag *cp_diag_report(struct cp_diags *d, enum cp_diag_code code,
                               const struct cp_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the arguments in AP. */
struct cp_diag *cp_diag_vreport(struct cp_diags *d, enum cp_diag_code code,
                                const struct cp_loc *loc, const char *fmt,
                                va_list ap)
    __attribute__((format(printf, 4, 0)));
/* The same with the message the concatenation of the NULL-terminated list of
 * strings after LOC, cut to CP_CAT_MAX bytes: written once, where the sink
 * keeps it (a back end reports a finding per rule of a large policy). */
enum { CP_CAT_MAX = 2047 };
struct cp_diag *cp_diag_report_cat(struct cp_diags *d, enum cp_diag_code code,
                                   const struct cp_loc *loc, ...)
    __attribute__((sentinel));
void cp_diag_add_note(struct cp_diag *g, const struct cp_loc *loc,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cp_diag_set_suggestion(struct cp_diag *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
size_t cp_diag_errors(const struct cp_diags *d);
/* Puts the records held in source order (stable): their source, in the
 * order the sources first occur, then line and column.  Used where phases
 * or targets report in their own order (resolution after the parser's
 * errors, each back end in turn). */
void cp_diags_sort(struct cp_diags *d);

/* compiler/nearest.c: the word nearest to W (N bytes) among COUNT entries
 * of a table (the word pointer at WORDS + k * STRIDE; a NULL one ends it),
 * within one edit for words of three or four bytes, two for longer ones and
 * none for shorter ones;
 * NULL when none is that near. */
const char *cp_nearest(const char *w, size_t n, const void *words, size_t count,
                       size_t stride);
/* The same over a NULL-terminated list of strings. */
const char *cp_nearest_word(const char *w, const char *const *words);

/* Renderers.  Text: "file:line:col: error: msg [CPnnnn]" plus the source line
 * and a caret line; see spec/diagnostics.md for the exact format. */
void cp_diags_render_text(const struct cp_diags *d, FILE *out);
/* Renders as text every diagnostic reported so far and releases them (the
 * counts stay): a long build writes its diagnostics phase by phase instead
 * of holding them all.  cp_diags_render_text then renders the rest and the
 * summary, as if nothing had been flushed. */
void cp_diags_flush_text(struct cp_diags *d, FILE *out);
/* The last line of a text rendering: "2 errors, 5 warnings" (nothing when
 * both are zero). */
void cp_diags_render_summary(size_t nerrors, size_t nwarnings, FILE *out);
void cp_diags_render_json(const struct cp_diags *d, FILE *out);
void cp_diags_render_sarif(const struct cp_diags *d, FILE *out);
/* One JSON document or SARIF log for the sinks of several files. */
void cp_diags_render_json_many(const struct cp_diags *const *d, size_t n,
                               FILE *out);
void cp_diags_render_sarif_many(const struct cp_diags *const *d, size_t n,
                                FILE *out);

#endif

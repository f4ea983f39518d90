/* SPDX-License-Identifier: MIT */
/* The gate hook's parts that need no parser: bounded reading and checking
 * of Claude Code's PreToolUse input, the artifact's gate table, the answer
 * JSON and the hash-chained decision log (spec/gate.md).
 *
 * Error idiom of this room: a function that can fail returns NULL on
 * success, else a message saying why (in the caller's arena, or static
 * text); it never prints and never exits, and the caller (cli/cmd_gate.c)
 * decides the answer.  Two entry points report otherwise, by design:
 * cp_gate_read_input returns a status (enum cp_gate_rd; its text from
 * cp_gate_rd_text) because a timeout and an oversized input are told apart
 * by the tests and the fuzzer, and the log verifier is a report written
 * to the streams it is given, with an exit status. */
#ifndef CP_GATE_H
#define CP_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "arena.h"
#include "gate_pin.h"
#include "../compiler/content.h"
#include "../compiler/match.h"
#include "../compiler/policy.h"
#include "sha256.h"

/* The hook input is one small JSON object: anything larger is refused
 * rather than buffered without bound. */
#define CP_GATE_MAX_INPUT (1024u * 1024u)
/* The client writes the whole input at once; silence this long on a pipe
 * that is neither closed nor holding a complete object is an error, so a
 * stdin left open never hangs the hook. */
#define CP_GATE_READ_TIMEOUT_MS 3000
/* The hook answers deny after this much wall time, whatever it is doing
 * (a client runs the command when its hook times out).  Longer than the
 * input's timeout plus the log's lock wait, so that their own answers come
 * first. */
#define CP_GATE_DEADLINE_MS 8000
/* The deadline: CONFPOL_GATE_DEADLINE_MS's value ENV when it is a number of
 * 1 to CP_GATE_DEADLINE_MS milliseconds (only ever shorter), else the
 * default.  Arm: past MS, the deny answer is written and the process exits
 * 2 (hook/gate_deadline.c); disarm before the answer is written. */
unsigned cp_gate_deadline_ms(const char *env);
void cp_gate_deadline_arm(unsigned ms);
void cp_gate_deadline_disarm(void);
/* Artifacts are read whole; a gate table larger than this is invalid. */
#define CP_GATE_MAX_ARTIFACT (64u * 1024u * 1024u)

enum cp_gate_rd {
    CP_GATE_RD_OK,
    CP_GATE_RD_TOOBIG,  /* more than `cap` bytes */
    CP_GATE_RD_TIMEOUT, /* no EOF and no complete object before the deadline */
    CP_GATE_RD_ERROR,   /* read(2) or poll(2) failed (errno set) */
};

/* Reads fd until EOF, until the bytes read form one complete JSON value
 * followed only by whitespace, or until `timeout_ms` have passed in all.
 * out receives the bytes (NUL-terminated). */
enum cp_gate_rd cp_gate_read_input(int fd, size_t cap, int timeout_ms,
                                   struct cp_buf *out);
const char *cp_gate_rd_text(enum cp_gate_rd r);

/* One text a file tool would write, by its place in tool_input. */
struct cp_gate_text {
    const char *field; /* "content", "new_string", "edits[N].new_string",
                          "new_source" */
    const char *text;
    size_t len;
};

/* ---- file tools' paths (hook/gate_path.c) -------------------------- */

/* One write root or deny-write target. */
struct cp_gate_wpath {
    struct cp_path path;
    const char *text; /* as the table or the policy writes it */
    bool deny;        /* deny write, else write */
};

/* The policy's write and deny-write rules, as the hook decides a file
 * tool's path with them. */
struct cp_gate_paths {
    bool present; /* false: an artifact built without "paths" */
    struct cp_gate_wpath *v;
    size_t n;
    const struct cp_param *params; /* a policy's params (bound values) */
    size_t nparams;
};

/* Where the roots HOME and PROJECT are when the table leaves them
 * unbound, and the directory a relative path is read from. */
struct cp_gate_path_env {
    const char *home;    /* $HOME */
    const char *project; /* $CLAUDE_PROJECT_DIR */
    const char *cwd;     /* the hook input's cwd */
};

struct cp_jnode;
/* "confpol"."paths" of an artifact (NULL: absent, then every path is
 * denied).  NULL, or why it is invalid (arena). */
const char *cp_gate_paths_parse(struct cp_arena *a,
                                const struct cp_jnode *paths,
                                struct cp_gate_paths *out);
/* The write and deny-write rules of a compiled policy. */
void cp_gate_paths_from_policy(struct cp_arena *a, const struct cp_policy *p,
                               struct cp_gate_paths *out);
/* Decides a file tool's path: NULL when every form of it is inside a
 * write root and outside every deny-write target, else why it is denied
 * (arena). */
const char *cp_gate_path_decide(struct cp_arena *a,
                                const struct cp_gate_paths *t, const char *path,
                                const struct cp_gate_path_env *env);

/* The parts of the hook input the gate uses. */
struct cp_gate_input {
    const char *tool;           /* tool_name */
    const char *command;        /* tool_input.command for Bash, Monitor and
                            PowerShell, else NULL */
    bool file_tool;             /* Write, Edit, MultiEdit or NotebookEdit */
    struct cp_gate_text *texts; /* what a file tool would write */
    size_t ntexts;
    const char *path;       /* a file tool's tool_input.file_path
                               (NotebookEdit: notebook_path) */
    const char *path_field; /* "file_path" or "notebook_path" */
    const char *cwd;        /* the input's cwd, or NULL */
};

/* Compiles the regex rules not compiled yet (an artifact's table defers
 * them); NULL or "content#N: invalid pattern: ..." (arena). */
const char *cp_gate_content_compile(struct cp_arena *a,
                                    struct cp_content_rule *rules, size_t n);
/* Scans every text of a file-tool call with the content rules; true when
 * something was found (then s holds the findings). */
bool cp_gate_scan_texts(struct cp_arena *a, const struct cp_gate_input *in,
                        unsigned classes, const struct cp_content_rule *rules,
                        size_t nrules, struct cp_content_scan *s);

/* Checks and extracts the hook input.  Returns NULL on success, else a
 * static message naming the malformation ("input is not JSON", ...); then
 * in->tool may still be set when tool_name was readable. */
const char *cp_gate_parse_input(struct cp_arena *a, const char *text,
                                size_t len, struct cp_gate_input *in);
/* The same, reading the strings in place (cp_json_read_in_place): in's
 * strings point into text, which must outlive them.  The hook's input of
 * up to 1 MiB is then neither copied nor its pages touched twice. */
const char *cp_gate_parse_input_in_place(struct cp_arena *a, char *text,
                                         size_t len, struct cp_gate_input *in);

/* A necessary condition for a regex to match (hook/gate_rx.c). */
struct cp_gate_rx_req;

/* One row of the gate table. */
struct cp_gate_entry {
    const char *id;          /* "gate#N" */
    enum cp_verdict verdict; /* CP_ASK or CP_DENY */
    struct cp_gate_pat pat;  /* a regex in the scanned subset is compiled
                                on first use: pat.regex NULL until then */
    const struct cp_gate_rx_req *req; /* regexes: NULL when not scanned */
    const char *where;                /* "FILE:LINE" */
    /* An artifact's word pattern is checked when the table is read, then
     * parsed again only for a line holding what its key asks for (pat then
     * holds only its kind and text until it is); a row that carries its
     * key ("programs") is not parsed before that, and its parse must then
     * give the key it carries (key_given) */
    bool deferred, key_given;
    struct cp_gate_key key;
};

struct cp_gate_table {
    const char *stem;
    bool fail_closed;
    struct cp_gate_entry *gates;
    size_t ngates;
    unsigned content_classes;        /* "content"."classes"; all when absent */
    struct cp_content_rule *content; /* "content"."rules"; regexes compiled
                                        by cp_gate_content_compile */
    size_t ncontent;
    struct cp_gate_paths paths; /* "paths" */
    /* The arena the table was read into: a row parsed at its first use
     * (cp_gate_entry.deferred) is parsed there, so that it lives as long
     * as the table, not as one decision's arena. */
    struct cp_arena *arena;
};

/* Reads the gate table from a `.claude.json` artifact's top-level
 * "confpol" object.  Returns NULL on success, else a message (arena). */
const char *cp_gate_table_parse(struct cp_arena *a, const char *text,
                                size_t len, struct cp_gate_table *t);
/* The gate table of a compiled policy, as the Claude backend would write
 * it: its rows share the policy's compiled patterns, so the table is not
 * freed with cp_gate_table_free (cp_policy_free frees them). */
void cp_gate_table_from_policy(struct cp_arena *a, const struct cp_policy *p,
                               bool fail_closed, struct cp_gate_table *t);
/* Frees the compiled regexes (the arena owns the rest); safe to repeat. */
void cp_gate_table_free(struct cp_gate_table *t);
/* Same as cp_gate_table_parse, from a file (at most CP_GATE_MAX_ARTIFACT
 * bytes).  The table must be freed with cp_gate_table_free either way. */
const char *cp_gate_table_load(struct cp_arena *a, const char *path,
                               struct cp_gate_table *t);
/* The same, and when `digest` is not NULL the file's pin digest
 * (cp_gate_pin_digest), also when the table is invalid (then digest[0] is
 * '\0' only when the file could not be read). */
const char *cp_gate_table_load_pinned(struct cp_arena *a, const char *path,
                                      struct cp_gate_table *t, char *digest);

/* The gate's answer for one tool call. */
struct cp_gate_answer {
    enum cp_verdict verdict;
    const char *rule;   /* deciding rule id ("gate#N") or NULL */
    const char *reason; /* permissionDecisionReason, or NULL for allow */
    /* A regex compiled on first use failed to compile (the scanner's
     * subset should make that impossible): the table is invalid, as if
     * loading had failed; "'gate#N: invalid pattern: ..." (arena).  The
     * verdict is then CP_DENY with this as the reason. */
    const char *error;
};

/* The decision model's gate decision over a table: deny if any deny
 * pattern matches, else ask if any ask pattern matches, else allow.  The
 * first matching row in table order gives the reason.  Regexes whose
 * necessary condition fails on cmd are neither compiled nor run; the
 * others are compiled into the table on first use (so `t`'s rows change,
 * and cp_gate_table_free frees them). */
void cp_gate_table_decide(const struct cp_gate_table *t, const char *cmd,
                          struct cp_arena *a, struct cp_gate_answer *ans);

/* ---- regex prefilter (hook/gate_rx.c) ------------------------------- */

/* The necessary condition of a regex in the scanned ERE subset, or NULL
 * when the pattern is outside it (then it must be compiled to be checked).
 * Within the subset regcomp(REG_EXTENDED) cannot fail. */
const struct cp_gate_rx_req *cp_gate_rx_scan(struct cp_arena *a,
                                             const char *re);
/* The line with ASCII letters folded to lower case (arena). */
char *cp_gate_rx_fold_line(struct cp_arena *a, const char *line);
/* false: the regex cannot match the line whose folded copy is given. */
bool cp_gate_rx_may_match(const struct cp_gate_rx_req *r, const char *folded,
                          size_t len);
/* A command line as the prefilter reads it: folded, and with `pairs` the
 * pairs of adjacent bytes it holds (65,536 bits, the pair x, y at bit
 * 256x + y; 8 KiB), so that a literal with a pair the line lacks is
 * absent without a search of the line (a long line, searched once per
 * literal of every regex, took 15% of a call). */
struct cp_gate_rx_line {
    const char *folded;
    size_t len;
    const uint64_t *pairs; /* NULL: not read */
};
/* Lines from this length on are read with their pairs by the table's
 * decision (one more look at each byte, while it is folded). */
#define CP_GATE_RX_PAIRS_MIN 4096
void cp_gate_rx_line_of(struct cp_arena *a, const char *line, bool pairs,
                        struct cp_gate_rx_line *out);
/* cp_gate_rx_may_match on such a line. */
bool cp_gate_rx_line_may_match(const struct cp_gate_rx_req *r,
                               const struct cp_gate_rx_line *l);

/* The id of a gate rule in answers, logs and the artifact: "gate#N", N the
 * 1-based position of the rule among the policy's gate rules (ask and deny
 * together) in rule order. */
const char *cp_gate_rule_id(struct cp_arena *a, const struct cp_policy *p,
                            const struct cp_rule *r);

/* "rule gate#N (FILE:LINE): PATTERN" (regexes shown as re"..."). */
const char *cp_gate_reason(struct cp_arena *a, const char *id,
                           const char *where, enum cp_gate_pat_kind kind,
                           const char *pattern);

/* Appends the answer's stdout text: nothing for allow, else the
 * hookSpecificOutput object on one line with a trailing newline. */
void cp_gate_format_answer(struct cp_buf *out, enum cp_verdict v,
                           const char *reason);

/* ---- one hook call (hook/gate_call.c) ------------------------------ */

/* The command line of a hook program (`confpol gate`, confpol-gate). */
struct cp_gate_args {
    const char
        *prog; /* "confpol gate", "confpol-gate": for "see PROG --help" */
    const char *target; /* the artifact, or (confpol gate) a policy source */
    const char *verify; /* --verify-log FILE */
    const char *pin;    /* --sha256 HEX */
    bool help;          /* --help or -h: the caller prints its usage */
    bool others;        /* the caller's cp_gate_opt_fn took an option */
    bool usage_err;     /* a usage error was printed (a hook call still
                           answers: deny) */
};
/* An option cp_gate_parse_args does not know, at argv[*i] (*i advanced
 * past its value): 1 taken, 0 not an option of the program, -1 a usage
 * error printed. */
typedef int (*cp_gate_opt_fn)(int argc, char **argv, int *i, void *ud);
/* Reads the command line into ga (prog set by the caller); opt may be
 * NULL (every other option is unknown). */
void cp_gate_parse_args(struct cp_gate_args *ga, int argc, char **argv,
                        cp_gate_opt_fn opt, void *ud);

/* One hook call in progress. */
struct cp_gate_run;
/* Decides a hook call with the policy source at path (input_err: why the
 * hook's input cannot be used, or NULL): compiles it, then answers with
 * cp_gate_run_decide, or with cp_gate_run_fail when it does not load. */
typedef int (*cp_gate_policy_fn)(struct cp_gate_run *g, const char *path,
                                 const char *input_err, void *ud);
/* The program after its command line: --verify-log, or one hook call on
 * ga->target.  Without policy (confpol-gate, which links no compiler) a
 * target that is not an artifact (.json) is a usage error, answered deny.
 * Returns the exit status. */
int cp_gate_main(const struct cp_gate_args *ga, cp_gate_policy_fn policy,
                 void *ud);
/* Answers the call with table t (the policy's fail mode given). */
int cp_gate_run_decide(struct cp_gate_run *g, struct cp_gate_table *t,
                       const char *path, bool fail_closed,
                       const char *input_err);
/* Answers the call as failed: deny, or allow when a loaded table fails
 * open. */
int cp_gate_run_fail(struct cp_gate_run *g, const char *why);
/* The call's arena, for messages. */
struct cp_arena *cp_gate_run_arena(struct cp_gate_run *g);

/* ---- decision log (hook/gatelog.c) --------------------------------- */

struct cp_gatelog_rec {
    time_t time;
    const char *decision; /* "allow", "ask", "deny" */
    const char *rule;     /* or NULL */
    const char *cmd;      /* the command line (hashed, never written) or NULL */
    size_t cmdlen;
    const char *tool;     /* or NULL */
    const char *findings; /* content findings as a JSON array, or NULL */
    /* With a key (CONFPOL_GATE_LOG_KEY): input_hmac is the HMAC-SHA256 of
     * the hook input, and the line is sealed with line_hmac. */
    const char *input_hmac; /* hex, or NULL */
    const char *key;
    size_t keylen;
};

/* Appends one line to the log at `path` (absolute), holding an exclusive
 * flock while it reads the last line and writes the new one.  Returns
 * NULL, or why not (in a). */
const char *cp_gatelog_append(struct cp_arena *a, const char *path,
                              const struct cp_gatelog_rec *r);
/* Verifies the chain.  Returns 0 intact (summary on `out`), 1 broken
 * ("FILE:LINE: ..." on `msgs`), 2 I/O error (message on `msgs`). */
int cp_gatelog_verify(const char *path, FILE *out, FILE *msgs);
/* The same, and with a key (keylen > 0) every line must carry input_hmac
 * and a line_hmac that the key reproduces. */
int cp_gatelog_verify_keyed(const char *path, const char *key, size_t keylen,
                            FILE *out, FILE *msgs);

#endif

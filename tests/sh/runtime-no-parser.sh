#!/bin/sh
# confpol-run is built from runtime/ alone: the parser, the resolver and
# the rest of the front end must not be linked in (spec/runtime.md).  Nor
# into confpol-gate, the hook program (spec/gate.md, "The hook program"),
# which decides with an artifact only.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
CONFPOL=${CONFPOL:-$TOP/build/confpol}
command -v nm >/dev/null 2>&1 || { echo "nm is not installed"; exit 77; }
[ -x "$RUN" ] || { echo "not built: $RUN"; exit 1; }
syms=$(nm "$RUN") || exit 1
bad=$(printf '%s\n' "$syms" | grep -E ' [TtDdBbRr] (cp_yyparse|cp_yylex|cp_parse|cp_resolve|cp_check|cp_compile)$')
if [ -n "$bad" ]; then
    echo "confpol-run links front-end symbols:"; echo "$bad"; exit 1
fi
# The check can fail: the runtime's own entry points are there, and the
# compiler binary does contain the parser.
printf '%s\n' "$syms" | grep -q ' T cp_rt_run_bwrap$' || { echo "cp_rt_run_bwrap missing from confpol-run"; exit 1; }
GATE=$(dirname "$CONFPOL")/confpol-gate
[ -x "$GATE" ] || { echo "not built: $GATE"; exit 1; }
gsyms=$(nm "$GATE") || exit 1
bad=$(printf '%s\n' "$gsyms" | grep -E ' [TtDdBbRr] (cp_yyparse|cp_yylex|cp_parse|cp_resolve|cp_check|cp_compile|cp_rt_[a-z_]*)$')
if [ -n "$bad" ]; then
    echo "confpol-gate links front-end or runtime symbols:"; echo "$bad"; exit 1
fi
printf '%s\n' "$gsyms" | grep -q ' T cp_gate_main$' || { echo "cp_gate_main missing from confpol-gate"; exit 1; }
if [ -x "$CONFPOL" ]; then
    nm "$CONFPOL" | grep -qE ' T (cp_yyparse|cp_parse)$' || { echo "confpol lacks the parser: the check is vacuous"; exit 1; }
fi
exit 0

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
FRONT='cp_yyparse|cp_yylex|cp_parse|cp_resolve|cp_check|cp_compile'
# links BIN FORBIDDEN OWN: BIN defines no symbol matching FORBIDDEN and
# does define OWN (its own entry point: the check can fail)
links() {
    [ -x "$1" ] || { echo "not built: $1"; exit 1; }
    syms=$(nm "$1") || exit 1
    bad=$(printf '%s\n' "$syms" | grep -E " [TtDdBbRr] ($2)\$")
    [ -z "$bad" ] || { echo "$(basename "$1") links symbols it must not:"; echo "$bad"; exit 1; }
    printf '%s\n' "$syms" | grep -q " T $3\$" || { echo "$3 missing from $(basename "$1")"; exit 1; }
}
links "$RUN" "$FRONT" cp_rt_run_bwrap
links "$(dirname "$CONFPOL")/confpol-gate" "$FRONT|cp_rt_[a-z_]*" cp_gate_main
# And the compiler binary does contain the parser.
if [ -x "$CONFPOL" ]; then
    nm "$CONFPOL" | grep -qE ' T (cp_yyparse|cp_parse)$' || { echo "confpol lacks the parser: the check is vacuous"; exit 1; }
fi
exit 0

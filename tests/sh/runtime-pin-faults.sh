#!/bin/sh
# SPDX-License-Identifier: MIT
# The runtime fails closed when a system call fails.  For each system call
# the runtime's own process (and the Landlock enforcer's child) makes on the way to the command (found by
# tracing a clean launch: no list kept here), each of its calls in turn is
# made to fail (strace fault injection, error EIO or ENOMEM), under both
# enforcers.  Whatever the runtime then does — refuse (never by dying of a
# signal), or run the command confined — the command never writes outside its write root and never
# opens a Unix socket under `net deny`; a run that exits 0 ran the
# command; and a command that runs finds what a clean launch gives it: the
# same working directory, no capabilities, no_new_privs and a seccomp
# filter (the probe prints them from /proc/self/status; the bounding set
# is not compared: under Landlock a failed PR_CAPBSET_DROP is ignored, and
# with no_new_privs what is left there cannot be gained by exec).  The calls of the dynamic loader and libc's start-up (mmap,
# brk, ...) are left alone: they fail before the runtime's code runs.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN=${CONFPOL_RUN:-$TOP/build/confpol-run}
MK="python3 $TOP/tests/runtime/mkartifact.py"
[ -x "$RUN" ] || { echo "confpol-run not built: $RUN"; exit 1; }
for c in strace cc; do
    command -v $c >/dev/null 2>&1 || { echo "$c is not installed"; exit 77; }
done
T=$(mktemp -d /var/tmp/confpol-pin.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
mkdir -p "$T/w" "$T/ro"

enforcers=""
"$RUN" --enforcer bwrap --check >/dev/null 2>&1 && enforcers="bwrap"
"$RUN" --check 2>/dev/null | grep -q '^landlock: ABI [1-9]' && enforcers="$enforcers landlock"
[ -n "$enforcers" ] || { echo "no enforcer can run here"; exit 77; }

# The command: marks that it ran, then tries what the policy denies.
cat >"$T/probe.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    char cwd[4096], line[512];
    printf("probe ran\nfp cwd=%s", getcwd(cwd, sizeof cwd) ? cwd : "?");
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        /* CapBnd left out: with no_new_privs set, a capability left in
         * the bounding set cannot be gained back by exec */
        if ((!strncmp(line, "Cap", 3) && strncmp(line, "CapBnd", 6)) ||
            !strncmp(line, "NoNewPrivs", 10) ||
            !strncmp(line, "Seccomp:", 8) || !strncmp(line, "SigBlk", 6) ||
            !strncmp(line, "SigIgn", 6)) {
            line[strcspn(line, "\n")] = '\0';
            printf(" %s", line);
        }
    printf("\n");
    fflush(stdout);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644); /* denied */
    if (fd >= 0)
        close(fd);
    if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0) { /* denied under net deny */
        fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            close(fd);
    }
    return 0;
}
EOF
${CC:-cc} -O2 -static -o "$T/probe" "$T/probe.c" 2>/dev/null ||
    ${CC:-cc} -O2 -o "$T/probe" "$T/probe.c" || exit 2
printf '%s\n' 'profile confined' 'fail closed' 'arg --ro-bind' 'arg /' 'arg /' \
    'arg --dev' 'arg /dev' 'arg --proc' 'arg /proc' "bind '' $T/w" \
    'arg --unshare-net' 'arg --cap-drop' 'arg ALL' 'arg --chdir' "arg $T/w" >"$T/a.txt"
$MK "$T/a.txt" "$T/a.bwrap" || exit 2
# The same with a net allow-list: the bwrap enforcer starts the proxy.
{ cat "$T/a.txt"; echo 'net example.test:443 t.confpol:2'; } >"$T/net.txt"
$MK "$T/net.txt" "$T/net.bwrap" || exit 2

fails=0 n=0
# The caller's blocked signals, as the probe sees them outside.
caller_blk=$("$T/probe" "$T/ro/x" "$T/ro/x" | sed -n 's/.* SigBlk:	\([0-9a-f]*\).*/\1/p')
rm -f "$T/ro/x"
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
ok() { n=$((n + 1)); echo "ok $n - $1"; }

# launch ENFORCER [STRACE-ARGS...]: one launch of the probe; sets rc.
launch() {
    e=$1; shift
    rm -f "$T/w/unix" "$T/ro/escaped"
    timeout -k 5 30 "$@" "$RUN" --enforcer "$e" -q "$T/$art.bwrap" -- \
        "$T/probe" "$T/ro/escaped" "$T/w/unix" >"$T/out" 2>&1
    rc=$?
    grep -q -x 'probe ran' "$T/out" && ran=1 || ran=0
}
# judge WHAT: nothing denied happened; exit 0 means the command ran.
judge() {
    if [ -e "$T/ro/escaped" ]; then
        bad "$1: exit $rc: the command wrote outside its write root"
    elif [ -e "$T/w/unix" ]; then
        bad "$1: exit $rc: the command created a Unix socket under net deny"
    elif [ $rc = 0 ] && [ $ran = 0 ]; then
        bad "$1: exit 0 but the command did not run"
    elif [ $ran = 1 ] && [ -n "${clean_fp:-}" ] &&
        [ "$(grep '^fp ' "$T/out")" != "$clean_fp" ]; then
        bad "$1: exit $rc: the command ran otherwise than in a clean launch: $(grep '^fp ' "$T/out")"
    elif [ $rc = 124 ] || [ $rc = 137 ]; then
        bad "$1: the launch hung"
    elif [ $rc -gt 128 ] && [ $rc != 159 ] && [ $ran = 0 ]; then
        # (159: SIGSYS, a call injected after the confinement filter is
        # on is one the filter kills)
        bad "$1: the runtime died of signal $((rc - 128)) instead of refusing"
    else
        return 0
    fi
    sed 's/^/#   /' "$T/out" | head -n 5
    return 1
}

# The Landlock enforcer's child (a fork of the launcher: it confines
# itself and execs the command) makes the calls that confine, and the
# bwrap enforcer's child sets up bwrap's process (its signal mask, its
# descriptors): each of its calls up to its execve fails in turn (strace
# -f; the ordinal counts per process, so a call the launcher makes as
# often fails there too, and the launch is refused).  The fingerprint
# holds the command's blocked and ignored signals: a child that goes on
# after a failed rt_sigprocmask starts the command with the signals the
# launcher forwards blocked (a Ctrl-C never reaches it).
child_faults() {
    e=$1 mark=$2
    launch "$e" strace -f -qq -o "$T/ftrace"
    lp=$(awk 'NR == 1 { print $1 }' "$T/ftrace")
    ccalls=$(awk -v lp="$lp" '$1 != lp && $2 ~ /^[a-z_0-9]+\(/ {
            c = $2; sub(/\(.*/, "", c); if (c == "execve" && / = 0$/) exit; print c }' "$T/ftrace" |
        grep -v -x -E 'execve|rt_sigreturn|exit_group' | sort | uniq -c | awk '{ print $2 ":" $1 }')
    case $ccalls in *$mark*) ;; *)
        bad "$e: the child's calls not found (no $mark): $(echo $ccalls)"
        head -5 "$T/ftrace" | sed "s/^/#   /"
        return ;;
    esac
    runs=0 refused=0 held=0
    for sc in $ccalls; do
        name=${sc%:*} count=${sc#*:} i=1
        while [ $i -le "$count" ]; do
            launch "$e" strace -f -qq -o /dev/null -e trace="$name" \
                -e inject="$name:error=EIO:when=$i"
            runs=$((runs + 1))
            if judge "$e/$art: the child's call $i of $name fails"; then
                if [ $ran = 1 ]; then held=$((held + 1)); else refused=$((refused + 1)); fi
            fi
            i=$((i + 1))
        done
    done
    ok "$e/$art: the child: $runs launches with one failing call: $refused refused, $held ran confined, $(echo "$ccalls" | wc -w) system calls"
}

for v in $enforcers bwrap:net; do
    e=${v%:*} art=a
    case $v in *:net) art=net ;; esac
    case " $enforcers " in *" $e "*) ;; *) continue ;; esac
    clean_fp=
    launch "$e"
    clean_fp=$(grep '^fp ' "$T/out")
    if [ $rc != 0 ] || ! judge "$e/$art: clean launch" || [ $ran = 0 ]; then
        bad "$e/$art: a clean launch runs the probe confined: exit $rc"
        continue
    fi
    ok "$e/$art: a clean launch runs the probe confined: $clean_fp"
    # --cap-drop ALL and --unshare-net: no capability in any set the
    # command can use, no_new_privs, a seccomp filter; in $T/w (--chdir).
    want="fp cwd=$T/w CapInh:	0000000000000000 CapPrm:	0000000000000000 CapEff:	0000000000000000 CapAmb:	0000000000000000 NoNewPrivs:	1 Seccomp:	2"
    # The signals blocked: the caller's (the launcher's own blocking
    # undone); the ignored ones are compared with this launch only.
    want="$want SigBlk:	$caller_blk"
    if [ "$(echo "$clean_fp" | sed 's/ SigIgn:	[0-9a-f]*//; s/ \(SigBlk:	[0-9a-f]*\)\(.*\)/\2 \1/')" = "$want" ]; then
        ok "$e/$art: the command has no capabilities, no_new_privs, a seccomp filter, the --chdir directory"
    else
        bad "$e/$art: the command runs with: $clean_fp"
    fi
    # A sanitizer build makes calls of its own at start-up whose failure
    # the sanitizer reports as an error: the clean launch only.
    if [ -n "${CONFPOL_SANITIZER:-}" ]; then
        echo "# $e/$art: no fault injection under $CONFPOL_SANITIZER"
        continue
    fi
    # The launcher's own calls, in order (strace without -f: the Landlock
    # enforcer's child, which execs the command, is child_faults').
    launch "$e" strace -qq -o "$T/trace"
    calls=$(awk '/^[a-z_0-9]+\(/ { sub(/\(.*/, ""); print }' "$T/trace" |
        awk '$0 == "execve" && ++x == 2 { exit } { print }' |
        grep -v -x -E 'execve|brk|mmap|munmap|mprotect|arch_prctl|set_tid_address|set_robust_list|rseq|prlimit64|exit_group|rt_sigreturn' |
        sort | uniq -c | awk '{ print $2 ":" $1 }')
    [ -n "$calls" ] || { bad "$e/$art: no system call traced"; continue; }
    runs=0 refused=0 held=0
    for sc in $calls; do
        name=${sc%:*} count=${sc#*:}
        for err in EIO ENOMEM; do
            i=1
            while [ $i -le "$count" ]; do
                launch "$e" strace -qq -o /dev/null -e trace="$name" \
                    -e inject="$name:error=$err:when=$i"
                runs=$((runs + 1))
                if judge "$e/$art: call $i of $name fails with $err"; then
                    if [ $ran = 1 ]; then held=$((held + 1)); else refused=$((refused + 1)); fi
                fi
                i=$((i + 1))
            done
        done
    done
    ok "$e/$art: $runs launches with one failing call: $refused refused, $held ran confined, $(echo "$calls" | wc -w) system calls"
    case $e/$art in
    landlock/a) child_faults landlock capset ;;
    bwrap/a) child_faults bwrap setpgid ;;
    esac
done
echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]

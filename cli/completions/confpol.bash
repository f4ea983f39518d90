# SPDX-License-Identifier: MIT
# bash completion for confpol; installed by `make install` into
# PREFIX/share/bash-completion/completions/confpol.  The commands and each
# command's options are read from `confpol --help` and `confpol COMMAND
# --help`, so that they never drift from the program.

# The commands that `confpol --help` lists.
_confpol_commands()
{
    "$1" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'
}

# The options that `confpol COMMAND --help` names.
_confpol_options()
{
    "$1" "$2" --help 2>/dev/null |
        grep -o -e '--[a-z][a-z0-9-]*' -e '\(^\|[[ ]\)-[A-Za-z]\b' |
        sed 's/^[[ ]//' | sort -u
}

# The values of an option that takes one of a fixed set ("" for none).
_confpol_values()
{
    case $1 in
    --target) [ "$2" = diff ] && echo "sbpl bwrap claude codex" || echo "sbpl bwrap claude codex all" ;;
    --diagnostics-format) echo "text json sarif" ;;
    --format)
        case $2 in
        build) echo "shell" ;;
        diff) echo "text json sarif" ;;
        *) echo "text json" ;;
        esac ;;
    --color | --colour) echo "auto always never" ;;
    --enforcer) echo "auto bwrap landlock" ;;
    --fail-on) echo "widen narrow change never" ;;
    --dump) echo "ast" ;;
    esac
}

_confpol()
{
    local cur prev prog cmd i w nfile=0 dashdash=0
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    prog=${COMP_WORDS[0]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--help --version -h -V" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_confpol_commands "$prog")" -- "$cur"))
        fi
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    # Positional words before the cursor (options and their values skipped),
    # and whether `--` came (run, claude: the command's own words follow).
    for ((i = 2; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        --) dashdash=$i ;;
        -D | -o | --keep-fd | --sha256 | --verify-log | --target | --format | \
            --diagnostics-format | --enforcer | --fail-on | --dump) i=$((i + 1)) ;;
        -*) ;;
        *) [ "$dashdash" -eq 0 ] && nfile=$((nfile + 1)) ;;
        esac
    done
    if [ "$dashdash" -gt 0 ]; then
        if [ $((dashdash + 1)) -eq "$COMP_CWORD" ]; then
            COMPREPLY=($(compgen -c -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return 0
    fi
    case $cmd in
    help)
        COMPREPLY=($(compgen -W "$(_confpol_commands "$prog")" -- "$cur"))
        return 0 ;;
    esac
    local vals
    vals=$(_confpol_values "$prev" "$cmd")
    if [ -n "$vals" ]; then
        COMPREPLY=($(compgen -W "$vals" -- "$cur"))
        return 0
    fi
    case $prev in
    -o) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    -D | --keep-fd | --sha256) return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_confpol_options "$prog" "$cmd")" -- "$cur"))
        return 0
    fi
    # explain FILE ACCESS SUBJECT: the access after the file.
    if [ "$cmd" = explain ] && [ "$nfile" -eq 1 ]; then
        COMPREPLY=($(compgen -W "read write exec net gate content socket" -- "$cur"))
        return 0
    fi
    # Policy files (and directories to reach them), else any file.
    COMPREPLY=($(compgen -f -X '!*.confpol' -- "$cur") $(compgen -f -X '!*.json' -- "$cur")
        $(compgen -d -- "$cur"))
    return 0
}
complete -F _confpol -o filenames confpol

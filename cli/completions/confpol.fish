# SPDX-License-Identifier: MIT
# fish completion for confpol; installed by `make install` into
# PREFIX/share/fish/vendor_completions.d/confpol.fish.  The commands and
# each command's options are read from `confpol --help` and `confpol
# COMMAND --help`, so that they never drift from the program.

function __confpol_commands
    confpol --help 2>/dev/null | string replace -rf '^  ([a-z][a-z-]*)  +(.*)$' '$1\t$2'
end

function __confpol_options
    set -l cmd (commandline -opc)[2]
    confpol $cmd --help 2>/dev/null | string match -ar -- '--[a-z][a-z0-9-]*|(?<=^|[\[ ])-[A-Za-z]\b' | sort -u
end

# The values of the option before the cursor, for this command.
function __confpol_values
    set -l words (commandline -opc)
    set -l cmd $words[2]
    switch $words[-1]
        case --target
            if test "$cmd" = diff
                printf '%s\n' sbpl bwrap claude codex
            else
                printf '%s\n' sbpl bwrap claude codex all
            end
        case --diagnostics-format
            printf '%s\n' text json sarif
        case --format
            switch $cmd
                case build
                    echo shell
                case diff
                    printf '%s\n' text json sarif
                case '*'
                    printf '%s\n' text json
            end
        case --color --colour
            printf '%s\n' auto always never
        case --enforcer
            printf '%s\n' auto bwrap landlock
        case --fail-on
            printf '%s\n' widen narrow change never
        case --dump
            echo ast
    end
end

function __confpol_wants_value
    set -l v (__confpol_values)
    test (count $v) -gt 0
end

complete -c confpol -f
complete -c confpol -n __fish_use_subcommand -a '(__confpol_commands)'
complete -c confpol -n __fish_use_subcommand -s h -l help -d 'list the commands'
complete -c confpol -n __fish_use_subcommand -s V -l version -d 'print the version'
complete -c confpol -n '__fish_seen_subcommand_from help' -a '(__confpol_commands)'
complete -c confpol -n 'not __fish_use_subcommand; and __confpol_wants_value' -a '(__confpol_values)'
complete -c confpol -n 'not __fish_use_subcommand; and not __confpol_wants_value; and string match -q -- "-*" (commandline -ct)' -a '(__confpol_options)'
complete -c confpol -n 'not __fish_use_subcommand; and not __confpol_wants_value' -F

# bash completion for topdown. The commands, each command's own options
# and what their values are come from topdown itself: `topdown help
# --commands` and `topdown help --options COMMAND`, made from its tables
# (topdown/command_table.c, the options of topdown/cli.c); arch and node
# names from list-archs and list-nodes; files otherwise. Nothing here names
# a command or an option.
# Installed to PREFIX/share/bash-completion/completions/topdown.

_topdown_commands() {
    "$1" help --commands 2>/dev/null | cut -f1
}

# What the command's ($2) words other than options are: file, node,
# command or nothing.
_topdown_operands() {
    "$1" help --commands 2>/dev/null | awk -F '\t' -v c="$2" '$1 == c {print $2}'
}

_topdown_command() {
    local i commands=" $(_topdown_commands "$1" | tr '\n' ' ') "
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --) printf 'app'; return ;;
            -*) ;;
            *)
                if [[ $i == 1 && $commands == *" ${COMP_WORDS[i]} "* ]]; then
                    printf '%s' "${COMP_WORDS[i]}"; return
                fi
                [[ ${COMP_WORDS[i-1]} == -* ]] || { printf 'app'; return; } ;;
        esac
    done
}

_topdown_archs() {
    "$1" list-archs 2>/dev/null | awk 'NR > 1 && $1 !~ /^[(]/ {print $1}'
}

# The options of the command ($2; "": profiling), one a line.
_topdown_options() {
    "$1" help --options "$2" 2>/dev/null | cut -f1 | tr ' ' '\n'
}

# What the value of the command's ($2) option $3 is: text, file, arch,
# node or "words W1 W2 ..."; nothing for a flag or an option it lacks.
_topdown_value() {
    local names value
    while IFS=$'\t' read -r names value; do
        if [[ " $names " == *" $3 "* ]]; then
            printf '%s' "$value"
            return
        fi
    done < <("$1" help --options "$2" 2>/dev/null)
}

_topdown_nodes() {
    "$1" list-nodes -l 4 2>/dev/null |
        awk 'NR > 1 && NF > 3 && $2 ~ /^[0-9]$/ {n = split($3, p, "."); print $3; print p[n]}' |
        sort -u
}

_topdown() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin=${COMP_WORDS[0]} cmd
    COMPREPLY=()
    cmd=$(_topdown_command "$bin")
    if [[ $cmd == app ]]; then
        COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
        return
    fi
    if [[ $prev == -* ]]; then
        local value
        value=$(_topdown_value "$bin" "$cmd" "$prev")
        case $value in
            words\ *) COMPREPLY=($(compgen -W "${value#words }" -- "$cur")); return ;;
            file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
            arch) COMPREPLY=($(compgen -W "$(_topdown_archs "$bin")" -- "$cur")); return ;;
            node) COMPREPLY=($(compgen -W "$(_topdown_nodes "$bin")" -- "$cur")); return ;;
            text) return ;;
        esac
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_options "$bin" "$cmd")" -- "$cur"))
        return
    fi
    if [[ -z $cmd ]]; then # a command, or the app to profile
        COMPREPLY=($(compgen -W "$(_topdown_commands "$bin")" -- "$cur"))
        COMPREPLY+=($(compgen -c -- "$cur"))
        return
    fi
    case $(_topdown_operands "$bin" "$cmd") in
        command) COMPREPLY=($(compgen -W "$(_topdown_commands "$bin")" -- "$cur")) ;;
        node) COMPREPLY=($(compgen -W "$(_topdown_nodes "$bin")" -- "$cur")) ;;
        file) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}

complete -o filenames -F _topdown topdown

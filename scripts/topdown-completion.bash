# bash completion for topdown: commands (from `topdown --help`), each
# command's own options (from `topdown COMMAND --help`; both made from the
# command table of topdown/cli.c), option values, node names for
# `describe`, result files.
# Installed to PREFIX/share/bash-completion/completions/topdown.

_topdown_commands() {
    "$1" --help 2>/dev/null |
        sed -n 's/^ *\(usage: \)\{0,1\}topdown \([a-z][a-z-]*\) .*/\2/p' | sort -u
    echo help
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

# The options of the command ($2; none: profiling's, in topdown --help).
_topdown_options() {
    if [[ -n $2 ]]; then "$1" "$2" --help; else "$1" --help; fi 2>/dev/null |
        sed -n '/^options:/,/^examples:/p; /^[a-z]* *options/,/^exit codes:/p' |
        grep -oE -- '^ +(-[A-Za-z], )?--?[A-Za-z][A-Za-z-]*' | tr -s ' ,' '\n' | grep -- '^-' | sort -u
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
    case $prev in
        -l|--level) COMPREPLY=($(compgen -W "1 2 3 4" -- "$cur")); return ;;
        --kernel-name-base) COMPREPLY=($(compgen -W "function demangled mangled" -- "$cur")); return ;;
        --replay-mode) COMPREPLY=($(compgen -W "auto none kernel" -- "$cur")); return ;;
        --graph-profiling) COMPREPLY=($(compgen -W "node graph" -- "$cur")); return ;;
        --node) COMPREPLY=($(compgen -W "$(_topdown_nodes "$bin")" -- "$cur")); return ;;
        --cache-control) COMPREPLY=($(compgen -W "none all" -- "$cur")); return ;;
        --clock-control) COMPREPLY=($(compgen -W "none base" -- "$cur")); return ;;
        --page) COMPREPLY=($(compgen -W "details raw session source" -- "$cur")); return ;;
        --arch)
            COMPREPLY=($(compgen -W "$(_topdown_archs "$bin")" -- "$cur"))
            return ;;
        -o|--output|--csv|--csv-launches|--times)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -k|--kernel-name|--kernels|--top|--timeline|-s|--launch-skip|-c|--launch-count|--per-kernel|--overhead|--phase-threshold|--spread-threshold|-n|--lines|--pc-sampling-period|--pm-interval)
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_options "$bin" "$cmd")" -- "$cur"))
        return
    fi
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_commands "$bin")" -- "$cur"))
        COMPREPLY+=($(compgen -c -- "$cur"))
    elif [[ $cmd == help ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_commands "$bin")" -- "$cur"))
    elif [[ $cmd == describe ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_nodes "$bin")" -- "$cur"))
    elif [[ $cmd != list-archs && $cmd != list-nodes ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

complete -o filenames -F _topdown topdown

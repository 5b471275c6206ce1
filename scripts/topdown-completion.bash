# bash completion for topdown: commands, options (from `topdown --help`),
# option values, node names for `describe`, result files.
# Installed to PREFIX/share/bash-completion/completions/topdown.

_topdown_command() {
    local i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            report|plot|diff|list-archs|list-nodes|describe|import-nvprof|import-spool|merge|imbalance|trace|source)
                printf '%s' "${COMP_WORDS[i]}"; return ;;
            --) printf 'app'; return ;;
            -*) ;;
            *) [[ ${COMP_WORDS[i-1]} == -* ]] || { printf 'app'; return; } ;;
        esac
    done
}

_topdown_archs() {
    "$1" list-archs 2>/dev/null | awk 'NR > 1 && $1 !~ /^[(]/ {print $1}'
}

_topdown_options() {
    "$1" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u
}

_topdown_nodes() {
    "$1" list-nodes -l 4 2>/dev/null |
        awk 'NR > 1 && NF > 3 && $2 ~ /^[0-9]$/ {n = split($3, p, "."); print $3; print p[n]}'
}

_topdown() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin=${COMP_WORDS[0]} cmd
    COMPREPLY=()
    cmd=$(_topdown_command)
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
        --arch)
            COMPREPLY=($(compgen -W "$(_topdown_archs "$bin")" -- "$cur"))
            return ;;
        -o|--output|--csv|--csv-launches|--times)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -k|--kernel-name|--kernels|--top|--timeline|-s|--launch-skip|-c|--launch-count|--per-kernel|--overhead|--phase-threshold|--spread-threshold|-n|--lines|--pc-sampling-period|--pm-interval)
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_options "$bin")" -- "$cur"))
        return
    fi
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "report plot diff list-archs list-nodes describe import-nvprof import-spool merge imbalance trace source" -- "$cur"))
        COMPREPLY+=($(compgen -c -- "$cur"))
    elif [[ $cmd == describe ]]; then
        COMPREPLY=($(compgen -W "$(_topdown_nodes "$bin")" -- "$cur"))
    elif [[ $cmd != list-archs && $cmd != list-nodes ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

complete -o filenames -F _topdown topdown

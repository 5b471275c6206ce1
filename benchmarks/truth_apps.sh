# shellcheck shell=bash
# shellcheck disable=SC2154 # build and python: set by the script that sources this
# The truth apps' commands, sized for an every-launch run (launches in the
# truth run, estimated): sourced by truth.sh and arms.sh, which set $build
# (the build folder) and $python first.
#
#   truth_app_cmd APP    prints the command line; 1 for an unknown app
truth_app_cmd() {
    case $1 in
        td_bench) echo "$build/benchmarks/td_bench" ;;                                   # ~30
        td_bfs) echo "$build/benchmarks/td_bfs" ;;                                       # ~340
        td_phases2) echo "$build/benchmarks/td_phases2 --launches 1000 --phase 50" ;;     # 1,000
        td_phases2_two) echo "$build/benchmarks/td_phases2 --two-kernels --launches 1000 --phase 50" ;;
        td_few) echo "$build/benchmarks/td_few" ;;                                       # 18
        td_tiny) echo "$build/benchmarks/td_tiny --launches 2000" ;;                     # 2,000
        td_devheap) echo "$build/benchmarks/td_devheap" ;;                               # 400
        td_stencil) echo "$build/benchmarks/td_stencil --iters 500 --check-every 50" ;;  # ~1,024
        td_manykernels) echo "$build/benchmarks/td_manykernels --steps 20 --rare-every 10" ;; # ~1,640
        td_libs) echo "$build/benchmarks/td_libs" ;;                                     # a few hundred
        pytorch) echo "$python benchmarks/pytorch_mlp.py 20" ;;                          # ~1,400
        td_sort) echo "$build/benchmarks/td_sort --rounds 2" ;;                          # 240
        td_frames) echo "$build/benchmarks/td_frames --frames 100" ;;                    # 600, in graphs
        *) return 1 ;;
    esac
}

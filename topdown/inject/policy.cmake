# The collector's rules that need no CUPTI and that the launcher checks too:
# --sample-every's sampling policy (sample_policy.c) and the
# --nvtx-include/--nvtx-exclude filter (nvtx_filter.c). The injection
# library links them; so does the launcher, which parses the same values to
# refuse a bad one before the app starts, and the tests. Here too, so that
# the tests run them without CUPTI: the collector's options, which the
# launcher writes and the collector reads as the one variable
# TOPDOWN_COLLECT (collect_opts.c, its encoding opts_text.c); and the
# device-heap check of a cubin (device_heap.c). Included by
# the top-level CMakeLists.txt in every build, the fuzz build too (fuzz_cli
# links cli.c, which uses them).
add_library(td_inject_policy STATIC ${CMAKE_CURRENT_LIST_DIR}/sample_policy.c
  ${CMAKE_CURRENT_LIST_DIR}/nvtx_filter.c ${CMAKE_CURRENT_LIST_DIR}/collect_opts.c
  ${CMAKE_CURRENT_LIST_DIR}/opts_text.c ${CMAKE_CURRENT_LIST_DIR}/device_heap.c)
target_include_directories(td_inject_policy PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(td_inject_policy PUBLIC td_metrics)

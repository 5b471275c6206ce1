# --clock-control: the policy and its NVML implementation (a library of
# their own so tests/unit/test_clocks.c drives the policy with a fake).
# Included by the top-level CMakeLists.txt in every build, the fuzz build
# too (fuzz_cli links profile.c, which uses it).
add_library(td_clocks STATIC ${CMAKE_CURRENT_LIST_DIR}/clocks.c ${CMAKE_CURRENT_LIST_DIR}/nvml_clocks.c)
target_include_directories(td_clocks PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(td_clocks PUBLIC td_metrics ${CMAKE_DL_LIBS})

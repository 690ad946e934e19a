# Precompiled headers (CAMPAIGN_PCH, on by default): the standard and third-party headers that most
# files include are parsed once per build, not once per file. Catch2's single header, nlohmann/json,
# CLI11 and yaml-cpp cost seconds each to parse on this kind of machine, and a hundred files include
# them. Three owners, one per kind of file; every other target reuses one of them (REUSE_FROM), so
# each header set is compiled once:
#   campaign_pch_lib   the orchestrator's libraries
#   campaign_pch_test  the Catch2 test programs (tests/unit/main.cpp itself defines CATCH_CONFIG_MAIN
#                      before it includes Catch2, so it is compiled without)
#   campaign_pch_cli   the programs with a command line (campaign, sim, the benchmarks)
# A header used from a precompiled set must still be included where it is used: the build with
# -DCAMPAIGN_PCH=OFF -DCAMPAIGN_UNITY=OFF checks that. Measured: cmake/unity.cmake.
option(CAMPAIGN_PCH "Precompile the headers most files include" ON)

# The Catch2 test programs are compiled at -O0 whatever the build type: the code they test is in the
# libraries, built as the build type says; the tests' own files are a third of a build's compiles,
# 146 s of CPU at -O0 against 210 s at -O1 (-O3 dearer still), and the unit tests still run in 14 s
# at -j2 without ssh: their time is the libraries' (2-core VM, 2026-11-29). -Og is no cheaper and
# trips GCC 12's maybe-uninitialized in <regex>. Their precompiled headers with them (a precompiled
# header is used only under the flags it was made with).
set(CAMPAIGN_TEST_OPTIMIZE -O0)

set(CAMPAIGN_PCH_STD <algorithm> <chrono> <filesystem> <fstream> <functional> <map> <memory>
                     <optional> <set> <sstream> <string> <string_view> <vector>)
set(CAMPAIGN_PCH_LIBS <nlohmann/json.hpp> <fmt/format.h> <spdlog/spdlog.h> <yaml-cpp/yaml.h>)

if(CAMPAIGN_PCH)
  add_library(campaign_pch_lib OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_owner.cpp)
  target_link_libraries(campaign_pch_lib PUBLIC spdlog::spdlog nlohmann_json::nlohmann_json yaml-cpp)
  target_precompile_headers(campaign_pch_lib PRIVATE ${CAMPAIGN_PCH_STD} ${CAMPAIGN_PCH_LIBS})

  add_library(campaign_pch_test OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_owner.cpp)
  target_link_libraries(campaign_pch_test PUBLIC spdlog::spdlog nlohmann_json::nlohmann_json yaml-cpp
                                                 Catch2::Catch2)
  target_precompile_headers(campaign_pch_test PRIVATE ${CAMPAIGN_PCH_STD} ${CAMPAIGN_PCH_LIBS}
                                                      <catch2/catch.hpp>)
  target_compile_options(campaign_pch_test PRIVATE ${CAMPAIGN_TEST_OPTIMIZE})

  add_library(campaign_pch_cli OBJECT ${CMAKE_SOURCE_DIR}/cmake/pch_owner.cpp)
  target_link_libraries(campaign_pch_cli PUBLIC spdlog::spdlog nlohmann_json::nlohmann_json yaml-cpp
                                                CLI11::CLI11)
  target_precompile_headers(campaign_pch_cli PRIVATE ${CAMPAIGN_PCH_STD} ${CAMPAIGN_PCH_LIBS}
                                                     <CLI/CLI.hpp>)
endif()

# campaign_use_pch(KIND TARGETS...): KIND lib, test or cli, as above.
function(campaign_use_pch kind)
  if(CAMPAIGN_PCH)
    foreach(target ${ARGN})
      target_precompile_headers(${target} REUSE_FROM campaign_pch_${kind})
    endforeach()
  endif()
endfunction()

# campaign_test_program(TARGETS...): a Catch2 test program: compiled at CAMPAIGN_TEST_OPTIMIZE, with the
# tests' precompiled headers.
function(campaign_test_program)
  foreach(target ${ARGN})
    target_compile_options(${target} PRIVATE ${CAMPAIGN_TEST_OPTIMIZE})
    campaign_use_pch(test ${target})
  endforeach()
endfunction()

# Unity builds (CAMPAIGN_UNITY, on by default): each target's files compiled 16 to a translation unit,
# so the templates they share (nlohmann/json, yaml-cpp, fmt, CLI11, Catch2) are instantiated and
# optimised once per batch instead of once per file. Everything from scratch on 2 cores (make -j2, no
# compiler cache): 11 min 20 s file by file, 10 min 47 s with precompiled headers alone (parsing is not
# where the time goes), 6 min 6 s with both (21 min 7 s of CPU down to 11 min 11 s). -DCAMPAIGN_UNITY=OFF
# builds file by file: what a developer's incremental build with a compiler cache wants (a change
# recompiles one file), and, with -DCAMPAIGN_PCH=OFF, the check that every file includes what it uses.
option(CAMPAIGN_UNITY "Compile each target's files in batches (unity build)" ON)
set(CMAKE_UNITY_BUILD ${CAMPAIGN_UNITY})
set(CMAKE_UNITY_BUILD_BATCH_SIZE 16)

# Files that keep a helper of a name another file of their target also uses in its anonymous namespace
# (a test's plan_of, a parser's fail): compiled alone, as they are written.
set(CAMPAIGN_UNITY_ALONE
    orchestrator/analysis/window.cpp
    orchestrator/collect/nsys_engine.cpp
    orchestrator/collect/regex_engine.cpp
    orchestrator/collect/regex_spec.cpp
    orchestrator/collect/source_specs.cpp
    orchestrator/local/process.cpp
    orchestrator/history/verdicts.cpp
    orchestrator/site/svg.cpp
    tests/unit/analysis/stalls_test.cpp
    tests/unit/analysis/window_test.cpp
    tests/unit/batch/files_test.cpp
    tests/unit/collect/mllog_test.cpp
    tests/unit/collect/profilers_test.cpp
    tests/unit/collect/regex_test.cpp
    tests/unit/collect/retry_test.cpp
    tests/unit/collect/tau_test.cpp
    tests/unit/engine/engine_test.cpp
    tests/unit/engine/policy_test.cpp
    tests/unit/engine/workspace_test.cpp
    tests/unit/pack/slots_test.cpp
    tests/unit/render/script_test.cpp
    tests/unit/site/site_test.cpp
    tests/unit/site/stalls_test.cpp
    tests/unit/spec/analyses_test.cpp
    tests/unit/sched/slurm_test.cpp)
list(TRANSFORM CAMPAIGN_UNITY_ALONE PREPEND ${CMAKE_SOURCE_DIR}/)
set_source_files_properties(${CAMPAIGN_UNITY_ALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)

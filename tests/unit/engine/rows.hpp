// Hand-made rows and plans for the engine's decision tests (decide_test, choose_test).
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matrix/plan.hpp"
#include "spec/library.hpp"

namespace engine_test {

using namespace campaign;

inline AttemptRow row(std::int64_t id, State state, std::string job_id = "") {
  AttemptRow a;
  a.id = id;
  a.case_id = id;
  a.number = 1;
  a.state = state;
  a.case_name = "c" + std::to_string(id);
  a.run_dir = "/w/c" + std::to_string(id);
  a.job_id = std::move(job_id);
  a.job_name = "job-" + std::to_string(id);
  return a;
}

inline matrix::Plan plan_of(const std::string& yaml, long max_queued = 100) {
  auto c = spec::parse_campaign(yaml, "c.yaml");
  auto s =
      spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", "testcluster", ".yaml"));
  s.limits.max_queued_jobs = max_queued;
  return matrix::expand(spec::for_system(c, s.name), s, "/w");
}

// A staging step the two training cases depend on: plan indices 0 (prepare), 1, 2.
inline const char* kDeps = R"(name: deps
matrix:
  n: [1, 2]
case_name: train-{{n}}
job: {partition: mc, nodes: 2, walltime: "01:00:00", command: "true"}
steps:
  prepare: {matrix: {}, case_name: prepare, job: {nodes: 1, command: "true"}}
  train: {after: [prepare]}
retry: {max_attempts: 2, on: [node_fail]}
)";

// Rows for kDeps' plan, case ids 1..3 in plan order.
inline std::vector<AttemptRow> deps_rows(const matrix::Plan& plan, State prepare, State train) {
  std::vector<AttemptRow> rows;
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    auto a = row(static_cast<std::int64_t>(i + 1), i == 0 ? prepare : train,
                 is_active(i == 0 ? prepare : train) ? std::to_string(100 + i) : "");
    a.case_name = plan.cases[i].name;
    rows.push_back(a);
  }
  return rows;
}

}  // namespace engine_test

// The json and yaml engines: values by path from documents the job wrote.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;
using Catch::Matchers::Contains;

TEST_CASE("yaml: numbers, booleans and lists by path from the job's config.yaml", "[doc]") {
  TempDir run;
  fs::copy_file(data("doc/config.yaml"), run / "config.yaml");
  auto r = collect({collector(R"(
sources:
  - engine: yaml
    file: config.yaml
    values:
      - data.n_train
      - {path: data.n_valid, name: n_valid, unit: samples}
      - {path: data.sharded, name: sharded}
      - {path: optimizer.lr, name: lr_e3, scale: 1000}
      - {path: 'optimizer.boundaries[1]', name: second_boundary}
      - {path: optimizer.boundaries, name: boundaries}
      - {path: data.staged_files, name: staged}
      - {path: data.not_there, optional: true}
)")},
                   run.path());
  INFO(all_warnings(r));
  CHECK(value(r, "data.n_train") == 1024);
  CHECK(value(r, "n_valid") == 256);
  CHECK(value(r, "sharded") == 1);
  CHECK(value(r, "lr_e3") == Approx(1));
  CHECK(value(r, "second_boundary") == 64);
  CHECK(value(r, "boundaries", 0.0) == 32);
  CHECK(value(r, "boundaries", 1.0) == 64);
  CHECK_FALSE(value(r, "staged"));  // .nan: dropped with a warning
  CHECK(has_warning(r, "config.yaml: data.staged_files is not finite; skipped"));
  CHECK(r.metrics.size() == 7);
  for (const auto& m : r.metrics) CHECK(m.unit == (m.name == "n_valid" ? "samples" : ""));
}

TEST_CASE("yaml: a quoted number is a string, and the error points at it", "[doc]") {
  TempDir run;
  fs::copy_file(data("doc/config.yaml"), run / "config.yaml");
  try {
    collect({collector("sources: [{engine: yaml, file: config.yaml, values: [optimizer.name]}]")},
            run.path());
    FAIL("expected CollectError");
  } catch (const CollectError& e) {
    CHECK(std::string(e.what()) == "config.yaml:12:9: optimizer.name is the string 'sgd', not a number");
  }
}

TEST_CASE("json: values, booleans, lists and array indices from results.json", "[doc]") {
  TempDir run;
  fs::copy_file(data("doc/results.json"), run / "results.json");
  auto r = collect({collector(R"(
sources:
  - engine: json
    file: results.json
    values:
      - {path: samples_per_second, name: throughput, unit: samples/s}
      - converged
      - {path: history.loss, name: loss}
      - {path: 'nodes[1].gpus', name: gpus_of_second_node}
      - {path: nodes.0.gpus, name: gpus_of_first_node}
)")},
                   run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "throughput") == 812.5);
  CHECK(value(r, "converged") == 0);
  CHECK(value(r, "loss", 0.0) == 0.9);
  CHECK(value(r, "loss", 2.0) == 0.61);
  CHECK(value(r, "gpus_of_second_node") == 4);
  CHECK(value(r, "gpus_of_first_node") == 4);
  CHECK(r.metrics.size() == 7);
}

TEST_CASE("json: a real MLPerf system description stores numbers as strings - a clear error", "[doc]") {
  TempDir run;
  fs::copy_file(data("mllog/daint_gpu_n128_system.json"), run / "system.json");
  try {
    collect({collector("sources: [{engine: json, file: system.json, values: [number_of_nodes]}]")},
            run.path());
    FAIL("expected CollectError");
  } catch (const CollectError& e) {
    CHECK_THAT(e.what(), Contains("system.json: number_of_nodes is the string '128', not a number"));
  }
  // Its nested map is reachable, and a typo gets a suggestion.
  try {
    collect({collector("sources: [{engine: json, file: system.json, values: [other_software_stack.NCL]}]")},
            run.path());
    FAIL("expected CollectError");
  } catch (const CollectError& e) {
    CHECK_THAT(e.what(), Contains("no key 'NCL' in 'other_software_stack', did you mean 'NCCL'?"));
  }
}

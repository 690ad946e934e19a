// How a step's ready cases form batch jobs (batch/batch.hpp) and what each costs.
#include "batch/batch.hpp"

#include <catch2/catch.hpp>

#include "spec/library.hpp"

using namespace campaign;

namespace {
matrix::Plan plan_of(const std::string& yaml, const std::string& sys = "testcluster") {
  auto c = spec::parse_campaign(yaml, "c.yaml");
  auto s = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", sys, ".yaml"));
  return matrix::expand(spec::for_system(c, sys), s, "/w");
}
std::vector<size_t> all(const matrix::Plan& p) {
  std::vector<size_t> ids;
  for (size_t i = 0; i < p.cases.size(); ++i) ids.push_back(i);
  return ids;
}
}  // namespace

TEST_CASE("one job per case unless the step packs or arrays its cases", "[batch]") {
  auto p =
      plan_of("name: t\nmatrix: {repeat: 3}\njob: {partition: mc, nodes: 2, walltime: 10m, command: x}\n");
  auto b = batch::group(p, all(p), {}, true);
  REQUIRE(b.size() == 3);
  CHECK(b[0].kind == batch::Kind::single);
  CHECK(b[0].nodes == 2);
  CHECK(b[0].queue_slots() == 1);
  CHECK(batch::node_hours(p, b[0]) == Approx(2 * 600 / 3600.0));
}

TEST_CASE("an array step: arrays of at most kMaxTasks, the longest walltime; one job each without arrays",
          "[batch]") {
  auto p = plan_of(
      "name: t\nmatrix: {repeat: 3}\njob: {partition: mc, walltime: 10m, command: x}\narray: {throttle: "
      "2}\n");
  auto walltime = [](size_t i) { return i == 1 ? 1200L : 600L; };
  auto b = batch::group(p, all(p), walltime, true);
  REQUIRE(b.size() == 1);
  CHECK(b[0].kind == batch::Kind::array);
  CHECK(b[0].walltime_s == 1200);
  CHECK(b[0].queue_slots() == 3);
  CHECK(b[0].throttle == 2);
  CHECK(batch::first_tasks(b[0], 2).ids == std::vector<size_t>{0, 1});
  CHECK(batch::first_tasks(b[0], 1).walltime_s == 600);
  CHECK(batch::group(p, all(p), walltime, false).size() == 3);
}

TEST_CASE("a packed step: allocations that cost their whole nodes", "[batch]") {
  auto p = plan_of(
      "name: t\nmatrix: {repeat: 8}\njob: {partition: mc, ranks: 1, cpus_per_rank: 1, walltime: 10m, "
      "command: x}\n"
      "pack: {nodes: 2}\n");
  auto b = batch::group(p, all(p), {}, true);
  REQUIRE(b.size() == 1);
  CHECK(b[0].kind == batch::Kind::allocation);
  CHECK(b[0].nodes == 2);  // 8 one-core cases on two 4-core nodes: one round
  CHECK(b[0].walltime_s == 11 * 60);
  CHECK(batch::node_hours(p, b[0]) == Approx(2 * 11 * 60 / 3600.0));
}

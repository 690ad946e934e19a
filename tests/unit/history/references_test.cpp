// References per system (issue 34): each value against its band, value x (1 + lower) .. value x
// (1 + upper), on hand-made runs; a campaign across systems is checked per system (its `system`
// parameter), a comparison across systems dropped so each system's value is its own column; the
// references written from a run (`reference set`) are ones that run passes, their bounds widened to
// 3 standard deviations of its repetitions.
#include "history/references.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "spec/campaign.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

using namespace campaign;
using namespace campaign::analysis;
using namespace campaign::history;

namespace {

std::vector<AnalysisSpec> strong_by_system() {
  return parse_analyses(YAML::Load("analyses:\n  - {name: s, scaling: strong, x: ranks, time: {metric: t}, "
                                   "compare: {axis: system, baseline: a}}")["analyses"],
                        "test.yaml");
}

// Cases of system `system`: time = base / ranks at ranks 1, 2, 4; with `repeats`, two repetitions
// at base and base + spread.
std::vector<CaseResult> cases_of(const std::string& system, double base, double spread = 0) {
  std::vector<CaseResult> out;
  for (int r : {1, 2, 4})
    for (int rep = 0; rep < (spread > 0 ? 2 : 1); ++rep) {
      CaseResult c;
      c.name = system + "/c-n" + std::to_string(r) + "-r" + std::to_string(rep);
      c.step = "main";
      c.state = "collected";
      c.params = {{"system", system}, {"ranks", std::to_string(r)}, {"repeat", std::to_string(rep)}};
      c.metrics.push_back({"t", 1.0, (base + rep * spread) / r, "s"});
      out.push_back(std::move(c));
    }
  return out;
}

spec::Reference ref(const std::string& system, const std::string& metric, double value,
                    std::optional<double> lower, std::optional<double> upper) {
  spec::Reference r;
  r.system = system;
  r.metric = metric;
  r.value = value;
  r.lower = lower;
  r.upper = upper;
  return r;
}

}  // namespace

TEST_CASE("a value within its band, below it, above it, or missing") {
  auto cases = cases_of("a", 8);  // times 8, 4, 2
  auto summary =
      check_references({ref("a", "s.times@ranks=2", 4, -0.1, 0.1), ref("a", "s.times@ranks=4", 3, -0.1, 0.1),
                        ref("a", "s.times@ranks=1", 9, -0.05, 0.05), ref("a", "s.nope@ranks=1", 1, {}, {}),
                        ref("a", "s.times@ranks=1", 8, -0.0, 0.0)},
                       strong_by_system(), cases, "a");
  REQUIRE(summary.checks.size() == 5);
  CHECK(summary.checks[0].verdict == Bound::within);
  CHECK(summary.checks[1].verdict == Bound::below);  // 2 < 2.7
  CHECK(*summary.checks[1].low() == Approx(2.7));
  CHECK(summary.checks[2].verdict == Bound::below);  // 8 < 8.55
  CHECK(summary.checks[3].verdict == Bound::missing);
  CHECK_FALSE(summary.checks[3].problem.empty());
  CHECK(summary.checks[4].verdict == Bound::within);  // on the bound: within
  CHECK(summary.checked == 5);
  CHECK(summary.out == 3);
  // An open bound does not bound.
  auto open = check_references({ref("a", "s.times@ranks=1", 1, {}, 0.1)}, strong_by_system(), cases, "a");
  CHECK(open.checks.at(0).verdict == Bound::above);
  auto open_up = check_references({ref("a", "s.times@ranks=1", 1, -0.1, {})}, strong_by_system(), cases, "a");
  CHECK(open_up.checks.at(0).verdict == Bound::within);
}

TEST_CASE("each system is held to its own references, from its own cases") {
  auto cases = cases_of("a", 8);
  auto b = cases_of("b", 16);
  cases.insert(cases.end(), b.begin(), b.end());
  // A comparison across systems: each system's time is its own `times`, not `times_b`.
  auto summary = check_references(
      {ref("a", "s.times@ranks=1", 8, -0.01, 0.01), ref("b", "s.times@ranks=1", 16, -0.01, 0.01),
       ref("b", "s.times@ranks=4", 2, -0.01, 0.01), ref("c", "s.times@ranks=1", 1, {}, {})},
      strong_by_system(), cases);
  REQUIRE(summary.checks.size() == 3);  // c did not run: not this run's to meet
  CHECK(summary.checks[0].verdict == Bound::within);
  CHECK(summary.checks[1].verdict == Bound::within);
  CHECK(summary.checks[2].verdict == Bound::above);  // b at 4 ranks: 4, not 2
  CHECK(*summary.checks[2].measured == Approx(4));
  // A run of one system only checks that system's references.
  auto one =
      check_references({ref("a", "s.times@ranks=1", 8, -0.01, 0.01), ref("b", "s.times@ranks=1", 1, {}, {})},
                       strong_by_system(), cases_of("a", 8), "a");
  REQUIRE(one.checks.size() == 1);
  CHECK(one.checks[0].reference.system == "a");
}

TEST_CASE("references written from a run are ones it passes, widened to its spread") {
  // Two repetitions 8 and 10 at one rank: mean 9, sample std sqrt(2), 3 std / mean = 0.4714.
  auto cases = cases_of("a", 8, 2);
  auto refs = references_from({"s.times@ranks=1"}, "a", strong_by_system(), cases, 0.1);
  REQUIRE(refs.size() == 1);
  CHECK(refs[0].value == Approx(9));
  CHECK(*refs[0].upper == Approx(3 * std::sqrt(2.0) / 9));
  CHECK(*refs[0].lower == Approx(-3 * std::sqrt(2.0) / 9));
  // Without repetitions: the tolerance.
  auto plain = references_from({"s.times@ranks=1"}, "a", strong_by_system(), cases_of("a", 8), 0.1);
  CHECK(*plain.at(0).upper == Approx(0.1));
  // Several series: one reference each, its conditions picking it.
  auto rows = references_from({"s.times"}, "a", strong_by_system(), cases_of("a", 8), 0.1);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].metric == "s.times@ranks=1");
  auto summary = check_references(rows, strong_by_system(), cases_of("a", 8), "a");
  CHECK(summary.out == 0);
  CHECK(summary.checked == 3);
  // What they write is what a campaign reads back.
  std::string text = "name: x\nreference:\n" + std::string();
  for (auto& line : campaign::split(references_yaml(rows), '\n'))
    if (!line.empty() && line[0] != '#') text += "  " + line + "\n";
  auto c = spec::parse_campaign(text, "x.yaml");
  REQUIRE(c.references.size() == 3);
  CHECK(c.references[1].metric == "s.times@ranks=2");
  CHECK(c.references[1].value == Approx(4));
  CHECK(*c.references[1].upper == Approx(0.1));
  CHECK_THROWS_AS(references_from({"s.nope"}, "a", strong_by_system(), cases_of("a", 8), 0.1), InputError);
}

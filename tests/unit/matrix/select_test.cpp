#include "matrix/select.hpp"

#include <catch2/catch.hpp>

#include "matrix/plan.hpp"
#include "plan_of.hpp"
#include "spec/library.hpp"

using namespace campaign;
using namespace campaign::matrix;
using namespace campaign::matrix::testing;

namespace {
std::set<std::string> chosen_names(const Plan& p, const std::set<std::string>& keys) {
  std::set<std::string> out;
  for (auto& c : p.cases)
    if (keys.count(c.key)) out.insert(c.name);
  return out;
}
std::string selection_error(const Selection& s, const Plan& p) {
  try {
    check_selection(s, p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
const char* kTwoAxes = "name: t\nmatrix: {data: [real, dummy], ranks: [1, 2, 4]}\njob: {command: echo}\n";
}  // namespace

TEST_CASE("--case globs and --only values choose cases; keys AND, values of one key OR") {
  auto p = plan_of(kTwoAxes);
  CHECK(chosen_names(p, select_cases(p, parse_selection({"real-*"}, {})).needed) ==
        std::set<std::string>{"real-1", "real-2", "real-4"});
  CHECK(chosen_names(p, select_cases(p, parse_selection({}, {"ranks=1,4"})).needed) ==
        std::set<std::string>{"real-1", "real-4", "dummy-1", "dummy-4"});
  CHECK(chosen_names(p, select_cases(p, parse_selection({}, {"ranks=1", "ranks=2", "data=dummy"})).needed) ==
        std::set<std::string>{"dummy-1", "dummy-2"});
  CHECK(chosen_names(p, select_cases(p, parse_selection({"*-4", "real-1"}, {"data=real"})).needed) ==
        std::set<std::string>{"real-1", "real-4"});
  CHECK(select_cases(p, Selection{}).needed.size() == 6);  // no selection: every case
}

TEST_CASE("a chosen case brings the cases it runs after") {
  auto p = plan_of(R"(name: t
matrix: {data: [real, dummy], ranks: [1, 2]}
job: {command: echo}
steps:
  stage:
    matrix: {data: [real, dummy]}
    case_name: stage-{{data}}
  train:
    after: [stage]
)");
  auto keys = select_cases(p, parse_selection({"train-real-2"}, {}));
  CHECK(chosen_names(p, keys.needed) == std::set<std::string>{"train-real-2", "stage-real"});
  CHECK(chosen_names(p, keys.chosen) == std::set<std::string>{"train-real-2"});
}

TEST_CASE("a selection that names an unknown parameter or chooses nothing is refused") {
  auto p = plan_of(kTwoAxes);
  // Every parameter a case has can choose it: the matrix's and those each case gets (partition, nodes...).
  CHECK_THAT(
      selection_error(parse_selection({}, {"rank=4"}), p),
      Catch::StartsWith("--only rank: no case has a parameter 'rank', did you mean 'ranks'? (parameters: ") &&
          Catch::Contains(" data, ") && Catch::Contains(" partition, "));
  CHECK(chosen_names(p, select_cases(p, parse_selection({}, {"partition=gpu", "ranks=4"})).needed) ==
        std::set<std::string>{"real-4", "dummy-4"});
  CHECK(selection_error(parse_selection({}, {"ranks=3"}), p) ==
        "--only ranks=3: no case matches (of 6; `campaign status` lists them)");
  CHECK(selection_error(parse_selection({"nope*"}, {}), p) ==
        "--case 'nope*': no case matches (of 6; `campaign status` lists them)");
  CHECK(selection_error(parse_selection({"real-*"}, {"ranks=2"}), p).empty());
  CHECK_THROWS_WITH(parse_selection({}, {"ranks"}), Catch::Contains("expected KEY=VALUE"));
  CHECK_THROWS_WITH(parse_selection({}, {"=4"}), Catch::Contains("expected KEY=VALUE"));
}

TEST_CASE("the catalog's parameters match as the plan's do") {
  auto s = parse_selection({}, {"ranks=4"});
  CHECK(s.matches("x", nlohmann::json{{"ranks", "4"}}));
  CHECK(s.matches("x", nlohmann::json{{"ranks", 4}}));  // a number written by an older version
  CHECK_FALSE(s.matches("x", nlohmann::json{{"ranks", "8"}}));
  CHECK_FALSE(s.matches("x", nlohmann::json{{"data", "real"}}));
}

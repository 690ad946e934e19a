// Statistics over repetitions.
#include "analysis/stats.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "analysis/table.hpp"

using namespace campaign::analysis;

TEST_CASE("summary uses the sample standard deviation", "[analysis][stats]") {
  Summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(s.count == 8);
  CHECK(s.mean == 5);
  REQUIRE(s.std);
  CHECK(*s.std == Approx(2.138089935));  // sqrt(32 / 7), not the population 2.0
  CHECK(s.min == 2);
  CHECK(s.max == 9);
  CHECK(s.median == 4.5);

  Summary odd = summarize({3, 1, 2});
  CHECK(odd.median == 2);
  CHECK(*odd.std == Approx(1.0));
}

TEST_CASE("a single value has no spread", "[analysis][stats]") {
  Summary s = summarize({1.5});
  CHECK(s.mean == 1.5);
  CHECK_FALSE(s.std);
  CHECK(s.median == 1.5);
  CHECK_THROWS(summarize({}));
}

TEST_CASE("cells format for people and for machines", "[analysis][table]") {
  CHECK(format_cell(Cell()) == "");
  CHECK(format_cell(Cell(64.0)) == "64");
  CHECK(format_cell(Cell(18.56049310590059)) == "18.560493");
  CHECK(format_cell(Cell(0.00001234)) == "1.234e-05");
  CHECK(format_cell(Cell(std::string("gpu"))) == "gpu");
  CHECK(format_exact(0.1) == "0.1");
  CHECK(format_exact(18.56049310590059) == "18.56049310590059");
  CHECK(natural_less("2", "10"));
  CHECK(natural_less("10", "a"));
  CHECK_FALSE(natural_less("b", "a"));
}

TEST_CASE("a table formats each column one way", "[analysis][table]") {
  Table t;
  t.columns = {"ranks", "times", "note"};
  t.rows = {{1.0, 103.0, std::string("a")}, {2.0, 53.56, Cell()}};
  auto f = formatted(t);
  CHECK(f == std::vector<std::vector<std::string>>{{"1", "103.000000", "a"}, {"2", "53.560000", ""}});
}

TEST_CASE("Student's t: tails and quantiles against the printed tables", "[analysis][stats]") {
  CHECK(student_t_quantile(0.975, 1) == Approx(12.706).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776).epsilon(1e-3));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.042).epsilon(1e-3));
  CHECK(student_t_quantile(0.995, 10) == Approx(3.169).epsilon(1e-3));
  CHECK(student_t_quantile(0.025, 4) == Approx(-2.776).epsilon(1e-3));
  CHECK(student_t_quantile(0.975, 1e6) == Approx(1.960).epsilon(1e-3));
  CHECK(student_t_two_sided(2.776, 4) == Approx(0.05).epsilon(1e-3));
  CHECK(student_t_two_sided(0, 7) == Approx(1.0));
  CHECK(student_t_two_sided(-2.228, 10) == Approx(0.05).epsilon(1e-3));
  CHECK(student_t_two_sided(2.5, 7.5) == Approx(student_t_two_sided(-2.5, 7.5)));

  // The 95 % interval of the mean of five values.
  auto ci = mean_interval(summarize({9, 10, 10, 10, 11}));
  REQUIRE(ci);
  CHECK(*ci == Approx(2.776 * std::sqrt(0.5) / std::sqrt(5.0)).epsilon(1e-3));
  CHECK_FALSE(mean_interval(summarize({1.0})));
}

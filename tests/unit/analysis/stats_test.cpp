// Statistics over repetitions.
#include "analysis/stats.hpp"

#include <catch2/catch.hpp>

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

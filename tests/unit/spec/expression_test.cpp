// The one expression language (derived values, job geometry, analysis
// samples): compiled once, evaluated per case's parameters.
#include "spec/expression.hpp"

#include <catch2/catch.hpp>

using namespace campaign::spec;

TEST_CASE("expressions read numeric parameters and know ceil and floor", "[spec][expression]") {
  Expression e("(n_train + n_valid) * ceil(ranks / 4) + floor(2.7)");
  CHECK(e.variables() == std::vector<std::string>{"n_train", "n_valid", "ranks"});
  CHECK(e.eval({{"n_train", "256"}, {"n_valid", "256"}, {"ranks", "5"}, {"other", "x"}}) == 512 * 2 + 2);
  // Re-evaluation with other values uses the same compiled expression.
  CHECK(e.eval({{"n_train", "1"}, {"n_valid", "2"}, {"ranks", "8"}}) == 3 * 2 + 2);

  Expression moved = std::move(e);
  CHECK(moved.eval({{"n_train", "1"}, {"n_valid", "1"}, {"ranks", "1"}}) == 2 + 2);

  Expression constant("512");
  CHECK(constant.variables().empty());
  CHECK(constant.eval({}) == 512);
}

TEST_CASE("expression errors say what is wrong", "[spec][expression]") {
  CHECK_THROWS_AS(Expression("(a + "), ExpressionError);
  CHECK_THROWS_WITH(Expression("a +* b"), Catch::Contains("cannot parse expression 'a +* b'"));
  Expression e("a * b");
  CHECK_THROWS_WITH(e.eval({{"a", "1"}}), Catch::Contains("parameter 'b' is not set"));
  CHECK_THROWS_WITH(e.eval({{"a", "1"}, {"b", "gpu"}}),
                    Catch::Contains("parameter 'b' is not a number: 'gpu'"));
  CHECK_THROWS_WITH(Expression("ceill(a / 2)"),
                    "unknown function 'ceill' in expression 'ceill(a / 2)', did you mean 'ceil'?");
  CHECK_THROWS_WITH(Expression("2 * sqrt (a) + b2 (c)"), Catch::Contains("unknown function 'b2'"));
  Expression div("1 / a");
  CHECK_THROWS_WITH(div.eval({{"a", "0"}}), Catch::Contains("not finite"));
}

TEST_CASE("parse_number accepts whole numbers only", "[spec][expression]") {
  double d = 0;
  CHECK(parse_number("8", d));
  CHECK(d == 8);
  CHECK(parse_number("+2.5e3", d));
  CHECK(d == 2500);
  CHECK_FALSE(parse_number("8 ", d));
  CHECK_FALSE(parse_number("", d));
  CHECK_FALSE(parse_number("gpu", d));
  CHECK_FALSE(parse_number("nan", d));
}

TEST_CASE("every expression knows round, trunc, log2, mod and pow", "[spec][expression]") {
  Expression e("round(x / 3) + trunc(-2.5) + log2(ranks) + mod(ranks, 3) + pow(2, 3)");
  CHECK(e.eval({{"x", "4"}, {"ranks", "8"}}) == 1 - 2 + 3 + 2 + 8);
  double values[] = {8, 4};  // by variables(): ranks, x
  CHECK(e.eval(values) == 1 - 2 + 3 + 2 + 8);
}

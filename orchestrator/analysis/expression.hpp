// A muparser expression over a case's numeric parameters, compiled once and
// evaluated for many cases (e.g. `samples: (n_train + n_valid) * ranks`).
//
// Invariant: the parser and the variable slots it points into live and move
// together (pimpl), so evaluation never re-parses and never dangles.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign::analysis {

// Thrown for syntax errors (at construction) and for a case whose parameters
// cannot feed the expression (at eval).
class ExpressionError : public Error {
 public:
  using Error::Error;
};

class Expression {
 public:
  // Compiles `text`; besides muparser's built-ins, ceil() and floor() exist.
  explicit Expression(const std::string& text);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const;
  // The parameter names the expression reads, sorted.
  const std::vector<std::string>& variables() const;

  // Value for one case; every variable must be a parameter that parses as a number.
  double eval(const std::map<std::string, std::string>& params) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses a whole string as a finite double ("8", "2.5e3"); false otherwise.
bool parse_number(const std::string& s, double& out);

}  // namespace campaign::analysis

// The one expression language of campaign files: arithmetic over a case's
// numeric parameters, compiled once with muparser and evaluated per case.
// The matrix's derived values and job geometry (`nodes: ceil(ranks / 4)`) and
// the analyses' samples (`samples: (n_train + n_valid) * ranks`) both use it,
// so they know the same functions and fail with the same messages.
//
// Functions besides muparser's built-ins (sin, sqrt, exp, ln, log2, log10,
// abs, min, max, sum, avg, ...): ceil, floor, round, trunc, mod(a, b), pow(a, b).
//
// Invariant: the parser and the variable slots it points into live and move
// together (pimpl), so evaluation never re-parses and never dangles.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign::spec {

// A syntax error or an unknown function (at construction), or a case whose
// parameters cannot feed the expression (at eval). Callers add the location.
class ExpressionError : public Error {
 public:
  using Error::Error;
};

class Expression {
 public:
  explicit Expression(const std::string& text);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const;
  // The names the expression reads, sorted.
  const std::vector<std::string>& variables() const;

  // The value with variables()[i] = values[i] (values has one per variable).
  double eval(const double* values) const;
  // The value for one case; every variable must be a parameter that parses
  // as a number, and the result must be finite.
  double eval(const std::map<std::string, std::string>& params) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "unknown parameter 'x' in expression '...', did you mean 'y'?": a variable
// that is none of `known`.
std::string unknown_parameter(const std::string& name, const Expression& e,
                              const std::vector<std::string>& known);

// Parses a whole string as a finite double ("8", "+2.5e3"); false otherwise.
bool parse_number(const std::string& s, double& out);

}  // namespace campaign::spec

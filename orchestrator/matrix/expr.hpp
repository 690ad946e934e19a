// Arithmetic over case parameters (spec/expression.hpp) bound to the matrix's
// numeric slots, e.g. `nodes: ceil(ranks / ranks_per_node)`, `n_train: 256 * ranks`.
//
// Invariant: an Expression only refers to names that existed when it was
// compiled; unknown names are rejected at compile time with a hint.
#pragma once

#include <string>
#include <vector>

#include "spec/expression.hpp"
#include "util/error.hpp"

namespace campaign::matrix {

// The variable names an expression uses (syntax errors are InputErrors).
std::vector<std::string> expression_names(const std::string& text, const Location& where,
                                          const std::string& key);

class Expression {
 public:
  // `known` are the names visible to the expression; `slots` has one double per
  // known name and must outlive the Expression (evaluation reads it).
  Expression(const std::string& text, const std::vector<std::string>& known, const double* slots,
             Location where, std::string key);

  double eval() const;
  // Indices into `known` of the names the expression uses.
  const std::vector<size_t>& uses() const { return uses_; }
  const std::string& text() const { return expr_.text(); }
  const Location& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  spec::Expression expr_;
  std::vector<size_t> uses_;
  const double* slots_;
  mutable std::vector<double> values_;  // of the names used, refilled by eval()
  Location where_;
  std::string key_;
};

}  // namespace campaign::matrix

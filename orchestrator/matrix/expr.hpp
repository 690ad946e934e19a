// Arithmetic over case parameters, compiled once with muparser and evaluated
// per case (e.g. `nodes: ceil(ranks / ranks_per_node)`, `n_train: 256 * ranks`).
//
// Invariant: an Expression only refers to names that existed when it was
// compiled; unknown names are rejected at compile time with a hint.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace mu {
class Parser;
}

namespace campaign::matrix {

// The variable names an expression uses (syntax errors are InputErrors).
std::vector<std::string> expression_names(const std::string& text, const Location& where,
                                          const std::string& key);

class Expression {
 public:
  // `known` are the names visible to the expression; `slots` has one double per
  // known name and must outlive the Expression (evaluation reads it).
  Expression(const std::string& text, const std::vector<std::string>& known, double* slots, Location where,
             std::string key);
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  ~Expression();

  double eval() const;
  // Indices into `known` of the names the expression uses.
  const std::vector<size_t>& uses() const { return uses_; }
  const std::string& text() const { return text_; }
  const Location& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  std::unique_ptr<mu::Parser> parser_;
  std::vector<size_t> uses_;
  std::string text_;
  Location where_;
  std::string key_;
};

}  // namespace campaign::matrix

#include "matrix/expr.hpp"

#include <algorithm>

namespace campaign::matrix {

namespace {
spec::Expression compile(const std::string& text, const Location& where, const std::string& key) {
  try {
    return spec::Expression(text);
  } catch (const spec::ExpressionError& e) {
    throw InputError(where, key, e.what());
  }
}
}  // namespace

std::vector<std::string> expression_names(const std::string& text, const Location& where,
                                          const std::string& key) {
  return compile(text, where, key).variables();
}

Expression::Expression(const std::string& text, const std::vector<std::string>& known, const double* slots,
                       Location where, std::string key)
    : expr_(compile(text, where, key)), slots_(slots), where_(std::move(where)), key_(std::move(key)) {
  for (const auto& name : expr_.variables()) {
    auto it = std::find(known.begin(), known.end(), name);
    if (it == known.end()) throw InputError(where_, key_, spec::unknown_parameter(name, expr_, known));
    uses_.push_back(static_cast<size_t>(it - known.begin()));
  }
  values_.resize(uses_.size());
}

double Expression::eval() const {
  for (size_t i = 0; i < uses_.size(); ++i) values_[i] = slots_[uses_[i]];
  try {
    return expr_.eval(values_.data());
  } catch (const spec::ExpressionError& e) {
    throw InputError(where_, key_, e.what());
  }
}

}  // namespace campaign::matrix

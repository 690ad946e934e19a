#include "matrix/expr.hpp"

#include <muParser.h>

#include <algorithm>
#include <cmath>

#include "util/strings.hpp"

namespace campaign::matrix {

namespace {
double f_ceil(double x) { return std::ceil(x); }
double f_floor(double x) { return std::floor(x); }
double f_round(double x) { return std::round(x); }
double f_trunc(double x) { return std::trunc(x); }
double f_log2(double x) { return std::log2(x); }
double f_mod(double a, double b) { return std::fmod(a, b); }
double f_pow(double a, double b) { return std::pow(a, b); }

// Collects names muparser finds undefined, so they can be reported with a hint.
double* collect_var(const char*, void* user) {
  static thread_local double dummy = 0;
  (void)user;
  return &dummy;
}
}  // namespace

namespace {
void define_functions(mu::Parser& p) {
  p.DefineFun("ceil", f_ceil);
  p.DefineFun("floor", f_floor);
  p.DefineFun("round", f_round);
  p.DefineFun("trunc", f_trunc);
  p.DefineFun("log2", f_log2);
  p.DefineFun("mod", f_mod);
  p.DefineFun("pow", f_pow);
}
}  // namespace

std::vector<std::string> expression_names(const std::string& text, const Location& where,
                                          const std::string& key) {
  mu::Parser p;
  std::vector<std::string> names;
  try {
    define_functions(p);
    p.SetVarFactory(collect_var, nullptr);
    p.SetExpr(text);
    for (auto& [name, _] : p.GetUsedVar()) names.push_back(name);
  } catch (const mu::Parser::exception_type& e) {
    throw InputError(where, key, "bad expression '" + text + "': " + e.GetMsg());
  }
  return names;
}

Expression::Expression(const std::string& text, const std::vector<std::string>& known, double* slots,
                       Location where, std::string key)
    : parser_(std::make_unique<mu::Parser>()), text_(text), where_(std::move(where)), key_(std::move(key)) {
  auto& p = *parser_;
  try {
    define_functions(p);
    p.SetVarFactory(collect_var, nullptr);
    p.SetExpr(text);
    auto used = p.GetUsedVar();  // parses; unknown names go through the factory
    for (auto& [name, _] : used) {
      auto it = std::find(known.begin(), known.end(), name);
      if (it == known.end())
        throw InputError(
            where_, key_,
            "unknown name '" + name + "' in expression '" + text + "'" + did_you_mean(name, known));
      uses_.push_back(static_cast<size_t>(it - known.begin()));
    }
    p.ClearVar();
    for (size_t i : uses_) p.DefineVar(known[i], slots + i);
    p.SetExpr(text);
    p.Eval();  // surfaces syntax errors now, not on the first case
  } catch (const mu::Parser::exception_type& e) {
    throw InputError(where_, key_, "bad expression '" + text + "': " + e.GetMsg());
  }
}

Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::~Expression() = default;

double Expression::eval() const {
  try {
    return parser_->Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw InputError(where_, key_, "cannot evaluate '" + text_ + "': " + e.GetMsg());
  }
}

}  // namespace campaign::matrix

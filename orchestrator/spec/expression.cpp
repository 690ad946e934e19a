// Implements spec/expression.hpp on muparser: variables are bound once to
// slots that eval() refills, so a case costs a copy per variable, not a parse.
#include "spec/expression.hpp"

#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "util/strings.hpp"

namespace campaign::spec {

namespace {
double f_ceil(double x) { return std::ceil(x); }
double f_floor(double x) { return std::floor(x); }
double f_round(double x) { return std::round(x); }
double f_trunc(double x) { return std::trunc(x); }
double f_log2(double x) { return std::log2(x); }
double f_mod(double a, double b) { return std::fmod(a, b); }
double f_pow(double a, double b) { return std::pow(a, b); }

void define_functions(mu::Parser& p) {
  p.DefineFun("ceil", f_ceil);
  p.DefineFun("floor", f_floor);
  p.DefineFun("round", f_round);
  p.DefineFun("trunc", f_trunc);
  p.DefineFun("log2", f_log2);
  p.DefineFun("mod", f_mod);
  p.DefineFun("pow", f_pow);
}

// muparser reads a misspelt function as a variable followed by a stray '(';
// this names it instead: the first NAME( whose NAME is no function, or "".
std::string unknown_function(const std::string& text, const mu::Parser& p) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!word(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && word(text[end])) ++end;
    std::string name = text.substr(i, end - i);
    size_t next = text.find_first_not_of(" \t", end);
    bool number = std::isdigit(static_cast<unsigned char>(name[0]));
    if (!number && next != std::string::npos && text[next] == '(' && !p.GetFunDef().count(name)) return name;
    i = end;
  }
  return "";
}
}  // namespace

bool parse_number(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;  // from_chars rejects a leading '+'
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e && b != e && std::isfinite(out);
}

struct Expression::Impl {
  std::string text;
  mu::Parser parser;
  std::vector<std::string> names;
  mutable std::vector<double> slots;  // sized once; muparser holds pointers into it
};

Expression::Expression(const std::string& text) : impl_(std::make_unique<Impl>()) {
  impl_->text = text;
  auto& p = impl_->parser;
  try {
    define_functions(p);
    p.SetExpr(text);
    for (const auto& [name, ptr] : p.GetUsedVar()) impl_->names.push_back(name);
    impl_->slots.assign(impl_->names.size(), 0.0);
    for (size_t i = 0; i < impl_->names.size(); ++i) p.DefineVar(impl_->names[i], &impl_->slots[i]);
    p.Eval();  // builds the bytecode now, so later evals only run it
  } catch (const mu::Parser::exception_type& e) {
    if (std::string f = unknown_function(text, p); !f.empty()) {
      std::vector<std::string> names;
      for (const auto& [name, callback] : p.GetFunDef()) names.push_back(name);
      throw ExpressionError("unknown function '" + f + "' in expression '" + text + "'" +
                            did_you_mean(f, names));
    }
    throw ExpressionError("cannot parse expression '" + text + "': " + e.GetMsg());
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

const std::string& Expression::text() const { return impl_->text; }
const std::vector<std::string>& Expression::variables() const { return impl_->names; }

double Expression::eval(const double* values) const {
  std::copy(values, values + impl_->slots.size(), impl_->slots.begin());
  try {
    return impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw ExpressionError("cannot evaluate expression '" + impl_->text + "': " + e.GetMsg());
  }
}

double Expression::eval(const std::map<std::string, std::string>& params) const {
  std::vector<double> values(impl_->names.size());
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    auto it = params.find(impl_->names[i]);
    if (it == params.end()) throw ExpressionError("parameter '" + impl_->names[i] + "' is not set");
    if (!parse_number(it->second, values[i]))
      throw ExpressionError("parameter '" + impl_->names[i] + "' is not a number: '" + it->second + "'");
  }
  double v = eval(values.data());
  if (!std::isfinite(v)) throw ExpressionError("'" + impl_->text + "' is not finite");
  return v;
}

std::string unknown_parameter(const std::string& name, const Expression& e,
                              const std::vector<std::string>& known) {
  return "unknown parameter '" + name + "' in expression '" + e.text() + "'" + did_you_mean(name, known);
}

}  // namespace campaign::spec

// Implements analysis/expression.hpp on muparser: variables are bound once to
// slots that eval() refills, so a case costs a lookup per variable, not a parse.
#include "analysis/expression.hpp"

#include <muParser.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "util/strings.hpp"

namespace campaign::analysis {

namespace {
double mu_ceil(double v) { return std::ceil(v); }
double mu_floor(double v) { return std::floor(v); }

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
  std::vector<double> slots;  // sized once; muparser holds pointers into it
};

Expression::Expression(const std::string& text) : impl_(std::make_unique<Impl>()) {
  impl_->text = text;
  auto& p = impl_->parser;
  try {
    p.DefineFun("ceil", mu_ceil);
    p.DefineFun("floor", mu_floor);
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

double Expression::eval(const std::map<std::string, std::string>& params) const {
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    auto it = params.find(impl_->names[i]);
    if (it == params.end()) throw ExpressionError("parameter '" + impl_->names[i] + "' is not set");
    if (!parse_number(it->second, impl_->slots[i]))
      throw ExpressionError("parameter '" + impl_->names[i] + "' is not a number: '" + it->second + "'");
  }
  double v;
  try {
    v = impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    throw ExpressionError("'" + impl_->text + "': " + e.GetMsg());
  }
  if (!std::isfinite(v)) throw ExpressionError("'" + impl_->text + "' is not finite");
  return v;
}

}  // namespace campaign::analysis

#include "matrix/select.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <stdexcept>

#include "matrix/plan.hpp"
#include "util/strings.hpp"

namespace campaign::matrix {

nlohmann::json case_params(const Plan& plan, const Case& c) {
  nlohmann::json params = nlohmann::json::object();
  const auto& names = plan.step_of(c).schema->names;
  for (size_t i = 0; i < names.size(); ++i) params[names[i]] = c.values[i].text;
  return params;
}

bool Selection::matches(const std::string& name, const nlohmann::json& params) const {
  if (!globs.empty() && std::none_of(globs.begin(), globs.end(), [&](const std::string& g) {
        return fnmatch(g.c_str(), name.c_str(), 0) == 0;
      }))
    return false;
  for (auto& [key, values] : only) {
    auto it = params.find(key);
    if (it == params.end()) return false;
    std::string text = it->is_string() ? it->get<std::string>() : it->dump();
    if (!values.count(text)) return false;
  }
  return true;
}

std::string Selection::describe() const {
  std::string out;
  for (auto& g : globs) out += fmt::format("{}--case '{}'", out.empty() ? "" : " ", g);
  for (auto& [key, values] : only)
    out += fmt::format("{}--only {}={}", out.empty() ? "" : " ", key,
                       join(std::vector<std::string>(values.begin(), values.end()), ","));
  return out;
}

Selection parse_selection(const std::vector<std::string>& case_globs, const std::vector<std::string>& only) {
  Selection s;
  s.globs = case_globs;
  for (auto& o : only) {
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == o.size())
      throw std::invalid_argument(
          fmt::format("--only {}: expected KEY=VALUE (a matrix parameter and its value; "
                      "several values separated by commas)",
                      o));
    auto& values = s.only[o.substr(0, eq)];
    for (auto& v : split(o.substr(eq + 1), ','))
      if (!v.empty()) values.insert(v);
  }
  return s;
}

void check_selection(const Selection& s, const std::vector<std::pair<std::string, nlohmann::json>>& cases) {
  std::set<std::string> keys;
  for (auto& [name, params] : cases)
    for (auto& [k, v] : params.items()) keys.insert(k);
  for (auto& [key, values] : s.only)
    if (!keys.count(key)) {
      std::vector<std::string> known(keys.begin(), keys.end());
      throw std::invalid_argument(fmt::format("--only {}: no case has a parameter '{}'{} (parameters: {})",
                                              key, key, did_you_mean(key, known),
                                              known.empty() ? "none" : join(known, ", ")));
    }
  for (auto& [name, params] : cases)
    if (s.matches(name, params)) return;
  throw std::invalid_argument(
      fmt::format("{}: no case matches (of {}; `campaign status` lists them)", s.describe(), cases.size()));
}

void check_selection(const Selection& s, const Plan& plan) {
  std::vector<std::pair<std::string, nlohmann::json>> cases;
  cases.reserve(plan.cases.size());
  for (auto& c : plan.cases) cases.emplace_back(c.name, case_params(plan, c));
  check_selection(s, cases);
}

Chosen select_cases(const Plan& plan, const Selection& s) {
  Chosen out;
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    const Case& c = plan.cases[i];
    if (s.empty() || s.matches(c.name, case_params(plan, c))) {
      out.chosen.insert(c.key);
      todo.push_back(i);
    }
  }
  out.needed = out.chosen;
  while (!todo.empty()) {
    size_t i = todo.back();
    todo.pop_back();
    for (size_t d : plan.cases[i].after)
      if (out.needed.insert(plan.cases[d].key).second) todo.push_back(d);
  }
  return out;
}

}  // namespace campaign::matrix

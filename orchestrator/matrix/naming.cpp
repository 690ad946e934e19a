// Case names and keys: a case's name is its run directory, so it must be safe
// as a directory name and unique across the campaign; its key is a hash of the
// step and the matrix coordinates only, so it stays stable when derived values
// or the job's geometry change.
#include <cctype>
#include <string_view>

#include "matrix/step_expander.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace campaign::matrix {

namespace {

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == ".." || s[0] == '-' || s[0] == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("._+-=@,").find(c) != std::string_view::npos))
      return false;
  return true;
}

}  // namespace

void StepExpander::compile_name() {
  std::string name_text;
  Location name_where = step_.where;
  if (c_.name_template) name_text = *c_.name_template, name_where = c_.name_template.where;
  if (step_.name_template) name_text = *step_.name_template, name_where = step_.name_template.where;
  if (name_text.empty()) {  // default: step name and the matrix coordinates
    std::vector<std::string> parts;
    if (c_.steps.size() > 1 || sp_.axes.empty()) parts.push_back("{{step}}");
    for (auto& a : sp_.axes) parts.push_back("{{" + a + "}}");
    name_text = join(parts, "-");
  }
  name_ = TextTemplate(name_text, *schema_, name_where,
                       step_.name_template ? prefix_ + "case_name" : "case_name");
}

std::string StepExpander::describe(const Values& values) const {
  std::vector<std::string> parts;
  for (auto& a : sp_.axes) parts.push_back(a + "=" + values[static_cast<size_t>(schema_->find(a))].text);
  return parts.empty() ? " (step " + step_.name + ")" : " (case " + join(parts, ", ") + ")";
}

std::string StepExpander::describe_other(const Case& other) const {
  bool current = other.step >= plan_.steps.size();  // this step is not in the plan yet
  const auto& axes = current ? sp_.axes : plan_.steps[other.step].axes;
  const Schema& sc = current ? *schema_ : *plan_.steps[other.step].schema;
  std::vector<std::string> parts;
  for (auto& a : axes) parts.push_back(a + "=" + other.values[static_cast<size_t>(sc.find(a))].text);
  return " (case " + join(parts, ", ") + ", step " + (current ? sp_.name : plan_.steps[other.step].name) +
         ")";
}

// Registers the name for the case about to be added as plan_.cases.back().
std::string StepExpander::name_of(const Values& values) {
  std::string name = name_.render(values, Escape::none);
  if (!safe_name(name))
    throw InputError(name_.where(), "case_name",
                     "case name '" + name + "' is not a safe directory name (letters, digits, ._+-=@, only)" +
                         case_desc(values));
  auto [it, inserted] = names_.emplace(name, plan_.cases.size());
  if (!inserted) {
    std::string other_desc = describe_other(plan_.cases[it->second]);
    throw InputError(name_.where(), "case_name",
                     "duplicate case name '" + name + "' for" + case_desc(values) + " and" + other_desc +
                         "; add the differing parameter to the name template");
  }
  return name;
}

std::string StepExpander::key_of(const Values& values) const {
  std::string k = step_.name;
  for (auto& a : sp_.axes) {
    k += '\n';
    k += a;
    k += '=';
    k += values[static_cast<size_t>(schema_->find(a))].text;
  }
  return hex64(fnv1a64(k));
}

}  // namespace campaign::matrix

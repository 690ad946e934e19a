#include "matrix/steps.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "util/strings.hpp"

namespace campaign::matrix {

std::vector<size_t> order_steps(const spec::Campaign& c) {
  std::vector<std::string> names;
  for (auto& s : c.steps) names.push_back(s.name);
  for (auto& s : c.steps)
    for (auto& a : s.after) {
      if (a == s.name)
        throw InputError(s.after_where, "steps." + s.name + ".after", "a step cannot wait for itself");
      if (!spec::find_step(c, a))
        throw InputError(s.after_where, "steps." + s.name + ".after",
                         "unknown step '" + a + "'" + did_you_mean(a, names));
    }
  std::vector<size_t> order;
  std::vector<int> mark(c.steps.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<std::string> path;
  std::function<void(size_t)> visit = [&](size_t i) {
    if (mark[i] == 2) return;
    const auto& s = c.steps[i];
    path.push_back(s.name);
    if (mark[i] == 1)
      throw InputError(s.after_where, "steps." + s.name + ".after",
                       "cyclic step dependencies: " + join(path, " -> "));
    mark[i] = 1;
    for (auto& a : s.after)
      for (size_t j = 0; j < c.steps.size(); ++j)
        if (c.steps[j].name == a) visit(j);
    mark[i] = 2;
    path.pop_back();
    order.push_back(i);
  };
  for (size_t i = 0; i < c.steps.size(); ++i) visit(i);
  std::vector<size_t> enabled;
  for (size_t i : order)
    if (c.steps[i].enabled) enabled.push_back(i);
  return enabled;
}

void link_dependencies(Plan& plan) {
  for (size_t si = 0; si < plan.steps.size(); ++si) {
    StepPlan& sp = plan.steps[si];
    const spec::Step& step = plan.campaign.steps[sp.step];
    for (auto& dep_name : step.after) {
      size_t dj = plan.steps.size();
      for (size_t j = 0; j < si; ++j)
        if (plan.steps[j].name == dep_name) dj = j;
      if (dj == plan.steps.size()) continue;  // a disabled step: nothing to wait for
      sp.after_steps.push_back(dj);
      const StepPlan& dep = plan.steps[dj];
      std::vector<std::string> shared;
      for (auto& a : sp.axes)
        if (std::find(dep.axes.begin(), dep.axes.end(), a) != dep.axes.end()) shared.push_back(a);
      auto key_of = [&](const StepPlan& s, const Case& c) {
        std::string k;
        for (auto& a : shared) k += c.values[static_cast<size_t>(s.schema->find(a))].text + '\x1f';
        return k;
      };
      std::unordered_map<std::string, std::vector<size_t>> by_key;
      for (size_t ci = dep.first_case; ci < dep.first_case + dep.case_count; ++ci)
        by_key[key_of(dep, plan.cases[ci])].push_back(ci);
      for (size_t ci = sp.first_case; ci < sp.first_case + sp.case_count; ++ci) {
        Case& c = plan.cases[ci];
        auto it = by_key.find(key_of(sp, c));
        if (it != by_key.end()) c.after.insert(c.after.end(), it->second.begin(), it->second.end());
      }
    }
  }
}

}  // namespace campaign::matrix

// Implements collect/components.hpp.
#include "collect/components.hpp"

#include <map>

#include "util/strings.hpp"

namespace campaign::collect {

Component make_component(const std::string& name, const std::string& match) {
  return Component{name, match, std::regex(match, std::regex::ECMAScript)};
}

void set_component(Collector& c, Component comp) {
  for (auto& existing : c.components)
    if (existing.name == comp.name) {
      existing = std::move(comp);
      return;
    }
  c.components.push_back(std::move(comp));
}

void add_components(const Collector& c, std::vector<Metric>& metrics, size_t first,
                    std::vector<std::string>& warnings) {
  if (c.components.empty() || c.component_metric.empty()) return;
  // The template's literal head and tail around its {part} (checked when the collector was read).
  const std::string& t = c.component_metric;
  const size_t open = t.find('{'), close = t.find('}', open);
  const std::string head = t.substr(0, open), tail = t.substr(close + 1);
  std::map<std::optional<double>, std::map<std::string, double>> items;  // step -> item -> value
  std::string unit;
  size_t names = 0;
  for (size_t i = first; i < metrics.size(); ++i) {
    const Metric& m = metrics[i];
    if (m.name.size() <= head.size() + tail.size() || !starts_with(m.name, head) || !ends_with(m.name, tail))
      continue;
    auto [it, inserted] = items[m.step].insert_or_assign(
        m.name.substr(head.size(), m.name.size() - head.size() - tail.size()), m.value);
    names += inserted;
    unit = m.unit;
  }
  if (items.empty()) return;
  for (const Component& comp : c.components) {
    size_t matched = 0;
    for (const auto& [step, values] : items) {
      double sum = 0, total = 0;
      for (const auto& [item, v] : values) {
        total += v;
        if (std::regex_search(item, comp.re)) sum += v, ++matched;
      }
      metrics.push_back(Metric{"component:" + comp.name, step, sum, unit});
      if (total > 0)
        metrics.push_back(Metric{"component_percent:" + comp.name, step, 100 * sum / total, "%"});
    }
    if (matched == 0)
      warnings.push_back(c.name + ": component '" + comp.name + "' ('" + comp.match + "') matches none of " +
                         std::to_string(names) + " " + c.component_metric + " values; recorded as 0");
  }
}

}  // namespace campaign::collect

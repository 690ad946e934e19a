// Implements collect/components.hpp.
#include "collect/components.hpp"

#include <algorithm>
#include <map>

#include "util/strings.hpp"

namespace campaign::collect {

namespace {

using Step = std::optional<double>;
using Items = std::map<Step, std::map<std::string, double>>;  // step -> item -> value

// The values of metrics[first..last) named `t` with `{part}` filled in, by step and part.
Items items_of(const std::string& t, const std::vector<Metric>& metrics, size_t first, size_t last,
               std::string& unit) {
  // The template's literal head and tail around its {part} (checked when the collector was read).
  const size_t open = t.find('{'), close = t.find('}', open);
  const std::string head = t.substr(0, open), tail = t.substr(close + 1);
  Items items;
  for (size_t i = first; i < last; ++i) {
    const Metric& m = metrics[i];
    if (m.name.size() <= head.size() + tail.size() || !starts_with(m.name, head) || !ends_with(m.name, tail))
      continue;
    items[m.step].insert_or_assign(m.name.substr(head.size(), m.name.size() - head.size() - tail.size()),
                                   m.value);
    unit = m.unit;
  }
  return items;
}

// The values of metric `name` among metrics[first..last) by step (a later one replaces an earlier).
std::map<Step, double> per_step(const std::string& name, const std::vector<Metric>& metrics, size_t first,
                                size_t last) {
  std::map<Step, double> out;
  if (name.empty()) return out;
  for (size_t i = first; i < last; ++i)
    if (metrics[i].name == name && metrics[i].step) out.insert_or_assign(metrics[i].step, metrics[i].value);
  return out;
}

std::optional<double> lookup(const std::vector<Metric>& metrics, size_t end, const std::string& name,
                             Step step) {
  std::optional<double> plain, same;
  for (size_t i = 0; i < end; ++i) {
    if (metrics[i].name != name) continue;
    if (metrics[i].step == step) same = metrics[i].value;
    if (!metrics[i].step) plain = metrics[i].value;
  }
  return same ? same : plain;
}

}  // namespace

Component make_component(const std::string& name, const std::string& match, const std::string& percent_of) {
  return Component{name, match, std::regex(match, std::regex::ECMAScript), percent_of};
}

void set_component(Collector& c, Component comp) {
  for (auto& existing : c.components)
    if (existing.name == comp.name) {
      existing = std::move(comp);
      return;
    }
  c.components.push_back(std::move(comp));
}

void add_components(const Collector& c, std::vector<Metric>& metrics, size_t first, size_t last,
                    std::vector<std::string>& warnings) {
  if (c.components.empty() || c.component_metric.empty()) return;
  std::string unit, rank_unit;
  const Items items = items_of(c.component_metric, metrics, first, last, unit);
  if (items.empty()) return;
  const Items ranks = c.component_rank_metric.empty()
                          ? Items{}
                          : items_of(c.component_rank_metric, metrics, first, last, rank_unit);
  const std::map<Step, double> runtimes = per_step(c.component_rank_runtime, metrics, first, last);
  if (!ranks.empty() && !c.component_rank_runtime.empty() && runtimes.empty())
    warnings.push_back(c.name + ": no " + c.component_rank_runtime +
                       " per rank; POP's efficiencies not recorded");
  size_t names = 0;
  for (const auto& [step, values] : items) names += values.size();
  const size_t known = metrics.size();  // denominators among what was collected, not what is added here
  for (const Component& comp : c.components) {
    const std::string& of = comp.percent_of.empty() ? c.component_percent_of : comp.percent_of;
    size_t matched = 0;
    bool missing = false;
    for (const auto& [step, values] : items) {
      double sum = 0, total = 0;
      for (const auto& [item, v] : values) {
        total += v;
        if (std::regex_search(item, comp.re)) sum += v, ++matched;
      }
      metrics.push_back(Metric{"component:" + comp.name, step, sum, unit});
      if (!of.empty()) {
        auto time = lookup(metrics, known, of, step);
        missing |= !time;
        total = time.value_or(0);
      }
      if (total > 0)
        metrics.push_back(Metric{"component_percent:" + comp.name, step, 100 * sum / total, "%"});
    }
    if (!ranks.empty() && !runtimes.empty()) {
      // POP's efficiencies (components.hpp): useful time = each rank's runtime outside the component.
      std::vector<double> useful;
      double runtime = 0;
      for (const auto& [rank, total] : runtimes) {
        double s = 0;
        if (auto it = ranks.find(rank); it != ranks.end())
          for (const auto& [item, v] : it->second)
            if (std::regex_search(item, comp.re)) s += v;
        useful.push_back(total - s);
        runtime = std::max(runtime, total);
      }
      const double max = *std::max_element(useful.begin(), useful.end());
      double sum = 0;
      for (double u : useful) sum += u;
      const double mean = sum / static_cast<double>(useful.size());
      if (max > 0 && runtime > 0) {
        const double load_balance = mean / max, communication = max / runtime;
        for (auto [head, v] :
             {std::pair{kPopEfficiencies[0], load_balance}, std::pair{kPopEfficiencies[1], communication},
              std::pair{kPopEfficiencies[2], load_balance * communication}})
          metrics.push_back(Metric{std::string(head) + ":" + comp.name, std::nullopt, v, ""});
      }
    }
    if (matched == 0)
      warnings.push_back(c.name + ": component '" + comp.name + "' ('" + comp.match + "') matches none of " +
                         std::to_string(names) + " " + c.component_metric + " values; recorded as 0");
    if (missing)
      warnings.push_back(c.name + ": component '" + comp.name + "': no metric '" + of +
                         "' to divide by; component_percent:" + comp.name + " not recorded");
  }
}

}  // namespace campaign::collect

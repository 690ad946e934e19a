// Implements history/following.hpp.
#include "history/following.hpp"

#include "report/input.hpp"

namespace campaign::history {

std::vector<spec::Tracked> headline_metrics(const std::vector<analysis::AnalysisSpec>& analyses) {
  using analysis::Scaling;
  std::vector<spec::Tracked> out;
  auto add = [&](const analysis::AnalysisSpec& a, const std::string& column, const std::string& better = "") {
    out.push_back(spec::Tracked{.metric = a.name + "." + column, .better = better, .where = a.where});
  };
  for (const auto& a : analyses) {
    switch (a.scaling) {
      case Scaling::weak:
        add(a, "throughputs@max");
        add(a, "eff@max");
        break;
      case Scaling::strong:
        add(a, "times@max");
        add(a, "eff@max");
        break;
      case Scaling::none:
        add(a, "times");
        break;
      case Scaling::mlperf_weak:
        add(a, "models_per_minute", "higher");
        break;
      case Scaling::mlperf_strong:
        add(a, "time_to_train@max");
        add(a, "eff@max");
        break;
      case Scaling::window:
      case Scaling::stalls:
        break;
    }
  }
  return out;
}

Following following(const Run& newest) {
  Following f;
  try {
    spec::Campaign c = report::stored_campaign(newest.campaign, newest.workdir);
    if (c.commit_url) f.commit_url = *c.commit_url;
    if (!c.track.empty()) {
      f.metrics = c.track;
      return f;
    }
    f.defaults = true;
    f.metrics = headline_metrics(c.analyses);
  } catch (const Error& e) {
    f.problem = "the campaign stored with the newest run (" + newest.name + ") does not parse: " + e.what();
  }
  return f;
}

}  // namespace campaign::history

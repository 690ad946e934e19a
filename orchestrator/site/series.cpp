// Implements site/series.hpp.
#include "site/series.hpp"

namespace campaign::site {

history::History judge_series(const std::vector<history::RunValues>& runs, history::Better better,
                              double threshold_percent) {
  // The oldest run is the baseline, as `campaign history` without --baseline.
  return history::judge(runs, {0}, better, threshold_percent / 100);
}

Track track(const std::vector<history::Run>& runs, const spec::Tracked& spec) {
  Track t;
  t.spec = spec;
  history::MetricQuery query;
  try {
    query = history::parse_metric(spec.metric);
  } catch (const Error& e) {
    t.problem = e.what();
    return t;
  }
  std::optional<history::Better> better;
  if (spec.better == "higher") better = history::Better::higher;
  if (spec.better == "lower") better = history::Better::lower;
  std::string first_problem;
  for (const auto& run : runs) {
    history::RunValues v;
    v.run = run.name;
    v.version = run.campaign.code.version;
    v.date = run.date();
    try {
      history::Extraction e = history::measure(run, query);
      v.values = e.values;
      if (e.values.empty()) {
        t.notes.push_back(run.name + ": no value (" + e.problem + ")");
        if (first_problem.empty()) first_problem = e.problem;
      } else {
        if (t.kind.empty()) t.kind = e.kind, t.unit = e.unit;
        if (!better && e.better) better = e.better;
      }
    } catch (const Error& e) {
      t.notes.push_back(run.name + ": " + e.what());
    }
    t.runs.push_back(std::move(v));
  }
  if (t.kind.empty()) {
    t.problem = "not found in any run" + (first_problem.empty() ? "" : ": " + first_problem);
    return t;
  }
  if (!better) {
    t.problem =
        "cannot tell whether higher or lower is better for " + t.kind + ": give `better:` in `track:`";
    return t;
  }
  t.better = *better;
  t.history = judge_series(t.runs, t.better, spec.threshold);
  return t;
}

history::Verdict latest_verdict(const history::History& h) {
  using V = history::Verdict;
  auto rank = [](V v) {
    switch (v) {
      case V::regressed:
        return 4;
      case V::improved:
        return 3;
      case V::within:
        return 2;
      case V::baseline:
        return 1;
      case V::none:
        break;
    }
    return 0;
  };
  V worst = V::none;
  for (const auto& s : h.series)
    if (s.latest && rank(s.points[*s.latest].verdict) > rank(worst)) worst = s.points[*s.latest].verdict;
  return worst;
}

}  // namespace campaign::site

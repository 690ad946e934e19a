// Implements site/series.hpp.
#include "site/series.hpp"

namespace campaign::site {

history::History judge_series(const std::vector<history::RunValues>& runs, history::Better better,
                              double threshold_percent) {
  // The oldest run is the baseline, as `campaign history` without --baseline.
  return history::judge(runs, {0}, better, threshold_percent / 100);
}

std::vector<Track> track(const std::vector<history::Run>& runs, const std::vector<spec::Tracked>& specs) {
  std::vector<Track> tracks(specs.size());
  std::vector<history::MetricQuery> queries;
  std::vector<size_t> asked;  // the track of each query
  for (size_t i = 0; i < specs.size(); ++i) {
    tracks[i].spec = specs[i];
    try {
      queries.push_back(history::parse_metric(specs[i].metric));
      asked.push_back(i);
    } catch (const Error& e) {
      tracks[i].problem = e.what();
    }
  }
  std::vector<std::string> first_problem(specs.size());
  std::vector<std::optional<history::Better>> found(specs.size());
  for (const auto& run : runs) {
    history::RunValues v;
    v.run = run.name;
    v.version = run.campaign.code.version;
    v.date = run.date();
    std::vector<history::Extraction> got;
    std::string error;
    try {
      if (!queries.empty()) got = history::measure(run, queries);
    } catch (const Error& e) {
      error = e.what();
    }
    for (size_t q = 0; q < queries.size(); ++q) {
      Track& t = tracks[asked[q]];
      t.runs.push_back(v);
      if (!error.empty()) {
        t.notes.push_back(run.name + ": " + error);
        continue;
      }
      const history::Extraction& e = got[q];
      t.runs.back().values = e.values;
      if (e.values.empty()) {
        t.notes.push_back(run.name + ": no value (" + e.problem + ")");
        if (first_problem[asked[q]].empty()) first_problem[asked[q]] = e.problem;
      } else {
        if (t.kind.empty()) t.kind = e.kind, t.unit = e.unit;
        if (!found[asked[q]]) found[asked[q]] = e.better;
      }
    }
  }
  for (size_t q = 0; q < queries.size(); ++q) {
    Track& t = tracks[asked[q]];
    std::optional<history::Better> better = found[asked[q]];
    if (t.spec.better == "higher") better = history::Better::higher;
    if (t.spec.better == "lower") better = history::Better::lower;
    if (t.kind.empty())
      t.problem =
          "not found in any run" + (first_problem[asked[q]].empty() ? "" : ": " + first_problem[asked[q]]);
    else if (!better)
      t.problem =
          "cannot tell whether higher or lower is better for " + t.kind + ": give `better:` in `track:`";
    else
      t.better = *better, t.history = judge_series(t.runs, t.better, t.spec.threshold);
  }
  return tracks;
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

// Implements site/series.hpp.
#include "site/series.hpp"

#include "history/track.hpp"

namespace campaign::site {

std::vector<Track> track(const std::vector<history::Run>& runs, const std::string& campaign,
                         const std::vector<spec::Tracked>& specs) {
  std::vector<Track> tracks(specs.size());
  std::vector<history::TrackRequest> requests;
  std::vector<size_t> asked;  // the track of each request
  for (size_t i = 0; i < specs.size(); ++i) {
    tracks[i].spec = specs[i];
    history::TrackRequest r;
    try {
      r.query = history::parse_metric(specs[i].metric);
    } catch (const Error& e) {
      tracks[i].problem = e.what();
      continue;
    }
    r.options.threshold = specs[i].threshold / 100;  // against the oldest run, as history without --baseline
    if (specs[i].better == "higher") r.options.better = history::Better::higher;
    if (specs[i].better == "lower") r.options.better = history::Better::lower;
    requests.push_back(std::move(r));
    asked.push_back(i);
  }
  std::vector<history::HistoryDocument> docs = history::track(runs, campaign, requests);
  for (size_t q = 0; q < docs.size(); ++q) {
    Track& t = tracks[asked[q]];
    history::HistoryDocument& d = docs[q];
    t.kind = d.kind, t.unit = d.unit;
    t.runs = std::move(d.runs);
    t.notes = std::move(d.notes);
    t.problem = d.problem + (d.needs_direction ? ": give `better:` in `track:`" : "");
    if (t.problem.empty()) t.better = d.history.better, t.history = std::move(d.history);
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

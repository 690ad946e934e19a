// Implements history/track.hpp.
#include "history/track.hpp"

#include <set>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace campaign::history {

HistoryDocument track(const std::vector<Run>& runs, const std::string& campaign, const MetricQuery& query,
                      const TrackOptions& o) {
  HistoryDocument doc;
  doc.campaign = campaign;
  doc.metric = query.text;
  doc.fail_on_any = o.fail_on_any;
  std::optional<Better> better = o.better;
  std::string first_problem;
  std::set<std::string> names;
  for (const auto& run : runs) {
    Extraction e = measure(run, query);
    RunValues v;
    v.run = run.name;
    v.version = run.campaign.code.version;
    v.commit = run.campaign.code.commit;
    v.date = run.date();
    v.values = e.values;
    doc.runs.push_back(std::move(v));
    if (e.values.empty()) {
      doc.notes.push_back(run.name + ": no value (" + e.problem + ")");
      if (first_problem.empty()) first_problem = e.problem;
      names.insert(e.names.begin(), e.names.end());
      continue;
    }
    if (doc.kind.empty()) doc.kind = e.kind, doc.unit = e.unit;
    if (!better && e.better) better = e.better;
  }
  if (doc.kind.empty()) {
    std::vector<std::string> known(names.begin(), names.end());
    throw InputError({"campaign history"}, "METRIC '" + query.text + "'",
                     "not found in any of the " + std::to_string(runs.size()) + " run(s): " + first_problem +
                         (names.count(query.head) ? "" : did_you_mean(query.head, known)));
  }
  if (!better)
    throw InputError({"campaign history"}, "METRIC '" + query.text + "'",
                     "cannot tell whether higher or lower is better for " + doc.kind +
                         (doc.unit.empty() ? "" : " [" + doc.unit + "]") + ": pass --better higher|lower");

  // The baseline: the runs of the code named by --baseline (their repetitions pooled), else the oldest run.
  std::vector<size_t> base;
  if (!o.baseline.empty()) {
    base = match_runs(runs, o.baseline);
    if (base.empty()) {
      std::vector<std::string> known;
      for (const auto& r : runs)
        known.push_back(r.campaign.code.version.empty() ? r.name : r.campaign.code.version);
      throw InputError({"campaign history"}, "--baseline",
                       "no run of code '" + o.baseline + "' (versions: " + join(known, ", ") + ")" +
                           did_you_mean(o.baseline, known));
    }
  } else {
    base.push_back(0);  // the oldest run alone: later runs of the same code are judged too
  }
  const auto& first = runs[base.front()];
  doc.baseline = (first.campaign.code.version.empty() ? first.name : first.campaign.code.version) +
                 (base.size() > 1 ? " (" + std::to_string(base.size()) + " runs)" : "");
  doc.history = judge(doc.runs, base, *better, o.threshold, o.noise);
  return doc;
}

std::vector<std::string> failing(const HistoryDocument& d) { return d.history.regressed(d.fail_on_any); }

}  // namespace campaign::history

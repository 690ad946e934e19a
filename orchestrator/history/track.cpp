// Implements history/track.hpp.
#include "history/track.hpp"

#include <set>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace campaign::history {

namespace {

// The runs of the code named by `ref` (their repetitions pooled), else the oldest run alone (later
// runs of the same code are judged too).
std::vector<size_t> baseline_runs(const std::vector<Run>& runs, const std::string& ref) {
  if (ref.empty()) return {0};
  std::vector<size_t> base = match_runs(runs, ref);
  if (base.empty()) {
    std::vector<std::string> known;
    for (const auto& r : runs)
      known.push_back(r.campaign.code.version.empty() ? r.name : r.campaign.code.version);
    throw InputError(
        {"campaign history"}, "--baseline",
        "no run of code '" + ref + "' (versions: " + join(known, ", ") + ")" + did_you_mean(ref, known));
  }
  return base;
}

// What one request gathers over the runs before it is judged.
struct Gathered {
  std::optional<Better> better;
  std::string first_problem;
  std::set<std::string> names;  // what the runs have, for "did you mean"
};

void judge_document(HistoryDocument& doc, const std::vector<Run>& runs, const TrackRequest& request,
                    Gathered& g) {
  if (doc.kind.empty()) {
    std::vector<std::string> known(g.names.begin(), g.names.end());
    doc.problem = "not found in any of the " + std::to_string(runs.size()) + " run(s)" +
                  (g.first_problem.empty() ? "" : ": " + g.first_problem) +
                  (g.names.count(request.query.head) ? "" : did_you_mean(request.query.head, known));
    return;
  }
  if (!g.better) {
    doc.problem = "cannot tell whether higher or lower is better for " + doc.kind +
                  (doc.unit.empty() ? "" : " [" + doc.unit + "]");
    doc.needs_direction = true;
    return;
  }
  std::vector<size_t> base = baseline_runs(runs, request.options.baseline);
  const auto& first = runs[base.front()];
  doc.baseline = (first.campaign.code.version.empty() ? first.name : first.campaign.code.version) +
                 (base.size() > 1 ? " (" + std::to_string(base.size()) + " runs)" : "");
  doc.history = judge(doc.runs, base, *g.better, request.options.threshold, request.options.noise);
}

}  // namespace

std::vector<HistoryDocument> track(const std::vector<Run>& runs, const std::string& campaign,
                                   const std::vector<TrackRequest>& requests) {
  std::vector<HistoryDocument> docs(requests.size());
  std::vector<Gathered> gathered(requests.size());
  std::vector<MetricQuery> queries;
  for (size_t i = 0; i < requests.size(); ++i) {
    docs[i].campaign = campaign;
    docs[i].metric = requests[i].query.text;
    docs[i].fail_on_any = requests[i].options.fail_on_any;
    gathered[i].better = requests[i].options.better;
    queries.push_back(requests[i].query);
  }
  for (const auto& run : runs) {
    RunValues v;
    v.run = run.name;
    v.version = run.campaign.code.version;
    v.commit = run.campaign.code.commit;
    v.date = run.date();
    std::vector<Extraction> got;
    std::string error;
    try {
      if (!queries.empty()) got = measure(run, queries);
    } catch (const Error& e) {  // read a moment ago by find_runs: only a run changing under us
      error = e.what();
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      HistoryDocument& doc = docs[i];
      Gathered& g = gathered[i];
      doc.runs.push_back(v);
      if (!error.empty()) {
        doc.notes.push_back(run.name + ": not read (" + error + ")");
        if (g.first_problem.empty()) g.first_problem = error;
        continue;
      }
      Extraction& e = got[i];
      if (e.values.empty()) {
        doc.notes.push_back(run.name + ": no value (" + e.problem + ")");
        if (g.first_problem.empty()) g.first_problem = e.problem;
        g.names.insert(e.names.begin(), e.names.end());
        continue;
      }
      doc.runs.back().values = std::move(e.values);
      if (doc.kind.empty()) doc.kind = e.kind, doc.unit = e.unit;
      if (!g.better && e.better) g.better = e.better;
    }
  }
  for (size_t i = 0; i < requests.size(); ++i) judge_document(docs[i], runs, requests[i], gathered[i]);
  return docs;
}

HistoryDocument track(const std::vector<Run>& runs, const std::string& campaign, const MetricQuery& query,
                      const TrackOptions& options) {
  HistoryDocument doc = std::move(track(runs, campaign, {TrackRequest{query, options}}).front());
  if (!doc.problem.empty())
    throw InputError({"campaign history"}, "METRIC '" + query.text + "'",
                     doc.problem + (doc.needs_direction ? ": pass --better higher|lower" : ""));
  return doc;
}

std::vector<std::string> failing(const HistoryDocument& d) { return d.history.regressed(d.fail_on_any); }

}  // namespace campaign::history

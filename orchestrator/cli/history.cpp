// `campaign history [METRIC] [PATH...]`: a metric across the runs of a campaign
// (one per work directory), in commit order, relative to a baseline; exit
// status 3 when the latest run regressed beyond the threshold (and, with
// repetitions, their spread). Without METRIC, what the campaign follows
// (history/following.hpp). history::track does the work; this file reads
// the options, finds the runs and writes what it returns.
#include <cctype>
#include <iostream>
#include <set>

#include "cli/cli.hpp"
#include "history/combined.hpp"
#include "history/following.hpp"
#include "history/output.hpp"
#include "history/runs.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

struct HistoryOptions {
  std::string metric;
  std::vector<std::string> paths;
  std::string campaign;
  std::string baseline;
  double threshold = 10;
  std::string better;
  std::string fail_on = "latest";
  std::string out;
  std::string system;
  bool plot = false;               // --plot: the tracked metrics in one figure
  std::vector<std::string> track;  // --track METRIC: added to them
};

const char* kFooter = R"(METRIC (what to follow):
  [ANALYSIS.]COLUMN[@COND,...]   a column of the campaign's analysis tables:
      throughputs@ranks=4        throughput at 4 ranks, one series per table (e.g. partition=gpu, =cpu)
      eff@max                    efficiency at the largest rank count (max/min: the table's x)
      times@ranks=2,partition=cpu,data=dummy
                                 a group_by value picks the table, the compare axis the series
                                 (data=dummy reads times_dummy); no condition on x: every row is a series
      weak_scaling.eff@max       ANALYSIS. when two analyses have the column
  [REDUCER(]NAME[)][@COND,...]   a collected metric, one series per matching case:
      epoch_time@ranks=4,data=real       mean over the epochs after warm-up (epoch >= 1)
      median(epoch_time)@ranks=max       REDUCER: mean, median (after warm-up), min, max, last, sum
      staging_time@ranks=4,data=real     any name the collectors record, e.g. per-phase timers
                                         (run_time, staging_time from mlperf.log; tau_exclusive:ROUTINE)
  A name that is a column is read as the column; REDUCER(NAME) forces the collected metric.

Without METRIC (a first argument that exists as a file or directory is a PATH): the metrics under
`track:` in the campaign stored with the newest run, each with its `threshold:` and `better:`; without
`track:`, by default each analysis' headline columns:
  scaling: weak    ANALYSIS.throughputs@max, ANALYSIS.eff@max
  scaling: strong  ANALYSIS.times@max, ANALYSIS.eff@max
  scaling: none    ANALYSIS.times (every row a series)
  mlperf_weak      ANALYSIS.models_per_minute (higher is better)
  mlperf_strong    ANALYSIS.time_to_train@max, ANALYSIS.eff@max
  window, stalls   none

Runs: every work directory (a directory with campaign.db) at or up to 4 levels under each PATH;
a campaign file as PATH means the directory holding its default work directory (runs/ beside it).
Default PATH: the current directory. Runs are ordered by the commit date of the code they ran
(recorded by `run`: --label, git commit and date of code_dir or of the campaign file's repository),
else by when they were made. A nightly job gives each night its own --workdir.

Direction: throughputs, eff, speedup are better higher; times, stall and *_std lower; a collected
metric by its unit (s, ms: lower; .../s: higher), else its name (time, loss, error: lower;
throughput, bandwidth, accuracy: higher); else pass --better.

Noise: with repetitions (cases differing only in `repeat`, or several runs of one version) a change
past the threshold counts only when it also exceeds their spread: the 95% t-intervals of the means do
not overlap (rule ci), or a step found over the series lies between the run and the baseline (rule
step). Without repetitions the threshold alone decides (rule threshold). The table, CSV and JSON say
which rule flagged each run.

--plot: one figure of the metrics the campaign follows (as without METRIC: its `track:`, else the
headline columns; then each --track METRIC), each series relative to its baseline against the runs in
commit-date order (the ExaRL plan's plot of % MPI, % memcpy and runtime), written as
CAMPAIGN-tracked.csv, .dat, .gp, .svg and .png in --out; the latest relative value of each is printed.
  campaign history --plot campaigns/nightly.yaml
  campaign history --plot runs/ --track 'component_percent:mpi@ranks=4' --track 'run_time@ranks=4'

Exit status: 0 no regression, 3 a regression (the latest run of a series worse than the baseline
by more than the threshold, and the spread with repetitions; --fail-on any: any run), 2 bad METRIC
or options, 1 no runs.)";

// The metrics the newest run's campaign follows (`track:`, else the headline columns), then each
// --track METRIC; --threshold and --better when given, else each `track:` entry's.
std::vector<history::TrackRequest> followed(const history::Following& f, const HistoryOptions& o,
                                            const history::TrackOptions& options, bool threshold_given) {
  std::vector<spec::Tracked> metrics = f.metrics;
  for (const auto& m : o.track) metrics.push_back(spec::Tracked{.metric = m});
  std::vector<history::TrackRequest> requests;
  for (const auto& t : metrics) {
    history::TrackRequest r{history::parse_metric(t.metric), options};
    if (!threshold_given) r.options.threshold = t.threshold / 100;
    if (!options.better && t.better == "higher") r.options.better = history::Better::higher;
    if (!options.better && t.better == "lower") r.options.better = history::Better::lower;
    requests.push_back(std::move(r));
  }
  return requests;
}

// A followed metric that cannot be judged: why, on stderr.
void warn_not_followed(const history::HistoryDocument& doc) {
  std::cerr << "campaign: warning: " << doc.metric << ": not followed: " << doc.problem
            << (doc.needs_direction ? ": pass --better higher|lower, or give `better:` in `track:`" : "")
            << "\n";
}

// --plot: every followed metric, its latest relative value printed, all in one figure.
int run_combined(const std::vector<history::HistoryDocument>& all, const std::string& name, size_t runs,
                 const fs::path& out) {
  std::vector<history::HistoryDocument> docs;
  bool failed = false;
  std::cout << "campaign " << name << ": " << runs << " run(s), " << all.size()
            << " tracked metric(s); the latest run relative to the baseline:\n";
  for (const auto& d : all) {
    if (!d.problem.empty()) {
      std::cout << "  " << d.metric << ": not followed: " << d.problem << "\n";
      continue;
    }
    failed |= !history::failing(d).empty();
    for (const auto& s : d.history.series) {
      std::cout << "  " << d.metric
                << (s.name.empty() || d.history.series.size() == 1 ? "" : " [" + s.name + "]");
      if (s.latest && s.points[*s.latest].relative) {
        char buf[64];
        std::snprintf(buf, sizeof buf, ": %.3f", *s.points[*s.latest].relative);
        std::cout << buf << " " << history::to_string(s.points[*s.latest].verdict);
      } else {
        std::cout << ": no value";
      }
      std::cout << "\n";
    }
    docs.push_back(d);
  }
  auto written = history::write_combined(docs, out, name + "-tracked");
  for (const auto& w : written.warnings) std::cerr << "campaign: warning: " << w << "\n";
  std::cout << (written.plotted ? "plot: " + (out / (name + "-tracked.svg")).string()
                                : "table: " + (out / (name + "-tracked.csv")).string())
            << "\n";
  return failed ? 3 : 0;
}

// The directory holding the campaign's default work directory, and its name in the catalog. A
// campaign across several systems has a history per system: --system picks one.
std::pair<fs::path, std::string> runs_of_campaign_file(const std::string& file, const std::string& system) {
  auto parts = load_all(CampaignOptions{file, system, "", matrix::Fit::skip});
  std::vector<std::string> names;
  for (auto& l : parts) names.push_back(l.plan.system.name);
  require_one_system(names, file, ", each with a history of its own: pick one with --system NAME");
  return {parts.front().catalog_dir.parent_path(), parts.front().campaign.catalog_name()};
}

// Prints one metric's history and writes its files; whether its latest run regressed.
bool show(const history::HistoryDocument& doc, const fs::path& out) {
  history::print_history(std::cout, doc);
  std::string stem = doc.campaign + "-";
  for (char c : doc.metric)
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '=' || c == '.' ? c : '_';
  auto written = history::write_history(doc, out, stem);
  for (const auto& w : written.warnings) std::cerr << "campaign: warning: " << w << "\n";
  std::cout << (written.plotted ? "plot: " + (out / (stem + ".svg")).string()
                                : "table: " + (out / (stem + ".csv")).string())
            << "\n";
  return !history::failing(doc).empty();
}

// The newest run against its campaign's references (`reference:`, issue 34): said, and whether one
// value left its band.
bool references_missed(const history::Run& newest) {
  spec::Campaign c;
  try {
    c = report::stored_campaign(newest.campaign, newest.workdir);
  } catch (const InputError& e) {
    std::cerr << "campaign: warning: " << newest.name << ": its references cannot be read: " << e.what()
              << "\n";
    return false;
  }
  if (c.references.empty()) return false;
  Catalog catalog = Catalog::open_for_reading(newest.workdir);
  auto cases = report::case_results(catalog, newest.campaign.id);
  auto summary = history::check_references(c.references, c.analyses, cases, newest.campaign.system);
  if (!summary.checked) return false;
  std::cout << "\nthe newest run (" << newest.name << "): ";
  history::print_reference_summary(summary, std::cout);
  return summary.out > 0;
}

int run_history(HistoryOptions o, bool threshold_given) {
  // METRIC may be left out (always with --plot): a first argument that exists on disk is a PATH.
  if (!o.metric.empty() && (o.plot || fs::exists(o.metric))) {
    o.paths.insert(o.paths.begin(), o.metric);
    o.metric.clear();
  }
  if (!o.plot && !o.track.empty()) throw InputError({"campaign history"}, "--track", "only with --plot");
  if (!(o.threshold > 0))
    throw InputError({"campaign history"}, "--threshold", "must be a positive percentage");
  std::optional<history::Better> better;
  if (o.better == "higher") better = history::Better::higher;
  if (o.better == "lower") better = history::Better::lower;
  std::optional<history::MetricQuery> query;
  if (!o.metric.empty()) query = history::parse_metric(o.metric);

  std::vector<fs::path> roots;
  std::string name = o.campaign;
  for (const std::string& p : o.paths) {
    if (fs::is_directory(p)) {
      roots.emplace_back(p);
      continue;
    }
    if (!fs::exists(p)) throw InputError({"campaign history"}, "PATH", "'" + p + "' does not exist");
    auto [dir, campaign_name] = runs_of_campaign_file(p, o.system);
    roots.push_back(dir);
    if (name.empty()) name = campaign_name;
  }
  if (roots.empty()) roots.emplace_back(".");

  history::RunSearch found = history::find_runs(roots, name);
  for (const auto& w : found.warnings) std::cerr << "campaign: warning: skipped " << w << "\n";
  std::vector<std::string> where;
  for (const auto& r : roots) where.push_back(r.string());
  if (name.empty()) {
    if (found.campaigns.size() > 1)
      throw InputError({"campaign history"}, "--campaign",
                       "runs of several campaigns under " + join(where, ", ") + ": pick one (" +
                           join(found.campaigns, ", ") + ")");
    if (!found.campaigns.empty()) name = found.campaigns.front();
  }
  if (found.runs.empty())
    throw Error("no runs" + (name.empty() ? std::string() : " of campaign " + name) + " under " +
                join(where, ", ") + " (a run is a work directory with a campaign.db" +
                (found.campaigns.empty() ? "" : "; campaigns found: " + join(found.campaigns, ", ")) + ")");

  history::TrackOptions options;
  options.baseline = o.baseline;
  options.threshold = o.threshold / 100;
  options.better = better;
  options.fail_on_any = o.fail_on == "any";
  const fs::path out = o.out.empty() ? fs::absolute(roots.front()) / "history" : fs::absolute(o.out);
  if (query) {
    const bool regressed = show(history::track(found.runs, name, *query, options), out);
    return references_missed(found.runs.back()) || regressed ? 3 : 0;
  }

  // No METRIC: what the newest run's campaign follows (`track:`, else the headline columns).
  history::Following following = history::following(found.runs.back());
  if (!following.problem.empty()) throw InputError({"campaign history"}, "METRIC", following.problem);
  std::vector<history::TrackRequest> requests = followed(following, o, options, threshold_given);
  if (requests.empty())
    throw InputError({"campaign history"}, o.plot ? "--plot" : "METRIC",
                     "campaign " + name +
                         " has no `track:` and no analysis with headline columns: name a METRIC or pass "
                         "--plot --track METRIC");
  std::vector<history::HistoryDocument> docs = history::track(found.runs, name, requests);
  if (o.plot) {
    const int rc = run_combined(docs, name, found.runs.size(), out);
    return references_missed(found.runs.back()) ? 3 : rc;
  }
  std::vector<std::string> names;
  for (const auto& d : docs) names.push_back(d.metric);
  std::cout << "campaign " << name << ": following "
            << (following.defaults ? "by default each analysis' headline columns (no `track:`)"
                                   : "the campaign's `track:`")
            << ": " << join(names, ", ") << "\n\n";
  bool regressed = false;
  size_t shown = 0;
  for (const auto& doc : docs) {
    if (!doc.problem.empty()) {
      warn_not_followed(doc);
      continue;
    }
    if (shown++) std::cout << "\n";
    regressed = show(doc, out) || regressed;
  }
  if (shown == 0) throw Error("none of the metrics followed could be read (warnings above)");
  return references_missed(found.runs.back()) || regressed ? 3 : 0;
}

}  // namespace

void add_history(CLI::App& app, int& status) {
  auto o = std::make_shared<HistoryOptions>();
  auto* cmd = app.add_subcommand(
      "history",
      "Follow a metric across the runs of a campaign (one per work directory) in commit order, relative to a "
      "baseline; flag regressions beyond a threshold (exit status 3)");
  cmd->add_option("METRIC", o->metric,
                  "What to follow, e.g. throughputs@ranks=4, eff@max, epoch_time@ranks=4 (below); default: "
                  "the campaign's `track:`, else each analysis' headline columns; none with --plot");
  cmd->add_option("PATH", o->paths,
                  "Campaign files (their runs/ directory) or directories to search for work directories "
                  "(default: .)");
  cmd->add_option("-c,--campaign", o->campaign,
                  "Campaign name (default: the campaign file's, or the only one found)");
  cmd->add_option("-b,--baseline", o->baseline,
                  "Code version all runs are compared with: a label, a commit (prefix), or a run directory; "
                  "the runs matching it are averaged (default: the oldest run)");
  auto* threshold = cmd->add_option("-t,--threshold", o->threshold,
                                    "Regression threshold in percent of the baseline (default: 10, or each "
                                    "`track:` entry's)");
  cmd->add_option("--better", o->better, "higher or lower (default: from the metric's kind, unit or name)")
      ->check(CLI::IsMember({"higher", "lower"}));
  cmd->add_option("--fail-on", o->fail_on,
                  "Which runs fail the check: latest (the newest run of each series) or any")
      ->check(CLI::IsMember({"latest", "any"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", o->out, "Directory for the CSV, JSON and plot (default: FIRST_PATH/history)");
  cmd->add_option("-s,--system", o->system, "System profile, to find a campaign file's work directories");
  cmd->add_flag("--plot", o->plot,
                "One figure of every metric the campaign follows (as without METRIC), each relative to its "
                "baseline over the commit dates (the positional arguments are then PATHs)");
  cmd->add_option("--track", o->track, "With --plot: a metric to add to the tracked ones (repeatable)")
      ->allow_extra_args(false);  // one per --track: a PATH after it stays a PATH
  cmd->footer(kFooter);
  cmd->callback([o, threshold, &status] { status = run_history(*o, threshold->count() > 0); });
}

}  // namespace campaign::cli

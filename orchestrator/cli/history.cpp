// `campaign history METRIC [PATH...]`: a metric across the runs of a campaign
// (one per work directory), in commit order, relative to a baseline; exit
// status 3 when the latest run regressed beyond the threshold (and, with
// repetitions, their spread). history::track does the work; this file reads
// the options, finds the runs and writes what it returns.
#include <cctype>
#include <iostream>
#include <set>

#include "cli/cli.hpp"
#include "history/combined.hpp"
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

--plot: one figure of the metrics the campaign tracks (`track:` in the campaign stored with its
newest run, then each --track METRIC), each series relative to its baseline against the runs in
commit-date order (the ExaRL plan's plot of % MPI, % memcpy and runtime), written as
CAMPAIGN-tracked.csv, .dat, .gp, .svg and .png in --out; the latest relative value of each is printed.
  campaign history --plot campaigns/nightly.yaml
  campaign history --plot runs/ --track 'component_percent:mpi@ranks=4' --track 'run_time@ranks=4'

Exit status: 0 no regression, 3 a regression (the latest run of a series worse than the baseline
by more than the threshold, and the spread with repetitions; --fail-on any: any run), 2 bad METRIC
or options, 1 no runs.)";

// --plot: every tracked metric (the newest run's `track:`, then --track) followed as one METRIC
// would be, its latest relative value printed, all in one figure.
int run_combined(const std::vector<history::Run>& runs, const std::string& name, const HistoryOptions& o,
                 const history::TrackOptions& options, const fs::path& out) {
  std::vector<spec::Tracked> tracked = history::tracked_by(runs.back());
  for (const auto& m : o.track) tracked.push_back(spec::Tracked{.metric = m});
  if (tracked.empty())
    throw InputError(
        {"campaign history"}, "--plot",
        "campaign " + name + " tracks nothing: list metrics under `track:` or pass --track METRIC");
  std::vector<history::HistoryDocument> docs;
  bool failed = false;
  std::cout << "campaign " << name << ": " << runs.size() << " run(s), " << tracked.size()
            << " tracked metric(s); the latest run relative to the baseline:\n";
  for (const spec::Tracked& t : tracked) {
    history::TrackOptions each = options;  // --better and --threshold, else the track entry's
    if (!options.better && t.better == "higher") each.better = history::Better::higher;
    if (!options.better && t.better == "lower") each.better = history::Better::lower;
    if (o.threshold == 10) each.threshold = t.threshold / 100;
    try {
      docs.push_back(history::track(runs, name, history::parse_metric(t.metric), each));
    } catch (const InputError& e) {
      std::cout << "  " << t.metric << ": not followed: " << e.message() << "\n";
      continue;
    }
    const history::HistoryDocument& d = docs.back();
    failed |= !history::failing(d).empty();
    for (const auto& s : d.history.series) {
      std::cout << "  " << t.metric
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
  }
  auto written = history::write_combined(docs, out, name + "-tracked");
  for (const auto& w : written.warnings) std::cerr << "campaign: warning: " << w << "\n";
  std::cout << (written.plotted ? "plot: " + (out / (name + "-tracked.svg")).string()
                                : "table: " + (out / (name + "-tracked.csv")).string())
            << "\n";
  return failed ? 3 : 0;
}

// The directory holding the campaign's default work directory, and its name.
std::pair<fs::path, std::string> runs_of_campaign_file(const std::string& file, const std::string& system) {
  spec::Campaign base = spec::load_campaign(file);
  auto resolved = spec::resolve_system(system, base);
  spec::Campaign c = spec::for_system(base, resolved.system.name);
  fs::path workdir = resolve_workdir(c, resolved.system, "");
  return {workdir.parent_path(), c.name};
}

int run_history(HistoryOptions o) {
  if (o.plot && !o.metric.empty()) o.paths.insert(o.paths.begin(), o.metric), o.metric.clear();
  if (!o.plot && o.metric.empty()) throw InputError({"campaign history"}, "METRIC", "required (or --plot)");
  if (!o.plot && !o.track.empty()) throw InputError({"campaign history"}, "--track", "only with --plot");
  const history::MetricQuery query = o.plot ? history::MetricQuery{} : history::parse_metric(o.metric);
  if (!(o.threshold > 0))
    throw InputError({"campaign history"}, "--threshold", "must be a positive percentage");
  std::optional<history::Better> better;
  if (o.better == "higher") better = history::Better::higher;
  if (o.better == "lower") better = history::Better::lower;

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
  fs::path out = o.out.empty() ? fs::absolute(roots.front()) / "history" : fs::absolute(o.out);
  if (o.plot) return run_combined(found.runs, name, o, options, out);
  history::HistoryDocument doc = history::track(found.runs, name, query, options);

  history::print_history(std::cout, doc);
  std::string stem = name + "-";
  for (char c : query.text)
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '=' || c == '.' ? c : '_';
  auto written = history::write_history(doc, out, stem);
  for (const auto& w : written.warnings) std::cerr << "campaign: warning: " << w << "\n";
  std::cout << (written.plotted ? "plot: " + (out / (stem + ".svg")).string()
                                : "table: " + (out / (stem + ".csv")).string())
            << "\n";
  return history::failing(doc).empty() ? 0 : 3;
}

}  // namespace

void add_history(CLI::App& app, int& status) {
  auto o = std::make_shared<HistoryOptions>();
  auto* cmd = app.add_subcommand(
      "history",
      "Follow a metric across the runs of a campaign (one per work directory) in commit order, relative to a "
      "baseline; flag regressions beyond a threshold (exit status 3)");
  cmd->add_option(
      "METRIC", o->metric,
      "What to follow, e.g. throughputs@ranks=4, eff@max, epoch_time@ranks=4 (below); none with --plot");
  cmd->add_option("PATH", o->paths,
                  "Campaign files (their runs/ directory) or directories to search for work directories "
                  "(default: .)");
  cmd->add_option("-c,--campaign", o->campaign,
                  "Campaign name (default: the campaign file's, or the only one found)");
  cmd->add_option("-b,--baseline", o->baseline,
                  "Code version all runs are compared with: a label, a commit (prefix), or a run directory; "
                  "the runs matching it are averaged (default: the oldest run)");
  cmd->add_option("-t,--threshold", o->threshold, "Regression threshold in percent of the baseline")
      ->capture_default_str();
  cmd->add_option("--better", o->better, "higher or lower (default: from the metric's kind, unit or name)")
      ->check(CLI::IsMember({"higher", "lower"}));
  cmd->add_option("--fail-on", o->fail_on,
                  "Which runs fail the check: latest (the newest run of each series) or any")
      ->check(CLI::IsMember({"latest", "any"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", o->out, "Directory for the CSV, JSON and plot (default: FIRST_PATH/history)");
  cmd->add_option("-s,--system", o->system, "System profile, to find a campaign file's work directories");
  cmd->add_flag(
      "--plot", o->plot,
      "One figure of every metric the campaign tracks (`track:` of its newest run), each relative to its "
      "baseline over the commit dates (the positional arguments are then PATHs)");
  cmd->add_option("--track", o->track, "With --plot: a metric to add to the tracked ones (repeatable)")
      ->allow_extra_args(false);  // one per --track: a PATH after it stays a PATH
  cmd->footer(kFooter);
  cmd->callback([o, &status] { status = run_history(*o); });
}

}  // namespace campaign::cli

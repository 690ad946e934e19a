// Implements analyze_stalls (analysis/stalls.hpp): the notebook's summary
// table per case, the what-if tables, and the per-iteration table.
#include <utility>

#include "analysis/scaling.hpp"
#include "analysis/stalls.hpp"

namespace campaign::analysis {

namespace {

// The notebook's summary columns (its `dataset_col_name`), in its order, and what each averages.
struct SummaryColumn {
  const char* name;
  int column;  // a DsColumn; -1: Effective Delay time (%), which has no std
};
constexpr SummaryColumn kSummary[] = {{kPredicted, kIterationTime},
                                      {"Avg training stall time (sec)", kTrainingStall},
                                      {"Avg delay time (sec)", kDelay},
                                      {"Effective Delay time (%)", -1},
                                      {"Avg preprocessing start diff (sec)", kStartDiff},
                                      {"Avg preprocessing diff (sec)", kFetchDiff}};
// Its per-iteration columns (the simulation's `sim_train_df`), in DsColumn order.
const char* const kPerIteration[kDsColumns] = {"Iteration time (sec)", "Training stall time (sec)",
                                               "Delay time (sec)", "Batch fetch time diff (sec)",
                                               "Batch fetch start time diff (sec)"};
const std::string kStd = "_std";

Cell opt(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }

void add_summary_columns(std::vector<std::string>& columns) {
  for (const auto& s : kSummary) {
    columns.emplace_back(s.name);
    if (s.column >= 0) columns.push_back(s.name + kStd);
  }
}

void add_summary_cells(std::vector<Cell>& row, const DsSummary& s) {
  for (const auto& c : kSummary) {
    if (c.column < 0) {
      row.emplace_back(s.effective_delay_percent);
      continue;
    }
    row.emplace_back(s.mean[static_cast<size_t>(c.column)]);
    row.push_back(opt(s.std[static_cast<size_t>(c.column)]));
  }
}

std::string label(Align fetch, Align start) {
  return std::string(to_string(fetch)) + "/" + std::string(to_string(start));
}

// One row per iteration: the measured per-iteration columns and each rank's stall.
Table iterations_table(const AnalysisSpec& spec, const CaseResult& c, const CaseTimings& ct) {
  Table t;
  t.analysis = spec.name;
  t.scaling = spec.scaling;
  t.x = "Iteration";
  t.group = {{"case", c.name}};
  t.detail = true;
  t.columns = {"Iteration", "Epoch", "Index number", kPerIteration[kIterationTime]};
  for (long rank : ct.ranks) {
    const std::string suffix = "_gpu" + std::to_string(rank);
    t.series.push_back({"gpu" + std::to_string(rank), suffix});
    t.columns.push_back("Training Stall time (sec)" + suffix);
  }
  for (size_t k = kTrainingStall; k < kDsColumns; ++k) t.columns.emplace_back(kPerIteration[k]);
  const size_t n = ct.iteration.size(), ranks = ct.ranks.size();
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = i;
  PerIteration v = measured(ct.timings, all);
  t.rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<Cell> row;
    row.reserve(t.columns.size());
    row.emplace_back(static_cast<double>(ct.iteration[i]));
    row.emplace_back(ct.epoch[i]);
    row.emplace_back(static_cast<double>(ct.index[i]));
    row.emplace_back(v[kIterationTime][i]);
    for (size_t g = 0; g < ranks; ++g) row.emplace_back(ct.timings.stall[g][i]);
    for (size_t k = kTrainingStall; k < kDsColumns; ++k) row.emplace_back(v[k][i]);
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

AnalysisResult analyze_stalls(const AnalysisSpec& spec, const std::vector<CaseResult>& cases) {
  AnalysisResult res;
  res.spec = spec;
  const StallTableSpec& o = spec.stalls;
  std::vector<std::pair<Align, Align>> combinations;
  for (Align f : o.fetch)
    for (Align s : o.start) combinations.emplace_back(f, s);

  std::vector<std::string> columns{"case", "ranks", "iterations"};
  add_summary_columns(columns);
  Table summary = case_table(spec, columns);
  // The plot's data: per case the what-if iteration time of each combination.
  Table plot = case_table(spec, {"case"});
  plot.analysis = spec.name + kWhatIf;
  plot.detail = true;
  plot.series.clear();
  for (auto [f, s] : combinations) {
    const std::string suffix = "_" + label(f, s);
    plot.series.push_back(
        {"fetch " + std::string(to_string(f)) + ", start " + std::string(to_string(s)), suffix});
    plot.columns.push_back(kSummary[0].name + suffix);
    plot.columns.push_back(kSummary[0].name + kStd + suffix);
  }
  std::vector<Table> whatifs, iterations;
  for (const CaseResult& c : cases) {
    if (!spec.step.empty() && c.step != spec.step) continue;
    if (!usable_state(c.state)) {
      res.excluded.push_back({c.name, c.state, "not collected"});
      continue;
    }
    auto timings = case_timings(c);
    if (const std::string* why = std::get_if<std::string>(&timings)) {
      res.excluded.push_back({c.name, c.state, *why});
      continue;
    }
    const CaseTimings& ct = std::get<CaseTimings>(timings);
    const std::vector<size_t> rows = kept_rows(ct, spec.time.warmup, o);
    if (rows.empty()) {
      res.excluded.push_back({c.name, c.state,
                              "none of its " + std::to_string(ct.iteration.size()) + " iterations is in " +
                                  kept_epochs(spec) + " past the first " + std::to_string(o.skip_iterations) +
                                  " of its epoch (skip_iterations)"});
      continue;
    }
    std::vector<Cell> row{Cell(c.name), Cell(static_cast<double>(ct.ranks.size())),
                          Cell(static_cast<double>(rows.size()))};
    add_summary_cells(row, summarize(measured(ct.timings, rows), o.delay_threshold));
    summary.rows.push_back(std::move(row));

    Table w;
    w.analysis = spec.name + kWhatIf;
    w.scaling = spec.scaling;
    w.x = "fetch";
    w.group = {{"case", c.name}};
    w.series = {{"", ""}};
    w.columns = {"fetch", "start"};
    add_summary_columns(w.columns);
    w.columns.insert(w.columns.end(), {"Saving (sec)", "Saving (%)"});
    const DsSummary base = summarize(simulate(ct.timings, rows, Align::rank, Align::rank), o.delay_threshold);
    std::vector<Cell> bars{Cell(c.name)};
    for (auto [f, s] : combinations) {
      const DsSummary r = f == Align::rank && s == Align::rank
                              ? base
                              : summarize(simulate(ct.timings, rows, f, s), o.delay_threshold);
      std::vector<Cell> wr{Cell(std::string(to_string(f))), Cell(std::string(to_string(s)))};
      add_summary_cells(wr, r);
      const double before = base.mean[kIterationTime], saving = before - r.mean[kIterationTime];
      wr.emplace_back(saving);
      wr.push_back(before > 0 ? Cell(100 * saving / before) : Cell());
      w.rows.push_back(std::move(wr));
      bars.emplace_back(r.mean[kIterationTime]);
      bars.push_back(opt(r.std[kIterationTime]));
    }
    plot.rows.push_back(std::move(bars));
    whatifs.push_back(std::move(w));
    iterations.push_back(iterations_table(spec, c, ct));
  }
  if (!summary.rows.empty()) {
    res.tables.push_back(std::move(summary));
    res.tables.push_back(std::move(plot));
  }
  for (auto* group : {&whatifs, &iterations})
    for (auto& t : *group) res.tables.push_back(std::move(t));
  return res;
}

}  // namespace campaign::analysis

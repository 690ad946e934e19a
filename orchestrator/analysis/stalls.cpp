// Implements analysis/stalls.hpp.
#include "analysis/stalls.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <set>

#include "analysis/scaling.hpp"

namespace campaign::analysis {

namespace {

// The seed study's column names, in kStallMetrics' order after iteration_epoch.
const char* const kColumns[] = {"Fetch time (sec)",     "Fetch done time (sec)",     "Training start (sec)",
                                "Iteration time (sec)", "Training Stall time (sec)", "Compute time (sec)"};
enum { kEpoch, kFetch, kFetchDone, kStart, kIteration, kStall, kCompute };

std::string gpu(const char* column, long rank) { return std::string(column) + "_gpu" + std::to_string(rank); }

}  // namespace

RankIterations rank_iterations(const CaseResult& c) {
  RankIterations out;
  for (const MetricRow& m : c.metrics) {
    size_t colon = m.name.rfind(":rank");
    if (!m.step || colon == std::string::npos) continue;
    const std::string base = m.name.substr(0, colon);
    auto k = std::find_if(std::begin(kStallMetrics), std::end(kStallMetrics),
                          [&](const char* s) { return base == s; });
    if (k == std::end(kStallMetrics)) continue;
    const char* first = m.name.data() + colon + 5;
    const char* last = m.name.data() + m.name.size();
    long rank = 0;
    auto [end, ec] = std::from_chars(first, last, rank);
    if (ec != std::errc() || end != last || first == last) continue;
    out[rank][*m.step][static_cast<size_t>(k - std::begin(kStallMetrics))] = m.value;
  }
  return out;
}

std::optional<StallSummary> summarize_stalls(const RankIterations& ranks, double warmup) {
  StallSummary s;
  s.ranks = ranks.size();
  auto counts = [&](const StallRow& r) { return !r[kEpoch] || *r[kEpoch] >= warmup; };
  double stall = 0, iteration = 0;
  size_t n = 0;
  std::set<double> iterations;
  for (const auto& [rank, its] : ranks)
    for (const auto& [it, r] : its) {
      if (!counts(r) || !r[kStall] || !r[kIteration]) continue;
      stall += *r[kStall], iteration += *r[kIteration], ++n;
      iterations.insert(it);
    }
  if (n == 0) return std::nullopt;
  s.iterations = iterations.size();
  s.average_stall = stall / static_cast<double>(n);
  if (iteration > 0) s.stall_percent = 100 * stall / iteration;
  double delay = 0;
  size_t delays = 0;
  for (double it : iterations) {
    double lo = 0, hi = 0;
    size_t have = 0;
    for (const auto& [rank, its] : ranks) {
      auto f = its.find(it);
      if (f == its.end() || !f->second[kStart]) break;
      double t = *f->second[kStart];
      lo = have ? std::min(lo, t) : t, hi = have ? std::max(hi, t) : t, ++have;
    }
    if (have != ranks.size()) continue;
    delay += hi - lo, ++delays;
  }
  if (delays) {
    s.rank_delay = delay / static_cast<double>(delays);
    if (iteration > 0) s.effective_delay_percent = 100 * *s.rank_delay / (iteration / static_cast<double>(n));
  }
  return s;
}

AnalysisResult analyze_stalls(const AnalysisSpec& spec, const std::vector<CaseResult>& cases) {
  AnalysisResult res;
  res.spec = spec;
  Table summary = case_table(spec, {"case", "ranks", "iterations", "Average stall (sec)", "Stall (%)",
                                    "Rank delay (sec)", "Effective delay (%)"});
  std::vector<Table> per_case;
  for (const CaseResult& c : cases) {
    if (!spec.step.empty() && c.step != spec.step) continue;
    if (!usable_state(c.state)) {
      res.excluded.push_back({c.name, c.state, "not collected"});
      continue;
    }
    RankIterations ranks = rank_iterations(c);
    if (ranks.empty()) {
      res.excluded.push_back(
          {c.name, c.state, "no per-rank stall metrics (no stalls-rank<R>.csv collected?)"});
      continue;
    }
    std::optional<StallSummary> s = summarize_stalls(ranks, spec.time.warmup);
    if (!s) {
      res.excluded.push_back({c.name, c.state,
                              "no iteration with a stall and an iteration time in epochs >= " +
                                  format_cell(Cell(spec.time.warmup))});
      continue;
    }
    auto opt = [](std::optional<double> v) { return v ? Cell(*v) : Cell(); };
    summary.rows.push_back({Cell(c.name), Cell(static_cast<double>(s->ranks)),
                            Cell(static_cast<double>(s->iterations)), Cell(s->average_stall),
                            Cell(s->stall_percent), opt(s->rank_delay), opt(s->effective_delay_percent)});

    Table t;
    t.analysis = spec.name;
    t.scaling = spec.scaling;
    t.x = "Iteration";
    t.group = {{"case", c.name}};
    t.detail = true;
    t.columns = {"Iteration", "Epoch"};
    for (const auto& [rank, its] : ranks) {
      t.series.push_back({"gpu" + std::to_string(rank), "_gpu" + std::to_string(rank)});
      for (const char* col : kColumns) {
        t.columns.push_back(gpu(col, rank));
        t.units[t.columns.back()] = "s";
      }
    }
    std::set<double> iterations;
    for (const auto& [rank, its] : ranks)
      for (const auto& [it, r] : its) iterations.insert(it);
    for (double it : iterations) {
      std::vector<Cell> row{Cell(it), Cell()};
      for (const auto& [rank, its] : ranks) {
        auto f = its.find(it);
        for (size_t k = kFetch; k <= kCompute; ++k)
          row.push_back(f == its.end() ? Cell() : opt(f->second[k]));
        if (f != its.end() && f->second[kEpoch] && std::holds_alternative<std::monostate>(row[1]))
          row[1] = Cell(*f->second[kEpoch]);
      }
      t.rows.push_back(std::move(row));
    }
    per_case.push_back(std::move(t));
  }
  if (!summary.rows.empty()) res.tables.push_back(std::move(summary));
  for (auto& t : per_case) res.tables.push_back(std::move(t));
  return res;
}

}  // namespace campaign::analysis

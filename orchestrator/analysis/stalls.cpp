// Implements analysis/stalls.hpp: the per-rank series, read as report/input.cpp
// hands them over (packed, or as metric rows), checked and aligned by
// iteration; then the tables.
#include "analysis/stalls.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>

#include "analysis/scaling.hpp"

namespace campaign::analysis {

namespace {

// The metrics the tables read, kStallMetrics' first six, and the stalls-rank<R>.csv column of
// each, for messages.
constexpr size_t kRead = 6;
const char* const kColumnOf[kRead] = {"Epoch",
                                      "Fetch time (sec)",
                                      "Fetch done time (sec)",
                                      "Training start (sec)",
                                      "Iteration time (sec)",
                                      "Training Stall time (sec)"};
enum { kEpoch, kFetch, kFetchDone, kStart, kIteration, kStall };

struct SeriesView {
  const std::int64_t* steps = nullptr;
  const double* values = nullptr;
  size_t size = 0;
  bool has(std::int64_t step) const { return std::binary_search(steps, steps + size, step); }
};

struct Owned {
  std::vector<std::int64_t> steps;
  std::vector<double> values;
};

// "fetch_time:rank3" -> (1, 3); false for any other name.
bool parse_name(const std::string& name, size_t& metric, long& rank) {
  size_t colon = name.rfind(":rank");
  if (colon == std::string::npos) return false;
  auto m = std::find(std::begin(kStallMetrics), std::begin(kStallMetrics) + kRead, name.substr(0, colon));
  if (m == std::begin(kStallMetrics) + kRead) return false;
  const char *first = name.data() + colon + 5, *last = name.data() + name.size();
  auto [end, ec] = std::from_chars(first, last, rank);
  if (ec != std::errc() || end != last || first == last) return false;
  metric = static_cast<size_t>(m - std::begin(kStallMetrics));
  return true;
}

// Each rank's series sorted by step: views of the packed series where they are sorted already,
// copies otherwise and of metric rows.
struct RankSeries {
  std::map<long, std::array<SeriesView, kRead>> ranks;
  std::deque<Owned> owned;

  explicit RankSeries(const CaseResult& c) {
    std::map<std::pair<long, size_t>, std::vector<std::pair<std::int64_t, double>>> rows;
    size_t metric = 0;
    long rank = 0;
    for (const MetricRow& m : c.metrics)
      if (m.step && parse_name(m.name, metric, rank))
        rows[{rank, metric}].emplace_back(std::llround(*m.step), m.value);
    for (auto& [key, points] : rows) {
      std::stable_sort(points.begin(), points.end(), [](auto& a, auto& b) { return a.first < b.first; });
      Owned& o = owned.emplace_back();
      for (auto& [step, value] : points) o.steps.push_back(step), o.values.push_back(value);
      ranks[key.first][key.second] = {o.steps.data(), o.values.data(), o.steps.size()};
    }
    for (const SampledSeries& s : c.sampled) {
      if (!parse_name(s.name, metric, rank) || s.steps.size() != s.values.size()) continue;
      if (std::is_sorted(s.steps.begin(), s.steps.end())) {
        ranks[rank][metric] = {s.steps.data(), s.values.data(), s.steps.size()};
        continue;
      }
      std::vector<size_t> order(s.steps.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return s.steps[a] < s.steps[b]; });
      Owned& o = owned.emplace_back();
      for (size_t i : order) o.steps.push_back(s.steps[i]), o.values.push_back(s.values[i]);
      ranks[rank][metric] = {o.steps.data(), o.values.data(), o.steps.size()};
    }
  }
};

std::string number(double v) { return format_cell(Cell(v)); }

// Fetch done per second of its unit: collectors/stalls.yaml records it in whole microseconds (unit
// us, read exactly from the file's decimal Unix seconds), catalogs of before in seconds (unit s).
double fetch_done_per_second(const CaseResult& c) {
  const std::string head = std::string(kStallMetrics[kFetchDone]) + ":rank";
  for (const SampledSeries& s : c.sampled)
    if (s.name.rfind(head, 0) == 0) return s.unit == "us" ? 1e6 : 1;
  for (const MetricRow& m : c.metrics)
    if (m.name.rfind(head, 0) == 0) return m.unit == "us" ? 1e6 : 1;
  return 1;
}

// Why the ranks' series do not cover the same iterations once each, or "".
std::string coverage(const RankSeries& rs, std::vector<std::int64_t>& iterations) {
  for (const auto& [rank, series] : rs.ranks)
    for (size_t m = 0; m < kRead; ++m) {
      const SeriesView& s = series[m];
      if (!s.steps) return "rank " + std::to_string(rank) + " has no " + kColumnOf[m];
      for (size_t k = 1; k < s.size; ++k)
        if (s.steps[k] == s.steps[k - 1])
          return "rank " + std::to_string(rank) + ": iteration " + std::to_string(s.steps[k]) + " twice (" +
                 kColumnOf[m] + ")";
    }
  const SeriesView& first = rs.ranks.begin()->second[kIteration];
  iterations.assign(first.steps, first.steps + first.size);
  bool same = true;
  for (const auto& [rank, series] : rs.ranks)
    for (const SeriesView& s : series)
      same = same && s.size == iterations.size() && std::equal(s.steps, s.steps + s.size, iterations.begin());
  if (same) return "";
  for (const auto& [rank, series] : rs.ranks)
    for (const SeriesView& s : series) iterations.insert(iterations.end(), s.steps, s.steps + s.size);
  std::sort(iterations.begin(), iterations.end());
  iterations.erase(std::unique(iterations.begin(), iterations.end()), iterations.end());
  for (std::int64_t it : iterations)
    for (const auto& [rank, series] : rs.ranks) {
      size_t present = 0, missing = 0;
      for (size_t m = 0; m < kRead; ++m) series[m].has(it) ? ++present : (missing = m);
      if (present == kRead) continue;
      const std::string where = "rank " + std::to_string(rank);
      if (present == 0) return where + " has no iteration " + std::to_string(it) + ", which other ranks have";
      return where + ", iteration " + std::to_string(it) + ": no " + kColumnOf[missing];
    }
  return "";  // not reached: a series that differs misses an iteration of the union
}

}  // namespace

std::variant<CaseTimings, std::string> case_timings(const CaseResult& c) {
  RankSeries rs(c);
  if (rs.ranks.empty()) return std::string("no per-rank stall metrics (no stalls-rank<R>.csv collected?)");
  if (rs.ranks.size() == 1)
    return "one rank only (rank " + std::to_string(rs.ranks.begin()->first) +
           "): DS-Analyzer's delays and what-if compare ranks";
  CaseTimings out;
  if (std::string why = coverage(rs, out.iteration); !why.empty()) return why;
  const size_t n = out.iteration.size();
  // The origin, the earliest fetch done. In whole microseconds (below 2^53, so exact as doubles) the
  // difference is exact and its seconds rounded once: start differences exact to the microsecond,
  // as the notebook's datetimes (`pd.to_datetime(..., format='%Y-%m-%d %H:%M:%S.%f')`) are. From
  // seconds, as older catalogs hold them, fetch done itself was rounded to 0.24 us when read.
  const double per_second = fetch_done_per_second(c);
  double origin = INFINITY;
  for (const auto& [rank, series] : rs.ranks)
    for (size_t i = 0; i < n; ++i) origin = std::min(origin, series[kFetchDone].values[i]);
  out.epoch.resize(n);
  out.index.resize(n);
  IterationTimings& t = out.timings;
  t.iterations = n;
  for (const auto& [rank, series] : rs.ranks) {
    const double* v[kRead];
    for (size_t m = 0; m < kRead; ++m) v[m] = series[m].values;
    auto bad = [&, rank = rank](size_t i, const std::string& what) {
      return "rank " + std::to_string(rank) + ", iteration " + std::to_string(out.iteration[i]) + ": " + what;
    };
    const bool first = out.ranks.empty();
    std::vector<double>& start = out.starts.emplace_back(n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t m = 0; m < kRead; ++m)
        if (!std::isfinite(v[m][i])) return bad(i, std::string(kColumnOf[m]) + " is not a number");
      for (size_t m : {kFetch, kIteration, kStall})
        if (v[m][i] < 0) return bad(i, std::string(kColumnOf[m]) + " is negative (" + number(v[m][i]) + ")");
      if (i > 0 && !(v[kStart][i] > v[kStart][i - 1]))
        return bad(i, std::string(kColumnOf[kStart]) + " " + number(v[kStart][i]) +
                          " is not after the previous one's (" + number(v[kStart][i - 1]) + ")");
      if (first && i > 0 && v[kEpoch][i] < out.epoch[i - 1])
        return bad(i,
                   "Epoch goes back (" + number(v[kEpoch][i]) + " after " + number(out.epoch[i - 1]) + ")");
      if (first)
        out.epoch[i] = v[kEpoch][i];
      else if (v[kEpoch][i] != out.epoch[i])
        return bad(i, "Epoch " + number(v[kEpoch][i]) + ", but rank " + std::to_string(out.ranks[0]) +
                          " is in " + number(out.epoch[i]));
      start[i] = (v[kFetchDone][i] - origin) / per_second - v[kFetch][i];
    }
    out.ranks.push_back(rank);
    t.start.push_back(start.data());
    t.fetch.push_back(v[kFetch]);
    t.iteration.push_back(v[kIteration]);
    t.stall.push_back(v[kStall]);
  }
  for (size_t i = 0; i < n; ++i)
    out.index[i] = i > 0 && out.epoch[i] == out.epoch[i - 1] ? out.index[i - 1] + 1 : 0;
  for (Owned& o : rs.owned) out.copies.push_back(std::move(o.values));  // the views stay valid
  return out;
}

std::string kept_epochs(const AnalysisSpec& spec) {
  const std::string from = format_cell(Cell(spec.time.warmup));
  return spec.stalls.epochs == StallTableSpec::Epochs::all
             ? "every epoch >= " + from + " (epochs: all)"
             : "the first epoch >= " + from + " (epochs: first)";
}

std::vector<size_t> kept_rows(const CaseTimings& t, double warmup, const StallTableSpec& o) {
  // Epochs ascend (case_timings checks it): the first epoch >= warmup is the first row's that is.
  auto first = std::find_if(t.epoch.begin(), t.epoch.end(), [&](double e) { return e >= warmup; });
  std::vector<size_t> rows;
  if (first == t.epoch.end()) return rows;
  const double only = *first;
  for (size_t i = 0; i < t.epoch.size(); ++i) {
    const bool epoch = o.epochs == StallTableSpec::Epochs::all ? t.epoch[i] >= warmup : t.epoch[i] == only;
    if (epoch && t.index[i] >= o.skip_iterations) rows.push_back(i);
  }
  return rows;
}

}  // namespace campaign::analysis

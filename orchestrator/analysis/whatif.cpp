// Implements analysis/whatif.hpp, in the notebook's order of operations
// (tests/reference/ds_analyzer.py is its independent twin).
#include "analysis/whatif.hpp"

#include <algorithm>
#include <cmath>

namespace campaign::analysis {

namespace {

// The notebook's constants: the stall a rank is left with when the simulation
// removes all of it, and the stall above which a later fetch lengthens it.
constexpr double kStallFloor = 0.000002, kStallGrows = 0.01;

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
  double spread() const { return hi - lo; }
};

PerIteration sized(size_t n) {
  PerIteration out;
  for (auto& v : out) v.reserve(n);
  return out;
}

}  // namespace

std::string_view to_string(Align a) {
  switch (a) {
    case Align::rank:
      return "rank";
    case Align::avg:
      return "avg";
    case Align::min:
      return "min";
  }
  return "?";
}

PerIteration measured(const IterationTimings& t, const std::vector<size_t>& rows) {
  PerIteration out = sized(rows.size());
  const size_t n = t.ranks();
  for (size_t i : rows) {
    Range start, fetch, stall;
    double iteration = -INFINITY;
    for (size_t g = 0; g < n; ++g) {
      start.add(t.start[g][i]), fetch.add(t.fetch[g][i]), stall.add(t.stall[g][i]);
      iteration = std::max(iteration, t.iteration[g][i]);
    }
    out[kIterationTime].push_back(iteration);
    out[kTrainingStall].push_back(stall.hi);
    out[kDelay].push_back(stall.spread());
    out[kFetchDiff].push_back(fetch.spread());
    out[kStartDiff].push_back(start.spread());
  }
  return out;
}

namespace {

// simulate() for one combination, the alignments known to the compiler.
template <Align kFetch, Align kStart>
PerIteration simulate_as(const IterationTimings& t, const std::vector<size_t>& rows) {
  PerIteration out;
  for (auto& v : out) v.resize(rows.size());
  const size_t n = t.ranks();
  for (size_t r = 0; r < rows.size(); ++r) {
    const size_t i = rows[r];
    Range starts, fetches;
    double fetch_sum = 0, measured_max_stall = -INFINITY;
    for (size_t g = 0; g < n; ++g) {
      starts.add(t.start[g][i]), fetches.add(t.fetch[g][i]);
      fetch_sum += t.fetch[g][i];
      measured_max_stall = std::max(measured_max_stall, t.stall[g][i]);
    }
    const double fetch_avg = fetch_sum / static_cast<double>(n);
    const double start_mid = starts.hi - (starts.hi - starts.lo) / 2;
    Range sim_start, sim_fetch, sim_stall;
    for (size_t g = 0; g < n; ++g) {
      const double start = t.start[g][i], fetch = t.fetch[g][i], stall = t.stall[g][i];
      const double s = kStart == Align::avg ? start_mid : kStart == Align::min ? starts.lo : start;
      const double f = kFetch == Align::avg ? fetch_avg : kFetch == Align::min ? fetches.lo : fetch;
      sim_start.add(s), sim_fetch.add(f);
      const double done = s + f, measured_done = start + fetch;
      double w = stall;
      if (measured_done > done) {
        w = stall - (measured_done - done);
        if (w < 0.0) w = kStallFloor;
      } else if (measured_done < done && stall > kStallGrows) {
        w = stall + (done - measured_done);
      }
      sim_stall.add(w);
    }
    double iteration_time = -INFINITY;
    for (size_t g = 0; g < n; ++g)
      iteration_time = std::max(iteration_time, sim_stall.hi + (t.iteration[g][i] - measured_max_stall));
    out[kIterationTime][r] = iteration_time;
    out[kTrainingStall][r] = sim_stall.hi;
    out[kDelay][r] = sim_stall.spread();
    out[kFetchDiff][r] = sim_fetch.spread();
    out[kStartDiff][r] = sim_start.spread();
  }
  return out;
}

template <Align kFetch>
PerIteration simulate_fetch(const IterationTimings& t, const std::vector<size_t>& rows, Align start) {
  switch (start) {
    case Align::avg:
      return simulate_as<kFetch, Align::avg>(t, rows);
    case Align::min:
      return simulate_as<kFetch, Align::min>(t, rows);
    case Align::rank:
      break;
  }
  return simulate_as<kFetch, Align::rank>(t, rows);
}

}  // namespace

PerIteration simulate(const IterationTimings& t, const std::vector<size_t>& rows, Align fetch, Align start) {
  switch (fetch) {
    case Align::avg:
      return simulate_fetch<Align::avg>(t, rows, start);
    case Align::min:
      return simulate_fetch<Align::min>(t, rows, start);
    case Align::rank:
      break;
  }
  return simulate_fetch<Align::rank>(t, rows, start);
}

DsSummary summarize(const PerIteration& values, double delay_threshold) {
  DsSummary s;
  s.iterations = values[kIterationTime].size();
  if (s.iterations == 0) return s;
  const double n = static_cast<double>(s.iterations);
  for (size_t c = 0; c < kDsColumns; ++c) {
    double sum = 0;
    for (double v : values[c]) sum += v;
    s.mean[c] = sum / n;
    if (s.iterations < 2) continue;
    double squares = 0;
    for (double v : values[c]) squares += (v - s.mean[c]) * (v - s.mean[c]);
    s.std[c] = std::sqrt(squares / (n - 1));
  }
  size_t delayed = 0;
  for (double d : values[kDelay]) delayed += d > delay_threshold;
  s.effective_delay_percent = static_cast<double>(delayed) / n * 100.0;
  return s;
}

}  // namespace campaign::analysis

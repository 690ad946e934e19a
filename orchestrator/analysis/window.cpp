// Implements analysis/window.hpp: windows and series from the case, one pass over each series
// per epoch (binary search for the window, a running sum for the moving average), then the
// curves stretched and averaged per run and per group.
#include "analysis/window.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/scaling.hpp"
#include "analysis/stats.hpp"
#include "util/strings.hpp"

namespace campaign::analysis {

namespace {

std::string fmt(double v) { return format_cell(Cell(v), true); }

struct Bounds {
  std::optional<double> start, end;
};

// A window bound (Unix s) in ms, on the whole millisecond when it is one: the samples' steps are
// whole ms read from the same kind of text, and 1764075601.025 * 1000 is not exactly an integer.
double bound_ms(double s) {
  const double ms = s * 1000, whole = std::round(ms);
  return std::fabs(ms - whole) < 1e-6 ? whole : ms;
}

// np.convolve(x, np.ones(w) / w, mode="valid") for n >= w.
std::vector<double> valid_average(const std::vector<double>& x, size_t lo, size_t hi, size_t w) {
  std::vector<double> out;
  out.reserve(hi - lo - w + 1);
  double sum = 0;
  for (size_t k = lo; k < hi; ++k) {
    sum += x[k];
    if (k >= lo + w) sum -= x[k - w];
    if (k + 1 >= lo + w) out.push_back(sum / static_cast<double>(w));
  }
  return out;
}

// The `progress: time` curve: a trailing average with partial windows at progress (t - start) /
// (end - start), interpolated at `points` progress values (held flat beyond the first and last).
std::vector<double> time_curve(const SampledSeries& s, size_t lo, size_t hi, double start_ms, double end_ms,
                               size_t w, size_t points) {
  const size_t n = hi - lo;
  std::vector<double> progress(n), smoothed(n), curve(points);
  double sum = 0;
  for (size_t k = 0; k < n; ++k) {
    sum += s.values[lo + k];
    if (k >= w) sum -= s.values[lo + k - w];
    smoothed[k] = sum / static_cast<double>(std::min(k + 1, w));
    progress[k] = 100.0 * (static_cast<double>(s.steps[lo + k]) - start_ms) / (end_ms - start_ms);
  }
  size_t k = 0;
  for (size_t j = 0; j < points; ++j) {
    const double g = 100.0 * static_cast<double>(j) / static_cast<double>(points - 1);
    while (k < n && progress[k] < g) ++k;  // progress[k-1] < g <= progress[k]
    curve[j] = k == 0   ? smoothed[0]
               : k == n ? smoothed[n - 1]
                        : smoothed[k - 1] + (smoothed[k] - smoothed[k - 1]) * (g - progress[k - 1]) /
                                                (progress[k] - progress[k - 1]);
  }
  return curve;
}

// The curves stretched to the longest, summed (callers divide).
std::vector<double> stretched_sum(const std::vector<const std::vector<double>*>& curves) {
  size_t m = 0;
  for (const auto* c : curves) m = std::max(m, c->size());
  std::vector<double> sum(m, 0.0);
  for (const auto* c : curves) {
    const std::vector<double> s = c->size() == m ? *c : stretch(*c, m);
    for (size_t j = 0; j < m; ++j) sum[j] += s[j];
  }
  return sum;
}

std::vector<double> stretched_mean(const std::vector<const std::vector<double>*>& curves) {
  std::vector<double> v = stretched_sum(curves);
  for (double& x : v) x /= static_cast<double>(curves.size());
  return v;
}

// Checks that do not depend on the epoch: a reason, or "".
std::string check_series(const std::vector<const SampledSeries*>& series) {
  for (const SampledSeries* s : series) {
    for (size_t i = 1; i < s->steps.size(); ++i) {
      if (s->steps[i] > s->steps[i - 1]) continue;
      std::string t = std::to_string(s->steps[i]), before = std::to_string(s->steps[i - 1]);
      return s->steps[i] == s->steps[i - 1]
                 ? "series " + s->name + ": duplicate timestamp " + t + " ms (samples " +
                       std::to_string(i - 1) + " and " + std::to_string(i) + ")"
                 : "series " + s->name + ": timestamps not in order (" + t + " ms after " + before +
                       " ms, sample " + std::to_string(i) + ")";
    }
  }
  return "";
}

}  // namespace

std::vector<double> stretch(const std::vector<double>& v, size_t m) {
  const size_t n = v.size();
  if (n == 0 || m == n) return v;
  std::vector<double> out(m);
  for (size_t j = 0; j < m; ++j) {
    const double pos =
        m == 1 ? 0.0 : static_cast<double>(j) * static_cast<double>(n - 1) / static_cast<double>(m - 1);
    const size_t i = std::min(static_cast<size_t>(pos), n - 1);
    out[j] = i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (pos - static_cast<double>(i)) : v[i];
  }
  return out;
}

std::variant<WindowRun, std::string> window_run(const WindowSpec& spec, double warmup, const CaseResult& c) {
  std::map<double, Bounds> windows;
  for (const MetricRow& m : c.metrics) {
    if (!m.step || (m.name != spec.start && m.name != spec.end)) continue;
    (m.name == spec.start ? windows[*m.step].start : windows[*m.step].end) = m.value;
  }
  if (windows.empty())
    return "no epoch windows ('" + spec.start + "', '" + spec.end + "' per epoch; no epochs file collected?)";
  std::vector<const SampledSeries*> series;
  for (const SampledSeries& s : c.sampled)
    if (matches_template(spec.series, s.name)) series.push_back(&s);
  if (series.empty()) return "no series '" + spec.series + "' (no sampler file collected?)";
  if (std::string why = check_series(series); !why.empty()) return why;
  for (const auto& [epoch, b] : windows)
    if (b.start && b.end && *b.end < *b.start)
      return "epoch " + fmt(epoch) + " ends before it starts (" + spec.end + " " + format_exact(*b.end) +
             " < " + spec.start + " " + format_exact(*b.start) + ")";

  WindowRun run;
  run.unit = series.front()->unit;
  const size_t w = static_cast<size_t>(spec.smooth);
  const bool by_time = spec.progress == WindowSpec::Progress::time;
  for (const auto& [epoch, b] : windows) {
    if (epoch < warmup) continue;
    auto skip = [&, e = epoch](const std::string& why) {
      run.skipped.push_back("epoch " + fmt(e) + ": " + why);
    };
    if (!b.start || !b.end) {
      skip(std::string("no ") + (b.start ? spec.end : spec.start));
      continue;
    }
    const double start_ms = bound_ms(*b.start), end_ms = bound_ms(*b.end);
    const std::string span = " ([" + format_exact(*b.start) + ", " + format_exact(*b.end) + "] s)";
    WindowRun::Epoch e{epoch, 0, {}};
    std::vector<std::vector<double>> curves;
    std::string why;
    for (const SampledSeries* s : series) {
      if (s->steps.empty() || !(static_cast<double>(s->steps.front()) < start_ms))
        return "epoch " + fmt(epoch) + ": no sample of " + s->name + " before its start" + span +
               " (the study's 'missing util values in the beginning')";
      if (!(static_cast<double>(s->steps.back()) > end_ms)) {
        why = "no sample of " + s->name + " after its end";
        break;
      }
      // Steps are integers: the first >= start_ms and the first > end_ms.
      auto lo =
          std::lower_bound(s->steps.begin(), s->steps.end(), static_cast<std::int64_t>(std::ceil(start_ms)));
      auto hi = std::upper_bound(lo, s->steps.end(), static_cast<std::int64_t>(std::floor(end_ms)));
      const size_t a = static_cast<size_t>(lo - s->steps.begin()),
                   z = static_cast<size_t>(hi - s->steps.begin());
      const size_t need = by_time ? 1 : w;
      if (z - a < need) {
        why = std::to_string(z - a) + " sample(s) of " + s->name + " in the window" +
              (need > 1 ? ", fewer than the moving average's " + std::to_string(need) : "");
        break;
      }
      if (by_time && *b.end == *b.start) {
        why = "empty window";
        break;
      }
      double sum = 0;
      for (size_t k = a; k < z; ++k) sum += s->values[k];
      e.mean += sum / static_cast<double>(z - a);
      curves.push_back(by_time ? time_curve(*s, a, z, start_ms, end_ms, w, static_cast<size_t>(spec.points))
                               : valid_average(s->values, a, z, w));
    }
    if (!why.empty()) {
      skip(why + span);
      continue;
    }
    e.mean /= static_cast<double>(series.size());
    std::vector<const std::vector<double>*> ptrs;
    for (const auto& cv : curves) ptrs.push_back(&cv);
    e.curve = curves.size() == 1 ? std::move(curves.front()) : stretched_mean(ptrs);
    run.epochs.push_back(std::move(e));
  }
  if (run.epochs.empty())
    return "no epoch at or after warm-up (" + fmt(warmup) + ") is covered by the samples of '" + spec.series +
           "'" +
           (run.skipped.empty() ? ""
                                : " (" + run.skipped.front() + (run.skipped.size() > 1 ? ", ..." : "") + ")");
  std::vector<const std::vector<double>*> ptrs;
  for (const auto& e : run.epochs) {
    run.mean += e.mean;
    ptrs.push_back(&e.curve);
  }
  run.mean /= static_cast<double>(run.epochs.size());
  run.curve = stretched_mean(ptrs);
  return run;
}

namespace {

const std::string* param(const CaseResult& c, const std::string& k) {
  auto it = c.params.find(k);
  return it == c.params.end() ? nullptr : &it->second;
}

struct NaturalLess {
  bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), natural_less);
  }
};

struct Band {
  std::string label, sfx;
  std::vector<double> mean, std;  // std empty for a single repetition
};

// The repetitions' curves stretched to their longest: mean and population std per index.
Band band_of(const std::vector<const std::vector<double>*>& curves) {
  Band b;
  b.mean = stretched_mean(curves);
  if (curves.size() < 2) return b;
  const size_t m = b.mean.size();
  b.std.assign(m, 0.0);
  for (const auto* c : curves) {
    const std::vector<double> s = c->size() == m ? *c : stretch(*c, m);
    for (size_t j = 0; j < m; ++j) b.std[j] += (s[j] - b.mean[j]) * (s[j] - b.mean[j]);
  }
  for (double& v : b.std) v = std::sqrt(v / static_cast<double>(curves.size()));
  return b;
}

double progress_at(size_t j, size_t n) {
  return n < 2 ? 0.0 : 100.0 * static_cast<double>(j) / static_cast<double>(n - 1);
}

}  // namespace

AnalysisResult analyze_window(const AnalysisSpec& spec, const std::vector<CaseResult>& cases) {
  const WindowSpec& w = *spec.window;
  struct Curve {
    const CaseResult* c;
    std::vector<double> values;
  };
  std::vector<Curve> curves;
  std::vector<std::string> skipped;
  AnalysisResult res = analyze_with(spec, cases, [&](const CaseResult& c) -> CaseValue {
    auto r = window_run(w, spec.time.warmup, c);
    if (auto* why = std::get_if<std::string>(&r)) return {std::nullopt, "", *why};
    WindowRun& run = std::get<WindowRun>(r);
    if (!run.skipped.empty()) {
      std::vector<std::string> shown(
          run.skipped.begin(),
          run.skipped.begin() + std::min<long>(3, static_cast<long>(run.skipped.size())));
      skipped.push_back("case " + c.name + ": " + std::to_string(run.skipped.size()) + " epoch(s) skipped: " +
                        join(shown, "; ") + (run.skipped.size() > shown.size() ? "; ..." : ""));
    }
    curves.push_back({&c, std::move(run.curve)});
    return {run.mean, run.unit, ""};
  });
  res.notes.insert(res.notes.end(), skipped.begin(), skipped.end());

  // Curve tables: one per summary table (its group_by values, and the parameters the tables were
  // split by), one line per x (and compare value) over the repetitions.
  const std::string col = value_column(spec);
  using Lines = std::map<std::vector<std::string>, std::vector<const std::vector<double>*>, NaturalLess>;
  std::vector<Lines> groups(res.tables.size());
  for (const Curve& cv : curves) {
    std::vector<std::string> line{*param(*cv.c, spec.x)};
    if (spec.compare) line.push_back(*param(*cv.c, spec.compare->axis));
    for (size_t i = 0; i < res.tables.size(); ++i) {
      bool in = true;
      for (const auto& [k, v] : res.tables[i].group) {
        const std::string* p = param(*cv.c, k);
        in &= (p ? *p : std::string("(unset)")) == v;
      }
      if (in) {
        groups[i][line].push_back(&cv.values);
        break;
      }
    }
  }
  std::string unit;
  for (const auto& t : res.tables)
    if (auto u = t.units.find(col); u != t.units.end()) unit = u->second;
  const bool own_axis = w.progress == WindowSpec::Progress::samples;
  const size_t summaries = res.tables.size();
  for (size_t i = 0; i < summaries; ++i) {
    if (groups[i].empty()) continue;
    std::vector<Band> bands;
    size_t rows = 0;
    for (const auto& [line, members] : groups[i]) {
      Band b = band_of(members);
      b.label = spec.x + "=" + line[0], b.sfx = "_" + line[0];
      if (spec.compare) b.label += ", " + spec.compare->axis + "=" + line[1], b.sfx += "_" + line[1];
      rows = std::max(rows, b.mean.size());
      bands.push_back(std::move(b));
    }
    Table t;
    t.analysis = spec.name + "-progress";
    t.scaling = spec.scaling;
    t.x = "progress";
    t.detail = true;
    t.group = res.tables[i].group;
    t.columns = {"progress"};
    t.units["progress"] = "%";
    for (const Band& b : bands) {
      t.series.push_back({b.label, b.sfx});
      if (own_axis) t.columns.push_back("progress" + b.sfx), t.units["progress" + b.sfx] = "%";
      for (const std::string& c : {col + b.sfx, col + "_std" + b.sfx}) {
        t.columns.push_back(c);
        if (!unit.empty()) t.units[c] = unit;
      }
    }
    for (size_t j = 0; j < rows; ++j) {
      std::vector<Cell> row{Cell(progress_at(j, rows))};
      for (const Band& b : bands) {
        const bool in = j < b.mean.size();
        if (own_axis) row.push_back(in ? Cell(progress_at(j, b.mean.size())) : Cell());
        row.push_back(in ? Cell(b.mean[j]) : Cell());
        row.push_back(in && !b.std.empty() ? Cell(b.std[j]) : Cell());
      }
      t.rows.push_back(std::move(row));
    }
    t.notes.push_back(
        col + " vs epoch progress: mean ± population std over repetitions of each run's mean curve (" +
        (own_axis ? "moving average of " + std::to_string(w.smooth) +
                        " samples, full windows only; curves stretched to the longest by linear "
                        "interpolation; progress by sample index"
                  : "progress by time at " + std::to_string(w.points) + " points, trailing average of " +
                        std::to_string(w.smooth) + " samples") +
        "; epochs >= " + fmt(spec.time.warmup) + ")");
    res.tables.push_back(std::move(t));
  }
  return res;
}

}  // namespace campaign::analysis

// Implements analysis/window.hpp: windows and series from the case, one pass
// over each series per epoch (binary search for the window, a running sum
// for the moving average, a merge walk for the interpolation).
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

// The samples of one series in one window, smoothed and interpolated onto the progress grid; adds to `curve`.
void add_curve(const SampledSeries& s, size_t lo, size_t hi, double start_ms, double end_ms, int smooth,
               std::vector<double>& curve) {
  const size_t n = hi - lo, points = curve.size();
  std::vector<double> progress(n), smoothed(n);
  double sum = 0;
  for (size_t k = 0; k < n; ++k) {
    sum += s.values[lo + k];
    if (k >= static_cast<size_t>(smooth)) sum -= s.values[lo + k - static_cast<size_t>(smooth)];
    smoothed[k] = sum / static_cast<double>(std::min(k + 1, static_cast<size_t>(smooth)));
    progress[k] = 100.0 * (static_cast<double>(s.steps[lo + k]) - start_ms) / (end_ms - start_ms);
  }
  size_t k = 0;
  for (size_t j = 0; j < points; ++j) {
    double g = 100.0 * static_cast<double>(j) / static_cast<double>(points - 1);
    while (k < n && progress[k] < g) ++k;  // progress[k-1] < g <= progress[k]
    double v;
    if (k == 0)
      v = smoothed[0];
    else if (k == n)
      v = smoothed[n - 1];
    else
      v = smoothed[k - 1] +
          (smoothed[k] - smoothed[k - 1]) * (g - progress[k - 1]) / (progress[k] - progress[k - 1]);
    curve[j] += v;
  }
}

}  // namespace

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
  for (const auto& [epoch, b] : windows)
    if (b.start && b.end && *b.end < *b.start)
      return "epoch " + fmt(epoch) + " ends before it starts (" + spec.end + " " + format_exact(*b.end) +
             " < " + spec.start + " " + format_exact(*b.start) + ")";

  WindowRun run;
  run.unit = series.front()->unit;
  run.curve.assign(static_cast<size_t>(spec.points), 0.0);
  size_t counted = 0;
  for (const auto& [epoch, b] : windows) {
    auto skip = [&, e = epoch](const std::string& why) {
      run.skipped.push_back("epoch " + fmt(e) + ": " + why);
    };
    if (!b.start || !b.end) {
      skip(std::string("no ") + (b.start ? spec.end : spec.start));
      continue;
    }
    if (*b.end == *b.start) {
      skip("empty window");
      continue;
    }
    const double start_ms = *b.start * 1000, end_ms = *b.end * 1000;
    WindowRun::Epoch e{epoch, 0, std::vector<double>(static_cast<size_t>(spec.points), 0.0)};
    std::string why;
    for (const SampledSeries* s : series) {
      if (s->steps.empty() || static_cast<double>(s->steps.back()) < end_ms) {
        why = "window past the last sample of " + s->name;
        break;
      }
      if (static_cast<double>(s->steps.front()) > start_ms) {
        why = "window before the first sample of " + s->name;
        break;
      }
      // Steps are integers: the first >= start_ms and the first > end_ms.
      auto lo =
          std::lower_bound(s->steps.begin(), s->steps.end(), static_cast<std::int64_t>(std::ceil(start_ms)));
      auto hi = std::upper_bound(lo, s->steps.end(), static_cast<std::int64_t>(std::floor(end_ms)));
      if (lo == hi) {
        why = "no sample of " + s->name + " inside the window";
        break;
      }
      size_t a = static_cast<size_t>(lo - s->steps.begin()), z = static_cast<size_t>(hi - s->steps.begin());
      double sum = 0;
      for (size_t k = a; k < z; ++k) sum += s->values[k];
      e.mean += sum / static_cast<double>(z - a);
      add_curve(*s, a, z, start_ms, end_ms, spec.smooth, e.curve);
    }
    if (!why.empty()) {
      skip(why + " ([" + format_exact(*b.start) + ", " + format_exact(*b.end) + "] s)");
      continue;
    }
    const double ns = static_cast<double>(series.size());
    e.mean /= ns;
    for (double& v : e.curve) v /= ns;
    if (epoch >= warmup) {
      run.mean += e.mean;
      for (size_t j = 0; j < e.curve.size(); ++j) run.curve[j] += e.curve[j];
      ++counted;
    }
    run.epochs.push_back(std::move(e));
  }
  if (counted == 0)
    return "no epoch at or after warm-up (" + fmt(warmup) + ") is covered by the samples of '" + spec.series +
           "'" +
           (run.skipped.empty() ? ""
                                : " (" + run.skipped.front() + (run.skipped.size() > 1 ? ", ..." : "") + ")");
  run.mean /= static_cast<double>(counted);
  for (double& v : run.curve) v /= static_cast<double>(counted);
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
      skipped.push_back("case " + c.name + ": " + std::to_string(run.skipped.size()) +
                        " epoch(s) skipped, not covered by the samples: " + join(shown, "; ") +
                        (run.skipped.size() > shown.size() ? "; ..." : ""));
    }
    curves.push_back({&c, std::move(run.curve)});
    return {run.mean, run.unit, ""};
  });
  res.notes.insert(res.notes.end(), skipped.begin(), skipped.end());

  // Curve tables: one per summary table (its group_by values, and the parameters the tables were
  // split by), one line per x (and compare value), mean and std of the repetitions.
  const std::string col = value_column(spec);
  using Lines = std::map<std::vector<std::string>, std::vector<const Curve*>, NaturalLess>;
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
        groups[i][line].push_back(&cv);
        break;
      }
    }
  }
  std::string unit;
  for (const auto& t : res.tables)
    if (auto u = t.units.find(col); u != t.units.end()) unit = u->second;
  const size_t summaries = res.tables.size();
  for (size_t i = 0; i < summaries; ++i) {
    const Lines& lines = groups[i];
    if (lines.empty()) continue;
    Table t;
    t.analysis = spec.name + "-progress";
    t.scaling = spec.scaling;
    t.x = "progress";
    t.detail = true;
    t.group = res.tables[i].group;
    t.columns = {"progress"};
    t.units["progress"] = "%";
    for (const auto& [line, members] : lines) {
      std::string label = spec.x + "=" + line[0], sfx = "_" + line[0];
      if (spec.compare) label += ", " + spec.compare->axis + "=" + line[1], sfx += "_" + line[1];
      t.series.push_back({label, sfx});
      for (const std::string& c : {col + sfx, col + "_std" + sfx}) {
        t.columns.push_back(c);
        if (!unit.empty()) t.units[c] = unit;
      }
    }
    for (size_t j = 0; j < static_cast<size_t>(w.points); ++j) {
      std::vector<Cell> row{Cell(100.0 * static_cast<double>(j) / (w.points - 1))};
      for (const auto& [line, members] : lines) {
        std::vector<double> v;
        for (const Curve* cv : members) v.push_back(cv->values[j]);
        Summary s = summarize(v);
        row.push_back(Cell(s.mean));
        row.push_back(s.std ? Cell(*s.std) : Cell());
      }
      t.rows.push_back(std::move(row));
    }
    t.notes.push_back(
        col + " vs epoch progress: mean ± std over repetitions of each run's mean curve (epochs >= " +
        fmt(spec.time.warmup) + ", moving average of " + std::to_string(w.smooth) + " samples)");
    res.tables.push_back(std::move(t));
  }
  return res;
}

}  // namespace campaign::analysis

// Implements analysis/scaling.hpp (formulas, scope and invariant are there):
// cases -> points -> groups -> series -> one row per x.
#include "analysis/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "analysis/mlperf.hpp"
#include "analysis/stalls.hpp"
#include "analysis/stats.hpp"
#include "analysis/window.hpp"
#include "spec/expression.hpp"
#include "util/strings.hpp"

namespace campaign::analysis {

using spec::Expression;
using spec::ExpressionError;
using spec::parse_number;

bool usable_state(const std::string& state) { return state == "collected" || state == "completed"; }

namespace {

struct MetricMean {
  bool present = false;  // the metric was collected at all
  std::optional<double> mean;
  std::string unit;
};

// Per-step rows count from `warmup` on; a metric collected without steps
// (e.g. a total runtime) is used as is.
MetricMean mean_after_warmup(const std::vector<MetricRow>& rows, const std::string& name, double warmup) {
  MetricMean m;
  double stepped_sum = 0, plain_sum = 0;
  size_t stepped_n = 0, plain_n = 0;
  bool stepped = false;
  for (const MetricRow& r : rows) {
    if (r.name != name) continue;
    m.present = true;
    if (m.unit.empty()) m.unit = r.unit;
    if (r.step) {
      stepped = true;
      if (*r.step >= warmup) stepped_sum += r.value, ++stepped_n;
    } else {
      plain_sum += r.value, ++plain_n;
    }
  }
  if (stepped) {
    if (stepped_n) m.mean = stepped_sum / static_cast<double>(stepped_n);
  } else if (plain_n) {
    m.mean = plain_sum / static_cast<double>(plain_n);
  }
  return m;
}

const std::string* find_param(const CaseResult& c, const std::string& key) {
  auto it = c.params.find(key);
  return it == c.params.end() ? nullptr : &it->second;
}

// One usable case, reduced to what the tables need.
struct Point {
  size_t case_index = 0;
  std::vector<std::string> group;  // group_by values, then implicit ones
  std::string cmp;                 // compare value ("" without compare)
  std::string x;
  double xnum = 0;
  double time = 0;
  std::optional<double> samples;
  std::optional<double> stall;
};

struct NaturalLess {
  bool operator()(const std::string& a, const std::string& b) const { return natural_less(a, b); }
  bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), natural_less);
  }
};

// All repetitions of one x in one series.
struct Stat {
  double xnum = 0;
  Summary time;
  std::vector<double> times;  // the repetitions', for MLPerf HPC's score
  std::optional<Summary> throughput;
  std::optional<double> samples;
  std::optional<Summary> stall;
};

// A rate over repetitions: samples / the mean time (the CosmoFlow study's; the mean of the
// repetitions' rates would be the mean of inverses, another quantity). Its std by first-order
// propagation of the times' std, samples * std(t) / mean(t)^2; min, max and median are samples
// over the times' max, min and median.
Summary rate_of(double samples, const Summary& time) {
  Summary r = time;
  r.mean = samples / time.mean;
  if (time.std) r.std = samples * *time.std / (time.mean * time.mean);
  r.min = samples / time.max;
  r.max = samples / time.min;
  r.median = samples / time.median;
  return r;
}

Stat reduce(const std::vector<const Point*>& reps) {
  Stat s;
  s.xnum = reps.front()->xnum;
  std::vector<double> times, stalls;
  double samples_sum = 0;
  bool all_samples = true;
  for (const Point* p : reps) {
    times.push_back(p->time);
    if (p->samples)
      samples_sum += *p->samples;
    else
      all_samples = false;
    if (p->stall) stalls.push_back(*p->stall);
  }
  s.time = summarize(times);
  s.times = times;
  if (all_samples) {
    s.samples = samples_sum / static_cast<double>(reps.size());
    s.throughput = rate_of(*s.samples, s.time);
  }
  if (!stalls.empty()) s.stall = summarize(stalls);
  return s;
}

std::optional<double> aggregate_of(const Summary& s, Aggregate a) {
  switch (a) {
    case Aggregate::mean:
      return s.mean;
    case Aggregate::std:
      return s.std;
    case Aggregate::min:
      return s.min;
    case Aggregate::max:
      return s.max;
    case Aggregate::median:
      return s.median;
    case Aggregate::count:
      return static_cast<double>(s.count);
  }
  return std::nullopt;
}

std::optional<double> ratio_std(double ratio, const Summary& a, const Summary& b) {
  if (!a.std || !b.std) return std::nullopt;
  double ra = *a.std / a.mean, rb = *b.std / b.mean;  // relative errors add in quadrature
  return std::fabs(ratio) * std::sqrt(ra * ra + rb * rb);
}

std::string fmt(double v) { return format_cell(Cell(v)); }

struct SeriesData {
  Series series;
  std::map<std::string, Stat, NaturalLess> at;  // by x
};

class TableBuilder {
 public:
  TableBuilder(const AnalysisSpec& spec, const std::vector<Aggregate>& stats, const std::string& time_unit)
      : spec_(spec), stats_(stats), time_unit_(time_unit), column_(value_column(spec)) {}

  Table build(const std::vector<std::string>& group_names, const std::vector<std::string>& group_values,
              const std::vector<const Point*>& points) {
    Table t;
    t.analysis = spec_.name;
    t.scaling = spec_.scaling;
    t.x = spec_.x;
    for (size_t i = 0; i < group_names.size(); ++i) t.group.emplace_back(group_names[i], group_values[i]);

    std::vector<SeriesData> series = split_series(points, t);
    for (const auto& s : series) t.series.push_back(s.series);
    bool shared_samples = samples_agree(series);
    add_columns(t, series, shared_samples);

    std::set<std::string, NaturalLess> xs;
    for (const auto& s : series) {
      for (const auto& [x, stat] : s.at) xs.insert(x);
    }
    bool numeric_x = std::all_of(xs.begin(), xs.end(), [](const std::string& x) {
      double d;
      return parse_number(x, d);
    });
    for (const std::string& x : xs) {
      row_of_[x] = t.rows.size();
      row_.assign(t.columns.size(), Cell());
      double d = 0;
      if (numeric_x && parse_number(x, d))
        set(t, t.x, Cell(d));
      else
        set(t, t.x, Cell(x));
      for (const auto& s : series) fill_series(t, s, x, shared_samples);
      if (spec_.ratio && spec_.compare && spec_.ratio->axis == spec_.compare->axis)
        fill_compare_ratio(t, series, x);
      t.rows.push_back(std::move(row_));
    }
    if (spec_.ratio && spec_.ratio->axis == spec_.x) x_ratio_notes(t, series);
    return t;
  }

 private:
  bool scaled() const { return spec_.scaling == Scaling::weak || strong_tables(spec_.scaling); }
  bool has_samples() const { return !spec_.samples.empty(); }
  bool wants(Aggregate a) const { return std::find(stats_.begin(), stats_.end(), a) != stats_.end(); }

  std::vector<SeriesData> split_series(const std::vector<const Point*>& points, Table& t) const {
    std::map<std::string, std::map<std::string, std::vector<const Point*>, NaturalLess>, NaturalLess> by;
    for (const Point* p : points) by[p->cmp][p->x].push_back(p);
    std::vector<SeriesData> out;
    auto add = [&](const std::string& label, const std::string& suffix) {
      SeriesData s{{label, suffix}, {}};
      auto it = by.find(label);
      if (it != by.end()) {
        for (const auto& [x, reps] : it->second) s.at.emplace(x, reduce(reps));
      }
      out.push_back(std::move(s));
    };
    if (!spec_.compare) {
      add("", "");
      return out;
    }
    const std::string& base = spec_.compare->baseline;
    add(base, "");  // always present, so every group's table has the same first columns
    if (!by.count(base)) t.notes.push_back("no usable cases with " + spec_.compare->axis + "=" + base);
    for (const auto& [label, xs] : by) {
      if (label != base) add(label, "_" + label);
    }
    return out;
  }

  // One `samples` column serves every series when they agree wherever they meet.
  bool samples_agree(const std::vector<SeriesData>& series) const {
    if (!has_samples()) return true;
    std::map<std::string, double> seen;
    for (const auto& s : series) {
      for (const auto& [x, st] : s.at) {
        if (!st.samples) continue;
        auto [it, fresh] = seen.emplace(x, *st.samples);
        if (!fresh && std::fabs(it->second - *st.samples) > 1e-9 * std::fabs(it->second)) return false;
      }
    }
    return true;
  }

  void push(Table& t, const std::string& name, const std::string& unit = "") {
    index_[name] = t.columns.size();
    t.columns.push_back(name);
    if (!unit.empty()) t.units[name] = unit;
  }

  void add_columns(Table& t, const std::vector<SeriesData>& series, bool shared_samples) {
    std::string thr_unit = time_unit_.empty() ? "" : "samples/" + time_unit_;
    push(t, t.x);
    if (has_samples() && shared_samples) push(t, "samples");
    for (const auto& sd : series) {
      const std::string& sfx = sd.series.suffix;
      if (has_samples() && !shared_samples) push(t, "samples" + sfx);
      push(t, column_ + sfx, time_unit_);
      for (Aggregate a : stats_) {
        if (a != Aggregate::mean && a != Aggregate::count)
          push(t, column_ + "_" + std::string(to_string(a)) + sfx, time_unit_);
      }
      if (spec_.scaling == Scaling::mlperf_strong) push(t, column_ + "_score" + sfx, time_unit_);
      if (has_samples()) {
        push(t, "throughputs" + sfx, thr_unit);
        for (Aggregate a : stats_) {
          if (a != Aggregate::mean && a != Aggregate::count)
            push(t, "throughputs_" + std::string(to_string(a)) + sfx, thr_unit);
        }
      }
      if (strong_tables(spec_.scaling)) push(t, "speedup" + sfx);
      if (scaled() && has_samples()) push(t, "ideal" + sfx, thr_unit);
      if (scaled()) push(t, "eff" + sfx);
      if (spec_.stall) {
        push(t, "stall" + sfx);
        if (wants(Aggregate::std)) push(t, "stall_std" + sfx);
      }
      if (spec_.ratio && spec_.ratio->axis == spec_.x) {
        push(t, "ratio" + sfx);
        if (wants(Aggregate::std)) push(t, "ratio_std" + sfx);
      }
      if (wants(Aggregate::count)) push(t, "count" + sfx);
    }
    if (spec_.ratio && spec_.compare && spec_.ratio->axis == spec_.compare->axis) {
      push(t, "ratio");
      if (wants(Aggregate::std)) push(t, "ratio_std");
    }
  }

  void set(const Table&, const std::string& column, Cell value) {
    auto it = index_.find(column);
    if (it != index_.end()) row_[it->second] = std::move(value);
  }
  void set(const Table& t, const std::string& column, std::optional<double> value) {
    if (value) set(t, column, Cell(*value));
  }

  void fill_summary(const Table& t, const std::string& base, const std::string& sfx, const Summary& s) {
    set(t, base + sfx, Cell(s.mean));
    for (Aggregate a : stats_) {
      if (a != Aggregate::mean && a != Aggregate::count)
        set(t, base + "_" + std::string(to_string(a)) + sfx, aggregate_of(s, a));
    }
  }

  void fill_series(const Table& t, const SeriesData& sd, const std::string& x, bool shared_samples) {
    auto it = sd.at.find(x);
    if (it == sd.at.end()) return;
    const Stat& st = it->second;
    const std::string& sfx = sd.series.suffix;
    set(t, shared_samples ? "samples" : "samples" + sfx, st.samples);
    fill_summary(t, column_, sfx, st.time);
    if (spec_.scaling == Scaling::mlperf_strong)
      set(t, column_ + "_score" + sfx, time_to_train_score(st.times));
    if (st.throughput) fill_summary(t, "throughputs", sfx, *st.throughput);
    if (scaled()) {
      const Stat& r0 = sd.at.begin()->second;  // numeric order: the smallest r
      double scale = st.xnum / r0.xnum;
      if (strong_tables(spec_.scaling)) {
        double speedup = r0.time.mean / st.time.mean;
        set(t, "speedup" + sfx, Cell(speedup));
        set(t, "eff" + sfx, Cell(speedup / scale));
      }
      if (st.throughput && r0.throughput) {
        double ideal = r0.throughput->mean * scale;
        set(t, "ideal" + sfx, Cell(ideal));
        if (spec_.scaling == Scaling::weak) set(t, "eff" + sfx, Cell(st.throughput->mean / ideal));
      }
    }
    if (st.stall) {
      set(t, "stall" + sfx, Cell(st.stall->mean));
      set(t, "stall_std" + sfx, st.stall->std);
    }
    set(t, "count" + sfx, Cell(static_cast<double>(st.time.count)));
  }

  void fill_compare_ratio(const Table& t, const std::vector<SeriesData>& series, const std::string& x) {
    const Stat *num = nullptr, *den = nullptr;
    for (const auto& s : series) {
      auto it = s.at.find(x);
      if (it == s.at.end()) continue;
      if (s.series.label == spec_.ratio->numerator) num = &it->second;
      if (s.series.label == spec_.ratio->denominator) den = &it->second;
    }
    if (!num || !den) return;
    double r = num->time.mean / den->time.mean;
    set(t, "ratio", Cell(r));
    set(t, "ratio_std", ratio_std(r, num->time, den->time));
  }

  // Ratio along x: one number per series, shown on the numerator's row and as a note.
  void x_ratio_notes(Table& t, const std::vector<SeriesData>& series) {
    const RatioSpec& rs = *spec_.ratio;
    for (const auto& s : series) {
      std::string what = column_ + "(" + rs.axis + "=" + rs.numerator + ") / " + column_ + "(" + rs.axis +
                         "=" + rs.denominator + ")";
      if (!s.series.label.empty()) what += " [" + spec_.compare->axis + "=" + s.series.label + "]";
      auto num = s.at.find(rs.numerator), den = s.at.find(rs.denominator);
      if (num == s.at.end() || den == s.at.end()) {
        t.notes.push_back(what + ": not measured");
        continue;
      }
      double r = num->second.time.mean / den->second.time.mean;
      std::optional<double> sd = ratio_std(r, num->second.time, den->second.time);
      size_t row = row_of_.at(rs.numerator);
      t.rows[row][index_.at("ratio" + s.series.suffix)] = r;
      if (sd && index_.count("ratio_std" + s.series.suffix))
        t.rows[row][index_.at("ratio_std" + s.series.suffix)] = *sd;
      t.notes.push_back(what + " = " + fmt(r) + (sd ? " ± " + fmt(*sd) : ""));
    }
  }

  const AnalysisSpec& spec_;
  const std::vector<Aggregate>& stats_;
  const std::string& time_unit_;
  const std::string column_;                       // "times", or the window analysis' value
  std::unordered_map<std::string, size_t> index_;  // column -> position
  std::map<std::string, size_t> row_of_;           // x -> row
  std::vector<Cell> row_;
};

}  // namespace

namespace {

CaseValue measure_time(const AnalysisSpec& spec, const CaseResult& c) {
  const std::string& metric = spec.time.metric;
  MetricMean t = mean_after_warmup(c.metrics, metric, spec.time.warmup);
  if (!t.present) return {std::nullopt, "", "no metric '" + metric + "'"};
  if (!t.mean)
    return {std::nullopt, "",
            "no '" + metric + "' at steps >= " + fmt(spec.time.warmup) + " (after warm-up)"};
  if (!(*t.mean > 0))
    return {std::nullopt, "", "mean '" + metric + "' is " + fmt(*t.mean) + ", not a positive time"};
  return {t.mean, t.unit, ""};
}

}  // namespace

AnalysisResult analyze(const AnalysisSpec& spec, const std::vector<CaseResult>& cases) {
  switch (spec.scaling) {
    case Scaling::mlperf_weak:
      return analyze_mlperf_weak(spec, cases);
    case Scaling::mlperf_strong:
      return analyze_with(spec, cases, measure_time_to_train);
    case Scaling::window:
      return analyze_window(spec, cases);
    case Scaling::stalls:
      return analyze_stalls(spec, cases);
    default:
      return analyze_with(spec, cases, [&](const CaseResult& c) { return measure_time(spec, c); });
  }
}

AnalysisResult analyze_with(const AnalysisSpec& spec, const std::vector<CaseResult>& cases,
                            const Measure& measure) {
  AnalysisResult res;
  res.spec = spec;
  std::optional<Expression> samples;
  if (!spec.samples.empty()) samples.emplace(spec.samples);  // compiled once for all cases
  const bool scaled = spec.scaling == Scaling::weak || strong_tables(spec.scaling);

  std::vector<Point> points;
  std::string time_unit;
  std::map<std::string, size_t> out_of_scope;  // missing parameter -> cases
  auto exclude = [&](const CaseResult& c, std::string why) {
    res.excluded.push_back({c.name, c.state, std::move(why)});
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& c = cases[i];
    if (!spec.step.empty() && c.step != spec.step) continue;
    // Scope: the step, and every parameter the analysis is laid out by. A case
    // without them belongs to another study of the campaign, but is counted.
    Point p;
    p.case_index = i;
    std::string missing;
    for (const std::string& key : spec.group_by) {
      if (const std::string* v = find_param(c, key))
        p.group.push_back(*v);
      else
        missing = key;
    }
    const std::string* xv = find_param(c, spec.x);
    const std::string* cv = spec.compare ? find_param(c, spec.compare->axis) : &p.cmp;
    if (!xv) missing = spec.x;
    if (!cv) missing = spec.compare->axis;
    if (!missing.empty()) {
      ++out_of_scope[missing];
      continue;
    }
    if (!usable_state(c.state)) {
      exclude(c, "state is " + (c.state.empty() ? std::string("unknown") : c.state));
      continue;
    }
    p.x = *xv;
    p.cmp = *cv;
    if (scaled && (!parse_number(p.x, p.xnum) || p.xnum <= 0)) {
      exclude(c, spec.x + " = '" + p.x + "' is not a positive number");
      continue;
    }
    CaseValue m = measure(c);
    if (!m.value) {
      exclude(c, m.why);
      continue;
    }
    p.time = *m.value;
    if (time_unit.empty()) time_unit = m.unit;
    if (samples) {
      try {
        p.samples = samples->eval(c.params);
      } catch (const ExpressionError& e) {
        exclude(c, std::string("samples: ") + e.what());
        continue;
      }
    }
    if (spec.stall) {
      MetricMean d = mean_after_warmup(c.metrics, spec.stall->data, spec.time.warmup);
      MetricMean k = mean_after_warmup(c.metrics, spec.stall->compute, spec.time.warmup);
      if (d.mean && k.mean && *d.mean + *k.mean > 0) p.stall = *d.mean / (*d.mean + *k.mean);
    }
    points.push_back(std::move(p));
  }

  for (const auto& [param, n] : out_of_scope)
    res.notes.push_back(std::to_string(n) + " case(s) without parameter '" + param +
                        "' are not part of this analysis");

  // A parameter differing between cases that share group, compare value, x and
  // repeat is a dimension the spec did not name: split by it rather than
  // averaging unlike cases.
  std::set<std::string> fixed(spec.group_by.begin(), spec.group_by.end());
  fixed.insert(spec.x);
  fixed.insert(spec.repeat);
  if (spec.compare) fixed.insert(spec.compare->axis);
  std::set<std::string> candidates;
  for (const Point& p : points) {
    for (const auto& [k, v] : cases[p.case_index].params) {
      if (!fixed.count(k)) candidates.insert(k);
    }
  }
  auto value_of = [&](const Point& p, const std::string& k) {
    const std::string* v = find_param(cases[p.case_index], k);
    return v ? *v : std::string("(unset)");
  };
  auto point_key = [&](const Point& p, bool with_repeat) {
    std::string key = join(p.group, "\x1f") + "\x1e" + p.cmp + "\x1e" + p.x;
    if (with_repeat) {
      key += '\x1e';  // appended piecewise: GCC 12 warns (-Wrestrict) on "lit" + string here
      key += value_of(p, spec.repeat);
    }
    return key;
  };
  std::set<std::string> varying;
  if (!candidates.empty()) {
    std::unordered_map<std::string, size_t> first;
    for (size_t i = 0; i < points.size(); ++i) {
      auto [it, fresh] = first.emplace(point_key(points[i], true), i);
      if (fresh) continue;
      for (const std::string& k : candidates) {
        if (!varying.count(k) && value_of(points[it->second], k) != value_of(points[i], k)) varying.insert(k);
      }
    }
  }
  std::vector<std::string> group_names = spec.group_by;
  for (const std::string& k : varying) {
    group_names.push_back(k);
    for (Point& p : points) p.group.push_back(value_of(p, k));
  }
  if (!varying.empty()) {
    std::vector<std::string> v(varying.begin(), varying.end());
    res.notes.push_back("parameter(s) " + join(v, ", ") + " differ between cases of the same " + spec.x +
                        "; tables are split by them (name them in group_by to make this explicit)");
  }

  std::vector<Aggregate> stats = spec.aggregate;
  if (stats.empty()) {  // automatic: spread and count only when something was repeated
    std::unordered_map<std::string, int> n;
    bool repeated = false;
    for (const Point& p : points) repeated |= ++n[point_key(p, false)] > 1;
    stats = {Aggregate::mean};
    if (repeated) stats.insert(stats.end(), {Aggregate::std, Aggregate::count});
  }

  std::map<std::vector<std::string>, std::vector<const Point*>, NaturalLess> groups;
  for (const Point& p : points) groups[p.group].push_back(&p);
  for (const auto& [values, members] : groups) {
    TableBuilder b(spec, stats, time_unit);
    res.tables.push_back(b.build(group_names, values, members));
  }
  return res;
}

std::vector<AnalysisResult> analyze_all(const std::vector<AnalysisSpec>& specs,
                                        const std::vector<CaseResult>& cases) {
  std::vector<AnalysisResult> out;
  out.reserve(specs.size());
  for (const AnalysisSpec& s : specs) out.push_back(analyze(s, cases));
  return out;
}

}  // namespace campaign::analysis

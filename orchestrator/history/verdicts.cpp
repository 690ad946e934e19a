// Implements history/verdicts.hpp: METRIC parsing, reading a metric from one
// run's tables or cases, and the verdicts against a baseline.
#include "history/verdicts.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "analysis/scaling.hpp"
#include "analysis/stats.hpp"
#include "spec/expression.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace campaign::history {

using namespace analysis;  // the tables and cases a metric is read from
using spec::parse_number;

namespace {

const std::vector<std::string> kReducers = {"mean", "median", "min", "max", "last", "sum"};

[[noreturn]] void bad_metric(const std::string& text, const std::string& message) {
  throw InputError(Location{"campaign history", 0, 0}, "METRIC '" + text + "'", message);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_extreme(const std::string& v) { return v == "max" || v == "min"; }

// Parameter values compare as numbers when both are ("4" = "4.0"), else as text.
bool same_value(const std::string& a, const std::string& b) {
  double x, y;
  if (parse_number(a, x) && parse_number(b, y)) return x == y;
  return a == b;
}

std::string cell_text(const Cell& c) { return format_cell(c); }

std::string describe_conditions(const std::vector<Condition>& conds) {
  std::vector<std::string> parts;
  for (const auto& c : conds) parts.push_back(c.key.empty() ? c.value : c.key + "=" + c.value);
  return join(parts, ",");
}

// --- a column of an analysis table ------------------------------------------

Extraction from_column(const MetricQuery& q, const AnalysisResult& a, const std::string& column) {
  Extraction out;
  out.kind = "column " + column + " of analysis " + a.spec.name;
  const std::string& x = a.spec.x;
  std::optional<Condition> row_cond;
  std::vector<Condition> group_conds;
  std::string suffix;
  std::set<std::string> group_keys;
  for (const auto& t : a.tables)
    for (const auto& [k, v] : t.group) group_keys.insert(k);
  for (const Condition& c : q.conditions) {
    if (c.key.empty() || c.key == x) {
      if (row_cond) {
        out.problem = "two conditions on " + x;
        return out;
      }
      row_cond = c;
    } else if (group_keys.count(c.key)) {
      group_conds.push_back(c);
    } else if (a.spec.compare && c.key == a.spec.compare->axis) {
      suffix = c.value == a.spec.compare->baseline ? "" : "_" + c.value;
    } else {
      std::vector<std::string> keys{x};
      keys.insert(keys.end(), group_keys.begin(), group_keys.end());
      if (a.spec.compare) keys.push_back(a.spec.compare->axis);
      out.problem = "'" + c.key + "' is not a key of analysis " + a.spec.name +
                    " (keys: " + join(keys, ", ") + ")" + did_you_mean(c.key, keys);
      return out;
    }
  }
  const std::string col = column + suffix;
  out.better = column_direction(col);
  bool any_table = false;
  for (const Table& t : a.tables) {
    bool wanted = true;
    for (const Condition& c : group_conds) {
      for (const auto& [k, v] : t.group)
        if (k == c.key && !same_value(v, c.value)) wanted = false;
    }
    if (!wanted || !t.has(col)) continue;
    any_table = true;
    if (out.unit.empty() && t.units.count(col)) out.unit = t.units.at(col);
    std::vector<size_t> rows;
    const int xcol = t.column(t.x);
    if (!row_cond) {
      for (size_t r = 0; r < t.rows.size(); ++r) rows.push_back(r);
    } else if (is_extreme(row_cond->value)) {
      std::optional<size_t> best;
      for (size_t r = 0; r < t.rows.size(); ++r) {
        auto v = t.number(r, t.x);
        if (!v) continue;
        auto b = best ? t.number(*best, t.x) : std::nullopt;
        if (!b || (row_cond->value == "max" ? *v > *b : *v < *b)) best = r;
      }
      if (best) rows.push_back(*best);
    } else {
      for (size_t r = 0; r < t.rows.size(); ++r)
        if (xcol >= 0 && same_value(cell_text(t.rows[r][static_cast<size_t>(xcol)]), row_cond->value))
          rows.push_back(r);
    }
    for (size_t r : rows) {
      auto v = t.number(r, col);
      if (!v) continue;
      std::string xval = xcol >= 0 ? cell_text(t.rows[r][static_cast<size_t>(xcol)]) : "";
      std::vector<std::string> parts;
      if (!t.group.empty()) parts.push_back(t.group_label());
      if (!row_cond) parts.push_back(x + "=" + xval);
      std::string series = parts.empty() ? col : join(parts, ", ");
      Measured m{*v, row_cond && is_extreme(row_cond->value) ? x + "=" + xval : "", 1, std::nullopt};
      // A mean over repetitions comes with its spread and count (the automatic aggregates).
      auto sd = t.number(r, column + "_std" + suffix);
      auto count = t.number(r, "count" + suffix);
      if (sd && count && *count >= 2) m.std = sd, m.n = static_cast<size_t>(*count);
      out.values[series] = std::move(m);
    }
  }
  if (out.values.empty()) {
    if (!any_table)
      out.problem = "no table of analysis " + a.spec.name + " has a column " + col +
                    (group_conds.empty() ? "" : " for " + describe_conditions(group_conds));
    else
      out.problem = "no value of " + col + (row_cond ? " at " + describe_conditions({*row_cond}) : "");
  }
  return out;
}

// --- a collected metric ---------------------------------------------------------

std::optional<double> reduce(const std::vector<MetricRow>& rows, const std::string& name,
                             const std::string& how) {
  std::vector<std::pair<double, double>> all;  // (step, value); whole-run values have step -1
  for (const MetricRow& r : rows)
    if (r.name == name && std::isfinite(r.value)) all.emplace_back(r.step.value_or(-1), r.value);
  if (all.empty()) return std::nullopt;
  std::vector<double> values;
  if (how == "mean" || how == "median") {
    bool later = std::any_of(all.begin(), all.end(), [](auto& p) { return p.first >= 1; });
    for (auto& [step, v] : all)
      if (!later || step >= 1) values.push_back(v);
  } else {
    for (auto& [step, v] : all) values.push_back(v);
  }
  if (how == "last") {
    return std::max_element(all.begin(), all.end(), [](auto& a, auto& b) { return a.first < b.first; })
        ->second;
  }
  if (how == "sum") {
    double s = 0;
    for (double v : values) s += v;
    return s;
  }
  if (how == "min") return *std::min_element(values.begin(), values.end());
  if (how == "max") return *std::max_element(values.begin(), values.end());
  if (how == "median") {
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }
  double s = 0;
  for (double v : values) s += v;
  return s / static_cast<double>(values.size());
}

Extraction from_cases(const MetricQuery& q, const std::string& name, const std::vector<CaseResult>& cases) {
  const std::string how = q.reducer.empty() ? "mean" : q.reducer;
  Extraction out;
  out.kind = "collected metric " + name + " (" + how + " per case)";
  std::set<std::string> params;
  std::vector<const CaseResult*> kept;
  for (const CaseResult& c : cases) {
    for (const auto& [k, v] : c.params) params.insert(k);
    if (usable_state(c.state)) kept.push_back(&c);
  }
  for (const Condition& c : q.conditions) {
    if (c.key.empty()) {
      out.problem = "a bare " + c.value + " needs a parameter for a collected metric: write KEY=" + c.value +
                    " (e.g. ranks=" + c.value + ")";
      return out;
    }
    if (!params.count(c.key)) {
      std::vector<std::string> names(params.begin(), params.end());
      out.problem = "no case has a parameter '" + c.key + "'" + did_you_mean(c.key, names);
      return out;
    }
  }
  auto param = [](const CaseResult* c, const std::string& k) -> const std::string* {
    auto it = c->params.find(k);
    return it == c->params.end() ? nullptr : &it->second;
  };
  for (const Condition& c : q.conditions) {
    if (is_extreme(c.value)) continue;
    std::erase_if(kept, [&](const CaseResult* k) {
      const std::string* v = param(k, c.key);
      return !v || !same_value(*v, c.value);
    });
  }
  for (const Condition& c : q.conditions) {
    if (!is_extreme(c.value)) continue;
    std::optional<double> best;
    for (const CaseResult* k : kept) {
      double d;
      const std::string* v = param(k, c.key);
      if (v && parse_number(*v, d) && (!best || (c.value == "max" ? d > *best : d < *best))) best = d;
    }
    std::erase_if(kept, [&](const CaseResult* k) {
      double d;
      const std::string* v = param(k, c.key);
      return !best || !v || !parse_number(*v, d) || d != *best;
    });
  }
  if (kept.empty()) {
    out.problem =
        "no completed case matches " + (q.conditions.empty() ? "" : describe_conditions(q.conditions));
    return out;
  }
  // Repetitions: cases equal but for `repeat` are one series, named after the first.
  struct Group {
    const CaseResult* first = nullptr;
    std::vector<double> values;
  };
  std::map<std::string, Group> groups;
  for (const CaseResult* c : kept) {
    std::string key;
    for (const auto& [k, v] : c->params)
      if (k != "repeat") key += k + "\x1f" + v + "\x1e";
    Group& g = groups[key];
    const std::string* rep = param(c, "repeat");
    const std::string* first_rep = g.first ? param(g.first, "repeat") : nullptr;
    if (!g.first || (rep && first_rep && natural_less(*rep, *first_rep))) g.first = c;
    if (auto v = reduce(c->metrics, name, how)) g.values.push_back(*v);
    if (out.unit.empty())
      for (const MetricRow& r : c->metrics)
        if (r.name == name && !r.unit.empty()) {
          out.unit = r.unit;
          break;
        }
  }
  for (auto& [key, g] : groups) {
    if (g.values.empty()) continue;
    std::vector<std::string> where;
    for (const Condition& c : q.conditions)
      if (is_extreme(c.value)) where.push_back(c.key + "=" + *param(g.first, c.key));
    Summary sum = summarize(g.values);
    out.values[g.first->name] = Measured{sum.mean, join(where, ","), sum.count, sum.std};
  }
  out.better = metric_direction(name, out.unit);
  if (out.values.empty()) out.problem = "no case matching the conditions has a metric '" + name + "'";
  return out;
}

}  // namespace

MetricQuery parse_metric(const std::string& raw) {
  MetricQuery q;
  q.text = trim(raw);
  if (q.text.empty()) bad_metric(raw, "empty");
  std::string head = q.text, conds;
  if (auto at = q.text.find('@'); at != std::string::npos) {
    head = trim(q.text.substr(0, at));
    conds = q.text.substr(at + 1);
    if (trim(conds).empty()) bad_metric(q.text, "nothing after '@' (e.g. @ranks=4, @max)");
  }
  auto open = head.find('(');
  auto word = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
  };
  // REDUCER(NAME); a name that merely holds a parenthesis (a TAU routine) is a name.
  if (open != std::string::npos && word(trim(head.substr(0, open)))) {
    if (head.back() != ')') bad_metric(q.text, "a reducer is written REDUCER(NAME), e.g. median(epoch_time)");
    q.reducer = trim(head.substr(0, open));
    head = trim(head.substr(open + 1, head.size() - open - 2));
    if (std::find(kReducers.begin(), kReducers.end(), q.reducer) == kReducers.end())
      bad_metric(q.text, "unknown reducer '" + q.reducer + "' (reducers: " + join(kReducers, ", ") + ")" +
                             did_you_mean(q.reducer, kReducers));
  }
  if (head.empty()) bad_metric(q.text, "no column or metric name");
  q.head = head;
  if (!conds.empty()) {
    for (const std::string& part : split(conds, ',')) {
      std::string c = trim(part);
      if (c.empty()) bad_metric(q.text, "an empty condition");
      auto eq = c.find('=');
      if (eq == std::string::npos) {
        if (!is_extreme(c))
          bad_metric(q.text, "condition '" + c + "': write KEY=VALUE, KEY=max, KEY=min, max or min");
        q.conditions.push_back({"", c});
        continue;
      }
      Condition k{trim(c.substr(0, eq)), trim(c.substr(eq + 1))};
      if (k.key.empty() || k.value.empty()) bad_metric(q.text, "condition '" + c + "': write KEY=VALUE");
      q.conditions.push_back(std::move(k));
    }
  }
  return q;
}

std::string_view to_string(Better b) { return b == Better::lower ? "lower" : "higher"; }

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::none:
      return "";
    case Verdict::baseline:
      return "baseline";
    case Verdict::within:
      return "ok";
    case Verdict::improved:
      return "improved";
    case Verdict::regressed:
      return "REGRESSION";
  }
  return "?";
}

std::optional<Better> column_direction(const std::string& column) {
  static const std::vector<std::pair<std::string, Better>> kinds = {
      {"throughputs", Better::higher}, {"speedup", Better::higher}, {"ideal", Better::higher},
      {"eff", Better::higher},         {"times", Better::lower},    {"stall", Better::lower},
      {"time_to_train", Better::lower}};
  for (const auto& [base, better] : kinds) {
    if (column != base && column.rfind(base + "_", 0) != 0) continue;
    std::string rest = column.substr(base.size());
    if (rest.rfind("_std", 0) == 0) return Better::lower;  // a spread: smaller is steadier
    return better;
  }
  return std::nullopt;
}

std::optional<Better> metric_direction(const std::string& name, const std::string& unit) {
  const std::string u = lower(trim(unit));
  if (contains(u, "/s") || contains(u, "/min") || contains(u, "/h") || contains(u, "per s") || u == "hz")
    return Better::higher;
  static const std::set<std::string> times = {"s",  "sec", "secs", "second", "seconds", "ms", "us",
                                              "µs", "ns",  "min",  "mins",   "minutes", "h",  "hours"};
  if (times.count(u)) return Better::lower;
  // Energy and power (issue 31): less is better, as a time is.
  static const std::set<std::string> energy = {"j", "kj", "mj", "wh", "kwh", "w", "kw"};
  if (energy.count(u)) return Better::lower;
  const std::string n = lower(name);
  for (const char* w : {"throughput", "bandwidth", "flops", "per_s", "per_sec", "_rate", "accuracy",
                        "speedup", "efficiency", "samples_per"})
    if (contains(n, w)) return Better::higher;
  for (const char* w :
       {"time", "latency", "duration", "elapsed", "loss", "error", "mae", "mse", "stall", "energy", "power"})
    if (contains(n, w)) return Better::lower;
  for (const char* w : {"_s", "_ms", "_us", "_sec"})
    if (ends_with(n, w)) return Better::lower;
  return std::nullopt;
}

Extraction extract(const MetricQuery& q, const std::vector<AnalysisResult>& analyses,
                   const std::vector<CaseResult>& cases) {
  std::set<std::string> names;
  for (const auto& a : analyses)
    for (const auto& t : a.tables) names.insert(t.columns.begin(), t.columns.end());
  for (const auto& c : cases)
    for (const auto& m : c.metrics) names.insert(m.name);
  auto finish = [&](Extraction e) {
    e.names.assign(names.begin(), names.end());
    return e;
  };
  if (q.reducer.empty()) {
    std::vector<const AnalysisResult*> scope;
    std::string column = q.head;
    if (auto dot = q.head.find('.'); dot != std::string::npos) {
      for (const auto& a : analyses)
        if (a.spec.name == q.head.substr(0, dot)) scope.push_back(&a), column = q.head.substr(dot + 1);
    }
    const bool prefixed = !scope.empty();
    if (!prefixed)
      for (const auto& a : analyses) scope.push_back(&a);
    std::vector<const AnalysisResult*> having;
    for (const AnalysisResult* a : scope) {
      bool has = false;
      for (const auto& t : a->tables) has |= t.has(column);
      if (has) having.push_back(a);
    }
    if (having.size() > 1) {
      std::vector<std::string> which;
      for (auto* a : having) which.push_back(a->spec.name + "." + column);
      Extraction e;
      e.problem = "column " + column + " is in several analyses: write " + join(which, " or ");
      return finish(e);
    }
    if (having.size() == 1) return finish(from_column(q, *having.front(), column));
    if (prefixed) {
      Extraction e;
      e.problem = "analysis " + scope.front()->spec.name + " has no column " + column;
      return finish(e);
    }
  }
  return finish(from_cases(q, q.head, cases));
}

namespace {

// Repetitions as moments, so that runs pool exactly (Chan et al.): mean,
// sum of squared deviations from it, count.
struct Moments {
  double mean = 0, ss = 0;
  size_t n = 0;
};

Moments moments_of(const Measured& m) {
  const double n = static_cast<double>(m.n);
  return Moments{m.value, m.std && m.n > 1 ? *m.std * *m.std * (n - 1) : 0, std::max<size_t>(m.n, 1)};
}

Moments pool(const Moments& a, const Moments& b) {
  if (!a.n) return b;
  if (!b.n) return a;
  const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n), n = na + nb;
  const double d = b.mean - a.mean;
  return Moments{a.mean + d * nb / n, a.ss + b.ss + d * d * na * nb / n, a.n + b.n};
}

Spread spread_of(const Moments& m, double confidence) {
  Spread s{m.mean, std::nullopt, m.n, std::nullopt};
  if (m.n < 2) return s;
  s.std = std::sqrt(m.ss / static_cast<double>(m.n - 1));
  analysis::Summary sum;
  sum.mean = m.mean, sum.std = s.std, sum.count = m.n;
  s.ci = mean_interval(sum, confidence);
  return s;
}

Moments moments_of(const Spread& s) {
  const double n = static_cast<double>(s.n);
  return Moments{s.mean, s.std && s.n > 1 ? *s.std * *s.std * (n - 1) : 0, s.n};
}

// Student's two-sample t of a mean shift, with the variance pooled within
// the two sides (the noise is the same on both under the null hypothesis of
// no shift), and its degrees of freedom.
std::pair<double, double> shift_t(const Moments& x, const Moments& y) {
  const double nx = static_cast<double>(x.n), ny = static_cast<double>(y.n);
  const double pooled = (x.ss + y.ss) / (nx + ny - 2);
  const double se = std::sqrt(pooled * (1 / nx + 1 / ny));
  const double diff = std::fabs(x.mean - y.mean);
  return {se > 0 ? diff / se : diff == 0 ? 0 : HUGE_VAL, nx + ny - 2};
}

void split(const std::vector<Moments>& runs, size_t lo, size_t hi, double alpha, std::vector<Step>& out) {
  std::vector<Moments> after(hi - lo + 1);  // after[k - lo]: runs [k, hi) pooled
  for (size_t k = hi; k-- > lo;) after[k - lo] = pool(runs[k], after[k + 1 - lo]);
  std::optional<Step> best;
  double best_t = -1;
  size_t tried = 0;
  Moments before;
  for (size_t k = lo + 1; k < hi; ++k) {
    before = pool(before, runs[k - 1]);
    const Moments& rest = after[k - lo];
    if (!runs[k].n) continue;  // a run without a value: the split before the next one is the same
    if (before.n < 2 || rest.n < 2) continue;
    ++tried;
    auto [t, df] = shift_t(before, rest);
    if (t > best_t) best_t = t, best = Step{k, before.mean, rest.mean, student_t_two_sided(t, df)};
  }
  if (!best) return;
  best->p = std::min(1.0, best->p * static_cast<double>(tried));  // Bonferroni over the places tried
  if (best->p >= alpha) return;
  split(runs, lo, best->run, alpha, out);
  out.push_back(*best);
  split(runs, best->run, hi, alpha, out);
}

}  // namespace

std::vector<Step> find_steps(const std::vector<Spread>& runs, double alpha) {
  std::vector<Moments> m;
  for (const Spread& r : runs) m.push_back(moments_of(r));
  std::vector<Step> out;
  split(m, 0, m.size(), alpha, out);
  return out;
}

std::string_view to_string(Rule r) {
  switch (r) {
    case Rule::none:
      return "";
    case Rule::threshold:
      return "threshold";
    case Rule::ci:
      return "ci";
    case Rule::step:
      return "step";
    case Rule::ci_and_step:
      return "ci+step";
  }
  return "?";
}

bool SeriesHistory::repeated() const {
  if (!baseline_spread || !baseline_spread->ci) return false;
  for (const auto& p : points)
    if (p.verdict != Verdict::baseline && p.spread && p.spread->ci) return true;
  return false;
}

History judge(const std::vector<RunValues>& runs, const std::vector<size_t>& baseline_runs, Better better,
              double threshold, const NoiseRules& noise) {
  History h;
  h.better = better;
  h.threshold = threshold;
  h.noise = noise;
  h.baseline_runs = baseline_runs;
  std::set<std::string, bool (*)(const std::string&, const std::string&)> names(natural_less);
  for (const auto& r : runs)
    for (const auto& [s, v] : r.values) names.insert(s);
  const std::set<size_t> base(baseline_runs.begin(), baseline_runs.end());
  constexpr double eps = 1e-12;  // 1.2 / 1.0 - 1 is not exactly 0.2
  // How much worse `x` is than `b`, as a fraction of `b`.
  auto worse = [&](double x, double b) { return better == Better::lower ? x / b - 1 : 1 - x / b; };
  for (const std::string& name : names) {
    SeriesHistory s;
    s.name = name;
    std::vector<Moments> reps(runs.size());  // n = 0: no value
    Moments pooled;
    for (size_t i = 0; i < runs.size(); ++i) {
      auto it = runs[i].values.find(name);
      if (it == runs[i].values.end()) continue;
      reps[i] = moments_of(it->second);
      if (base.count(i)) pooled = pool(pooled, reps[i]);
    }
    if (pooled.n) {
      s.baseline_spread = spread_of(pooled, noise.confidence);
      s.baseline = s.baseline_spread->mean;
    }
    split(reps, 0, reps.size(), noise.step_alpha, s.steps);
    // Whether a step lies between run i and every baseline run.
    auto step_between = [&](size_t i) {
      for (size_t b : base) {
        bool any = false;
        for (const Step& st : s.steps) any |= (b < st.run) != (i < st.run);
        if (!any) return false;
      }
      return !base.empty();
    };
    for (size_t i = 0; i < runs.size(); ++i) {
      HistoryPoint p;
      auto it = runs[i].values.find(name);
      if (it != runs[i].values.end()) {
        p.value = it->second.value;
        p.where = it->second.where;
        s.latest = i;
        if (s.baseline && *s.baseline != 0) p.relative = *p.value / *s.baseline;
        // This run's repetitions with those of earlier runs of the same version.
        Moments mine;
        for (size_t j = 0; j <= i; ++j)
          if (j == i || (!base.count(j) && !runs[i].version.empty() && runs[j].version == runs[i].version))
            mine = pool(mine, reps[j]);
        p.spread = spread_of(mine, noise.confidence);
        if (base.count(i)) {
          p.verdict = Verdict::baseline;
        } else if (p.relative) {
          const Spread& b = *s.baseline_spread;
          const bool noisy = b.ci && p.spread->ci;
          const double w = worse(noisy ? p.spread->mean : *p.value, *s.baseline);
          const bool beyond = std::fabs(w) > threshold + eps;
          p.verdict = !beyond ? Verdict::within : w > 0 ? Verdict::regressed : Verdict::improved;
          if (beyond && !noisy) {
            p.rule = Rule::threshold;
          } else if (beyond) {
            const bool ci = std::fabs(p.spread->mean - b.mean) > *p.spread->ci + *b.ci;
            const bool step = step_between(i);
            p.rule = ci && step ? Rule::ci_and_step : ci ? Rule::ci : step ? Rule::step : Rule::none;
            if (p.rule == Rule::none) p.verdict = Verdict::within, p.within_noise = true;
          }
        }
      }
      s.points.push_back(std::move(p));
    }
    h.series.push_back(std::move(s));
  }
  return h;
}

std::vector<std::string> History::regressed(bool any) const {
  std::vector<std::string> out;
  for (const auto& s : series) {
    bool bad = false;
    if (any) {
      for (const auto& p : s.points) bad |= p.verdict == Verdict::regressed;
    } else if (s.latest) {
      bad = s.points[*s.latest].verdict == Verdict::regressed;
    }
    if (bad) out.push_back(s.name);
  }
  return out;
}

}  // namespace campaign::history

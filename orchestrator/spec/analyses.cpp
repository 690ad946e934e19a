// Implements spec/analyses.hpp: the `analyses:` list read with the campaign's
// strict YAML reader (spec/yaml_reader.hpp), so its mistakes read like the
// rest of the file's.
#include "spec/analyses.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "spec/expression.hpp"
#include "spec/yaml_reader.hpp"
#include "util/strings.hpp"

namespace campaign::analysis {

using spec::as_number;
using spec::as_string;
using spec::as_string_list;
using spec::Expression;
using spec::ExpressionError;
using spec::fail;
using spec::location;
using spec::MapReader;
using spec::one_of;
using spec::parse_number;
using spec::type_name;

std::string_view to_string(Scaling s) {
  switch (s) {
    case Scaling::weak:
      return "weak";
    case Scaling::strong:
      return "strong";
    case Scaling::none:
      return "none";
    case Scaling::mlperf_weak:
      return "mlperf_weak";
    case Scaling::window:
      return "window";
    case Scaling::stalls:
      return "stalls";
    case Scaling::mlperf_strong:
      return "mlperf_strong";
  }
  return "?";
}

std::string_view to_string(Aggregate a) {
  switch (a) {
    case Aggregate::mean:
      return "mean";
    case Aggregate::std:
      return "std";
    case Aggregate::min:
      return "min";
    case Aggregate::max:
      return "max";
    case Aggregate::median:
      return "median";
    case Aggregate::count:
      return "count";
  }
  return "?";
}

bool AnalysisSpec::wants(Aggregate a) const {
  return a == Aggregate::mean || std::find(aggregate.begin(), aggregate.end(), a) != aggregate.end();
}

std::string value_column(const AnalysisSpec& spec) {
  if (spec.scaling == Scaling::mlperf_strong) return "time_to_train";
  if (!spec.window) return "times";
  std::string head = spec.window->series.substr(0, spec.window->series.find_first_of(":{[ "));
  return head.empty() ? "value" : head;
}

namespace {

// Whether `k` has a value (is neither absent nor null).
bool given(MapReader& m, const std::string& k) {
  YAML::Node v = m.get(k);
  return v.IsDefined() && !v.IsNull();
}

std::string text(MapReader& m, const std::string& k) {
  YAML::Node v = m.get(k);
  std::string s = as_string(m.file(), v, m.path(k));
  if (trim(s).empty()) fail(m.file(), v, m.path(k), "must not be empty");
  return s;
}

std::string text_or(MapReader& m, const std::string& k, std::string dflt) {
  return given(m, k) ? text(m, k) : dflt;
}

// A name or a list of distinct names.
std::vector<std::string> names(MapReader& m, const std::string& k) {
  YAML::Node v = m.get(k);
  if (v.IsScalar()) return {text(m, k)};
  std::vector<std::string> out = as_string_list(m.file(), v, m.path(k));
  std::set<std::string> seen;
  for (size_t i = 0; i < out.size(); ++i) {
    std::string ki = m.path(k) + "[" + std::to_string(i) + "]";
    if (trim(out[i]).empty()) fail(m.file(), v[i], ki, "must not be empty");
    if (!seen.insert(out[i]).second) fail(m.file(), v[i], ki, "listed twice");
  }
  return out;
}

bool safe_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// The names one analysis uses, recorded as they are read (AnalysisSpec::uses):
// check_names looks them up once the campaign's plan and collectors are known.
class Scope {
 public:
  Scope(const std::string& file, std::vector<NameUse>& uses) : file_(file), uses_(uses) {}

  void step(const YAML::Node& node, const std::string& key, const std::string& name) {
    add(NameUse::Kind::step, node, key, name);
  }
  void param(const YAML::Node& node, const std::string& key, const std::string& name) {
    add(NameUse::Kind::param, node, key, name);
  }
  void value(const YAML::Node& node, const std::string& key, const std::string& param,
             const std::string& value) {
    add(NameUse::Kind::value, node, key, value).param = param;
  }
  void metric(const YAML::Node& node, const std::string& key, const std::string& name) {
    add(NameUse::Kind::metric, node, key, name);
  }
  void expression(const YAML::Node& node, const std::string& key, const Expression& e) {
    for (const auto& v : e.variables()) add(NameUse::Kind::param, node, key, v).expression = e.text();
  }

 private:
  NameUse& add(NameUse::Kind kind, const YAML::Node& node, const std::string& key, const std::string& name) {
    return uses_.emplace_back(NameUse{kind, location(file_, node), key, name, {}, {}});
  }

  const std::string& file_;
  std::vector<NameUse>& uses_;
};

[[noreturn]] void fail_at(const Location& where, const std::string& key, const std::string& message) {
  throw InputError(where, key, message);
}

// The names one analysis uses, looked up in its campaign in the order they
// were written; an analysis of a step disabled on this system checks nothing.
class Names {
 public:
  explicit Names(const CampaignNames& campaign) : campaign_(&campaign) {
    for (const auto& s : campaign.steps) steps_.push_back(&s);
  }

  void check(const NameUse& use) {
    switch (use.kind) {
      case NameUse::Kind::step:
        return step(use.where, use.key, use.name);
      case NameUse::Kind::param:
        if (use.expression.empty()) return param(use.where, use.key, use.name);
        return param(use.where, use.key, use.name, &use.expression);
      case NameUse::Kind::value:
        return value(use.where, use.key, use.param, use.name);
      case NameUse::Kind::metric:
        return metric(use.where, use.key, use.name);
    }
  }

 private:
  // Narrows the scope to the cases of step `name`.
  void step(const Location& where, const std::string& key, const std::string& name) {
    if (!campaign_) return;
    std::vector<std::string> names;
    for (const auto& s : campaign_->steps) {
      if (s.step == name) {
        steps_ = {&s};
        step_ = name;
        if (!s.planned) campaign_ = nullptr;
        return;
      }
      names.push_back(s.step);
    }
    fail_at(
        where, key,
        "unknown step '" + name + "'" + did_you_mean(name, names) + " (steps: " + join(names, ", ") + ")");
  }

  void param(const Location& where, const std::string& key, const std::string& name,
             const std::string* in = nullptr) const {
    if (!campaign_) return;
    std::vector<std::string> params = gather(&StepNames::params);
    if (std::find(params.begin(), params.end(), name) != params.end()) return;
    std::vector<std::string> axes = gather(&StepNames::axes);
    fail_at(where, key,
            (in ? spec::unknown_parameter(name, Expression(*in), params)
                : "unknown parameter '" + name + "'" + did_you_mean(name, params)) +
                (axes.empty() ? std::string() : " (" + of_step("axes") + ": " + join(axes, ", ") + ")"));
  }

  // `value` must be one that parameter `param` takes (numbers compare by value: 8 is 8.0).
  void value(const Location& where, const std::string& key, const std::string& param,
             const std::string& value) const {
    if (!campaign_) return;
    std::vector<std::string> values = campaign_->values(step_, param);
    double want = 0, have = 0;
    bool number = parse_number(value, want);
    for (const auto& v : values)
      if (v == value || (number && parse_number(v, have) && have == want)) return;
    if (values.size() > 12) values.resize(12), values.push_back("...");
    fail_at(where, key,
            param + " is never '" + value + "'" + (number ? "" : did_you_mean(value, values)) +
                " (its values: " + join(values, ", ") + ")");
  }

  void metric(const Location& where, const std::string& key, const std::string& name) const {
    if (!campaign_) return;
    std::vector<std::string> metrics = gather(&StepNames::metrics);
    for (const auto& m : metrics)
      if (matches_template(m, name)) return;
    if (metrics.empty())
      fail_at(
          where, key,
          "unknown metric '" + name + "': no collector declares it (" +
              (step_.empty() ? "the campaign has no collectors" : "step " + step_ + " has no collectors") +
              ")");
    fail_at(where, key,
            "unknown metric '" + name + "'" + did_you_mean(name, metrics) + " (the collectors" +
                (step_.empty() ? "" : " of step " + step_) + " declare: " + join(metrics, ", ") + ")");
  }

  // The union over the steps in scope, in their order.
  std::vector<std::string> gather(std::vector<std::string> StepNames::*field) const {
    std::vector<std::string> out;
    for (const StepNames* s : steps_)
      for (const auto& n : s->*field)
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    return out;
  }
  std::string of_step(const std::string& what) const {
    return step_.empty() ? what : what + " of step " + step_;
  }

  const CampaignNames* campaign_;
  std::vector<const StepNames*> steps_;  // in scope
  std::string step_;                     // "" for every step
};

template <typename E>
E pick(const std::string& file, const YAML::Node& node, const std::string& key,
       const std::vector<std::pair<std::string, E>>& choices) {
  std::vector<std::string> allowed;
  for (const auto& c : choices) allowed.push_back(c.first);
  std::string v = one_of(file, node, key, allowed);
  return std::find_if(choices.begin(), choices.end(), [&](const auto& c) { return c.first == v; })->second;
}

// epochs, skip_iterations, delay_threshold and whatif of scaling: stalls.
StallTableSpec stall_table(MapReader& f) {
  StallTableSpec s;
  const std::string& file = f.file();
  if (given(f, "epochs"))
    s.epochs = pick<StallTableSpec::Epochs>(
        file, f.get("epochs"), f.path("epochs"),
        {{"first", StallTableSpec::Epochs::first}, {"all", StallTableSpec::Epochs::all}});
  if (given(f, "skip_iterations")) {
    double v = as_number(file, f.get("skip_iterations"), f.path("skip_iterations"));
    if (v != std::floor(v) || v < 0 || v > 1e9)
      fail(file, f.get("skip_iterations"), f.path("skip_iterations"),
           "must be a whole number of iterations, 0 or more (the first ones of each epoch left out)");
    s.skip_iterations = static_cast<int>(v);
  }
  if (given(f, "delay_threshold")) {
    s.delay_threshold = as_number(file, f.get("delay_threshold"), f.path("delay_threshold"));
    if (!(s.delay_threshold >= 0))
      fail(file, f.get("delay_threshold"), f.path("delay_threshold"), "must be 0 or more seconds");
  }
  if (given(f, "whatif")) {
    MapReader wf(file, f.get("whatif"), f.path("whatif"), {"fetch", "start"});
    for (auto [key, out] : {std::pair{"fetch", &s.fetch}, std::pair{"start", &s.start}}) {
      if (!given(wf, key)) continue;
      std::vector<std::string> listed = names(wf, key);
      if (listed.empty()) fail(file, wf.get(key), wf.path(key), "must list one or more of rank, avg, min");
      YAML::Node list = wf.get(key);
      out->clear();
      for (size_t i = 0; i < listed.size(); ++i)
        out->push_back(pick<Align>(file, list.IsSequence() ? list[i] : list,
                                   wf.path(key) + (list.IsSequence() ? "[" + std::to_string(i) + "]" : ""),
                                   {{"rank", Align::rank}, {"avg", Align::avg}, {"min", Align::min}}));
    }
  }
  return s;
}

AnalysisSpec parse_one(const YAML::Node& node, const std::string& file, const std::string& path) {
  if (!node.IsMap()) fail(file, node, path, std::string("expected a map, got ") + type_name(node));
  MapReader f(file, node, path,
              {"name", "scaling", "step", "x", "time", "samples", "group_by", "compare", "aggregate", "ratio",
               "stall", "repeat", "window", "warmup", "epochs", "skip_iterations", "delay_threshold",
               "whatif", "min_models"});
  AnalysisSpec a;
  Scope scope(file, a.uses);
  a.where = location(file, node);
  f.require("name");
  a.name = text(f, "name");
  if (!safe_name(a.name))
    fail(file, f.get("name"), f.path("name"),
         "'" + a.name + "' must use only letters, digits, '_', '-', '.'");
  if (given(f, "scaling"))
    a.scaling = pick<Scaling>(file, f.get("scaling"), f.path("scaling"),
                              {{"weak", Scaling::weak},
                               {"strong", Scaling::strong},
                               {"none", Scaling::none},
                               {"mlperf_weak", Scaling::mlperf_weak},
                               {"window", Scaling::window},
                               {"stalls", Scaling::stalls},
                               {"mlperf_strong", Scaling::mlperf_strong}});
  a.step = text_or(f, "step", "");
  if (!a.step.empty()) scope.step(f.get("step"), f.path("step"), a.step);
  for (const char* k : {"epochs", "skip_iterations", "delay_threshold", "whatif"})
    if (given(f, k) && a.scaling != Scaling::stalls)
      fail(file, f.get(k), f.path(k), "only for scaling: stalls");
  if (given(f, "min_models")) {
    if (a.scaling != Scaling::mlperf_weak)
      fail(file, f.get("min_models"), f.path("min_models"), "only for scaling: mlperf_weak");
    double v = as_number(file, f.get("min_models"), f.path("min_models"));
    if (v != std::floor(v) || v < 1 || v > 1e9)
      fail(file, f.get("min_models"), f.path("min_models"),
           "must be a whole number of models, 1 or more (the rules' M' for the benchmark: CosmoFlow 10, "
           "DeepCAM 5, OpenCatalyst 5, OpenFold 10)");
    a.min_models = static_cast<long>(v);
  }
  if (a.scaling == Scaling::mlperf_weak) {
    // Laid out by instance, from the metrics of the mlperf_weak collector, which must be there.
    for (const char* k : {"x", "time", "samples", "group_by", "compare", "ratio", "stall"})
      if (given(f, k))
        fail(file, f.get(k), f.path(k), "not used by scaling: mlperf_weak (one table per case, by instance)");
    a.x = "instance";
    a.time.metric = kRunTime;
    for (const char* m : {kRunTime, kRunStartMs, kRunStopMs, kRunSuccess})
      scope.metric(f.get("scaling"), f.path("scaling"), m);
    return a;  // kSeed is optional: read where an instance logged one
  }
  // warmup: epochs dropped by window and stalls (which have no time metric).
  if (given(f, "warmup") && a.scaling != Scaling::window && a.scaling != Scaling::stalls)
    fail(file, f.get("warmup"), f.path("warmup"), "only for scaling: window and stalls (else time.warmup)");
  if (given(f, "warmup")) {
    a.time.warmup = as_number(file, f.get("warmup"), f.path("warmup"));
    if (a.time.warmup < 0) fail(file, f.get("warmup"), f.path("warmup"), "must not be negative");
  }
  if (given(f, "window") && a.scaling != Scaling::window)
    fail(file, f.get("window"), f.path("window"), "only for scaling: window");
  if (a.scaling == Scaling::stalls) {
    // One table per case (its ranks by iteration) from the stalls collector's metrics.
    for (const char* k : {"x", "time", "samples", "group_by", "compare", "aggregate", "ratio", "stall"})
      if (given(f, k))
        fail(file, f.get(k), f.path(k), "not used by scaling: stalls (one table per case, by iteration)");
    a.x = "Iteration";
    a.time.metric = std::string(kStallMetrics[5]) + ":rank{rank}";
    for (const char* m : kStallMetrics)
      scope.metric(f.get("scaling"), f.path("scaling"), std::string(m) + ":rank{rank}");
    a.stalls = stall_table(f);
    return a;
  }
  f.require("x");
  a.x = text(f, "x");
  scope.param(f.get("x"), f.path("x"), a.x);
  a.repeat = text_or(f, "repeat", "repeat");
  // The default names the parameter matrix.repeat adds; without repetitions it is absent, and that is fine.
  if (given(f, "repeat")) scope.param(f.get("repeat"), f.path("repeat"), a.repeat);

  if (a.scaling == Scaling::window) {
    if (given(f, "time"))
      fail(file, f.get("time"), f.path("time"), "not used by scaling: window (give window.series)");
    for (const char* k : {"samples", "stall"})
      if (given(f, k)) fail(file, f.get(k), f.path(k), "not used by scaling: window");
    MapReader wf(file, f.require("window", "the sampled series and the epoch windows"), f.path("window"),
                 {"series", "start", "end", "smooth", "progress", "points"});
    WindowSpec w;
    wf.require("series");
    w.series = text(wf, "series");
    scope.metric(wf.get("series"), wf.path("series"), w.series);
    w.start = text_or(wf, "start", w.start);
    w.end = text_or(wf, "end", w.end);
    scope.metric(given(wf, "start") ? wf.get("start") : wf.node(), wf.path("start"), w.start);
    scope.metric(given(wf, "end") ? wf.get("end") : wf.node(), wf.path("end"), w.end);
    auto count = [&](const char* k, int lo, int dflt) {
      if (!given(wf, k)) return dflt;
      double v = as_number(file, wf.get(k), wf.path(k));
      if (v != std::floor(v) || v < lo || v > 100000)
        fail(file, wf.get(k), wf.path(k), "must be a whole number from " + std::to_string(lo) + " to 100000");
      return static_cast<int>(v);
    };
    w.smooth = count("smooth", 1, w.smooth);
    if (given(wf, "progress"))
      w.progress = one_of(file, wf.get("progress"), wf.path("progress"), {"samples", "time"}) == "time"
                       ? WindowSpec::Progress::time
                       : WindowSpec::Progress::samples;
    if (given(wf, "points") && w.progress != WindowSpec::Progress::time)
      fail(file, wf.get("points"), wf.path("points"),
           "only with progress: time (the study's curves keep their samples)");
    w.points = count("points", 2, w.points);
    a.window = w;
    a.time.metric = w.series;
  }
  if (a.scaling == Scaling::mlperf_strong) {
    // Time to train, run_stop - run_start of the case's MLLOG, when run_stop says the target was reached.
    if (given(f, "time"))
      fail(file, f.get("time"), f.path("time"),
           "not used by scaling: mlperf_strong (time to train is run_time)");
    a.time.metric = kRunTime;
    for (const char* m : {kRunTime, kRunSuccess}) scope.metric(f.get("scaling"), f.path("scaling"), m);
  } else if (YAML::Node t = a.window ? YAML::Node() : f.require("time"); !a.window && t.IsScalar()) {
    a.time.metric = text(f, "time");
    scope.metric(t, f.path("time"), a.time.metric);
  } else if (!a.window) {
    MapReader tf(file, t, f.path("time"), {"metric", "warmup"});
    tf.require("metric");
    a.time.metric = text(tf, "metric");
    scope.metric(tf.get("metric"), tf.path("metric"), a.time.metric);
    if (given(tf, "warmup")) {
      a.time.warmup = as_number(file, tf.get("warmup"), tf.path("warmup"));
      if (a.time.warmup < 0) fail(file, tf.get("warmup"), tf.path("warmup"), "must not be negative");
    }
  }

  if (given(f, "samples")) {
    a.samples = text(f, "samples");
    try {
      scope.expression(f.get("samples"), f.path("samples"), Expression(a.samples));
    } catch (const ExpressionError& e) {
      fail(file, f.get("samples"), f.path("samples"), e.what());
    }
  } else if (a.scaling == Scaling::weak) {
    fail(file, node, f.path("samples"),
         "weak scaling needs a samples expression (throughput = samples / time)");
  }

  if (given(f, "group_by")) a.group_by = names(f, "group_by");
  for (size_t i = 0; i < a.group_by.size(); ++i) {
    if (a.group_by[i] == a.x)
      fail(file, f.get("group_by"), f.path("group_by"), "'" + a.x + "' is already the x axis");
    YAML::Node at = f.get("group_by").IsSequence() ? f.get("group_by")[i] : f.get("group_by");
    scope.param(at, f.path("group_by") + "[" + std::to_string(i) + "]", a.group_by[i]);
  }

  if (given(f, "compare")) {
    MapReader cf(file, f.get("compare"), f.path("compare"), {"axis", "baseline"});
    cf.require("axis");
    cf.require("baseline");
    CompareSpec c{text(cf, "axis"), text(cf, "baseline")};
    bool grouped = std::find(a.group_by.begin(), a.group_by.end(), c.axis) != a.group_by.end();
    if (c.axis == a.x || grouped)
      fail(file, cf.get("axis"), cf.path("axis"),
           "'" + c.axis + "' is already " + (grouped ? "in group_by" : "the x axis"));
    scope.param(cf.get("axis"), cf.path("axis"), c.axis);
    scope.value(cf.get("baseline"), cf.path("baseline"), c.axis, c.baseline);
    a.compare = c;
  }

  if (given(f, "aggregate")) {
    YAML::Node agg = f.get("aggregate");
    std::vector<std::string> listed = names(f, "aggregate");
    for (size_t i = 0; i < listed.size(); ++i)
      a.aggregate.push_back(pick<Aggregate>(file, agg.IsSequence() ? agg[i] : agg, f.path("aggregate"),
                                            {{"mean", Aggregate::mean},
                                             {"std", Aggregate::std},
                                             {"min", Aggregate::min},
                                             {"max", Aggregate::max},
                                             {"median", Aggregate::median},
                                             {"count", Aggregate::count}}));
  }

  if (given(f, "ratio")) {
    MapReader rf(file, f.get("ratio"), f.path("ratio"), {"axis", "numerator", "denominator"});
    rf.require("axis");
    rf.require("numerator");
    rf.require("denominator");
    RatioSpec r{text(rf, "axis"), text(rf, "numerator"), text(rf, "denominator")};
    if (r.axis != a.x && !(a.compare && a.compare->axis == r.axis))
      fail(file, rf.get("axis"), rf.path("axis"),
           "'" + r.axis + "' must be the x axis ('" + a.x + "')" +
               (a.compare ? " or the compare axis ('" + a.compare->axis + "')" : std::string()));
    if (r.numerator == r.denominator)
      fail(file, rf.get("denominator"), rf.path("denominator"), "is the same as the numerator");
    scope.value(rf.get("numerator"), rf.path("numerator"), r.axis, r.numerator);
    scope.value(rf.get("denominator"), rf.path("denominator"), r.axis, r.denominator);
    a.ratio = r;
  }

  if (given(f, "stall")) {
    MapReader sf(file, f.get("stall"), f.path("stall"), {"data", "compute"});
    sf.require("data");
    sf.require("compute");
    a.stall = StallSpec{text(sf, "data"), text(sf, "compute")};
    scope.metric(sf.get("data"), sf.path("data"), a.stall->data);
    scope.metric(sf.get("compute"), sf.path("compute"), a.stall->compute);
  }
  return a;
}

}  // namespace

std::vector<AnalysisSpec> parse_analyses(const YAML::Node& list, const std::string& file) {
  std::vector<AnalysisSpec> out;
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence())
    fail(file, list, "analyses", std::string("expected a list, got ") + type_name(list));
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "analyses[" + std::to_string(i) + "]";
    AnalysisSpec a = parse_one(list[i], file, path);
    for (const auto& prev : out) {
      if (prev.name == a.name)
        fail(file, list[i]["name"], path + ".name",
             "'" + a.name + "' is already the name of the analysis at " + prev.where.str());
    }
    out.push_back(std::move(a));
  }
  return out;
}

void check_names(const std::vector<AnalysisSpec>& analyses, const CampaignNames& campaign) {
  for (const auto& a : analyses) {
    Names names(campaign);
    for (const auto& use : a.uses) names.check(use);
  }
}

}  // namespace campaign::analysis

// Implements analysis/spec.hpp: a strict reader for the `analyses:` list
// (unknown or duplicate keys are errors, with a did-you-mean).
#include "analysis/spec.hpp"

#include <algorithm>
#include <set>

#include "spec/expression.hpp"
#include "util/strings.hpp"

namespace campaign::analysis {

using spec::Expression;
using spec::ExpressionError;
using spec::parse_number;

std::string_view to_string(Scaling s) {
  switch (s) {
    case Scaling::weak:
      return "weak";
    case Scaling::strong:
      return "strong";
    case Scaling::none:
      return "none";
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

namespace {

Location where(const std::string& file, const YAML::Node& node) {
  Location loc{file, 0, 0};
  const YAML::Mark m = node.Mark();
  if (m.line >= 0) loc.line = m.line + 1, loc.column = m.column + 1;
  return loc;
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& node, const std::string& key,
                       const std::string& message) {
  throw InputError(where(file, node), key, message);
}

const char* kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "nothing";
  }
}

// One YAML map read key by key; whatever is left unread when done() runs is an
// unknown key, reported with the closest known one.
class Fields {
 public:
  Fields(const std::string& file, const YAML::Node& node, std::string path, std::vector<std::string> known)
      : file_(file), node_(node), path_(std::move(path)), known_(std::move(known)) {
    if (!node.IsMap()) fail(file, node, path_, std::string("expected a map, got ") + kind(node));
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string k = it->first.Scalar();
      if (!seen.insert(k).second) fail(file, it->first, key(k), "duplicate key");
      if (std::find(known_.begin(), known_.end(), k) == known_.end())
        fail(file, it->first, key(k), "unknown key" + did_you_mean(k, known_));
    }
  }

  std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }
  YAML::Node get(const std::string& k) const { return node_[k]; }
  bool has(const std::string& k) const { return node_[k].IsDefined() && !node_[k].IsNull(); }

  YAML::Node require(const std::string& k) const {
    if (!has(k)) fail(file_, node_, key(k), "required key is missing");
    return node_[k];
  }

  std::string string(const std::string& k) const {
    YAML::Node v = node_[k];
    if (!v.IsScalar()) fail(file_, v, key(k), std::string("expected a value, got ") + kind(v));
    if (trim(v.Scalar()).empty()) fail(file_, v, key(k), "must not be empty");
    return v.Scalar();
  }

  std::string string_or(const std::string& k, std::string dflt) const { return has(k) ? string(k) : dflt; }

  std::vector<std::string> strings(const std::string& k) const {
    YAML::Node v = node_[k];
    if (v.IsScalar()) return {string(k)};
    if (!v.IsSequence()) fail(file_, v, key(k), std::string("expected a list, got ") + kind(v));
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string ki = key(k) + "[" + std::to_string(i) + "]";
      if (!v[i].IsScalar() || trim(v[i].Scalar()).empty())
        fail(file_, v[i], ki, std::string("expected a name, got ") + kind(v[i]));
      if (std::find(out.begin(), out.end(), v[i].Scalar()) != out.end())
        fail(file_, v[i], ki, "listed twice");
      out.push_back(v[i].Scalar());
    }
    return out;
  }

  double number(const std::string& k) const {
    double d;
    YAML::Node v = node_[k];
    if (!v.IsScalar() || !parse_number(v.Scalar(), d)) fail(file_, v, key(k), "expected a number");
    return d;
  }

  const std::string& file() const { return file_; }

 private:
  const std::string& file_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::string> known_;
};

bool safe_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// The names one analysis uses, checked against its campaign as they are read;
// without a campaign (one stored with an old run, re-read for history) it
// checks nothing.
class Scope {
 public:
  Scope(const std::string& file, const CampaignNames* campaign) : file_(file), campaign_(campaign) {
    if (campaign)
      for (const auto& s : campaign->steps) steps_.push_back(&s);
  }

  // Narrows the scope to the cases of step `name`.
  void step(const YAML::Node& node, const std::string& key, const std::string& name) {
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
    fail(file_, node, key,
         "unknown step '" + name + "'" + did_you_mean(name, names) + " (steps: " + join(names, ", ") + ")");
  }

  void param(const YAML::Node& node, const std::string& key, const std::string& name,
             const std::string& context = "") const {
    if (!campaign_) return;
    std::vector<std::string> params = gather(&StepNames::params);
    if (std::find(params.begin(), params.end(), name) != params.end()) return;
    std::vector<std::string> axes = gather(&StepNames::axes);
    fail(file_, node, key,
         "unknown parameter '" + name + "'" + context + did_you_mean(name, params) +
             (axes.empty() ? std::string() : " (" + of_step("axes") + ": " + join(axes, ", ") + ")"));
  }

  // `value` must be one that parameter `param` takes (numbers compare by value: 8 is 8.0).
  void value(const YAML::Node& node, const std::string& key, const std::string& param,
             const std::string& value) const {
    if (!campaign_) return;
    std::vector<std::string> values = campaign_->values(step_, param);
    double want = 0, have = 0;
    bool number = parse_number(value, want);
    for (const auto& v : values)
      if (v == value || (number && parse_number(v, have) && have == want)) return;
    if (values.size() > 12) values.resize(12), values.push_back("...");
    fail(file_, node, key,
         param + " is never '" + value + "'" + (number ? "" : did_you_mean(value, values)) +
             " (its values: " + join(values, ", ") + ")");
  }

  void metric(const YAML::Node& node, const std::string& key, const std::string& name) const {
    if (!campaign_) return;
    std::vector<std::string> metrics = gather(&StepNames::metrics);
    for (const auto& m : metrics)
      if (matches_template(m, name)) return;
    if (metrics.empty())
      fail(file_, node, key,
           "unknown metric '" + name + "': no collector declares it (" +
               (step_.empty() ? "the campaign has no collectors" : "step " + step_ + " has no collectors") +
               ")");
    fail(file_, node, key,
         "unknown metric '" + name + "'" + did_you_mean(name, metrics) + " (the collectors" +
             (step_.empty() ? "" : " of step " + step_) + " declare: " + join(metrics, ", ") + ")");
  }

  void expression(const YAML::Node& node, const std::string& key, const Expression& e) const {
    for (const auto& v : e.variables()) param(node, key, v, " in expression '" + e.text() + "'");
  }

 private:
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

  const std::string& file_;
  const CampaignNames* campaign_;
  std::vector<const StepNames*> steps_;  // in scope
  std::string step_;                     // "" for every step
};

template <typename E>
E pick(const Fields& f, const std::string& k, const std::vector<std::pair<std::string, E>>& choices) {
  std::string v = f.string(k);
  std::vector<std::string> names;
  for (const auto& [n, e] : choices) {
    if (n == v) return e;
    names.push_back(n);
  }
  fail(f.file(), f.get(k), f.key(k),
       "'" + v + "' is not one of " + join(names, ", ") + did_you_mean(v, names));
}

AnalysisSpec parse_one(const YAML::Node& node, const std::string& file, const std::string& path,
                       Scope scope) {
  Fields f(file, node, path,
           {"name", "scaling", "step", "x", "time", "samples", "group_by", "compare", "aggregate", "ratio",
            "stall", "repeat"});
  AnalysisSpec a;
  a.where = where(file, node);
  f.require("name");
  a.name = f.string("name");
  if (!safe_name(a.name))
    fail(file, f.get("name"), f.key("name"), "'" + a.name + "' must use only letters, digits, '_', '-', '.'");
  if (f.has("scaling"))
    a.scaling = pick<Scaling>(
        f, "scaling", {{"weak", Scaling::weak}, {"strong", Scaling::strong}, {"none", Scaling::none}});
  a.step = f.string_or("step", "");
  if (!a.step.empty()) scope.step(f.get("step"), f.key("step"), a.step);
  f.require("x");
  a.x = f.string("x");
  scope.param(f.get("x"), f.key("x"), a.x);
  a.repeat = f.string_or("repeat", "repeat");
  // The default names the parameter matrix.repeat adds; without repetitions it is absent, and that is fine.
  if (f.has("repeat")) scope.param(f.get("repeat"), f.key("repeat"), a.repeat);

  YAML::Node t = f.require("time");
  if (t.IsScalar()) {
    a.time.metric = f.string("time");
    scope.metric(t, f.key("time"), a.time.metric);
  } else {
    Fields tf(file, t, f.key("time"), {"metric", "warmup"});
    tf.require("metric");
    a.time.metric = tf.string("metric");
    scope.metric(tf.get("metric"), tf.key("metric"), a.time.metric);
    if (tf.has("warmup")) {
      a.time.warmup = tf.number("warmup");
      if (a.time.warmup < 0) fail(file, tf.get("warmup"), tf.key("warmup"), "must not be negative");
    }
  }

  if (f.has("samples")) {
    a.samples = f.string("samples");
    try {
      scope.expression(f.get("samples"), f.key("samples"), Expression(a.samples));
    } catch (const ExpressionError& e) {
      fail(file, f.get("samples"), f.key("samples"), e.what());
    }
  } else if (a.scaling == Scaling::weak) {
    fail(file, node, f.key("samples"),
         "weak scaling needs a samples expression (throughput = samples / time)");
  }

  if (f.has("group_by")) a.group_by = f.strings("group_by");
  for (size_t i = 0; i < a.group_by.size(); ++i) {
    if (a.group_by[i] == a.x)
      fail(file, f.get("group_by"), f.key("group_by"), "'" + a.x + "' is already the x axis");
    YAML::Node at = f.get("group_by").IsSequence() ? f.get("group_by")[i] : f.get("group_by");
    scope.param(at, f.key("group_by") + "[" + std::to_string(i) + "]", a.group_by[i]);
  }

  if (f.has("compare")) {
    Fields cf(file, f.get("compare"), f.key("compare"), {"axis", "baseline"});
    cf.require("axis");
    cf.require("baseline");
    CompareSpec c{cf.string("axis"), cf.string("baseline")};
    bool grouped = std::find(a.group_by.begin(), a.group_by.end(), c.axis) != a.group_by.end();
    if (c.axis == a.x || grouped)
      fail(file, cf.get("axis"), cf.key("axis"),
           "'" + c.axis + "' is already " + (grouped ? "in group_by" : "the x axis"));
    scope.param(cf.get("axis"), cf.key("axis"), c.axis);
    scope.value(cf.get("baseline"), cf.key("baseline"), c.axis, c.baseline);
    a.compare = c;
  }

  if (f.has("aggregate")) {
    YAML::Node agg = f.get("aggregate");
    std::vector<std::pair<std::string, Aggregate>> choices = {
        {"mean", Aggregate::mean}, {"std", Aggregate::std},       {"min", Aggregate::min},
        {"max", Aggregate::max},   {"median", Aggregate::median}, {"count", Aggregate::count}};
    std::vector<std::string> names;
    for (const auto& c : choices) names.push_back(c.first);
    std::vector<std::string> given = f.strings("aggregate");
    for (size_t i = 0; i < given.size(); ++i) {
      auto it = std::find_if(choices.begin(), choices.end(), [&](auto& c) { return c.first == given[i]; });
      const YAML::Node& at = agg.IsSequence() ? agg[i] : agg;
      if (it == choices.end())
        fail(file, at, f.key("aggregate"),
             "'" + given[i] + "' is not one of " + join(names, ", ") + did_you_mean(given[i], names));
      a.aggregate.push_back(it->second);
    }
  }

  if (f.has("ratio")) {
    Fields rf(file, f.get("ratio"), f.key("ratio"), {"axis", "numerator", "denominator"});
    rf.require("axis");
    rf.require("numerator");
    rf.require("denominator");
    RatioSpec r{rf.string("axis"), rf.string("numerator"), rf.string("denominator")};
    if (r.axis != a.x && !(a.compare && a.compare->axis == r.axis))
      fail(file, rf.get("axis"), rf.key("axis"),
           "'" + r.axis + "' must be the x axis ('" + a.x + "')" +
               (a.compare ? " or the compare axis ('" + a.compare->axis + "')" : std::string()));
    if (r.numerator == r.denominator)
      fail(file, rf.get("denominator"), rf.key("denominator"), "is the same as the numerator");
    scope.value(rf.get("numerator"), rf.key("numerator"), r.axis, r.numerator);
    scope.value(rf.get("denominator"), rf.key("denominator"), r.axis, r.denominator);
    a.ratio = r;
  }

  if (f.has("stall")) {
    Fields sf(file, f.get("stall"), f.key("stall"), {"data", "compute"});
    sf.require("data");
    sf.require("compute");
    a.stall = StallSpec{sf.string("data"), sf.string("compute")};
    scope.metric(sf.get("data"), sf.key("data"), a.stall->data);
    scope.metric(sf.get("compute"), sf.key("compute"), a.stall->compute);
  }
  return a;
}

std::vector<AnalysisSpec> parse(const YAML::Node& list, const std::string& file,
                                const CampaignNames* campaign) {
  std::vector<AnalysisSpec> out;
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) fail(file, list, "analyses", std::string("expected a list, got ") + kind(list));
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "analyses[" + std::to_string(i) + "]";
    AnalysisSpec a = parse_one(list[i], file, path, Scope(file, campaign));
    for (const auto& prev : out) {
      if (prev.name == a.name)
        fail(file, list[i]["name"], path + ".name",
             "'" + a.name + "' is already the name of the analysis at " + prev.where.str());
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

std::vector<AnalysisSpec> parse_analyses(const YAML::Node& list, const std::string& file) {
  return parse(list, file, nullptr);
}

std::vector<AnalysisSpec> parse_analyses(const YAML::Node& list, const std::string& file,
                                         const CampaignNames& campaign) {
  return parse(list, file, &campaign);
}

}  // namespace campaign::analysis

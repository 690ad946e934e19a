#include "spec/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <set>

#include "spec/yaml_reader.hpp"
#include "util/hash.hpp"
#include "util/state.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace campaign::spec {

Value Value::from_text(std::string text) {
  Value v{std::move(text), std::nullopt};
  double d = 0;
  const char* b = v.text.data();
  const char* e = b + v.text.size();
  if (b != e && *b == '+') ++b;
  auto [end, ec] = std::from_chars(b, e, d);
  if (ec == std::errc() && end == e && b != e) v.number = d;
  return v;
}

namespace {

bool valid_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

void check_identifier(const std::string& file, const YAML::Node& key_node, const std::string& name,
                      const std::string& path, const std::string& what) {
  if (!valid_identifier(name))
    fail(file, key_node, path, what + " names must be identifiers (letters, digits, _), got '" + name + "'");
}

template <class T>
Field<T> field(const std::string& file, const YAML::Node& node, T value) {
  return Field<T>{std::move(value), location(file, node)};
}

Value scalar_value(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar())
    fail(file, node, key, std::string("expected a number or a string, got ") + type_name(node));
  return Value::from_text(node.Scalar());
}

// A number or an expression, kept as text for the matrix module to compile.
std::string expression(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::string s = trim(as_string(file, node, key));
  if (s.empty()) fail(file, node, key, "expected an expression, got an empty string");
  return s;
}

void parse_params(MapReader& r, const YAML::Node& node, std::vector<std::pair<std::string, Value>>& params,
                  std::vector<Location>& where) {
  MapReader m(r.file(), node, r.path("params"));
  for (auto& [k, knode] : m.entries()) {
    check_identifier(r.file(), knode, k, m.path(k), "parameter");
    Value v = scalar_value(r.file(), m.get(k), m.path(k));
    bool replaced = false;
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].first == k) params[i].second = v, where[i] = location(r.file(), knode), replaced = true;
    if (!replaced) params.emplace_back(k, v), where.push_back(location(r.file(), knode));
  }
}

AxisValue parse_axis_value(const std::string& file, const YAML::Node& node, const std::string& key) {
  AxisValue av;
  av.where = location(file, node);
  if (node.IsScalar()) {
    av.value = Value::from_text(node.Scalar());
    return av;
  }
  if (!node.IsMap())
    fail(file, node, key,
         std::string("an axis value is a scalar or a map with a 'name', got ") + type_name(node));
  MapReader m(file, node, key);
  av.value = scalar_value(file, m.require("name"), m.path("name"));
  for (auto& [k, knode] : m.entries()) {
    if (k == "name") continue;
    check_identifier(file, knode, k, m.path(k), "attribute");
    av.attributes.emplace_back(k, scalar_value(file, m.get(k), m.path(k)));
  }
  return av;
}

// Patches `mx` with the matrix map in `node`: named axes replace axes of the
// same name (or are appended); zip, exclude and repeat replace.
void parse_matrix(const std::string& file, const YAML::Node& node, const std::string& path, Matrix& mx) {
  MapReader m(file, node, path);
  for (auto& [k, knode] : m.entries()) {
    YAML::Node v = m.get(k);
    std::string key = m.path(k);
    if (k == "repeat") {
      mx.repeat = as_int(file, v, key);
      mx.repeat_where = location(file, v);
      if (mx.repeat < 1) fail(file, v, key, "repeat must be at least 1");
      if (mx.repeat > kMaxCases)
        fail(file, v, key,
             fmt::format("repeat {} would make more than {} cases (the most a campaign may hold)", mx.repeat,
                         kMaxCases));
      continue;
    }
    if (k == "zip") {
      if (!v.IsSequence())
        fail(file, v, key, std::string("expected a list of axis lists, got ") + type_name(v));
      mx.zip.clear();
      mx.zip_where.clear();
      for (size_t i = 0; i < v.size(); ++i) {
        std::string ik = key + "[" + std::to_string(i) + "]";
        if (!v[i].IsSequence() || v[i].size() < 2)
          fail(file, v[i], ik, "a zip group is a list of at least two axis names");
        mx.zip.push_back(as_string_list(file, v[i], ik));
        mx.zip_where.push_back(location(file, v[i]));
      }
      continue;
    }
    if (k == "exclude") {
      if (!v.IsSequence()) fail(file, v, key, std::string("expected a list of rules, got ") + type_name(v));
      mx.exclude.clear();
      for (size_t i = 0; i < v.size(); ++i) {
        std::string ik = key + "[" + std::to_string(i) + "]";
        MapReader rule(file, v[i], ik);
        if (rule.entries().empty()) fail(file, v[i], ik, "an exclude rule needs at least one parameter");
        ExcludeRule er;
        er.where = location(file, v[i]);
        for (auto& [rk, rknode] : rule.entries())
          er.match.emplace_back(rk, as_string_list(file, rule.get(rk), rule.path(rk)));
        mx.exclude.push_back(std::move(er));
      }
      continue;
    }
    check_identifier(file, knode, k, key, "axis");
    Axis axis{k, {}, location(file, knode)};
    if (v.IsSequence()) {
      if (v.size() == 0) fail(file, v, key, "axis has no values (an empty axis would make an empty matrix)");
      for (size_t i = 0; i < v.size(); ++i)
        axis.values.push_back(parse_axis_value(file, v[i], key + "[" + std::to_string(i) + "]"));
    } else if (v.IsScalar() || v.IsMap()) {
      axis.values.push_back(parse_axis_value(file, v, key));
    } else {
      fail(file, v.IsDefined() ? v : knode, key,
           "axis has no values (an empty axis would make an empty matrix)");
    }
    // Two values with the same text would make two identical cases.
    for (size_t i = 0; i < axis.values.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (axis.values[i].value.text == axis.values[j].value.text)
          throw InputError(axis.values[i].where, key, "duplicate value '" + axis.values[i].value.text + "'");
    bool replaced = false;
    for (auto& a : mx.axes)
      if (a.name == k) a = axis, replaced = true;
    if (!replaced) mx.axes.push_back(std::move(axis));
  }
}

void parse_derived(const std::string& file, const YAML::Node& node, const std::string& path,
                   std::vector<Derived>& out) {
  MapReader m(file, node, path);
  for (auto& [k, knode] : m.entries()) {
    check_identifier(file, knode, k, m.path(k), "derived value");
    YAML::Node v = m.get(k);
    Derived d{k, expression(file, v, m.path(k)), location(file, v)};
    bool replaced = false;
    for (auto& e : out)
      if (e.name == k) e = d, replaced = true;
    if (!replaced) out.push_back(std::move(d));
  }
}

Field<std::vector<std::string>> string_list_field(const std::string& file, const YAML::Node& node,
                                                  const std::string& key) {
  return field(file, node, as_string_list(file, node, key));
}

// `sample: SECONDS`, `sample: {interval: SECONDS, gpu: auto|on|off}` or `sample: false`.
Field<Sample> parse_sample(const std::string& file, const YAML::Node& node, const std::string& path) {
  Sample sm;
  auto interval = [&](const YAML::Node& v, const std::string& key) {
    sm.interval_s = as_number(file, v, key);
    if (!(sm.interval_s > 0)) fail(file, v, key, "the sampling interval is a positive number of seconds");
  };
  if (node.IsScalar()) {
    if (Value::from_text(node.Scalar()).number)
      interval(node, path);
    else
      sm.enabled = as_bool(file, node, path);
    return field(file, node, sm);
  }
  MapReader m(file, node, path, {"interval", "gpu", "when"});
  if (auto v = m.get("interval"); v.IsDefined()) interval(v, m.path("interval"));
  if (auto v = m.get("gpu"); v.IsDefined()) {
    sm.gpu = as_string(file, v, m.path("gpu"));
    const std::vector<std::string> modes = {"auto", "on", "off"};
    if (std::find(modes.begin(), modes.end(), sm.gpu) == modes.end())
      fail(file, v, m.path("gpu"), "expected auto, on or off, got '" + sm.gpu + "'");
  }
  if (auto v = m.get("when"); v.IsDefined()) {
    sm.when = as_string(file, v, m.path("when"));
    if (sm.when != "always" && sm.when != "gpus")
      fail(file, v, m.path("when"),
           "expected always or gpus (only cases that hold GPUs), got '" + sm.when + "'");
  }
  m.finish();
  return field(file, node, sm);
}

void parse_job(const std::string& file, const YAML::Node& node, const std::string& path, Job& job) {
  MapReader m(file, node, path);
  const std::string beside = "goes beside `job:` (at the campaign's top level, or a step's)";
  m.elsewhere({{"pack", beside},
               {"array", beside},
               {"matrix", beside},
               {"derived", beside},
               {"after", beside},
               {"case_name", beside},
               {"collectors", beside},
               {"retry", "goes at the campaign's top level"},
               {"budget", "goes at the campaign's top level"}});
  auto str = [&](const char* key, Field<std::string>& f) {
    YAML::Node v = m.get(key);
    if (v.IsDefined() && !v.IsNull()) f = field(file, v, as_string(file, v, m.path(key)));
  };
  auto expr = [&](const char* key, Field<std::string>& f) {
    YAML::Node v = m.get(key);
    if (v.IsDefined() && !v.IsNull()) f = field(file, v, expression(file, v, m.path(key)));
  };
  auto flag = [&](const char* key, Field<bool>& f) {
    YAML::Node v = m.get(key);
    if (v.IsDefined() && !v.IsNull()) f = field(file, v, as_bool(file, v, m.path(key)));
  };
  str("template", job.template_name);
  str("command", job.command);
  str("walltime", job.walltime);
  str("partition", job.partition);
  expr("ranks", job.ranks);
  expr("nodes", job.nodes);
  expr("ranks_per_node", job.ranks_per_node);
  expr("cpus_per_rank", job.cpus_per_rank);
  expr("gpus_per_rank", job.gpus_per_rank);
  expr("instances", job.instances);
  flag("launch", job.launch);
  str("memory", job.memory);
  str("exclusive", job.exclusive);
  flag("oversubscribe", job.oversubscribe);
  if (auto v = m.get("env"); v.IsDefined() && !v.IsNull()) {
    MapReader env(file, v, m.path("env"));
    for (auto& [k, knode] : env.entries()) {
      check_identifier(file, knode, k, env.path(k), "environment variable");
      std::string value = as_string(file, env.get(k), env.path(k));
      bool replaced = false;
      for (size_t i = 0; i < job.env.size(); ++i)
        if (job.env[i].first == k) job.env[i].second = value, replaced = true;
      if (!replaced) job.env.emplace_back(k, value), job.env_where.push_back(location(file, knode));
    }
  }
  if (auto v = m.get("modules"); v.IsDefined()) job.modules = string_list_field(file, v, m.path("modules"));
  if (auto v = m.get("setup"); v.IsDefined()) job.setup = string_list_field(file, v, m.path("setup"));
  if (auto v = m.get("scheduler_options"); v.IsDefined())
    job.scheduler_options = string_list_field(file, v, m.path("scheduler_options"));
  if (auto v = m.get("sample"); v.IsDefined() && !v.IsNull())
    job.sample = parse_sample(file, v, m.path("sample"));
  if (auto v = m.get("container"); v.IsDefined() && !v.IsNull()) {
    Container c;
    if (v.IsScalar()) {
      c.image = v.Scalar();
    } else {
      MapReader cm(file, v, m.path("container"));
      c.image = as_string(file, cm.require("image"), cm.path("image"));
      if (auto r = cm.get("runtime"); r.IsDefined()) c.runtime = as_string(file, r, cm.path("runtime"));
      if (auto o = cm.get("options"); o.IsDefined()) c.options = as_string_list(file, o, cm.path("options"));
      cm.finish();
    }
    job.container = field(file, v, c);
  }
  m.finish();
}

void parse_retry(const std::string& file, const YAML::Node& node, const std::string& path,
                 RetryPolicy& retry) {
  MapReader m(file, node, path);
  retry.where = location(file, node);
  if (auto v = m.get("max_attempts"); v.IsDefined()) {
    retry.max_attempts = as_int(file, v, m.path("max_attempts"));
    if (retry.max_attempts < 1) fail(file, v, m.path("max_attempts"), "must be at least 1");
  }
  if (auto v = m.get("on"); v.IsDefined()) {
    retry.on = as_string_list(file, v, m.path("on"));
    const std::vector<std::string> retryable = {"failed", "timeout", "node_fail", "preempted",
                                                "oom",    "lost",    "cancelled"};
    for (auto& s : retry.on)
      if (std::find(retryable.begin(), retryable.end(), s) == retryable.end())
        fail(file, v, m.path("on"),
             "'" + s + "' is not a retryable state (one of " + join(retryable, ", ") + ")" +
                 did_you_mean(s, retryable));
  }
  if (auto v = m.get("walltime_factor"); v.IsDefined()) {
    retry.walltime_factor = as_number(file, v, m.path("walltime_factor"));
    if (retry.walltime_factor < 1.0) fail(file, v, m.path("walltime_factor"), "must be at least 1.0");
  }
  m.finish();
}

// `pack: {nodes: N, walltime: HH:MM:SS, cases: M}`, or `pack: false`.
Field<Pack> parse_pack(const std::string& file, const YAML::Node& node, const std::string& path) {
  Pack p;
  p.where = location(file, node);
  if (node.IsScalar()) {
    if (as_bool(file, node, path))
      fail(file, node, path,
           "say how big an allocation is: pack: {nodes: N[, walltime: HH:MM:SS, cases: M]}");
    p.enabled = false;
    return field(file, node, p);
  }
  MapReader m(file, node, path, {"nodes", "walltime", "cases"});
  YAML::Node n = m.require("nodes", "the nodes of each allocation");
  p.nodes = as_int(file, n, m.path("nodes"));
  if (p.nodes < 1) fail(file, n, m.path("nodes"), "must be at least 1");
  if (auto v = m.get("walltime"); v.IsDefined()) {
    p.walltime_text = as_string(file, v, m.path("walltime"));
    p.walltime_s = parse_walltime(p.walltime_text);
    if (!p.walltime_s || *p.walltime_s <= 0)
      fail(file, v, m.path("walltime"), std::string("expected a walltime (") + kWalltimeForms + ")");
  }
  if (auto v = m.get("cases"); v.IsDefined()) {
    p.cases = as_int(file, v, m.path("cases"));
    if (*p.cases < 1) fail(file, v, m.path("cases"), "must be at least 1");
  }
  m.finish();
  return field(file, node, p);
}

// `array: {throttle: T}`, `array: true` (no throttle) or `array: false`.
Field<Array> parse_array(const std::string& file, const YAML::Node& node, const std::string& path) {
  Array a;
  a.where = location(file, node);
  if (node.IsScalar()) {
    a.enabled = as_bool(file, node, path);
    return field(file, node, a);
  }
  MapReader m(file, node, path, {"throttle"});
  if (auto v = m.get("throttle"); v.IsDefined()) {
    a.throttle = as_int(file, v, m.path("throttle"));
    if (*a.throttle < 1) fail(file, v, m.path("throttle"), "must be at least 1");
  }
  m.finish();
  return field(file, node, a);
}

void parse_step(const std::string& file, const YAML::Node& node, const std::string& path, Step& step) {
  MapReader m(file, node, path);
  if (auto v = m.get("enabled"); v.IsDefined()) step.enabled = as_bool(file, v, m.path("enabled"));
  if (auto v = m.get("matrix"); v.IsDefined()) {
    Matrix mx = step.matrix ? *step.matrix : Matrix{};
    parse_matrix(file, v, m.path("matrix"), mx);
    step.matrix = field(file, v, mx);
  }
  if (auto v = m.get("derived"); v.IsDefined()) parse_derived(file, v, m.path("derived"), step.derived);
  if (auto v = m.get("case_name"); v.IsDefined())
    step.name_template = field(file, v, as_string(file, v, m.path("case_name")));
  if (auto v = m.get("job"); v.IsDefined()) parse_job(file, v, m.path("job"), step.job);
  if (auto v = m.get("pack"); v.IsDefined()) step.pack = parse_pack(file, v, m.path("pack"));
  if (auto v = m.get("array"); v.IsDefined()) step.array = parse_array(file, v, m.path("array"));
  if (auto v = m.get("after"); v.IsDefined()) {
    step.after = as_string_list(file, v, m.path("after"));
    step.after_where = location(file, v);
  }
  if (auto v = m.get("collectors"); v.IsDefined())
    step.collectors = field(file, v,
                            v.IsSequence() && v.size() == 0 ? std::vector<std::string>{}
                                                            : as_string_list(file, v, m.path("collectors")));
  m.finish();
}

void parse_steps(const std::string& file, const YAML::Node& node, const std::string& path, Campaign& c) {
  MapReader m(file, node, path);
  for (auto& [k, knode] : m.entries()) {
    check_identifier(file, knode, k, m.path(k), "step");
    Step* step = nullptr;
    for (auto& s : c.steps)
      if (s.name == k) step = &s;
    if (!step) {
      Step fresh;
      fresh.name = k;
      fresh.where = location(file, knode);
      c.steps.push_back(std::move(fresh));
      step = &c.steps.back();
    }
    parse_step(file, m.get(k), m.path(k), *step);
  }
}

// `inputs:` a list of paths, or of {from, to, exclude}.
std::vector<Component> parse_components(const std::string& file, const YAML::Node& node,
                                        const std::string& path) {
  std::vector<Component> out;
  if (node.IsNull()) return out;
  MapReader list(file, node, path);
  for (const auto& [name, key_node] : list.entries()) {
    const std::string cpath = list.path(name);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
        !std::all_of(name.begin(), name.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
      fail(file, key_node, cpath, "a component name is a word: letters, digits, _");
    const YAML::Node body = list.get(name);
    if (!body.IsMap())
      fail(file, body, cpath,
           std::string("expected a map with 'collector' and 'match', got ") + type_name(body));
    MapReader m(file, body, cpath, {"collector", "match", "percent_of"});
    Component comp;
    comp.name = name;
    comp.where = location(file, key_node);
    const YAML::Node collector = m.require("collector", "the collector whose profile it sums");
    comp.collector = as_string(file, collector, m.path("collector"));
    comp.collector_where = location(file, collector);
    if (comp.collector.empty()) fail(file, collector, m.path("collector"), "empty collector name");
    const YAML::Node match = m.require("match", "a regular expression over the routine or kernel names");
    comp.match = as_string(file, match, m.path("match"));
    if (comp.match.empty()) fail(file, match, m.path("match"), "empty regex (it would match every name)");
    try {
      (void)std::regex(comp.match, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      fail(file, match, m.path("match"), std::string("bad regex: ") + e.what());
    }
    if (const YAML::Node of = m.get("percent_of"); of.IsDefined()) {
      comp.percent_of = as_string(file, of, m.path("percent_of"));
      if (comp.percent_of.empty()) fail(file, of, m.path("percent_of"), "empty metric name");
    }
    out.push_back(std::move(comp));
  }
  return out;
}

std::vector<Input> parse_inputs(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence() && !node.IsNull())
    fail(file, node, path, std::string("expected a list of files or directories, got ") + type_name(node));
  std::vector<Input> out;
  if (node.IsNull()) return out;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string ipath = path + "[" + std::to_string(i) + "]";
    Input in;
    in.where = location(file, item);
    Location to_where = in.where;  // (yaml-cpp's Node assignment would rebind the node it refers to)
    bool has_to = false;
    if (item.IsMap()) {
      MapReader m(file, item, ipath);
      in.from = as_string(file, m.require("from"), m.path("from"));
      if (auto v = m.get("to"); v.IsDefined()) {
        to_where = location(file, v);
        has_to = true;
        in.to = as_string(file, v, m.path("to"));
      }
      if (auto v = m.get("exclude"); v.IsDefined()) in.exclude = as_string_list(file, v, m.path("exclude"));
      m.finish();
    } else {
      in.from = as_string(file, item, ipath);
    }
    if (in.from.empty()) fail(file, item, ipath, "empty path");
    if (!has_to) {
      auto p = std::filesystem::path(in.from).lexically_normal();
      in.to = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
      if (in.to.empty() || in.to == "." || in.to == "..")
        fail(file, item, ipath, "cannot name '" + in.from + "' in the work directory: give `to:`");
    }
    auto to = std::filesystem::path(in.to).lexically_normal();
    bool escapes = false;
    for (auto& part : to) escapes |= part == "..";
    if (in.to.empty() || to.is_absolute() || escapes || to == ".")
      throw InputError(to_where, ipath + ".to",
                       "'" + in.to + "' must be a path inside the work directory (relative, without '..')");
    in.to = to.generic_string();
    while (!in.to.empty() && in.to.back() == '/') in.to.pop_back();
    out.push_back(std::move(in));
  }
  return out;
}

// track: [METRIC | {metric: METRIC, better: higher|lower, threshold: PERCENT}, ...]
std::vector<Tracked> parse_track(const std::string& file, const YAML::Node& v, const std::string& path) {
  if (!v.IsSequence()) fail(file, v, path, std::string("expected a list of metrics, got ") + type_name(v));
  std::vector<Tracked> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const YAML::Node item = v[i];
    const std::string ipath = path + "[" + std::to_string(i) + "]";
    Tracked t;
    t.where = location(file, item);
    if (item.IsMap()) {
      MapReader m(file, item, ipath, {"metric", "better", "threshold"});
      t.metric = as_string(file, m.require("metric"), m.path("metric"));
      if (auto b = m.get("better"); b.IsDefined())
        t.better = one_of(file, b, m.path("better"), {"higher", "lower"});
      if (auto th = m.get("threshold"); th.IsDefined()) {
        t.threshold = as_number(file, th, m.path("threshold"));
        if (!(t.threshold > 0)) fail(file, th, m.path("threshold"), "a threshold is a positive percentage");
      }
      m.finish();
    } else {
      t.metric = as_string(file, item, ipath);
    }
    if (trim(t.metric).empty()) fail(file, item, ipath, "empty metric");
    out.push_back(std::move(t));
  }
  return out;
}

// A bound of a reference: a fraction of the value (-0.05) or a percentage ("-5%").
double parse_bound(const std::string& file, const YAML::Node& v, const std::string& path) {
  std::string text = v.IsScalar() ? trim(v.Scalar()) : "";
  double x = 0;
  if (!text.empty() && text.back() == '%') {
    text.pop_back();
    const char* end = text.data() + text.size();
    const char* first = text.data() + (text.rfind('+', 0) == 0 ? 1 : 0);
    auto [ptr, ec] = std::from_chars(first, end, x);
    if (ec != std::errc() || ptr != end)
      fail(file, v, path, "a bound is a fraction (-0.05) or a percentage (-5%)");
    x /= 100;
  } else {
    x = as_number(file, v, path);
  }
  return x;
}

// reference: {SYSTEM: {METRIC: {value: V, lower: -5%, upper: 10%} | [V, LOWER, UPPER]}}
void parse_references(const std::string& file, const YAML::Node& v, const std::string& path,
                      std::vector<Reference>& out) {
  MapReader systems(file, v, path);
  for (auto& [system, knode] : systems.entries()) {
    YAML::Node body = systems.get(system);
    MapReader metrics(file, body, systems.path(system));
    for (auto& [metric, mnode] : metrics.entries()) {
      YAML::Node m = metrics.get(metric);
      const std::string mpath = metrics.path(metric);
      Reference r;
      r.system = system;
      r.metric = metric;
      r.where = location(file, mnode);
      if (m.IsSequence()) {
        if (m.size() < 1 || m.size() > 3)
          fail(file, m, mpath, "a reference is [VALUE, LOWER, UPPER] or {value, lower, upper}");
        r.value = as_number(file, m[0], mpath + "[0]");
        if (m.size() > 1 && !m[1].IsNull()) r.lower = parse_bound(file, m[1], mpath + "[1]");
        if (m.size() > 2 && !m[2].IsNull()) r.upper = parse_bound(file, m[2], mpath + "[2]");
      } else {
        MapReader f(file, m, mpath, {"value", "lower", "upper"});
        r.value = as_number(file, f.require("value"), f.path("value"));
        if (auto x = f.get("lower"); x.IsDefined() && !x.IsNull())
          r.lower = parse_bound(file, x, f.path("lower"));
        if (auto x = f.get("upper"); x.IsDefined() && !x.IsNull())
          r.upper = parse_bound(file, x, f.path("upper"));
        f.finish();
      }
      if (r.lower && *r.lower > 0)
        fail(file, m, mpath, "the lower bound is at most 0 (a fraction below the value)");
      if (r.upper && *r.upper < 0)
        fail(file, m, mpath, "the upper bound is at least 0 (a fraction above the value)");
      out.push_back(std::move(r));
    }
    metrics.finish();
  }
  systems.finish();
}

// Parses the keys shared by the campaign root and a system override onto `c`.
void parse_body(MapReader& r, Campaign& c, bool is_override) {
  const std::string& file = r.file();
  auto str = [&](const char* key, Field<std::string>& f) {
    YAML::Node v = r.get(key);
    if (v.IsDefined() && !v.IsNull()) f = field(file, v, as_string(file, v, r.path(key)));
  };
  if (!is_override) {
    if (auto v = r.get("system"); v.IsSequence()) {
      std::set<std::string> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string ipath = r.path("system") + "[" + std::to_string(i) + "]";
        std::string name = as_string(file, v[i], ipath);
        if (name.empty() || name == "auto")
          fail(file, v[i], ipath, "each system of a list is a profile's name or path (not auto)");
        if (!seen.insert(name).second) fail(file, v[i], ipath, "system '" + name + "' is listed twice");
        c.systems.push_back(field(file, v[i], name));
      }
      if (c.systems.size() == 1) c.system = c.systems.front(), c.systems.clear();
    } else {
      str("system", c.system);
    }
    if (auto v = r.get("reference"); v.IsDefined() && !v.IsNull()) {
      if (v.IsScalar()) {
        // A file beside the campaign (or below its folder): `campaign reference set` writes one.
        std::string rel = as_string(file, v, r.path("reference"));
        auto p = std::filesystem::path(rel).lexically_normal();
        bool escapes = p.is_absolute();
        for (auto& part : p) escapes |= part == "..";
        if (escapes)
          fail(file, v, r.path("reference"), "a reference file lies in the campaign's folder or below it");
        Document d = load_yaml(c.dir / p);
        if (!d.root.IsNull()) parse_references(d.file, d.root, "", c.references);
        c.reference_file = field(file, v, p.generic_string());
      } else {
        parse_references(file, v, r.path("reference"), c.references);
      }
    }
    if (auto v = r.get("description"); v.IsDefined())
      c.description = as_string(file, v, r.path("description"));
  }
  str("workdir", c.workdir);
  str("account", c.account);
  str("code_dir", c.code_dir);
  if (auto v = r.get("params"); v.IsDefined()) parse_params(r, v, c.params, c.params_where);
  if (auto v = r.get("matrix"); v.IsDefined()) {
    c.matrix_where = location(file, v);
    parse_matrix(file, v, r.path("matrix"), c.matrix);
  }
  if (auto v = r.get("derived"); v.IsDefined()) parse_derived(file, v, r.path("derived"), c.derived);
  str("case_name", c.name_template);
  if (auto v = r.get("job"); v.IsDefined()) parse_job(file, v, r.path("job"), c.job);
  if (auto v = r.get("pack"); v.IsDefined()) c.pack = parse_pack(file, v, r.path("pack"));
  if (auto v = r.get("array"); v.IsDefined()) c.array = parse_array(file, v, r.path("array"));
  if (auto v = r.get("steps"); v.IsDefined()) parse_steps(file, v, r.path("steps"), c);
  if (auto v = r.get("retry"); v.IsDefined()) parse_retry(file, v, r.path("retry"), c.retry);
  if (auto v = r.get("budget"); v.IsDefined() && !v.IsNull()) {
    double b = as_number(file, v, r.path("budget"));
    if (b <= 0) fail(file, v, r.path("budget"), "a budget is a positive number of node-hours");
    c.budget_node_hours = field(file, v, b);
  }
  if (auto v = r.get("collectors"); v.IsDefined()) {
    c.collectors = as_string_list(file, v, r.path("collectors"));
    c.collectors_where.assign(c.collectors.size(), location(file, v));
    if (v.IsSequence())
      for (size_t i = 0; i < v.size(); ++i) c.collectors_where[i] = location(file, v[i]);
  }
  if (auto v = r.get("components"); v.IsDefined())
    c.components = parse_components(file, v, r.path("components"));
  if (auto v = r.get("inputs"); v.IsDefined()) c.inputs = parse_inputs(file, v, r.path("inputs"));
  if (auto v = r.get("fetch"); v.IsDefined()) {
    MapReader m(file, v, r.path("fetch"));
    if (auto x = m.get("include"); x.IsDefined())
      c.fetch.include = as_string_list(file, x, m.path("include"));
    if (auto x = m.get("exclude"); x.IsDefined())
      c.fetch.exclude = as_string_list(file, x, m.path("exclude"));
    m.finish();
  }
  if (auto v = r.get("analyses"); v.IsDefined()) {
    if (!v.IsSequence() && !v.IsNull())
      fail(file, v, r.path("analyses"), std::string("expected a list of analyses, got ") + type_name(v));
    c.analyses = analysis::parse_analyses(v, file);
  }
  if (auto v = r.get("commit_url"); v.IsDefined() && !v.IsNull()) {
    std::string url = as_string(file, v, r.path("commit_url"));
    if (std::string why = commit_url_problem(url); !why.empty()) fail(file, v, r.path("commit_url"), why);
    c.commit_url = field(file, v, url);
  }
  if (auto v = r.get("track"); v.IsDefined()) c.track = parse_track(file, v, r.path("track"));
}

}  // namespace

Campaign parse_campaign(const std::string& text, const std::string& file_name) {
  Document doc = parse_yaml(text, file_name);
  Campaign c;
  c.file = file_name;
  c.dir = std::filesystem::absolute(std::filesystem::path(file_name)).lexically_normal().parent_path();
  c.text = text;
  c.sha256 = sha256_hex(text);
  MapReader r(file_name, doc.root, "");
  c.name = as_string(file_name, r.require("name"), "name");
  // '@' is the catalog's: NAME@SYSTEM names one system's part of a campaign across several.
  if (c.name.empty() || c.name.find_first_of("/@ \t") != std::string::npos)
    fail(file_name, r.get("name"), "name", "a campaign name is a non-empty word without '/', '@' or spaces");
  parse_body(r, c, false);
  if (auto v = r.get("systems"); v.IsDefined()) {
    MapReader sys(file_name, v, "systems");
    for (auto& [k, knode] : sys.entries()) {
      YAML::Node body = sys.get(k);
      c.overrides[k] = body;
      c.overrides_where[k] = location(file_name, knode);
    }
  }
  r.finish();
  if (c.steps.empty()) {
    Step main_step;
    main_step.name = "main";
    main_step.where = Location{file_name, 1, 1};
    c.steps.push_back(std::move(main_step));
  }
  // Check every override now, so `validate` reports errors in all of them.
  for (auto& [sys, _] : c.overrides) (void)for_system(c, sys);
  return c;
}

Campaign load_campaign(const std::filesystem::path& path) {
  Document doc = load_yaml(path);
  return parse_campaign(doc.text, doc.file);
}

Campaign for_system(const Campaign& base, const std::string& system) {
  Campaign c = base;
  auto it = base.overrides.find(system);
  if (it == base.overrides.end()) return c;
  MapReader r(base.file, it->second, "systems." + system);
  parse_body(r, c, true);
  r.finish();
  return c;
}

std::string commit_url_problem(const std::string& url) {
  if (!starts_with(url, "https://") && !starts_with(url, "http://"))
    return "a commit URL starts with https:// or http://, e.g. https://github.com/org/repo/commit/{{commit}}";
  if (url.find("{{commit}}") == std::string::npos)
    return "a commit URL holds {{commit}}, where the commit id goes";
  for (size_t at = url.find("{{"); at != std::string::npos; at = url.find("{{", at + 2))
    if (url.compare(at, 10, "{{commit}}") != 0) return "{{commit}} is the only placeholder of a commit URL";
  for (char ch : url)
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '"' || ch == '<' || ch == '>')
      return "a commit URL holds no spaces, quotes or angle brackets";
  return "";
}

std::string commit_url(const std::string& url, const std::string& commit) {
  std::string out;
  size_t start = 0;
  for (size_t at = url.find("{{commit}}"); at != std::string::npos; at = url.find("{{commit}}", start)) {
    out += url.substr(start, at - start) + commit;
    start = at + 10;
  }
  return out + url.substr(start);
}

const Step* find_step(const Campaign& campaign, const std::string& name) {
  for (auto& s : campaign.steps)
    if (s.name == name) return &s;
  return nullptr;
}

std::filesystem::path input_source(const Campaign& c, const Input& in) {
  std::filesystem::path from =
      std::filesystem::path(in.from).is_absolute() ? std::filesystem::path(in.from) : c.dir / in.from;
  std::error_code ec;
  if (!std::filesystem::exists(from, ec))
    throw InputError(in.where, "inputs",
                     "'" + in.from + "' does not exist (looked for " + from.string() + ")");
  return from;
}

}  // namespace campaign::spec

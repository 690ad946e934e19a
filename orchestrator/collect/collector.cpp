// Collector YAML -> Collector: validation of every key, with errors as
// InputError "file:line:col: sources[0].metrics[2].colum: unknown key, did you
// mean 'column'?".
//
// Invariant: a Collector returned from here is complete and consistent (see
// source.hpp), so collect() only ever reports problems in the run's data.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "collect/collect.hpp"
#include "collect/input.hpp"
#include "collect/source.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace {

const std::vector<std::string> kTopKeys{"name", "description", "sources"};
const std::vector<std::string> kCommonKeys{"engine", "file", "stdout", "required", "multiple"};
const std::vector<std::string> kCsvKeys{"step", "delimiter", "metrics"};
const std::vector<std::string> kMllogKeys{"intervals", "values", "instances", "instance_key"};
const std::vector<std::string> kRegexKeys{"patterns"};
const std::vector<std::string> kDocKeys{"values"};
const std::vector<std::string> kEngines{"csv", "mllog", "regex", "json", "yaml"};
const std::vector<std::string> kCsvColumnKeys{"column", "name", "unit", "scale", "optional"};
const std::vector<std::string> kIntervalKeys{"key", "name", "step"};
const std::vector<std::string> kMllogValueKeys{"key", "name", "unit", "scale", "step"};
const std::vector<std::string> kMetricKeys{"name", "value", "step", "unit", "scale", "format", "reduce"};
const std::vector<std::string> kPatternKeys{"regex", "captures", "contains", "metrics", "name",  "value",
                                            "step",  "unit",     "scale",    "format",  "reduce"};
const std::vector<std::string> kDocValueKeys{"path", "name", "unit", "scale", "optional"};
const std::vector<std::string> kReduces{"last", "first", "mean", "sum", "min", "max", "count", "steps"};
const std::vector<std::string> kInstances{"mean", "min", "max", "separate"};
const std::vector<std::string> kFormats{"number", "tau_msec"};
const std::vector<std::string> kMultiples{"newest", "all"};

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  Location where(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    return Location{file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
  }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& message) const {
    throw InputError(where(n), key, message);
  }

  // Every key of `map` must be in `allowed`; `what` ("a csv source") explains keys of other engines.
  void check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed,
                  const std::string& what = {}) const {
    for (const auto& kv : map) {
      const YAML::Node& k = kv.first;
      if (!k.IsScalar()) fail(k, path, "keys must be plain names");
      const std::string& key = k.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string hint = did_you_mean(key, allowed);
      if (hint.empty() && !what.empty()) {
        for (const auto* other : {&kCsvKeys, &kMllogKeys, &kRegexKeys, &kDocKeys})
          if (std::find(other->begin(), other->end(), key) != other->end()) hint = " for " + what;
      }
      fail(k, join_key(path, key), "unknown key" + hint);
    }
  }

  static std::string join_key(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // Nodes are handles, returned by value: n["key"] is a temporary.
  YAML::Node map(const YAML::Node& n, const std::string& path, const std::string& expected) const {
    if (!n.IsMap()) fail(n, path, "expected " + expected);
    return n;
  }

  std::string string(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "expected a string, got " + kind(n));
    return n.Scalar();
  }

  std::string nonempty(const YAML::Node& n, const std::string& path) const {
    std::string s = string(n, path);
    if (s.empty()) fail(n, path, "must not be empty");
    return s;
  }

  bool boolean(const YAML::Node& n, const std::string& path) const {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "true" || s == "True" || s == "yes") return true;
      if (s == "false" || s == "False" || s == "no") return false;
    }
    fail(n, path, "expected true or false, got " + kind(n));
  }

  double number(const YAML::Node& n, const std::string& path) const {
    if (n.IsScalar()) {
      auto v = parse_number(n.Scalar());
      if (v && std::isfinite(*v)) return *v;
    }
    fail(n, path, "expected a number, got " + kind(n));
  }

  std::string choice(const YAML::Node& n, const std::string& path,
                     const std::vector<std::string>& choices) const {
    std::string s = string(n, path);
    if (std::find(choices.begin(), choices.end(), s) == choices.end())
      fail(n, path, "'" + s + "' is not one of " + join(choices, ", ") + did_you_mean(s, choices));
    return s;
  }

  YAML::Node sequence(const YAML::Node& n, const std::string& path, bool allow_empty = false) const {
    if (!n.IsSequence()) fail(n, path, "expected a list, got " + kind(n));
    if (!allow_empty && n.size() == 0) fail(n, path, "must not be empty");
    return n;
  }

  static std::string kind(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "nothing";
    if (n.IsMap()) return "a map";
    if (n.IsSequence()) return "a list";
    return "'" + n.Scalar() + "'";
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

std::string item_path(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Metric names of one source must differ, else one would silently replace the other.
class UniqueNames {
 public:
  void add(const Parser& p, const YAML::Node& n, const std::string& path, const std::string& name) {
    if (!names_.insert(name).second)
      p.fail(n, path, "metric name '" + name + "' is already used in this source");
  }

 private:
  std::set<std::string> names_;
};

CsvSpec parse_csv(const Parser& p, const YAML::Node& n, const std::string& path) {
  CsvSpec spec;
  if (n["step"]) spec.step = p.nonempty(n["step"], path + ".step");
  if (n["delimiter"]) {
    std::string d = p.string(n["delimiter"], path + ".delimiter");
    if (d.size() != 1 || d == "\"" || d == "\n" || d == "\r")
      p.fail(n["delimiter"], path + ".delimiter", "must be one character other than a quote or newline");
    spec.delimiter = d[0];
  }
  if (!n["metrics"]) p.fail(n, path, "missing key 'metrics' (the columns to collect)");
  const std::string mpath = path + ".metrics";
  const YAML::Node items = p.sequence(n["metrics"], mpath);
  UniqueNames names;
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string ipath = item_path(mpath, i);
    CsvColumn c;
    if (item.IsScalar()) {
      c.column = p.nonempty(item, ipath);
    } else {
      p.map(item, ipath, "a column name or a map with 'column'");
      p.check_keys(item, ipath, kCsvColumnKeys);
      if (!item["column"]) p.fail(item, ipath, "missing key 'column'");
      c.column = p.nonempty(item["column"], ipath + ".column");
      if (item["name"]) c.name = p.nonempty(item["name"], ipath + ".name");
      if (item["unit"]) c.unit = p.string(item["unit"], ipath + ".unit");
      if (item["scale"]) c.scale = p.number(item["scale"], ipath + ".scale");
      if (item["optional"]) c.optional = p.boolean(item["optional"], ipath + ".optional");
    }
    if (c.name.empty()) c.name = c.column;
    names.add(p, item, ipath, c.name);
    spec.columns.push_back(std::move(c));
  }
  return spec;
}

MllogSpec parse_mllog(const Parser& p, const YAML::Node& n, const std::string& path) {
  MllogSpec spec;
  UniqueNames names;
  if (n["intervals"]) {
    const std::string ipath0 = path + ".intervals";
    const YAML::Node items = p.sequence(n["intervals"], ipath0, true);
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node& item = items[i];
      const std::string ipath = item_path(ipath0, i);
      MllogInterval iv{"", "", "epoch_num"};
      if (item.IsScalar()) {
        iv.key = p.nonempty(item, ipath);
      } else {
        p.map(item, ipath, "an interval key (epoch, run, ...) or a map with 'key'");
        p.check_keys(item, ipath, kIntervalKeys);
        if (!item["key"]) p.fail(item, ipath, "missing key 'key'");
        iv.key = p.nonempty(item["key"], ipath + ".key");
        if (item["name"]) iv.name = p.nonempty(item["name"], ipath + ".name");
        if (item["step"]) iv.step_key = item["step"].IsNull() ? "" : p.string(item["step"], ipath + ".step");
      }
      if (ends_with(iv.key, "_start") || ends_with(iv.key, "_stop"))
        p.fail(item, ipath,
               "give the interval without _start/_stop ('" + iv.key.substr(0, iv.key.rfind('_')) + "')");
      if (iv.name.empty()) iv.name = iv.key + "_time";
      names.add(p, item, ipath, iv.name);
      spec.intervals.push_back(std::move(iv));
    }
  } else {
    for (const char* key : {"epoch", "run", "staging"}) {
      spec.intervals.push_back(MllogInterval{key, std::string(key) + "_time", "epoch_num"});
      names.add(p, n, path, spec.intervals.back().name);
    }
  }
  if (n["values"]) {
    const std::string vpath0 = path + ".values";
    const YAML::Node items = p.sequence(n["values"], vpath0, true);
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node& item = items[i];
      const std::string ipath = item_path(vpath0, i);
      MllogValue v{"", "", "", "epoch_num", 1};
      if (item.IsScalar()) {
        v.key = p.nonempty(item, ipath);
      } else {
        p.map(item, ipath, "an event key (eval_error, ...) or a map with 'key'");
        p.check_keys(item, ipath, kMllogValueKeys);
        if (!item["key"]) p.fail(item, ipath, "missing key 'key'");
        v.key = p.nonempty(item["key"], ipath + ".key");
        if (item["name"]) v.name = p.nonempty(item["name"], ipath + ".name");
        if (item["unit"]) v.unit = p.string(item["unit"], ipath + ".unit");
        if (item["scale"]) v.scale = p.number(item["scale"], ipath + ".scale");
        if (item["step"]) v.step_key = item["step"].IsNull() ? "" : p.string(item["step"], ipath + ".step");
      }
      if (v.name.empty()) v.name = v.key;
      names.add(p, item, ipath, v.name);
      spec.values.push_back(std::move(v));
    }
  }
  if (spec.intervals.empty() && spec.values.empty())
    p.fail(n, path, "nothing to collect: 'intervals' and 'values' are both empty");
  if (n["instances"]) {
    std::string s = p.choice(n["instances"], path + ".instances", kInstances);
    spec.instances = s == "min"        ? Instances::min
                     : s == "max"      ? Instances::max
                     : s == "separate" ? Instances::separate
                                       : Instances::mean;
  }
  if (n["instance_key"]) spec.instance_key = p.nonempty(n["instance_key"], path + ".instance_key");
  return spec;
}

// (?<name>...) and (?P<name>...) -> (...), recording the names; std::regex has no named groups.
// `names` gets one entry per capturing group, "" for unnamed ones, after a "" for group 0.
std::string rewrite_named_groups(const std::string& re, std::vector<std::string>& names, std::string& error) {
  names.assign(1, "");
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {
      out += c;
      if (i + 1 < re.size()) out += re[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      continue;
    }
    if (c == '(' && i + 1 < re.size() && re[i + 1] == '?') {
      size_t name_at = 0;
      if (re.compare(i + 2, 1, "<") == 0 && i + 3 < re.size() && re[i + 3] != '=' && re[i + 3] != '!')
        name_at = i + 3;
      else if (re.compare(i + 2, 2, "P<") == 0)
        name_at = i + 4;
      if (name_at == 0) {  // (?: (?= (?! and lookbehinds: not capturing
        out += c;
        continue;
      }
      size_t close = re.find('>', name_at);
      if (close == std::string::npos) {
        error = "unterminated group name";
        return {};
      }
      std::string name = re.substr(name_at, close - name_at);
      if (!is_identifier(name)) {
        error = "bad group name '" + name + "'";
        return {};
      }
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        error = "group name '" + name + "' used twice";
        return {};
      }
      names.push_back(name);
      out += '(';
      i = close;
      continue;
    }
    if (c == '(') names.push_back("");
    out += c;
  }
  return out;
}

// The longest literal every match must contain, found outside groups and
// classes; "" when there is a top-level alternation or nothing literal.
std::string required_literal(const std::string& re) {
  std::string best, cur;
  auto flush = [&] {
    if (cur.size() > best.size()) best = cur;
    cur.clear();
  };
  auto skip_class = [&](size_t i) {  // i at '['; returns index of the closing ']'
    for (++i; i < re.size() && re[i] != ']'; ++i)
      if (re[i] == '\\') ++i;
    return i;
  };
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {
      if (i + 1 >= re.size()) return {};
      char e = re[++i];
      if (std::isalnum(static_cast<unsigned char>(e))) {
        flush();  // \d \s \w \b \x41 \u0041 \cJ ...: not taken as literal text
        i += e == 'x' ? 2 : e == 'u' ? 4 : e == 'c' ? 1 : 0;
      } else {
        cur += e;
      }
    } else if (c == '[') {
      flush();
      i = skip_class(i);
    } else if (c == '(') {
      flush();
      int depth = 0;
      for (; i < re.size(); ++i) {
        if (re[i] == '\\') {
          ++i;
        } else if (re[i] == '[') {
          i = skip_class(i);
        } else if (re[i] == '(') {
          ++depth;
        } else if (re[i] == ')' && --depth == 0) {
          break;
        }
      }
    } else if (c == '|') {
      return {};
    } else if (c == '*' || c == '?' || c == '{') {
      if (!cur.empty()) cur.pop_back();  // the atom before is optional
      flush();
      if (c == '{')
        while (i < re.size() && re[i] != '}') ++i;
    } else if (c == '+' || c == '.' || c == '^' || c == '$' || c == ')') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  return best;
}

// A capture given by name or by number (0 is the whole match).
int capture_ref(const Parser& p, const YAML::Node& n, const std::string& path, const RegexPattern& pat) {
  std::string s = p.nonempty(n, path);
  const int groups = static_cast<int>(pat.groups.size()) - 1;
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int i = s.size() > 4 ? groups + 1 : std::stoi(s);
    if (i > groups)
      p.fail(n, path, "capture " + s + " does not exist, the regex has " + std::to_string(groups));
    return i;
  }
  for (int i = 1; i <= groups; ++i)
    if (pat.groups[static_cast<size_t>(i)] == s) return i;
  std::vector<std::string> names;
  for (const auto& g : pat.groups)
    if (!g.empty()) names.push_back(g);
  p.fail(n, path,
         "no capture named '" + s + "'" +
             (names.empty() ? std::string(" (name groups with (?<name>...) or 'captures:')")
                            : did_you_mean(s, names)));
}

RegexMetric parse_regex_metric(const Parser& p, const YAML::Node& n, const std::string& path,
                               const RegexPattern& pat, const YAML::Node& at) {
  RegexMetric m;
  if (!n["name"]) p.fail(at, path, "missing key 'name' (the metric's name; may use {capture})");
  const YAML::Node& name_node = n["name"];
  m.name = p.nonempty(name_node, path + ".name");
  // Split the template into literal text and {capture} references.
  for (size_t i = 0; i < m.name.size();) {
    size_t open = m.name.find('{', i);
    size_t stray = m.name.find('}', i);
    if (stray < open) p.fail(name_node, path + ".name", "'}' without '{'");
    if (open == std::string::npos) {
      m.parts.push_back(NamePart{m.name.substr(i), -1});
      break;
    }
    if (open > i) m.parts.push_back(NamePart{m.name.substr(i, open - i), -1});
    size_t close = m.name.find('}', open);
    if (close == std::string::npos) p.fail(name_node, path + ".name", "'{' without '}'");
    YAML::Node ref(m.name.substr(open + 1, close - open - 1));
    try {
      m.parts.push_back(NamePart{"", capture_ref(p, ref, path + ".name", pat)});
    } catch (const InputError& e) {
      p.fail(name_node, path + ".name", e.message());
    }
    i = close + 1;
  }
  if (n["reduce"]) {
    std::string r = p.choice(n["reduce"], path + ".reduce", kReduces);
    m.reduce = static_cast<Reduce>(std::find(kReduces.begin(), kReduces.end(), r) - kReduces.begin());
  }
  const int groups = static_cast<int>(pat.groups.size()) - 1;
  if (n["value"]) {
    m.value = capture_ref(p, n["value"], path + ".value", pat);
  } else if (m.reduce != Reduce::count) {
    if (groups != 1)
      p.fail(at, path,
             "missing key 'value': which of the " + std::to_string(groups) + " captures is the value?");
    m.value = 1;
  }
  if (n["step"]) {
    m.step = capture_ref(p, n["step"], path + ".step", pat);
    if (m.reduce == Reduce::steps)
      p.fail(n["step"], path + ".step",
             "'reduce: steps' numbers the matches itself; drop 'step' or the reduce");
  }
  if (n["unit"]) m.unit = p.string(n["unit"], path + ".unit");
  if (n["scale"]) m.scale = p.number(n["scale"], path + ".scale");
  if (n["format"])
    m.format = p.choice(n["format"], path + ".format", kFormats) == "tau_msec" ? NumberFormat::tau_msec
                                                                               : NumberFormat::number;
  return m;
}

RegexSpec parse_regex(const Parser& p, const YAML::Node& n, const std::string& path) {
  RegexSpec spec;
  if (!n["patterns"]) p.fail(n, path, "missing key 'patterns'");
  const std::string ppath0 = path + ".patterns";
  const YAML::Node items = p.sequence(n["patterns"], ppath0);
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string ipath = item_path(ppath0, i);
    p.map(item, ipath, "a map with 'regex'");
    p.check_keys(item, ipath, kPatternKeys);
    if (!item["regex"]) p.fail(item, ipath, "missing key 'regex'");
    RegexPattern pat;
    const YAML::Node& re_node = item["regex"];
    pat.text = p.nonempty(re_node, ipath + ".regex");
    std::string error;
    std::string rewritten = rewrite_named_groups(pat.text, pat.groups, error);
    if (!error.empty()) p.fail(re_node, ipath + ".regex", "bad regex: " + error);
    size_t groups = 0;
    try {
      // Polynomial (breadth-first) mode, and the search turned into one anchored pass: see regex_engine.cpp.
      const auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
      groups = std::regex(rewritten, flags).mark_count();  // alone first: "a)(b" must not pass once wrapped
      pat.re = std::regex("[\\s\\S]*?(" + rewritten + ")", flags);
    } catch (const std::regex_error& e) {
      p.fail(re_node, ipath + ".regex", std::string("bad regex: ") + e.what());
    }
    if (groups + 1 != pat.groups.size())
      p.fail(re_node, ipath + ".regex", "bad regex: cannot count its groups");
    if (item["captures"]) {
      const YAML::Node caps = p.sequence(item["captures"], ipath + ".captures");
      bool named =
          std::any_of(pat.groups.begin(), pat.groups.end(), [](const std::string& g) { return !g.empty(); });
      if (named)
        p.fail(item["captures"], ipath + ".captures", "the regex names its groups already; drop 'captures'");
      if (caps.size() != groups)
        p.fail(item["captures"], ipath + ".captures",
               std::to_string(caps.size()) + " names for " + std::to_string(groups) + " groups");
      for (size_t k = 0; k < caps.size(); ++k) {
        std::string name = p.nonempty(caps[k], item_path(ipath + ".captures", k));
        if (!is_identifier(name))
          p.fail(caps[k], item_path(ipath + ".captures", k), "not a name: '" + name + "'");
        if (std::find(pat.groups.begin(), pat.groups.end(), name) != pat.groups.end())
          p.fail(caps[k], item_path(ipath + ".captures", k), "capture name '" + name + "' used twice");
        pat.groups[k + 1] = name;
      }
    }
    for (size_t k = 1; k < pat.groups.size(); ++k)
      if (pat.groups[k].empty()) pat.groups[k] = std::to_string(k);
    pat.literal =
        item["contains"] ? p.nonempty(item["contains"], ipath + ".contains") : required_literal(rewritten);

    if (item["metrics"]) {
      for (const char* key : {"name", "value", "step", "unit", "scale", "format", "reduce"})
        if (item[key])
          p.fail(item[key], ipath + "." + key, "give it in each of 'metrics', or drop 'metrics'");
      const std::string mpath0 = ipath + ".metrics";
      const YAML::Node metrics = p.sequence(item["metrics"], mpath0);
      for (size_t k = 0; k < metrics.size(); ++k) {
        const std::string mpath = item_path(mpath0, k);
        p.map(metrics[k], mpath, "a map with 'name'");
        p.check_keys(metrics[k], mpath, kMetricKeys);
        pat.metrics.push_back(parse_regex_metric(p, metrics[k], mpath, pat, metrics[k]));
      }
    } else {
      pat.metrics.push_back(parse_regex_metric(p, item, ipath, pat, item));
    }
    spec.patterns.push_back(std::move(pat));
  }
  return spec;
}

// "history.loss[3]" -> history, loss, [3]
std::vector<std::string> split_path(const Parser& p, const YAML::Node& n, const std::string& ypath,
                                    const std::string& path) {
  std::vector<std::string> keys;
  for (const std::string& part : split(path, '.')) {
    size_t bracket = part.find('[');
    std::string head = part.substr(0, bracket);
    if (head.empty() && bracket != 0) p.fail(n, ypath, "bad path '" + path + "': empty component");
    if (!head.empty()) keys.push_back(head);
    while (bracket != std::string::npos) {
      size_t close = part.find(']', bracket);
      std::string digits = close == std::string::npos ? "" : part.substr(bracket + 1, close - bracket - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        p.fail(n, ypath, "bad path '" + path + "': expected [index]");
      keys.push_back("[" + digits + "]");
      bracket = close + 1 < part.size() ? close + 1 : std::string::npos;
      if (bracket != std::string::npos && part[bracket] != '[')
        p.fail(n, ypath, "bad path '" + path + "': text after ]");
    }
  }
  return keys;
}

DocSpec parse_doc(const Parser& p, const YAML::Node& n, const std::string& path) {
  DocSpec spec;
  if (!n["values"]) p.fail(n, path, "missing key 'values' (paths of the values to collect)");
  const std::string vpath0 = path + ".values";
  const YAML::Node items = p.sequence(n["values"], vpath0);
  UniqueNames names;
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string ipath = item_path(vpath0, i);
    DocValue v;
    const YAML::Node* path_node = &item;
    if (item.IsScalar()) {
      v.path = p.nonempty(item, ipath);
    } else {
      p.map(item, ipath, "a path or a map with 'path'");
      p.check_keys(item, ipath, kDocValueKeys);
      if (!item["path"]) p.fail(item, ipath, "missing key 'path'");
      path_node = nullptr;
      v.path = p.nonempty(item["path"], ipath + ".path");
      if (item["name"]) v.name = p.nonempty(item["name"], ipath + ".name");
      if (item["unit"]) v.unit = p.string(item["unit"], ipath + ".unit");
      if (item["scale"]) v.scale = p.number(item["scale"], ipath + ".scale");
      if (item["optional"]) v.optional = p.boolean(item["optional"], ipath + ".optional");
    }
    v.keys =
        split_path(p, path_node ? *path_node : item["path"], path_node ? ipath : ipath + ".path", v.path);
    if (v.name.empty()) v.name = v.path;
    names.add(p, item, ipath, v.name);
    spec.values.push_back(std::move(v));
  }
  return spec;
}

std::shared_ptr<const Source> parse_source(const Parser& p, const YAML::Node& n, const std::string& path) {
  p.map(n, path, "a map with 'engine' and 'file'");
  if (!n["engine"]) p.fail(n, path, "missing key 'engine' (" + join(kEngines, ", ") + ")");
  auto src = std::make_shared<Source>();
  const std::string engine = p.choice(n["engine"], path + ".engine", kEngines);
  src->engine = static_cast<Engine>(std::find(kEngines.begin(), kEngines.end(), engine) - kEngines.begin());
  const std::vector<std::string>& own = src->engine == Engine::csv     ? kCsvKeys
                                        : src->engine == Engine::mllog ? kMllogKeys
                                        : src->engine == Engine::regex ? kRegexKeys
                                                                       : kDocKeys;
  p.check_keys(n, path, kCommonKeys + own, "a " + engine + " source");

  if (n["stdout"]) src->from_stdout = p.boolean(n["stdout"], path + ".stdout");
  if (n["file"]) {
    if (src->from_stdout) p.fail(n["file"], path + ".file", "give either 'file' or 'stdout: true', not both");
    src->file = p.nonempty(n["file"], path + ".file");
    if (src->file.front() == '/') p.fail(n["file"], path + ".file", "must be relative to the run directory");
    if (src->file.find("**") != std::string::npos) p.fail(n["file"], path + ".file", "'**' is not supported");
  } else if (!src->from_stdout) {
    p.fail(n, path, "missing key 'file' (a glob relative to the run directory) or 'stdout: true'");
  }
  if (n["required"]) src->required = p.boolean(n["required"], path + ".required");
  if (n["multiple"]) {
    src->multiple =
        p.choice(n["multiple"], path + ".multiple", kMultiples) == "all" ? Multiple::all : Multiple::newest;
    if (src->multiple == Multiple::all && src->engine != Engine::regex)
      p.fail(n["multiple"], path + ".multiple", "'all' is for regex sources only; the others read one file");
  }

  switch (src->engine) {
    case Engine::csv:
      src->spec = parse_csv(p, n, path);
      break;
    case Engine::mllog:
      src->spec = parse_mllog(p, n, path);
      break;
    case Engine::regex:
      src->spec = parse_regex(p, n, path);
      break;
    case Engine::json:
    case Engine::yaml:
      src->spec = parse_doc(p, n, path);
      break;
  }
  return src;
}

Collector parse_collector_node(const YAML::Node& node, const std::string& file);

}  // namespace

Collector parse_collector(const YAML::Node& node, const std::string& file) {
  try {
    return parse_collector_node(node, file);
  } catch (const YAML::Exception& e) {
    // A conversion yaml-cpp refused that the checks above did not foresee.
    throw InputError(
        Location{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
        "", e.msg);
  }
}

namespace {

Collector parse_collector_node(const YAML::Node& node, const std::string& file) {
  Parser p(file);
  if (!node.IsDefined() || node.IsNull()) throw InputError(Location{file, 0, 0}, "", "empty collector");
  p.map(node, "", "a map with 'sources' (and optionally 'name', 'description')");
  p.check_keys(node, "", kTopKeys);
  Collector c;
  c.file = file;
  c.name = node["name"] ? p.nonempty(node["name"], "name") : std::filesystem::path(file).stem().string();
  if (c.name.empty()) c.name = "collector";
  if (node["description"]) c.description = p.string(node["description"], "description");
  if (!node["sources"]) p.fail(node, "", "missing key 'sources'");
  const YAML::Node sources = p.sequence(node["sources"], "sources");
  for (size_t i = 0; i < sources.size(); ++i)
    c.sources.push_back(parse_source(p, sources[i], item_path("sources", i)));
  return c;
}

}  // namespace

std::vector<std::string> declared_metrics(const Collector& c) {
  std::vector<std::string> out;
  for (const auto& src : c.sources) {
    if (auto* csv = std::get_if<CsvSpec>(&src->spec)) {
      for (const auto& col : csv->columns) out.push_back(col.name);
    } else if (auto* ml = std::get_if<MllogSpec>(&src->spec)) {
      std::vector<std::string> names;
      for (const auto& iv : ml->intervals) names.push_back(iv.name);
      for (const auto& v : ml->values) names.push_back(v.name);
      for (const auto& n : names) {
        out.push_back(n);
        if (ml->instances == Instances::separate) out.push_back(n + "[{instance}]");
      }
    } else if (auto* re = std::get_if<RegexSpec>(&src->spec)) {
      for (const auto& pat : re->patterns)
        for (const auto& m : pat.metrics) out.push_back(m.name);
    } else if (auto* doc = std::get_if<DocSpec>(&src->spec)) {
      for (const auto& v : doc->values) out.push_back(v.name);
    }
  }
  return out;
}

Collector load_collector(const std::filesystem::path& yaml_file) {
  const std::string file = yaml_file.string();
  YAML::Node node;
  try {
    node = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw InputError(Location{file, 0, 0}, "", "cannot read collector file");
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(Location{file, e.mark.line + 1, e.mark.column + 1}, "",
                     "nested deeper than " + std::to_string(e.depth()) + " levels");
  } catch (const YAML::Exception& e) {
    throw InputError(
        Location{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
        "", e.msg);
  }
  return parse_collector(node, file);
}

}  // namespace campaign::collect

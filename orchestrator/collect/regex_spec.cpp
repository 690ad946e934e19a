// The settings of regex sources: patterns, their named groups and the metrics
// each builds from its captures. std::regex has no named groups, so
// (?<name>...) is rewritten to (...) and the names kept beside the regex.
#include <algorithm>
#include <cctype>

#include "collect/read_spec.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

using spec::as_number;
using spec::as_string;
using spec::fail;

namespace {

const std::vector<std::string> kPatternKeys{"regex", "captures", "contains", "metrics", "name",  "value",
                                            "step",  "unit",     "scale",    "format",  "reduce"};
const std::vector<std::string> kMetricKeys{"name", "value", "step", "unit", "scale", "format", "reduce"};
const std::vector<std::string> kReduces{"last", "first", "mean", "sum", "min", "max", "count", "steps"};
const std::vector<std::string> kFormats{"number", "tau_msec"};

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
int capture_ref(const std::string& file, const YAML::Node& n, const std::string& key,
                const RegexPattern& pat) {
  std::string s = as_nonempty(file, n, key);
  const int groups = static_cast<int>(pat.groups.size()) - 1;
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int i = s.size() > 4 ? groups + 1 : std::stoi(s);
    if (i > groups)
      fail(file, n, key, "capture " + s + " does not exist, the regex has " + std::to_string(groups));
    return i;
  }
  for (int i = 1; i <= groups; ++i)
    if (pat.groups[static_cast<size_t>(i)] == s) return i;
  std::vector<std::string> names;
  for (const auto& g : pat.groups)
    if (!g.empty()) names.push_back(g);
  fail(file, n, key,
       "no capture named '" + s + "'" +
           (names.empty() ? std::string(" (name groups with (?<name>...) or 'captures:')")
                          : did_you_mean(s, names)));
}

// `m` is a pattern's map, or one of its `metrics:`.
RegexMetric read_metric(spec::MapReader& m, const RegexPattern& pat) {
  const std::string& file = m.file();
  RegexMetric rm;
  const std::string name_key = m.path("name");
  const YAML::Node name_node = m.require("name", "the metric's name; may use {capture}");
  rm.name = as_nonempty(file, name_node, name_key);
  // Split the template into literal text and {capture} references.
  for (size_t i = 0; i < rm.name.size();) {
    size_t open = rm.name.find('{', i);
    size_t stray = rm.name.find('}', i);
    if (stray < open) fail(file, name_node, name_key, "'}' without '{'");
    if (open == std::string::npos) {
      rm.parts.push_back(NamePart{rm.name.substr(i), -1});
      break;
    }
    if (open > i) rm.parts.push_back(NamePart{rm.name.substr(i, open - i), -1});
    size_t close = rm.name.find('}', open);
    if (close == std::string::npos) fail(file, name_node, name_key, "'{' without '}'");
    YAML::Node ref(rm.name.substr(open + 1, close - open - 1));
    try {
      rm.parts.push_back(NamePart{"", capture_ref(file, ref, name_key, pat)});
    } catch (const InputError& e) {
      fail(file, name_node, name_key, e.message());  // at the name, not at the made-up node
    }
    i = close + 1;
  }
  if (auto v = m.get("reduce"); v.IsDefined()) {
    std::string r = spec::one_of(file, v, m.path("reduce"), kReduces);
    rm.reduce = static_cast<Reduce>(std::find(kReduces.begin(), kReduces.end(), r) - kReduces.begin());
  }
  const int groups = static_cast<int>(pat.groups.size()) - 1;
  if (auto v = m.get("value"); v.IsDefined()) {
    rm.value = capture_ref(file, v, m.path("value"), pat);
  } else if (rm.reduce != Reduce::count) {
    if (groups != 1)
      fail(file, m.node(), m.path(),
           "missing key 'value': which of the " + std::to_string(groups) + " captures is the value?");
    rm.value = 1;
  }
  if (auto v = m.get("step"); v.IsDefined()) {
    rm.step = capture_ref(file, v, m.path("step"), pat);
    if (rm.reduce == Reduce::steps)
      fail(file, v, m.path("step"), "'reduce: steps' numbers the matches itself; drop 'step' or the reduce");
  }
  if (auto v = m.get("unit"); v.IsDefined()) rm.unit = as_string(file, v, m.path("unit"));
  if (auto v = m.get("scale"); v.IsDefined()) rm.scale = as_number(file, v, m.path("scale"));
  if (auto v = m.get("format"); v.IsDefined())
    rm.format = spec::one_of(file, v, m.path("format"), kFormats) == "tau_msec" ? NumberFormat::tau_msec
                                                                                : NumberFormat::number;
  return rm;
}

// `captures: [a, b]` names the groups of a regex that does not name them itself.
void read_captures(spec::MapReader& m, const YAML::Node& list, RegexPattern& pat, size_t groups) {
  const std::string& file = m.file();
  const std::string key = m.path("captures");
  const YAML::Node caps = as_list(file, list, key);
  if (std::any_of(pat.groups.begin(), pat.groups.end(), [](const std::string& g) { return !g.empty(); }))
    fail(file, list, key, "the regex names its groups already; drop 'captures'");
  if (caps.size() != groups)
    fail(file, list, key, std::to_string(caps.size()) + " names for " + std::to_string(groups) + " groups");
  for (size_t k = 0; k < caps.size(); ++k) {
    std::string name = as_nonempty(file, caps[k], item_path(key, k));
    if (!is_identifier(name)) fail(file, caps[k], item_path(key, k), "not a name: '" + name + "'");
    if (std::find(pat.groups.begin(), pat.groups.end(), name) != pat.groups.end())
      fail(file, caps[k], item_path(key, k), "capture name '" + name + "' used twice");
    pat.groups[k + 1] = name;
  }
}

RegexPattern read_pattern(spec::MapReader& m) {
  const std::string& file = m.file();
  RegexPattern pat;
  const std::string re_key = m.path("regex");
  const YAML::Node re_node = m.require("regex");
  pat.text = as_nonempty(file, re_node, re_key);
  std::string error;
  std::string rewritten = rewrite_named_groups(pat.text, pat.groups, error);
  if (!error.empty()) fail(file, re_node, re_key, "bad regex: " + error);
  size_t groups = 0;
  try {
    // Polynomial (breadth-first) mode, and the search turned into one anchored pass: see regex_engine.cpp.
    const auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
    groups = std::regex(rewritten, flags).mark_count();  // alone first: "a)(b" must not pass once wrapped
    pat.re = std::regex("[\\s\\S]*?(" + rewritten + ")", flags);
  } catch (const std::regex_error& e) {
    fail(file, re_node, re_key, std::string("bad regex: ") + e.what());
  }
  if (groups + 1 != pat.groups.size()) fail(file, re_node, re_key, "bad regex: cannot count its groups");
  if (auto v = m.get("captures"); v.IsDefined()) read_captures(m, v, pat, groups);
  for (size_t k = 1; k < pat.groups.size(); ++k)
    if (pat.groups[k].empty()) pat.groups[k] = std::to_string(k);
  auto contains = m.get("contains");
  pat.literal =
      contains.IsDefined() ? as_nonempty(file, contains, m.path("contains")) : required_literal(rewritten);

  if (auto list = m.get("metrics"); list.IsDefined()) {
    for (const char* key : {"name", "value", "step", "unit", "scale", "format", "reduce"})
      if (auto v = m.get(key); v.IsDefined())
        fail(file, v, m.path(key), "give it in each of 'metrics', or drop 'metrics'");
    const std::string mpath0 = m.path("metrics");
    const YAML::Node metrics = as_list(file, list, mpath0);
    for (size_t k = 0; k < metrics.size(); ++k) {
      auto mm = item_map(file, metrics[k], item_path(mpath0, k), "a map with 'name'", kMetricKeys);
      pat.metrics.push_back(read_metric(mm, pat));
    }
  } else {
    pat.metrics.push_back(read_metric(m, pat));
  }
  return pat;
}

}  // namespace

RegexSpec read_regex(spec::MapReader& m) {
  RegexSpec spec;
  const std::string ppath0 = m.path("patterns");
  const YAML::Node items = as_list(m.file(), m.require("patterns"), ppath0);
  for (size_t i = 0; i < items.size(); ++i) {
    auto pm = item_map(m.file(), items[i], item_path(ppath0, i), "a map with 'regex'", kPatternKeys);
    spec.patterns.push_back(read_pattern(pm));
  }
  return spec;
}

}  // namespace campaign::collect

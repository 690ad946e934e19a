// The settings of csv, mllog, json and yaml sources, and the reading helpers
// every engine's settings share (read_spec.hpp).
#include <algorithm>
#include <cctype>

#include "collect/read_spec.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

using spec::as_bool;
using spec::as_number;
using spec::as_string;
using spec::fail;

namespace {

const std::vector<std::string> kCsvColumnKeys{"column", "name", "unit", "scale", "optional"};
const std::vector<std::string> kIntervalKeys{"key", "name", "step"};
const std::vector<std::string> kMllogValueKeys{"key", "name", "unit", "scale", "step"};
const std::vector<std::string> kDocValueKeys{"path", "name", "unit", "scale", "optional"};
const std::vector<std::string> kInstances{"mean", "min", "max", "separate"};

// "history.loss[3]" -> history, loss, [3]
std::vector<std::string> split_path(const std::string& file, const YAML::Node& n, const std::string& key,
                                    const std::string& path) {
  std::vector<std::string> keys;
  for (const std::string& part : split(path, '.')) {
    size_t bracket = part.find('[');
    std::string head = part.substr(0, bracket);
    if (head.empty() && bracket != 0) fail(file, n, key, "bad path '" + path + "': empty component");
    if (!head.empty()) keys.push_back(head);
    while (bracket != std::string::npos) {
      size_t close = part.find(']', bracket);
      std::string digits = close == std::string::npos ? "" : part.substr(bracket + 1, close - bracket - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        fail(file, n, key, "bad path '" + path + "': expected [index]");
      keys.push_back("[" + digits + "]");
      bracket = close + 1 < part.size() ? close + 1 : std::string::npos;
      if (bracket != std::string::npos && part[bracket] != '[')
        fail(file, n, key, "bad path '" + path + "': text after ]");
    }
  }
  return keys;
}

// An mllog `step:` may be empty: the event has no step.
std::string step_key(const std::string& file, const YAML::Node& n, const std::string& key) {
  return n.IsNull() ? "" : as_string(file, n, key);
}

// The optional `name`, `unit` and `scale` of a csv column, an mllog value or a json/yaml value.
template <class Value>
void read_labels(spec::MapReader& m, Value& v) {
  if (auto x = m.get("name"); x.IsDefined()) v.name = as_nonempty(m.file(), x, m.path("name"));
  if (auto x = m.get("unit"); x.IsDefined()) v.unit = as_string(m.file(), x, m.path("unit"));
  if (auto x = m.get("scale"); x.IsDefined()) v.scale = as_number(m.file(), x, m.path("scale"));
}

}  // namespace

std::string item_path(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string as_nonempty(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::string s = as_string(file, node, key);
  if (s.empty()) fail(file, node, key, "must not be empty");
  return s;
}

YAML::Node as_list(const std::string& file, const YAML::Node& node, const std::string& key,
                   bool allow_empty) {
  if (!node.IsSequence()) fail(file, node, key, std::string("expected a list, got ") + spec::type_name(node));
  if (!allow_empty && node.size() == 0) fail(file, node, key, "must not be empty");
  return node;
}

spec::MapReader item_map(const std::string& file, const YAML::Node& node, const std::string& key,
                         const std::string& expected, const std::vector<std::string>& keys) {
  if (!node.IsMap())
    fail(file, node, key.empty() ? "(document)" : key,
         "expected " + expected + ", got " + spec::type_name(node));
  return spec::MapReader(file, node, key, keys);
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void UniqueNames::add(const std::string& file, const YAML::Node& node, const std::string& key,
                      const std::string& name) {
  if (!names_.insert(name).second)
    fail(file, node, key, "metric name '" + name + "' is already used in this source");
}

namespace {

// "utilization:{*}:{device}" -> literal, wildcard, literal, column device.
std::vector<CsvNamePart> csv_name_parts(const std::string& file, const YAML::Node& n, const std::string& key,
                                        const std::string& name) {
  std::vector<CsvNamePart> parts;
  size_t pos = 0;
  while (pos < name.size()) {
    size_t open = name.find('{', pos);
    if (open == std::string::npos) open = name.size();
    if (open > pos) parts.push_back({CsvNamePart::literal, name.substr(pos, open - pos)});
    if (open == name.size()) break;
    size_t close = name.find('}', open);
    if (close == std::string::npos) fail(file, n, key, "'{' without '}' in metric name '" + name + "'");
    std::string inner = name.substr(open + 1, close - open - 1);
    if (inner.empty()) fail(file, n, key, "empty {} in metric name '" + name + "' (give {COLUMN} or {*})");
    parts.push_back({inner == "*" ? CsvNamePart::wildcard : CsvNamePart::column, inner});
    pos = close + 1;
  }
  return parts;
}

}  // namespace

CsvSpec read_csv(spec::MapReader& m) {
  const std::string& file = m.file();
  CsvSpec spec;
  if (auto v = m.get("step"); v.IsDefined()) spec.step = as_nonempty(file, v, m.path("step"));
  if (auto v = m.get("step_scale"); v.IsDefined()) {
    if (spec.step.empty()) fail(file, v, m.path("step_scale"), "needs a 'step' column to scale");
    spec.step_scale = as_number(file, v, m.path("step_scale"));
    if (!(spec.step_scale > 0)) fail(file, v, m.path("step_scale"), "must be a positive number");
  }
  if (auto v = m.get("delimiter"); v.IsDefined()) {
    std::string d = as_string(file, v, m.path("delimiter"));
    if (d.size() != 1 || d == "\"" || d == "\n" || d == "\r")
      fail(file, v, m.path("delimiter"), "must be one character other than a quote or newline");
    spec.delimiter = d[0];
  }
  const std::string mpath = m.path("metrics");
  const YAML::Node items = as_list(file, m.require("metrics", "the columns to collect"), mpath);
  UniqueNames names;
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string ipath = item_path(mpath, i);
    CsvColumn c;
    if (item.IsScalar()) {
      c.column = as_nonempty(file, item, ipath);
    } else {
      auto im = item_map(file, item, ipath, "a column name or a map with 'column'", kCsvColumnKeys);
      c.column = as_nonempty(file, im.require("column"), im.path("column"));
      read_labels(im, c);
      if (auto v = im.get("optional"); v.IsDefined()) c.optional = as_bool(file, v, im.path("optional"));
    }
    if (c.name.empty()) c.name = c.column;
    names.add(file, item, ipath, c.name);
    c.parts = csv_name_parts(file, item, ipath, c.name);
    spec.columns.push_back(std::move(c));
  }
  return spec;
}

MllogSpec read_mllog(spec::MapReader& m) {
  const std::string& file = m.file();
  MllogSpec spec;
  UniqueNames names;
  if (auto list = m.get("intervals"); list.IsDefined()) {
    const std::string ipath0 = m.path("intervals");
    const YAML::Node items = as_list(file, list, ipath0, true);
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node& item = items[i];
      const std::string ipath = item_path(ipath0, i);
      MllogInterval iv{"", "", "epoch_num"};
      if (item.IsScalar()) {
        iv.key = as_nonempty(file, item, ipath);
      } else {
        auto im = item_map(file, item, ipath, "an interval key (epoch, run, ...) or a map with 'key'",
                           kIntervalKeys);
        iv.key = as_nonempty(file, im.require("key"), im.path("key"));
        if (auto v = im.get("name"); v.IsDefined()) iv.name = as_nonempty(file, v, im.path("name"));
        if (auto v = im.get("step"); v.IsDefined()) iv.step_key = step_key(file, v, im.path("step"));
      }
      if (ends_with(iv.key, "_start") || ends_with(iv.key, "_stop"))
        fail(file, item, ipath,
             "give the interval without _start/_stop ('" + iv.key.substr(0, iv.key.rfind('_')) + "')");
      if (iv.name.empty()) iv.name = iv.key + "_time";
      names.add(file, item, ipath, iv.name);
      spec.intervals.push_back(std::move(iv));
    }
  } else {
    for (const char* key : {"epoch", "run", "staging"}) {
      spec.intervals.push_back(MllogInterval{key, std::string(key) + "_time", "epoch_num"});
      names.add(file, m.node(), m.path(), spec.intervals.back().name);
    }
  }
  if (auto list = m.get("values"); list.IsDefined()) {
    const std::string vpath0 = m.path("values");
    const YAML::Node items = as_list(file, list, vpath0, true);
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node& item = items[i];
      const std::string ipath = item_path(vpath0, i);
      MllogValue v{"", "", "", "epoch_num", 1};
      if (item.IsScalar()) {
        v.key = as_nonempty(file, item, ipath);
      } else {
        auto im = item_map(file, item, ipath, "an event key (eval_error, ...) or a map with 'key'",
                           kMllogValueKeys);
        v.key = as_nonempty(file, im.require("key"), im.path("key"));
        read_labels(im, v);
        if (auto x = im.get("step"); x.IsDefined()) v.step_key = step_key(file, x, im.path("step"));
      }
      if (v.name.empty()) v.name = v.key;
      names.add(file, item, ipath, v.name);
      spec.values.push_back(std::move(v));
    }
  }
  if (spec.intervals.empty() && spec.values.empty())
    fail(file, m.node(), m.path(), "nothing to collect: 'intervals' and 'values' are both empty");
  if (auto v = m.get("instances"); v.IsDefined()) {
    std::string s = spec::one_of(file, v, m.path("instances"), kInstances);
    spec.instances = s == "min"        ? Instances::min
                     : s == "max"      ? Instances::max
                     : s == "separate" ? Instances::separate
                                       : Instances::mean;
  }
  if (auto v = m.get("instance_key"); v.IsDefined())
    spec.instance_key = as_nonempty(file, v, m.path("instance_key"));
  return spec;
}

DocSpec read_doc(spec::MapReader& m) {
  const std::string& file = m.file();
  DocSpec spec;
  const std::string vpath0 = m.path("values");
  const YAML::Node items = as_list(file, m.require("values", "paths of the values to collect"), vpath0);
  UniqueNames names;
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node& item = items[i];
    const std::string ipath = item_path(vpath0, i);
    DocValue v;
    if (item.IsScalar()) {
      v.path = as_nonempty(file, item, ipath);
      v.keys = split_path(file, item, ipath, v.path);
    } else {
      auto im = item_map(file, item, ipath, "a path or a map with 'path'", kDocValueKeys);
      const YAML::Node path_node = im.require("path");
      v.path = as_nonempty(file, path_node, im.path("path"));
      read_labels(im, v);
      if (auto x = im.get("optional"); x.IsDefined()) v.optional = as_bool(file, x, im.path("optional"));
      v.keys = split_path(file, path_node, im.path("path"), v.path);
    }
    if (v.name.empty()) v.name = v.path;
    names.add(file, item, ipath, v.name);
    spec.values.push_back(std::move(v));
  }
  return spec;
}

}  // namespace campaign::collect

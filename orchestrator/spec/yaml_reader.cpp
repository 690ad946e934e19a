#include "spec/yaml_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "spec/expression.hpp"
#include "util/strings.hpp"

namespace campaign::spec {

Location location(const std::string& file, const YAML::Node& node) {
  Location loc{file, 0, 0};
  if (node.IsDefined()) {
    auto m = node.Mark();
    if (m.line >= 0) loc.line = m.line + 1, loc.column = m.column + 1;
  }
  return loc;
}

void fail(const std::string& file, const YAML::Node& node, const std::string& key,
          const std::string& message) {
  throw InputError(location(file, node), key, message);
}

Document parse_yaml(const std::string& text, const std::string& file_name) {
  Document doc{file_name, text, {}};
  try {
    doc.root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(Location{file_name, e.mark.line + 1, e.mark.column + 1}, "", "invalid YAML: " + e.msg);
  }
  if (!doc.root.IsDefined() || doc.root.IsNull())
    throw InputError(Location{file_name, 1, 1}, "", "the file is empty");
  return doc;
}

Document load_yaml(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(Location{path.string()}, "", std::string("cannot read file: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_yaml(ss.str(), path.string());
}

const char* type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Null:
      return "null";
    default:
      return "nothing";
  }
}

std::string as_string(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) fail(file, node, key, std::string("expected a string, got ") + type_name(node));
  return node.Scalar();
}

double as_number(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::string s = as_string(file, node, key);
  double v = 0;
  if (!parse_number(s, v)) fail(file, node, key, "expected a number, got '" + s + "'");
  return v;
}

long as_int(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::string s = as_string(file, node, key);
  long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    fail(file, node, key, "expected an integer, got '" + s + "'");
  return v;
}

bool as_bool(const std::string& file, const YAML::Node& node, const std::string& key) {
  std::string s = as_string(file, node, key);
  if (auto b = parse_bool(s)) return *b;
  fail(file, node, key, "expected true or false, got '" + s + "'");
}

std::string one_of(const std::string& file, const YAML::Node& node, const std::string& key,
                   const std::vector<std::string>& allowed) {
  std::string s = as_string(file, node, key);
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(file, node, key, "'" + s + "' is not one of " + join(allowed, ", ") + did_you_mean(s, allowed));
  return s;
}

std::vector<std::string> as_string_list(const std::string& file, const YAML::Node& node,
                                        const std::string& key) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      out.push_back(as_string(file, node[i], key + "[" + std::to_string(i) + "]"));
  } else if (!node.IsNull()) {
    fail(file, node, key, std::string("expected a string or a list of strings, got ") + type_name(node));
  }
  return out;
}

MapReader::MapReader(const std::string& file, const YAML::Node& node, std::string path)
    : file_(file), node_(node), path_(std::move(path)) {
  if (node.IsNull()) return;  // `key:` with nothing behind it reads as an empty map
  if (!node.IsMap())
    fail(file, node, path_.empty() ? "(document)" : path_,
         std::string("expected a map, got ") + type_name(node));
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) fail(file, it->first, path_, "keys must be plain strings");
    std::string k = it->first.Scalar();
    if (!seen.insert(k).second) fail(file, it->first, this->path(k), "duplicate key");
    entries_.emplace_back(k, it->first);
  }
}

MapReader::MapReader(const std::string& file, const YAML::Node& node, std::string path,
                     const std::vector<std::string>& keys)
    : MapReader(file, node, std::move(path)) {
  allow(keys);
}

void MapReader::allow(const std::vector<std::string>& keys) {
  known_.insert(keys.begin(), keys.end());
  finish();
}

YAML::Node MapReader::get(const std::string& key) {
  known_.insert(key);
  if (!node_.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node MapReader::require(const std::string& key, const std::string& what) {
  YAML::Node n = get(key);
  if (!n.IsDefined() || n.IsNull())
    fail(file_, node_, path(key), "required key is missing" + (what.empty() ? "" : " (" + what + ")"));
  return n;
}

bool MapReader::has(const std::string& key) const {
  for (auto& e : entries_)
    if (e.first == key) return true;
  return false;
}

void MapReader::finish() const {
  std::vector<std::string> known(known_.begin(), known_.end());
  for (auto& [k, knode] : entries_)
    if (!known_.count(k)) {
      if (auto e = elsewhere_.find(k); e != elsewhere_.end())
        fail(file_, knode, path(k), "`" + k + "` is not a key of `" + path_ + "`: it " + e->second);
      fail(file_, knode, path(k), "unknown key" + did_you_mean(k, known));
    }
}

}  // namespace campaign::spec

// Strict reading of user YAML: every error names file:line:col and the dotted
// key; unknown keys are errors with a "did you mean"; duplicate keys are errors.
//
// Invariant: a MapReader that reaches finish() without throwing has seen every
// key of its map, and each one was either consumed or is reported.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace campaign::spec {

// A parsed document and the file it came from.
struct Document {
  std::string file;  // as given by the user, for messages
  std::string text;
  YAML::Node root;
};

// Reads and parses `path`; a missing file or bad YAML is an InputError.
Document load_yaml(const std::filesystem::path& path);
Document parse_yaml(const std::string& text, const std::string& file_name);

Location location(const std::string& file, const YAML::Node& node);
[[noreturn]] void fail(const std::string& file, const YAML::Node& node, const std::string& key,
                       const std::string& message);

// Scalar conversions with typed errors ("expected a number, got 'abc'").
std::string as_string(const std::string& file, const YAML::Node& node, const std::string& key);
// A finite number, written as spec::parse_number reads it.
double as_number(const std::string& file, const YAML::Node& node, const std::string& key);
long as_int(const std::string& file, const YAML::Node& node, const std::string& key);
bool as_bool(const std::string& file, const YAML::Node& node, const std::string& key);
// A scalar or a list of scalars.
std::vector<std::string> as_string_list(const std::string& file, const YAML::Node& node,
                                        const std::string& key);
// A string that is one of `allowed` ("did you mean" otherwise).
std::string one_of(const std::string& file, const YAML::Node& node, const std::string& key,
                   const std::vector<std::string>& allowed);
const char* type_name(const YAML::Node& node);

class MapReader {
 public:
  // `path` is the dotted key of this map ("" for the document root).
  MapReader(const std::string& file, const YAML::Node& node, std::string path);
  // A map whose keys are among `keys`: any other is reported at once, before
  // a value is read, so a misspelt required key is named as unknown (with a
  // "did you mean") rather than as missing.
  MapReader(const std::string& file, const YAML::Node& node, std::string path,
            const std::vector<std::string>& keys);

  // The value of `key`, or an undefined node when absent. Marks the key as known.
  YAML::Node get(const std::string& key);
  // Same, but absence is an error; `what` ("the columns to collect") is added to it.
  YAML::Node require(const std::string& key, const std::string& what = {});
  bool has(const std::string& key) const;

  // Keys that belong in another map, with where ("goes at the campaign's top level"): named so when
  // they appear here instead of as merely unknown.
  void elsewhere(std::map<std::string, std::string> keys) { elsewhere_ = std::move(keys); }
  // Throws on the first key that was never asked for.
  void finish() const;
  // Marks `keys` as known and reports any other key now, as the constructor with keys does
  // (for a map whose allowed keys depend on one of its values).
  void allow(const std::vector<std::string>& keys);

  // Keys in document order with their key nodes (for maps of user-named entries).
  const std::vector<std::pair<std::string, YAML::Node>>& entries() const { return entries_; }
  // This map's dotted key.
  const std::string& path() const { return path_; }
  // Child path, e.g. "job" + "walltime" -> "job.walltime".
  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& file() const { return file_; }
  const YAML::Node& node() const { return node_; }

 private:
  std::string file_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::pair<std::string, YAML::Node>> entries_;  // key text, key node
  std::set<std::string> known_;
  std::map<std::string, std::string> elsewhere_;
};

}  // namespace campaign::spec

// Reading one source's engine settings from a collector file, shared by
// collector.cpp (the file and its sources), source_specs.cpp (csv, mllog,
// json/yaml) and regex_spec.cpp. Errors come from the common reader
// (spec/yaml_reader.hpp): InputError "file:line:col: key: message".
//
// Invariant: each read_* returns a spec that is complete and consistent (see
// source.hpp), or throws.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "collect/source.hpp"
#include "spec/yaml_reader.hpp"

namespace campaign::collect {

// "sources[0].metrics" + 2 -> "sources[0].metrics[2]"
std::string item_path(const std::string& path, size_t i);
// A string that is not empty.
std::string as_nonempty(const std::string& file, const YAML::Node& node, const std::string& key);
// A list, empty only when `allow_empty`.
YAML::Node as_list(const std::string& file, const YAML::Node& node, const std::string& key,
                   bool allow_empty = false);
// A map whose keys are among `keys`; `expected` ("a map with 'column'") says
// what else was wanted when `node` is no map at all.
spec::MapReader item_map(const std::string& file, const YAML::Node& node, const std::string& key,
                         const std::string& expected, const std::vector<std::string>& keys);
bool is_identifier(std::string_view s);

// Metric names of one source must differ, else one would silently replace the other.
class UniqueNames {
 public:
  void add(const std::string& file, const YAML::Node& node, const std::string& key, const std::string& name);

 private:
  std::set<std::string> names_;
};

// `m` is the source's map; each reads the keys of its engine.
CsvSpec read_csv(spec::MapReader& m);
MllogSpec read_mllog(spec::MapReader& m);
RegexSpec read_regex(spec::MapReader& m);
DocSpec read_doc(spec::MapReader& m);

}  // namespace campaign::collect

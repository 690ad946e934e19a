// Collector YAML -> Collector: the file and its sources, read with the common
// strict reader (spec/yaml_reader.hpp), so errors read as everywhere else:
// InputError "file:line:col: sources[0].metrics[2].colum: unknown key, did you
// mean 'column'?". Each engine's settings are read in source_specs.cpp and
// regex_spec.cpp.
//
// Invariant: a Collector returned from here is complete and consistent (see
// source.hpp), so collect() only ever reports problems in the run's data.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "collect/collect.hpp"
#include "collect/components.hpp"
#include "collect/input.hpp"
#include "collect/read_spec.hpp"
#include "collect/source.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

using spec::fail;

namespace {

const std::vector<std::string> kTopKeys{"name", "description", "sources", "components"};
const std::vector<std::string> kCommonKeys{"engine", "file", "stdout", "required", "multiple", "any_attempt"};
const std::vector<std::string> kEngines{"csv", "mllog", "regex", "json", "yaml", "nsys", "tau"};
const std::vector<std::string> kMultiples{"newest", "all"};
// The keys of each engine, in the order of Engine (json and yaml share theirs).
const std::vector<std::vector<std::string>> kEngineKeys{{"step", "step_scale", "delimiter", "metrics"},
                                                        {"intervals", "values", "instances", "instance_key"},
                                                        {"patterns"},
                                                        {"values"},
                                                        {"values"},
                                                        {},
                                                        {}};

// A key of another engine is named as such, where a typo would get "did you mean".
void check_engine_keys(const spec::MapReader& m, const std::vector<std::string>& allowed,
                       const std::string& engine) {
  for (const auto& [key, key_node] : m.entries()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (!did_you_mean(key, allowed).empty()) continue;
    for (const auto& other : kEngineKeys)
      if (std::find(other.begin(), other.end(), key) != other.end())
        fail(m.file(), key_node, m.path(key), "unknown key for a " + engine + " source");
  }
}

std::shared_ptr<const Source> read_source(const std::string& file, const YAML::Node& n,
                                          const std::string& path) {
  if (!n.IsMap())
    fail(file, n, path, std::string("expected a map with 'engine' and 'file', got ") + spec::type_name(n));
  spec::MapReader m(file, n, path);
  if (!m.has("engine")) {  // a misspelt 'engine' is named as unknown, with a "did you mean"
    std::vector<std::string> all = kCommonKeys;
    for (const auto& keys : kEngineKeys) all.insert(all.end(), keys.begin(), keys.end());
    spec::MapReader(file, n, path, all);
  }
  auto src = std::make_shared<Source>();
  const std::string engine =
      spec::one_of(file, m.require("engine", join(kEngines, ", ")), m.path("engine"), kEngines);
  src->engine = static_cast<Engine>(std::find(kEngines.begin(), kEngines.end(), engine) - kEngines.begin());
  std::vector<std::string> allowed = kCommonKeys;
  const auto& own = kEngineKeys[static_cast<size_t>(src->engine)];
  allowed.insert(allowed.end(), own.begin(), own.end());
  check_engine_keys(m, allowed, engine);
  m.allow(allowed);

  if (auto v = m.get("stdout"); v.IsDefined()) src->from_stdout = spec::as_bool(file, v, m.path("stdout"));
  if (auto v = m.get("file"); v.IsDefined()) {
    const std::string key = m.path("file");
    if (src->from_stdout) fail(file, v, key, "give either 'file' or 'stdout: true', not both");
    src->file = as_nonempty(file, v, key);
    if (src->file.front() == '/') fail(file, v, key, "must be relative to the run directory");
    if (src->file.find("**") != std::string::npos) fail(file, v, key, "'**' is not supported");
  } else if (!src->from_stdout) {
    fail(file, n, m.path("file"),
         "required key is missing (a glob relative to the run directory; or give 'stdout: true')");
  }
  if (auto v = m.get("required"); v.IsDefined()) src->required = spec::as_bool(file, v, m.path("required"));
  if (auto v = m.get("any_attempt"); v.IsDefined())
    src->any_attempt = spec::as_bool(file, v, m.path("any_attempt"));
  if (auto v = m.get("multiple"); v.IsDefined()) {
    const std::string key = m.path("multiple");
    src->multiple = spec::one_of(file, v, key, kMultiples) == "all" ? Multiple::all : Multiple::newest;
    if (src->multiple == Multiple::all && src->engine != Engine::regex && src->engine != Engine::csv &&
        src->engine != Engine::nsys)
      fail(file, v, key, "'all' is for regex, csv and nsys sources only; the others read one file");
  }

  switch (src->engine) {
    case Engine::csv:
      src->spec = read_csv(m);
      for (const auto& c : std::get<CsvSpec>(src->spec).columns)
        for (const auto& part : c.parts)
          if (part.kind == CsvNamePart::wildcard && !has_wildcards(src->file))
            fail(file, m.get("metrics"), m.path("metrics"),
                 "metric name '" + c.name + "' uses {*}, but 'file' has no wildcard to match it");
      break;
    case Engine::mllog:
      src->spec = read_mllog(m);
      break;
    case Engine::regex:
      src->spec = read_regex(m);
      break;
    case Engine::json:
    case Engine::yaml:
      src->spec = read_doc(m);
      break;
    case Engine::nsys:
      src->spec = NsysSpec{};
      break;
    case Engine::tau:
      src->spec = TauSpec{};
      break;
  }
  return src;
}

// A metric name with one {part}: what the components' regexes match.
std::string item_template(const std::string& file, spec::MapReader& m, const std::string& key) {
  const YAML::Node metric = m.get(key);
  std::string t = as_nonempty(file, metric, m.path(key));
  const size_t open = t.find('{'), close = t.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open + 2 ||
      t.find_first_of("{}", close + 1) != std::string::npos || t.find('{', open + 1) < close)
    fail(
        file, metric, m.path(key),
        "a metric name with one {part}, what the components' regexes match (e.g. 'tau_exclusive:{routine}')");
  return t;
}

// `components: {metric: 'tau_exclusive:{routine}', per_rank: 'tau_exclusive_rank:{routine}',
//               runtime_per_rank: tau_application_time_rank, percent_of: tau_application_time,
//               defaults: {mpi: '^MPI_'}}`
void read_components(const std::string& file, const YAML::Node& node, Collector& c) {
  auto m = item_map(file, node, "components", "a map with 'metric' (and optionally 'defaults')",
                    {"metric", "per_rank", "runtime_per_rank", "percent_of", "defaults"});
  m.require("metric");
  c.component_metric = item_template(file, m, "metric");
  if (m.has("per_rank")) c.component_rank_metric = item_template(file, m, "per_rank");
  if (auto v = m.get("runtime_per_rank"); v.IsDefined()) {
    if (!m.has("per_rank"))
      fail(file, v, m.path("runtime_per_rank"),
           "needs 'per_rank': POP's efficiencies compare the two per rank");
    c.component_rank_runtime = as_nonempty(file, v, m.path("runtime_per_rank"));
  }
  if (auto v = m.get("percent_of"); v.IsDefined())
    c.component_percent_of = as_nonempty(file, v, m.path("percent_of"));
  if (auto v = m.get("defaults"); v.IsDefined()) {
    spec::MapReader d(file, v, m.path("defaults"));
    for (const auto& [name, key_node] : d.entries()) {
      const YAML::Node re = d.get(name);
      if (!is_identifier(name))
        fail(file, key_node, d.path(name), "a component name is a word: letters, digits, _");
      try {
        set_component(c, make_component(name, spec::as_string(file, re, d.path(name))));
      } catch (const std::regex_error& e) {
        fail(file, re, d.path(name), std::string("bad regex: ") + e.what());
      }
    }
  }
}

Collector read_collector(const YAML::Node& node, const std::string& file) {
  if (!node.IsDefined() || node.IsNull()) throw InputError(Location{file, 0, 0}, "", "empty collector");
  auto m = item_map(file, node, "", "a map with 'sources' (and optionally 'name', 'description')", kTopKeys);
  Collector c;
  c.file = file;
  auto name = m.get("name");
  c.name = name.IsDefined() ? as_nonempty(file, name, "name") : std::filesystem::path(file).stem().string();
  if (c.name.empty()) c.name = "collector";
  if (auto v = m.get("description"); v.IsDefined()) c.description = spec::as_string(file, v, "description");
  const YAML::Node sources = as_list(file, m.require("sources"), "sources");
  for (size_t i = 0; i < sources.size(); ++i)
    c.sources.push_back(read_source(file, sources[i], item_path("sources", i)));
  if (auto v = m.get("components"); v.IsDefined()) read_components(file, v, c);
  return c;
}

}  // namespace

Collector parse_collector(const YAML::Node& node, const std::string& file) {
  try {
    return read_collector(node, file);
  } catch (const YAML::Exception& e) {
    // A conversion yaml-cpp refused that the checks above did not foresee.
    throw InputError(
        Location{file, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
        "", e.msg);
  }
}

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
    } else if (std::holds_alternative<NsysSpec>(src->spec)) {
      for (const char* n : {"nsys_time:{name}", "nsys_instances:{name}", "nsys_avg:{name}"}) out.push_back(n);
    } else if (std::holds_alternative<TauSpec>(src->spec)) {
      for (const char* n :
           {"tau_exclusive:{routine}", "tau_inclusive:{routine}", "tau_calls:{routine}",
            "tau_exclusive_comm:{routine}", "tau_calls_comm:{routine}", "tau_application_time",
            "tau_exclusive_total:{routine}", "tau_inclusive_total:{routine}", "tau_calls_total:{routine}",
            "tau_exclusive_rank:{routine}", "tau_application_time_rank"})
        out.push_back(n);
    }
  }
  for (const auto& comp : c.components) {
    out.push_back("component:" + comp.name);
    out.push_back("component_percent:" + comp.name);
    if (!c.component_rank_metric.empty() && !c.component_rank_runtime.empty())
      for (const char* pop : kPopEfficiencies) out.push_back(std::string(pop) + ":" + comp.name);
  }
  return out;
}

Collector load_collector(const std::filesystem::path& yaml_file) {
  const spec::Document doc = spec::load_yaml(yaml_file);
  return parse_collector(doc.root, doc.file);
}

}  // namespace campaign::collect

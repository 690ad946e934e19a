// Declarative collectors: turn the files a finished job left in its run
// directory into metrics (name, step, value, unit) for the catalog.
//
// A collector (collectors/NAME.yaml, or inline in a campaign) is a list of
// sources. Each source names one file - a glob relative to the run directory,
// or the job's output - and the engine that reads it: csv, mllog, regex, json
// or yaml (source.hpp documents the YAML schema).
//
// Invariants of collect():
//   - no two metrics share (name, step): a later value replaces an earlier
//     one and says so in `warnings`;
//   - every value is finite (NaN/inf cells are dropped with a warning);
//   - a required source that is missing or malformed throws CollectError
//     naming the file and line; an optional source's problems, and damage that
//     leaves the rest of a file meaningful (a log cut mid-line), are warnings.
//     Nothing a job can write makes it crash or hang.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace YAML {
class Node;
}

namespace campaign::collect {

struct Metric {
  std::string name;
  std::optional<double> step;  // epoch, iteration, sample index; none for a single value
  double value = 0;
  std::string unit;

  bool operator==(const Metric&) const = default;
};

struct CollectResult {
  std::vector<Metric> metrics;
  std::vector<std::string> warnings;  // "file:line: message", for the case's event log
  std::vector<std::string> files;     // files read, relative to the run directory when inside it
};

// A required source is missing or malformed. where() is the file inside the
// run directory (line when known); what() is "file:line: reason".
class CollectError : public Error {
 public:
  CollectError(Location where, std::string reason);

  const Location& where() const { return where_; }
  const std::string& reason() const { return reason_; }

 private:
  Location where_;
  std::string reason_;
};

struct Source;  // one file and the engine that reads it (source.hpp)

// A profiler component (components.hpp): the summed time of the items (routines, kernels, copy
// kinds) whose name `re` finds, recorded as component:NAME and component_percent:NAME.
struct Component {
  std::string name;
  std::string match;  // the regex as written
  std::regex re;
  std::string percent_of;  // the metric component_percent divides by; "" = the collector's
};

struct Collector {
  std::string name;         // from `name:`, else the file's stem
  std::string description;  // free text from `description:`
  std::string file;         // where it was defined, for messages
  std::vector<std::shared_ptr<const Source>> sources;
  // `components: {metric: 'tau_exclusive:{routine}', defaults: {mpi: '^MPI_'}}`: the metric a
  // component sums (its {part} is what the regexes match; empty: no components), and the
  // components: the collector's defaults, then the campaign's (`components:`, same name replaces).
  std::string component_metric;
  std::string component_rank_metric;   // `per_rank:` the same per rank (step = rank); "" = none
  std::string component_rank_runtime;  // `runtime_per_rank:` each rank's runtime (step = rank); "" = none
  std::string component_percent_of;    // `percent_of:` a metric; "" = the sum over all items
  std::vector<Component> components;
};

// Throws InputError "file:line:col: key: message" for a collector that is
// wrong (unknown keys come with a did-you-mean, bad regexes with the reason).
Collector load_collector(const std::filesystem::path& yaml_file);
// Same from a node already parsed; `file` is used in messages only.
Collector parse_collector(const YAML::Node& node, const std::string& file);

// The metric names `c` can produce, in the order it declares them. Names a
// regex builds from captures keep their `{capture}` parts, and an mllog
// source with `instances: separate` adds NAME[{instance}]: see
// matches_template (util/strings.hpp) for what such a name stands for.
std::vector<std::string> declared_metrics(const Collector& c);

// The start of the attempt being collected: the modification time of its start stamp
// (render::start_stamp, written by its job script first), in nanoseconds since the epoch.
struct AttemptStart {
  int attempt = 0;
  std::int64_t ns = 0;
};

// Applies every collector to `run_dir`. `job_output` is the job's stdout file
// (absolute, or relative to run_dir); sources with `stdout: true` read it.
// With `since`, a file a source reads must have been modified at or after it (else it is an
// earlier attempt's output: a CollectError naming the file(s), for an optional source a warning),
// unless the source says `any_attempt: true`. The job's output is named after its job and is
// never checked.
CollectResult collect(const std::vector<Collector>& collectors, const std::filesystem::path& run_dir,
                      const std::filesystem::path& job_output = {},
                      const std::optional<AttemptStart>& since = std::nullopt);

}  // namespace campaign::collect

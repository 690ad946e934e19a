// The campaign model: what a user declares in campaigns/*.yaml.
//
// A campaign is a set of steps (a data-staging step, the training sweep, ...);
// each step has a matrix of parameters, derived values, a case-name template
// and a job. Top-level `matrix`, `derived`, `name` and `job` are the defaults
// every step starts from. Per-system overrides (`systems: {local: {...}}`) are
// applied by for_system() with the same parser, so an override can say
// anything the campaign itself can, and is validated the same way.
//
// Invariant: a Campaign returned by load_campaign() has been fully validated
// for structure and types, including every system override and its analyses
// (typed values: nothing else reads their YAML); what needs a system
// (partitions, templates) is checked by matrix::expand and render, whether the
// names the analyses use exist by analysis::check_names.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spec/analyses.hpp"
#include "util/error.hpp"

namespace campaign::spec {

// A field that may be absent, with where it was set (for error messages).
template <class T>
struct Field {
  std::optional<T> value;
  Location where;
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

// A parameter value as written: always its text; numeric when it parses as a number.
struct Value {
  std::string text;
  std::optional<double> number;
  static Value from_text(std::string text);
};

// One value of a matrix axis; map values carry attributes that become
// parameters of the case ({name: dummy, suffix: -dummy, config: ...}).
struct AxisValue {
  Value value;
  std::vector<std::pair<std::string, Value>> attributes;
  Location where;
};

struct Axis {
  std::string name;
  std::vector<AxisValue> values;
  Location where;
};

// Cases whose parameters match every entry are dropped. Each entry lists the
// values that match (one value or a list).
struct ExcludeRule {
  std::vector<std::pair<std::string, std::vector<std::string>>> match;
  Location where;
};

// The most cases one step's matrix may expand to: ten times the largest campaign measured (issue 35's
// 100,000), far beyond any sweep run by hand. A matrix past it is a typo (`repeat: 1000000000`), refused
// before anything is expanded.
inline constexpr long kMaxCases = 1'000'000;

struct Matrix {
  std::vector<Axis> axes;
  std::vector<std::vector<std::string>> zip;  // axes that vary together
  std::vector<Location> zip_where;
  std::vector<ExcludeRule> exclude;
  long repeat = 1;
  Location repeat_where;
};

struct Derived {
  std::string name;
  std::string expression;  // spec/expression.hpp
  Location where;
};

struct Container {
  std::string image;
  std::string runtime;  // empty: the system's default runtime
  std::vector<std::string> options;
};

// The utilisation sampler beside the job (`campaign sample`): `sample: 0.1` (seconds between
// samples), `sample: {interval: 0.1, gpu: auto|on|off}`, or `sample: false` (a step turns the
// campaign's off). Its file: utilisation-<node>.csv in the run directory.
struct Sample {
  bool enabled = true;
  double interval_s = 0.1;
  std::string gpu = "auto";
  // "gpus": only for cases that hold GPUs (a campaign that measures its GPU cases where a machine has
  // GPUs and stays as it was on one without); "always": every case.
  std::string when = "always";
};

// Every field optional so that overrides patch only what they name. Strings are
// Mustache templates over the case parameters; numbers are expressions.
struct Job {
  Field<std::string> template_name;  // a file in templates/ or a path
  Field<std::string> command;
  Field<std::string> walltime;
  Field<std::string> partition;
  Field<std::string> ranks, nodes, ranks_per_node, cpus_per_rank, gpus_per_rank;  // expressions
  // MLPerf HPC-style weak scaling: K copies of the case side by side in one job of K x nodes, each
  // in RUN_DIR/instance-<i> with `instance` = i (an expression; unset: 1, one ordinary run).
  Field<std::string> instances;
  Field<bool> launch;  // run the command through the system's launcher (default true)
  // Resources beyond the geometry (resource/model.hpp): `memory` per node ("16G"; a template);
  // `exclusive`: whole nodes with nothing beside the case (true/false, or a template that renders
  // to one); `oversubscribe`: ranks may share cores, so a case asking more cores than a node has
  // runs on all of them (mpirun --oversubscribe, srun --overcommit).
  Field<std::string> memory, exclusive;
  Field<bool> oversubscribe;
  std::vector<std::pair<std::string, std::string>> env;  // merged by name
  std::vector<Location> env_where;
  Field<std::vector<std::string>> modules, setup, scheduler_options;
  Field<Container> container;
  Field<Sample> sample;
};

// A step's ready cases as job steps inside shared allocations (pack/planner.hpp): at most `nodes`
// nodes and `walltime` per allocation (default: the partition's longest), at most `cases` cases.
struct Pack {
  bool enabled = true;  // `pack: false` (in a step) turns the campaign's off
  long nodes = 0;
  std::optional<long> walltime_s;  // as Slurm reads it; matrix::expand reads walltime_text again under
  std::string walltime_text;       // a profile's walltime_format: lsf (the system is not known here)
  std::optional<long> cases;
  Location where;
};

// A step's ready cases of one geometry as one job array (array/): `throttle` tasks at most run at
// once (Slurm's `--array=...%T`, LSF's `name[1-n]%T`); unset: the scheduler's own limits.
struct Array {
  bool enabled = true;  // `array: false` (in a step) turns the campaign's off
  std::optional<long> throttle;
  Location where;
};

struct Step {
  std::string name;
  Location where;
  bool enabled = true;
  Field<Matrix> matrix;          // replaces the campaign's matrix when set
  std::vector<Derived> derived;  // added after the campaign's
  Field<std::string> name_template;
  Job job;             // patched over the campaign's job
  Field<Pack> pack;    // replaces the campaign's when set
  Field<Array> array;  // replaces the campaign's when set
  std::vector<std::string> after;
  Location after_where;
  // Collectors of this step's cases; unset: the campaign's (a staging step says `collectors: []`).
  Field<std::vector<std::string>> collectors;
};

// A file or directory the jobs need, copied into the work directory the jobs run in before anything
// is submitted (for a system reached over ssh, the remote one); only files that changed (size,
// SHA-256) are sent. Jobs find it at {{workdir}}/<to>.
struct Input {
  std::string from;  // relative to the campaign file's directory, or absolute
  std::string to;    // relative to the work directory, without '..'; default: the last part of `from`
  std::vector<std::string> exclude;  // patterns not copied ("*.pyc", "__pycache__", "data/raw")
  Location where;
};

// What comes back from a remote run directory into the local mirror when a case completes (systems
// reached over ssh): the job's output, its exit marker and the files its collectors read, plus
// `include`, minus `exclude` (large outputs never fetched, even when a collector's glob matches).
// Patterns are globs relative to the run directory.
struct Fetch {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

// A profiler component (`components: {mpi: {collector: tau, match: '^MPI_'}}`): the time of the
// items (routines, kernels, copy kinds) of `collector`'s component metric whose name the regex
// `match` finds, recorded as component:NAME (collect/components.hpp sums it); `percent_of` names
// the metric component_percent:NAME divides by (e.g. run_time: the run's wall time), instead of the
// collector's.
struct Component {
  std::string name;
  std::string collector;
  std::string match;
  std::string percent_of;
  Location where;            // the name
  Location collector_where;  // the collector's value
};

struct RetryPolicy {
  long max_attempts = 3;
  std::vector<std::string> on = {"node_fail", "preempted", "timeout", "lost"};
  double walltime_factor = 1.5;
  Location where;
};

// A metric `campaign site` follows across runs (history's METRIC syntax, checked there), with the
// direction when the metric's kind does not tell and the regression threshold, as `history` takes them.
struct Tracked {
  std::string metric;
  std::string better{};   // "", "higher" or "lower"
  double threshold = 10;  // percent of the baseline
  Location where{};
};

// A value a run must reach on one system (`reference:`, issue 34): a history METRIC (its conditions
// pick partition, ranks, ...; history/verdicts.hpp) with its expected value and the bounds around it,
// as fractions of the value (ReFrame's convention: lower -0.05, upper 0.1); an absent bound is open.
struct Reference {
  std::string system;
  std::string metric;
  double value = 0;
  std::optional<double> lower, upper;
  Location where;
};

struct Campaign {
  std::string file;           // path as given
  std::filesystem::path dir;  // directory of the campaign file
  std::string text;
  std::string sha256;

  std::string name;
  // One system's part of a campaign across several (`system: [a, b]`): that system's name, and the
  // catalog knows the part as NAME@SYSTEM (catalog_name); empty otherwise.
  std::string part;
  std::string catalog_name() const { return part.empty() ? name : name + "@" + part; }
  std::string description;
  Field<std::string> system;
  // `system: [a, b]`: one campaign across several systems (issue 34), each a part of its own in one
  // catalog (cli::load_all); empty for one system (`system: a`, or none).
  std::vector<Field<std::string>> systems;
  Field<std::string> workdir;
  Field<std::string> account;
  Field<std::string> code_dir;
  std::vector<std::pair<std::string, Value>> params;  // constants
  std::vector<Location> params_where;

  Matrix matrix;
  Location matrix_where;
  std::vector<Derived> derived;
  Field<std::string> name_template;
  Job job;
  Field<Pack> pack;         // every step's, unless a step says otherwise
  Field<Array> array;       // the same
  std::vector<Step> steps;  // never empty after loading: an implicit "main" step

  RetryPolicy retry;
  Field<double> budget_node_hours;
  std::vector<std::string> collectors;
  std::vector<Location> collectors_where;
  std::vector<Component> components;  // replaced as a whole by a system override
  std::vector<Input> inputs;          // replaced as a whole by a system override
  Fetch fetch;
  std::vector<analysis::AnalysisSpec> analyses;  // parsed here (spec/analyses.hpp), names unchecked
  std::vector<Tracked> track;                    // `track:`, for `campaign site`
  Field<std::string> commit_url;                 // e.g. https://host/org/repo/commit/{{commit}}
  std::vector<Reference> references;             // `reference:`, inline or from its file
  Field<std::string> reference_file;             // `reference: FILE`, relative to `dir`
  std::map<std::string, YAML::Node> overrides;   // per system, applied by for_system()
  std::map<std::string, Location> overrides_where;
};

// Where input `in` of `c` is on this machine: its `from`, relative to the campaign file's folder.
// InputError, at the input, when nothing is there (checked by validate, plan and run before they
// write anything).
std::filesystem::path input_source(const Campaign& c, const Input& in);

Campaign load_campaign(const std::filesystem::path& path);
Campaign parse_campaign(const std::string& text, const std::string& file_name);

// The campaign as seen on `system`: its override (if any) applied on top.
Campaign for_system(const Campaign& campaign, const std::string& system);

// `commit_url` with {{commit}} (the full commit id) replaced; a template is an http(s) URL holding
// {{commit}} and no other {{...}} (parse_campaign checks it: commit_url_problem() says why not).
std::string commit_url(const std::string& url_template, const std::string& commit);
std::string commit_url_problem(const std::string& url_template);

// The step named `name`, or nullptr.
const Step* find_step(const Campaign& campaign, const std::string& name);

}  // namespace campaign::spec

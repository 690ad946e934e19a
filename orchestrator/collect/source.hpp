// What a collector's YAML says, after validation: one Source per entry of
// `sources:`, with the engine-specific part in a variant.
//
// The schema (defaults in brackets; collectors/*.yaml are worked examples):
//   name [file stem], description, sources: [source...]
//   source:  engine: csv|mllog|regex|json|yaml|nsys|tau
//            file: GLOB relative to the run dir | stdout: true (the job's output)
//            required [true]: false turns a missing file into silence and a
//                     malformed one into a warning
//            multiple [newest]: all (regex, csv and nsys) reads every match
//            any_attempt [false]: true collects the file in a retry even when an earlier
//                     attempt wrote it (a workload that reuses its outputs on purpose); else a
//                     file older than the attempt's start fails the attempt (collect.hpp)
//   csv:     step [row index]: COLUMN, step_scale: the step times this, rounded
//            to an integer (Unix seconds * 1000: exact milliseconds), delimiter [,],
//            metrics: [COLUMN | {column, name [column], unit, scale [1], optional [false]}]
//            name may use {COLUMN} (that row's cell: one metric per device)
//            and {*} (what the file glob's wildcards matched: per host, rank)
//   mllog:   intervals [epoch, run, staging]: [KEY | {key, name [KEY_time], step [epoch_num; ~: none]}]
//            values: [KEY | {key, name [KEY], unit, scale, step [epoch_num]}]
//            instances [mean]: mean|min|max|separate, instance_key [instance_id]
//   regex:   patterns: [{regex, captures: [NAME...] (or (?<name>...) in the regex),
//                        contains (literal prefilter) [derived from the regex],
//                        name, value, step, unit, scale, format, reduce
//                        | metrics: [{name, value, step, unit, scale, format, reduce}]}]
//            name may use {capture}; value/step are capture names or numbers
//            [value: the only capture]; format [number]: number|tau_msec;
//            reduce [last]: last|first|mean|sum|min|max|count|steps.
//            Patterns apply to each line on its own.
//   json/yaml: values: [PATH | {path, name [PATH], unit, scale, optional}],
//            PATH like data.n_train or history.loss[3]
//   nsys:    no settings: the kernel and memory-time summaries of `nsys stats --format csv`
//            (nsys_engine.cpp) become nsys_time:NAME, nsys_instances:NAME, nsys_avg:NAME
//   tau:     no settings: TAU's pprof text (tau_engine.cpp), tau_exclusive:ROUTINE and the rest
//
// Invariant: a Source that exists is internally consistent - every column,
// capture and path it refers to is named, regexes are compiled, metric names
// are unique within the source (except names built from captures) - so the
// engines never check the collector, only the data.
#pragma once

#include <regex>
#include <string>
#include <variant>
#include <vector>

namespace campaign::collect {

enum class Engine { csv, mllog, regex, json, yaml, nsys, tau };

// How the matches of one regex metric become values.
enum class Reduce { last, first, mean, sum, min, max, count, steps };

// How mllog results of several instances (weak scaling) are combined.
enum class Instances { mean, min, max, separate };

// How a capture's text is read: a plain number (thousands separators allowed)
// or a TAU pprof time in msec, which switches to "m:ss.mmm"/"h:mm:ss.mmm".
enum class NumberFormat { number, tau_msec };

// When a glob matches several files.
enum class Multiple { newest, all };

// A piece of a csv metric name: literal text, a column's cell, or what the
// file glob's wildcards matched.
struct CsvNamePart {
  enum Kind { literal, column, wildcard } kind = literal;
  std::string text;  // the literal, or the column's name
};

struct CsvColumn {
  std::string column;  // header name
  std::string name;    // metric name, as written (a template when parts has more than a literal)
  std::vector<CsvNamePart> parts;
  std::string unit;
  double scale = 1;
  bool optional = false;  // a missing column is then skipped silently
};

struct CsvSpec {
  std::string step;       // column giving the step; empty: the data row index (0, 1, ...)
  double step_scale = 0;  // 0: steps as read; else step * step_scale, rounded (the catalog keeps integers)
  char delimiter = ',';
  std::vector<CsvColumn> columns;
};

// An interval KEY is the pair KEY_start / KEY_stop (epoch, run, staging, eval, ...).
struct MllogInterval {
  std::string key;
  std::string name;      // default KEY_time
  std::string step_key;  // metadata key giving the step, default epoch_num
};

// A point-in-time event whose `value` is a number (eval_error, throughput, ...).
struct MllogValue {
  std::string key;
  std::string name;
  std::string unit;
  std::string step_key;
  double scale = 1;
};

struct MllogSpec {
  std::vector<MllogInterval> intervals;
  std::vector<MllogValue> values;
  std::string instance_key = "instance_id";
  Instances instances = Instances::mean;
};

// A piece of a metric name template: literal text or a capture's text.
struct NamePart {
  std::string literal;
  int group = -1;
};

struct RegexMetric {
  std::string name;  // the template as written, for messages
  std::vector<NamePart> parts;
  int value = -1;  // capture index, -1 for reduce: count
  int step = -1;   // capture index or -1
  std::string unit;
  double scale = 1;
  NumberFormat format = NumberFormat::number;
  Reduce reduce = Reduce::last;
};

struct RegexPattern {
  std::string text;                 // as written
  std::regex re;                    // "[\s\S]*?(TEXT)", named groups made positional: group k is re's k+1
  std::vector<std::string> groups;  // group names, [0] unused
  std::string literal;              // a line must contain this to be tried ("" = always)
  std::vector<RegexMetric> metrics;
};

struct RegexSpec {
  std::vector<RegexPattern> patterns;
};

struct DocValue {
  std::string path;               // as written: data.n_train, history.loss[3]
  std::vector<std::string> keys;  // split: data, n_train / history, loss, [3]
  std::string name;
  std::string unit;
  double scale = 1;
  bool optional = false;
};

struct DocSpec {
  std::vector<DocValue> values;
};

// `nsys stats` output has a fixed shape: nothing to configure.
struct NsysSpec {};
// Nor does `pprof`'s.
struct TauSpec {};

struct Source {
  Engine engine = Engine::csv;
  std::string file;          // glob relative to the run directory; empty when from_stdout
  bool from_stdout = false;  // read the job's output instead
  bool required = true;
  Multiple multiple = Multiple::newest;
  bool any_attempt = false;  // an earlier attempt's file is this attempt's too
  std::variant<CsvSpec, MllogSpec, RegexSpec, DocSpec, NsysSpec, TauSpec> spec;
};

}  // namespace campaign::collect

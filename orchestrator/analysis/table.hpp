// The output of an analysis: tables of named columns, one per group, plus the
// cases that could not be used and why.
//
// Invariant: every row has exactly one cell per column; a cell is empty
// (monostate) when the value was not measured - never a made-up 0.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "spec/analyses.hpp"

namespace campaign::analysis {

using Cell = std::variant<std::monostate, double, std::string>;

// One side of a comparison (e.g. data = dummy) and the suffix of its columns
// ("" for the baseline or when nothing is compared).
struct Series {
  std::string label;
  std::string suffix;
};

struct Table {
  std::string analysis;
  Scaling scaling = Scaling::none;
  std::string x;                                           // name of the first column
  std::vector<std::pair<std::string, std::string>> group;  // (parameter, value), may be empty
  std::vector<Series> series;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::map<std::string, std::string> units;  // column -> unit, where known
  std::vector<std::string> notes;            // headline numbers, e.g. a ratio
  bool detail = false;  // too long to read (a curve, one row per iteration): CSV, JSON and plot only

  // File stem: "<analysis>" or "<analysis>-<group values joined by '-'>".
  std::string stem() const;
  // "partition=gpu, data=real" or "".
  std::string group_label() const;
  // Index of `name` in columns, or -1.
  int column(std::string_view name) const;
  bool has(std::string_view name) const { return column(name) >= 0; }
  // The number in `row` under `name`; empty when absent or not a number.
  std::optional<double> number(size_t row, std::string_view name) const;
};

// An empty table of one row per case (x = "case", one unnamed series) for `spec`'s analysis.
Table case_table(const AnalysisSpec& spec, std::vector<std::string> columns);

// A case that is in the analysis' scope but not in its tables.
struct Excluded {
  std::string case_name;
  std::string state;
  std::string reason;
};

struct AnalysisResult {
  AnalysisSpec spec;
  std::vector<Table> tables;
  std::vector<Excluded> excluded;
  std::vector<std::string> notes;  // about the whole analysis, e.g. implicit grouping
};

// For people: integers as integers (unless `integers` is false), other
// numbers with 6 decimals (6 significant digits below 0.001; below 5e-10,
// which is rounding noise, 0).
std::string format_cell(const Cell& c, bool integers = true);
// The whole table for people: a column whose numbers are all whole shows
// integers; in any other column every number has 6 decimals, so digits align.
std::vector<std::vector<std::string>> formatted(const Table& t);
// For machines: the shortest text that reads back as the same double.
std::string format_exact(double v);

// Orders numbers numerically and before words, words lexicographically.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace campaign::analysis

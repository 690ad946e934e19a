// `campaign report --terminal`: the tables as aligned plain text.
#include <algorithm>

#include "report/report.hpp"
#include "report/writers.hpp"
#include "util/columns.hpp"

namespace campaign::report {

using analysis::Table;

namespace {

void print_table(std::ostream& os, const Table& t) {
  std::vector<std::vector<std::string>> cells = analysis::formatted(t);
  // Numbers right-aligned so digits line up; words left-aligned.
  std::vector<bool> right(t.columns.size(), true);
  for (const auto& r : t.rows)
    for (size_t i = 0; i < r.size(); ++i) right[i] = right[i] && !std::holds_alternative<std::string>(r[i]);
  cells.insert(cells.begin(), t.columns);
  os << format_columns(cells, right);
}

}  // namespace

void print_tables(std::ostream& os, const std::vector<analysis::AnalysisResult>& analyses) {
  bool first = true;
  for (const auto& a : analyses) {
    if (!first) os << "\n";
    first = false;
    os << "== " << a.spec.name << " (" << to_string(a.spec.scaling) << ", x = " << a.spec.x << ") ==\n";
    for (const auto& n : a.notes) os << "note: " << n << "\n";
    if (a.tables.empty()) os << "no usable cases\n";
    for (const auto& t : a.tables) {
      os << "\n";
      if (std::string h = detail::heading(a, t); !h.empty()) os << "-- " << h << " --\n";
      if (t.detail)
        os << t.rows.size() << " rows of " << t.columns.size() << " columns (see the CSV and JSON reports)\n";
      else
        print_table(os, t);
      for (const auto& n : t.notes) os << "  " << n << "\n";
    }
    if (!a.excluded.empty()) {
      os << "\nleft out (" << a.excluded.size() << "):\n";
      for (const auto& e : a.excluded)
        os << "  " << e.case_name << " [" << e.state << "]: " << e.reason << "\n";
    }
  }
}

}  // namespace campaign::report

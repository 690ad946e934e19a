// `campaign report --terminal`: the tables as aligned plain text.
#include <algorithm>

#include "report/report.hpp"
#include "report/writers.hpp"

namespace campaign::report {

using analysis::Table;

namespace {

void print_table(std::ostream& os, const Table& t) {
  std::vector<std::vector<std::string>> cells = analysis::formatted(t);
  std::vector<size_t> width(t.columns.size());
  std::vector<bool> text(t.columns.size(), false);
  for (size_t i = 0; i < t.columns.size(); ++i) width[i] = t.columns[i].size();
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t i = 0; i < t.rows[r].size(); ++i) {
      width[i] = std::max(width[i], cells[r][i].size());
      text[i] = text[i] || std::holds_alternative<std::string>(t.rows[r][i]);
    }
  }
  // Numbers right-aligned so digits line up; words left-aligned.
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string pad(width[i] - v[i].size(), ' ');
      s += (i ? "  " : "") + (text[i] ? v[i] + pad : pad + v[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    os << s << "\n";
  };
  line(t.columns);
  for (const auto& r : cells) line(r);
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

// Implements analysis/table.hpp: lookups and number formatting.
#include "analysis/table.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "spec/expression.hpp"

namespace campaign::analysis {

using spec::parse_number;

Table case_table(const AnalysisSpec& spec, std::vector<std::string> columns) {
  Table t;
  t.analysis = spec.name;
  t.scaling = spec.scaling;
  t.x = "case";
  t.series = {{"", ""}};
  t.columns = std::move(columns);
  return t;
}

std::string Table::stem() const {
  std::string s = analysis;
  for (const auto& [param, value] : group) {
    s += '-';
    for (char c : value) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '.' || c == '=';
      s += ok ? c : '_';  // values become file names: keep them portable
    }
  }
  return s;
}

std::string Table::group_label() const {
  std::string s;
  for (const auto& [param, value] : group) s += (s.empty() ? "" : ", ") + param + "=" + value;
  return s;
}

int Table::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<double> Table::number(size_t row, std::string_view name) const {
  int c = column(name);
  if (c < 0 || row >= rows.size()) return std::nullopt;
  if (const double* d = std::get_if<double>(&rows[row][static_cast<size_t>(c)])) return *d;
  return std::nullopt;
}

std::string format_exact(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::string("nan");
}

std::string format_cell(const Cell& c, bool integers) {
  if (const std::string* s = std::get_if<std::string>(&c)) return *s;
  const double* d = std::get_if<double>(&c);
  if (!d) return "";
  char buf[64];
  double v = *d;
  if (std::fabs(v) < 5e-10) v = 0;  // rounding noise (e.g. the std of equal values) reads as 0
  if (integers && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e15)
    std::snprintf(buf, sizeof buf, "%.6g", v);  // 6 decimals would print 0.000000
  else
    std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

std::vector<std::vector<std::string>> formatted(const Table& t) {
  std::vector<bool> whole(t.columns.size(), true);
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size() && i < whole.size(); ++i) {
      const double* d = std::get_if<double>(&row[i]);
      if (d && !(*d == std::floor(*d) && std::fabs(*d) < 1e15)) whole[i] = false;
    }
  }
  std::vector<std::vector<std::string>> out;
  out.reserve(t.rows.size());
  for (const auto& row : t.rows) {
    out.emplace_back();
    for (size_t i = 0; i < row.size(); ++i) out.back().push_back(format_cell(row[i], whole[i]));
  }
  return out;
}

bool natural_less(const std::string& a, const std::string& b) {
  double x, y;
  bool nx = parse_number(a, x), ny = parse_number(b, y);
  if (nx && ny) return x < y || (x == y && a < b);
  if (nx != ny) return nx;
  return a < b;
}

}  // namespace campaign::analysis

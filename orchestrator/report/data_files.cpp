// CSV and JSON for one table: the numbers at full precision for other tools.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "report/writers.hpp"

namespace campaign::report::detail {

using analysis::Table;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

// Counts and rank numbers stay integers in JSON (512, not 512.0).
nlohmann::ordered_json json_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) return static_cast<std::int64_t>(d);
  return d;
}

}  // namespace

std::string table_csv(const Table& t) {
  std::string out;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (i) out += ',';
    out += csv_field(t.columns[i]);
  }
  out += "\n";
  for (const auto& row : t.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      if (const auto* s = std::get_if<std::string>(&row[i]))
        out += csv_field(*s);
      else if (const auto* d = std::get_if<double>(&row[i]))
        out += analysis::format_exact(*d);
    }
    out += "\n";
  }
  return out;
}

std::string table_json(const analysis::AnalysisResult& a, const Table& t) {
  using json = nlohmann::ordered_json;
  json j;
  j["analysis"] = t.analysis;
  j["scaling"] = std::string(to_string(t.scaling));
  j["x"] = t.x;
  j["group"] = json::object();
  for (const auto& [k, v] : t.group) j["group"][k] = v;
  j["time"] = {{"metric", a.spec.time.metric}, {"warmup", a.spec.time.warmup}};
  if (!a.spec.samples.empty()) j["samples"] = a.spec.samples;
  j["series"] = json::array();
  for (const auto& s : t.series) j["series"].push_back({{"label", s.label}, {"suffix", s.suffix}});
  j["columns"] = t.columns;
  j["units"] = json::object();
  for (const auto& [k, v] : t.units) j["units"][k] = v;
  j["rows"] = json::array();
  for (const auto& row : t.rows) {
    json r = json::object();
    for (size_t i = 0; i < row.size(); ++i) {
      if (const auto* s = std::get_if<std::string>(&row[i]))
        r[t.columns[i]] = *s;
      else if (const auto* d = std::get_if<double>(&row[i]))
        r[t.columns[i]] = json_number(*d);
      else
        r[t.columns[i]] = nullptr;
    }
    j["rows"].push_back(std::move(r));
  }
  j["notes"] = t.notes;
  return j.dump(2) + "\n";
}

}  // namespace campaign::report::detail

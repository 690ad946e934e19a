#include "sample/nvidia_smi.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>

#include "util/strings.hpp"

namespace campaign::sample {

namespace {

std::vector<std::string> fields(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    out.push_back(trim(std::string(line.substr(start, comma - start))));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// A number, optionally followed by its unit ("45", "45 %", "70.57 W", "883 MiB").
std::optional<double> number(const std::string& s, std::string_view unit = "%") {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
  std::string_view rest(end, static_cast<size_t>(s.data() + s.size() - end));
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && rest != unit) return std::nullopt;
  return v;
}

// Field `at` of `f` as a number with `unit`; nullopt when there is no such column or field.
std::optional<double> optional_number(const std::vector<std::string>& f, int at, std::string_view unit) {
  if (at < 0 || static_cast<size_t>(at) >= f.size()) return std::nullopt;
  return number(f[static_cast<size_t>(at)], unit);
}

int digits(std::string_view s, size_t pos, size_t n, bool& ok) {
  int v = 0;
  if (pos + n > s.size()) return ok = false, 0;
  auto [end, ec] = std::from_chars(s.data() + pos, s.data() + pos + n, v);
  if (ec != std::errc() || end != s.data() + pos + n) ok = false;
  return v;
}

}  // namespace

std::optional<SmiColumns> SmiColumns::from_header(std::string_view header) {
  SmiColumns c{-1, -1, -1, -1, -1, -1};
  auto names = fields(header);
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name = names[i].substr(0, names[i].find(' '));  // without " [%]"
    int at = static_cast<int>(i);
    if (name == "timestamp") c.timestamp = at;
    if (name == "index") c.index = at;
    if (name == "utilization.gpu") c.utilization = at;
    if (name == "power.draw") c.power = at;
    if (name == "memory.used") c.memory = at;
    if (name == "uuid" || name == "gpu_uuid") c.uuid = at;
  }
  if (c.timestamp < 0 || c.utilization < 0) return std::nullopt;
  return c;
}

std::optional<double> parse_smi_timestamp(std::string_view s) {
  // 0123456789012345678901
  // 2026/11/25 13:00:00.123
  bool ok = s.size() >= 19 && s[4] == '/' && s[7] == '/' && s[10] == ' ' && s[13] == ':' && s[16] == ':';
  std::tm tm{};
  tm.tm_year = digits(s, 0, 4, ok) - 1900;
  tm.tm_mon = digits(s, 5, 2, ok) - 1;
  tm.tm_mday = digits(s, 8, 2, ok);
  tm.tm_hour = digits(s, 11, 2, ok);
  tm.tm_min = digits(s, 14, 2, ok);
  tm.tm_sec = digits(s, 17, 2, ok);
  double fraction = 0;
  if (ok && s.size() > 19) {
    ok = s[19] == '.' && s.size() > 20;
    int ms = digits(s, 20, s.size() - 20, ok);
    fraction = ms / std::pow(10.0, static_cast<double>(s.size() - 20));
  }
  if (!ok) return std::nullopt;
  tm.tm_isdst = -1;  // the zone's rule for that date
  std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + fraction;
}

std::optional<GpuReading> parse_smi_line(std::string_view line, const SmiColumns& c) {
  auto f = fields(line);
  int need = std::max({c.timestamp, c.index, c.utilization});
  if (static_cast<int>(f.size()) <= need) return std::nullopt;
  GpuReading r;
  auto t = parse_smi_timestamp(f[static_cast<size_t>(c.timestamp)]);
  auto u = number(f[static_cast<size_t>(c.utilization)]);
  if (!t || !u) return std::nullopt;
  r.time = *t;
  r.utilization = *u;
  if (c.index >= 0) {
    const std::string& idx = f[static_cast<size_t>(c.index)];
    auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), r.index);
    if (ec != std::errc() || end != idx.data() + idx.size() || r.index < 0) return std::nullopt;
  }
  r.power_w = optional_number(f, c.power, "W");
  r.memory_mib = optional_number(f, c.memory, "MiB");
  if (c.uuid >= 0 && static_cast<size_t>(c.uuid) < f.size() &&
      f[static_cast<size_t>(c.uuid)].rfind("GPU-", 0) == 0)
    r.uuid = f[static_cast<size_t>(c.uuid)];
  return r;
}

std::optional<GpuApp> parse_smi_app(std::string_view line) {
  auto f = fields(line);
  if (f.size() < 2) return std::nullopt;
  GpuApp a;
  auto [end, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), a.pid);
  if (ec != std::errc() || end != f[0].data() + f[0].size() || a.pid <= 0) return std::nullopt;
  if (f[1].rfind("GPU-", 0) != 0) return std::nullopt;
  a.uuid = f[1];
  a.memory_mib = optional_number(f, 2, "MiB");
  return a;
}

}  // namespace campaign::sample

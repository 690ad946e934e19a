#include "util/walltime.hpp"

#include <cctype>
#include <cstdio>

#include "util/strings.hpp"

namespace campaign {

namespace {
std::optional<long> to_long(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}
}  // namespace

const char* walltime_forms(WalltimeGrammar g) {
  return g == WalltimeGrammar::lsf ? kLsfWalltimeForms : kWalltimeForms;
}

std::optional<long> parse_walltime(std::string_view text, WalltimeGrammar g) {
  std::string s = trim(text);
  if (s.empty()) return std::nullopt;
  if (auto minutes = to_long(s)) return *minutes * 60;
  long days = 0;
  std::string_view rest = s;
  if (auto dash = rest.find('-'); dash != std::string_view::npos) {
    auto d = to_long(rest.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    rest = rest.substr(dash + 1);
  }
  const bool dashed = rest.size() != s.size();
  if (dashed || rest.find(':') != std::string_view::npos) {
    // Slurm's grammar: M:S, H:M:S; after "D-": H, H:M, H:M:S.
    auto parts = split(rest, ':');
    if (parts.size() > 3) return std::nullopt;
    long total = 0;
    for (auto& p : parts) {
      auto v = to_long(p);
      if (!v) return std::nullopt;
      total = total * 60 + *v;
    }
    if (dashed) total *= parts.size() == 1 ? 3600 : parts.size() == 2 ? 60 : 1;  // D-H, D-H:M
    // Without a day, two parts are minutes:seconds to Slurm, hours:minutes to LSF.
    else if (parts.size() == 2 && g == WalltimeGrammar::lsf)
      total *= 60;
    return days * 86400 + total;
  }
  // Unit suffixes: 1h30m, 90m, 45s, 2d.
  long total = 0;
  size_t i = 0;
  bool any = false;
  while (i < rest.size()) {
    size_t j = i;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j;
    if (j == i || j == rest.size()) return std::nullopt;
    long v = *to_long(rest.substr(i, j - i));
    switch (rest[j]) {
      case 'd':
        total += v * 86400;
        break;
      case 'h':
        total += v * 3600;
        break;
      case 'm':
        total += v * 60;
        break;
      case 's':
        total += v;
        break;
      default:
        return std::nullopt;
    }
    any = true;
    i = j + 1;
  }
  if (!any) return std::nullopt;
  return total;
}

std::string format_hms(long seconds) {
  char buf[48];
  long d = seconds / 86400, h = seconds % 86400 / 3600, m = seconds % 3600 / 60, s = seconds % 60;
  if (d > 0)
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", h, m, s);
  return buf;
}

long walltime_minutes(long seconds) { return (seconds + 59) / 60; }

std::string format_hhmm(long seconds) {
  long minutes = walltime_minutes(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld", minutes / 60, minutes % 60);
  return buf;
}

}  // namespace campaign

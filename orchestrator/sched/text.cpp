// Text helpers for scheduler output parsers (see text.hpp).
#include "sched/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "util/strings.hpp"

namespace campaign::sched::text {

std::vector<std::string> lines(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.emplace_back(line);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::optional<long> to_long(std::string_view s) {
  std::string t = trim(s);
  if (!t.empty() && t[0] == '+') t.erase(0, 1);
  long v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::chrono::sys_seconds> local_time(int year, int month, int day, int hour, int minute,
                                                   int second) {
  if (month < 1 || month > 12 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 ||
      second > 60)
    return std::nullopt;
  auto make = [&](int min, int sec, std::time_t& t) {
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;  // whatever the zone's rules say for that date
    t = std::mktime(&tm);
    // mktime moves an impossible date to a real one ("Feb 30" to "Mar 2"): refuse it instead.
    return t != -1 && tm.tm_mday == day && tm.tm_mon == month - 1;
  };
  // A scheduler's listing names the same few hours thousands of times, and mktime is dear (the
  // zone's rules at each call): an hour whose minutes all lie at one offset from UTC (not one a
  // clock change cuts) is converted once, then its minutes and seconds added. Four hours are kept:
  // a record's submit, start and end times may lie in different hours, and a miss costs two mktime.
  struct Hour {
    int year = 0, month = 0, day = 0, hour = -1;
    std::string zone;  // TZ as it was: a process may change it
    std::time_t start = 0;
  };
  thread_local std::array<Hour, 4> kept;
  thread_local size_t next = 0;  // the one to replace
  const char* tz = std::getenv("TZ");
  const std::string_view zone = tz ? tz : "";
  auto at = [&](std::time_t start) {
    return std::chrono::sys_seconds(std::chrono::seconds(start + minute * 60 + second));
  };
  for (const Hour& h : kept)
    if (h.hour == hour && h.day == day && h.month == month && h.year == year && h.zone == zone)
      return at(h.start);
  std::time_t start = 0, end = 0;
  if (!make(0, 0, start) || !make(59, 59, end) || end - start != 3599) {
    std::time_t t = 0;
    if (!make(minute, second, t)) return std::nullopt;
    return std::chrono::sys_seconds(std::chrono::seconds(t));
  }
  kept[next] = {year, month, day, hour, std::string(zone), start};
  next = (next + 1) % kept.size();
  return at(start);
}

}  // namespace campaign::sched::text

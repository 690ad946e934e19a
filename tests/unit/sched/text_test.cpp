// Scheduler text helpers: local wall-clock times as mktime reads them, whatever the hour (a clock
// change's included) and however often the same hour is asked for.
#include "sched/text.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <ctime>
#include <string>

#include "../zone.hpp"

using namespace campaign::sched;
using campaign_test::Zone;

namespace {

// mktime itself, the definition local_time keeps.
std::optional<long> reference(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == -1 || tm.tm_mday != d || tm.tm_mon != mo - 1) return std::nullopt;
  return static_cast<long>(t);
}

void every_minute(int y, int mo, int d) {
  for (int h = 0; h < 5; ++h)
    for (int mi = 0; mi < 60; mi += 7)
      for (int s : {0, 31, 59}) {
        INFO(y << "-" << mo << "-" << d << " " << h << ":" << mi << ":" << s);
        auto got = text::local_time(y, mo, d, h, mi, s);
        auto want = reference(y, mo, d, h, mi, s);
        REQUIRE(got.has_value() == want.has_value());
        if (got) CHECK(got->time_since_epoch().count() == *want);
      }
}

}  // namespace

TEST_CASE("local_time is mktime's reading, across clock changes and zones", "[text]") {
  {
    Zone cet("CET-1CEST,M3.5.0,M10.5.0/3");  // POSIX rules: no zone database needed
    every_minute(2026, 3, 29);               // 02:00 -> 03:00
    every_minute(2026, 10, 25);              // 03:00 -> 02:00
    every_minute(2026, 11, 29);
    CHECK_FALSE(text::local_time(2026, 2, 30, 10, 0, 0));  // no such day
  }
  {
    Zone utc("UTC");  // the same hour again, in another zone: not the hour kept from the last
    every_minute(2026, 11, 29);
  }
}

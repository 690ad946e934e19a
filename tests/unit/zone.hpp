// The time zone (TZ) for one test, the old one put back when it ends: parsers that read local time
// are checked in a zone of the test's choosing.
#pragma once

#include <cstdlib>
#include <ctime>
#include <string>

namespace campaign_test {

struct Zone {
  std::string old;
  bool had;
  explicit Zone(const char* tz) {
    const char* o = std::getenv("TZ");
    had = o != nullptr;
    if (had) old = o;
    ::setenv("TZ", tz, 1);
    ::tzset();
  }
  ~Zone() {
    if (had)
      ::setenv("TZ", old.c_str(), 1);
    else
      ::unsetenv("TZ");
    ::tzset();
  }
};

}  // namespace campaign_test

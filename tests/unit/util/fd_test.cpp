#include "util/fd.hpp"

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <utility>

using campaign::Fd;

namespace {
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }
}  // namespace

TEST_CASE("Fd closes its descriptor once, whichever owner is last") {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(raw >= 0);
  {
    Fd a(raw);
    Fd b(std::move(a));
    CHECK_FALSE(a.open());
    CHECK(b.get() == raw);
    Fd c;
    c = std::move(b);
    CHECK(is_open(raw));
  }
  CHECK_FALSE(is_open(raw));

  Fd d(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int kept = d.release();
  CHECK_FALSE(d.open());
  CHECK(is_open(kept));
  d.reset(kept);
  d.reset();
  CHECK_FALSE(is_open(kept));
}

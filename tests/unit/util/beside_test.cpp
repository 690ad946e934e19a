#include "util/beside.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using campaign::Beside;

TEST_CASE("work beside the caller's has run when wait returns, on its thread or in wait") {
  for (bool thread : {true, false}) {
    int done = 0;
    Beside b([&] { ++done; }, thread);
    if (!thread) CHECK(done == 0);  // no thread: nothing before wait
    b.wait();
    CHECK(done == 1);
    b.wait();  // once only
    CHECK(done == 1);
  }
}

TEST_CASE("what the work threw is thrown by wait") {
  for (bool thread : {true, false}) {
    Beside b([] { throw std::runtime_error("bad parameters"); }, thread);
    CHECK_THROWS_WITH(b.wait(), "bad parameters");
  }
}

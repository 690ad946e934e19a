// The marker watch: which run directories a marker appeared in, so that a tick between two polls
// reads only those (and those it could not watch).
#include "engine/marker_watch.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "../temp_dir.hpp"

using namespace campaign::engine;
namespace fs = std::filesystem;

namespace {

// Writes DIR/.exit as the job scripts do: a temporary renamed into place.
void write_marker(const fs::path& dir) {
  std::ofstream(dir / ".exit.tmp") << "0\n";
  fs::rename(dir / ".exit.tmp", dir / ".exit");
}

}  // namespace

TEST_CASE("the marker watch names the directories a marker appeared in, and those it cannot watch") {
  campaign_test::TempDir tmp("marker-watch");
  boost::asio::io_context io;
  int woken = 0;
  MarkerWatch watch(io, ".exit", [&] { ++woken; });
  REQUIRE(watch.available());
  const std::string a = (tmp.path / "a").string(), b = (tmp.path / "b").string(),
                    gone = (tmp.path / "gone").string();
  fs::create_directories(a);
  fs::create_directories(b);
  watch.watch({a, b, gone});  // `gone` does not exist: not watchable
  CHECK(watch.watched() == 2);
  auto first = watch.take_fired();
  REQUIRE(first);
  CHECK(*first == std::set<std::string>{gone});  // nothing fired yet; the unwatched one always

  write_marker(b);
  std::ofstream(fs::path(a) / "other") << "x";  // not a marker
  // The events are queued by the rename itself: the loop only has to read them.
  for (int i = 0; i < 500 && woken == 0; ++i) io.run_one_for(std::chrono::milliseconds(10));
  CHECK(woken == 1);
  auto fired = watch.take_fired();
  REQUIRE(fired);
  CHECK(*fired == std::set<std::string>{b, gone});
  auto again = watch.take_fired();  // taken: not named twice
  REQUIRE(again);
  CHECK(*again == std::set<std::string>{gone});
}

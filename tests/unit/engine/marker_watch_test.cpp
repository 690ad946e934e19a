// MarkerWatch: which run directories a tick reads between full reads (engine/marker_watch.hpp).
#include "engine/marker_watch.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "../temp_dir.hpp"

namespace fs = std::filesystem;
using campaign::engine::MarkerWatch;

namespace {

// Writes `name` in `dir` as job scripts do (a temporary renamed into place).
void write_marker(const fs::path& dir, const std::string& name) {
  std::ofstream(dir / (name + ".tmp")) << "0\n";
  fs::rename(dir / (name + ".tmp"), dir / name);
}

}  // namespace

TEST_CASE("marker watch: the directories where a marker came, each marker apart, and whose job ended") {
  campaign_test::TempDir tmp("watch");
  const fs::path packed = tmp.path / "packed", job = tmp.path / "job";
  fs::create_directories(packed);
  fs::create_directories(job);
  const std::string packed_s = packed.string(), job_s = job.string(), gone = (tmp.path / "gone").string();

  boost::asio::io_context io;
  std::optional<bool> woke;  // the last wake-up's job_ended
  MarkerWatch w(io, {".exit", ".start"}, [&](bool job_ended) { woke = job_ended; });
  REQUIRE(w.available());
  // The kernel queues an event before the write returns: running the handler is waiting for no clock.
  auto deliver = [&] {
    woke.reset();
    io.restart();
    io.run_one_for(std::chrono::seconds(10));
  };

  w.watch({{1, &packed_s, false}, {2, &job_s, true}, {3, &gone, true}});
  CHECK(w.watched() == 2);
  using Keys = std::unordered_set<std::int64_t>;
  CHECK(w.unwatched() == Keys{3});  // read every time
  // Newly watched: their markers may have come before the watch.
  CHECK(w.take_changes(0).keys == Keys{1, 2});
  CHECK(w.take_changes(1).keys == Keys{1, 2});
  CHECK(w.take_changes(0).keys.empty());

  write_marker(packed, ".start");
  deliver();
  CHECK_FALSE(woke);  // a start marker wakes nothing; it waits for the poll that reads it
  write_marker(packed, ".exit");
  deliver();
  REQUIRE(woke);
  CHECK_FALSE(*woke);  // a packed case's end frees nothing of the scheduler's
  CHECK(w.take_changes(0).keys == Keys{1});
  CHECK(w.take_changes(1).keys == Keys{1});

  write_marker(job, ".exit");
  deliver();
  REQUIRE(woke);
  CHECK(*woke);
  auto exits = w.take_changes(0);
  CHECK_FALSE(exits.all);
  CHECK(exits.keys == Keys{2});
  CHECK(w.take_changes(1).keys.empty());

  // Dropped from the watch: its markers are no longer followed.
  w.watch({{2, &job_s, true}});
  CHECK(w.watched() == 1);
  CHECK(w.unwatched().empty());
  write_marker(packed, ".exit");
  io.restart();
  io.poll();
  CHECK(w.take_changes(0).keys.empty());

  // A retry in its first attempt's directory: the same watch, now the new attempt's, kept when the
  // ended attempt is dropped.
  w.watch({{2, &job_s, true}, {4, &job_s, true}});
  w.watch({{4, &job_s, true}});
  CHECK(w.take_changes(0).keys == Keys{4});  // new: read once
  write_marker(job, ".exit");
  deliver();
  REQUIRE(woke);
  CHECK(w.take_changes(0).keys == Keys{4});
}

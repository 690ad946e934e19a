// A retry's outputs are its own (collect.hpp, attempt.hpp): with the attempt's start, a file a
// source reads that was modified before it is an earlier attempt's and fails the source, naming
// it; `any_attempt: true` takes it anyway; the job's own output is never checked. File times are
// set explicitly (utimensat), so nothing here depends on the clock.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "collect/attempt.hpp"
#include "helpers.hpp"
#include "render/script.hpp"

using namespace collect_test;
using campaign::collect::AttemptStart;
using campaign::collect::CollectError;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;
constexpr std::int64_t kStart = 1700000000LL * kSecond + 500;  // the attempt's start, ns

void set_mtime(const fs::path& p, std::int64_t ns) {
  const timespec times[2] = {{0, UTIME_OMIT},
                             {static_cast<time_t>(ns / kSecond), static_cast<long>(ns % kSecond)}};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}

void write_at(const fs::path& p, const std::string& text, std::int64_t ns) {
  write_file(p, text);
  set_mtime(p, ns);
}

const char* kHistory = "sources: [{engine: csv, file: history.csv, step: epoch, metrics: [time]}]";

}  // namespace

TEST_CASE("a retry is not credited with a file an earlier attempt wrote") {
  TempDir dir;
  const AttemptStart since{2, kStart};
  write_at(dir / "history.csv", "epoch,time\n0,1.5\n", kStart - 2 * kSecond);
  try {
    campaign::collect::collect({collector(kHistory)}, dir.path(), {}, since);
    FAIL("a stale file was collected");
  } catch (const CollectError& e) {
    CHECK(std::string(e.what()) ==
          "history.csv: written 2.000 s before attempt 2 started (.started-2): an earlier attempt's output, "
          "not this attempt's (`any_attempt: true` on the source collects it anyway)");
  }
  // One nanosecond before the start is an earlier attempt's too; at the start it is this one's.
  set_mtime(dir / "history.csv", kStart - 1);
  CHECK_THROWS_AS(campaign::collect::collect({collector(kHistory)}, dir.path(), {}, since), CollectError);
  set_mtime(dir / "history.csv", kStart);
  auto r = campaign::collect::collect({collector(kHistory)}, dir.path(), {}, since);
  CHECK(value(r, "time", 0) == 1.5);
  // Without a start (a first attempt, import), nothing is checked.
  set_mtime(dir / "history.csv", kStart - 2 * kSecond);
  CHECK(value(campaign::collect::collect({collector(kHistory)}, dir.path()), "time", 0) == 1.5);
}

TEST_CASE("any_attempt: true collects an earlier attempt's file on purpose") {
  TempDir dir;
  write_at(dir / "history.csv", "epoch,time\n0,1.5\n", kStart - kSecond);
  auto c = collector(
      "sources: [{engine: csv, file: history.csv, step: epoch, any_attempt: true, metrics: [time]}]");
  auto r = campaign::collect::collect({c}, dir.path(), {}, AttemptStart{3, kStart});
  CHECK(value(r, "time", 0) == 1.5);
  CHECK(r.warnings.empty());
  CHECK_THROWS_WITH(collector("sources: [{engine: csv, file: h.csv, any_attempt: maybe, metrics: [time]}]"),
                    Catch::Contains("any_attempt"));
}

TEST_CASE("a stale optional source is skipped with a warning; globs name every stale match") {
  TempDir dir;
  const AttemptStart since{2, kStart};
  write_at(dir / "history.csv", "epoch,time\n0,2.5\n", kStart + kSecond);
  write_at(dir / "mlperf.log", ":::MLLOG {}\n", kStart - kSecond);
  auto optional = collector(
      "sources: [{engine: csv, file: history.csv, step: epoch, metrics: [time]},"
      " {engine: regex, file: mlperf.log, required: false, patterns: [{regex: 'x(\\d)', name: x}]}]");
  auto r = campaign::collect::collect({optional}, dir.path(), {}, since);
  CHECK(value(r, "time", 0) == 2.5);
  CHECK(has_warning(r, "mlperf.log: written 1.000 s before attempt 2 started (.started-2)"));
  CHECK(has_warning(r, "(optional source skipped)"));

  write_at(dir / "rank-0.txt", "t 1\n", kStart + kSecond);
  write_at(dir / "rank-1.txt", "t 2\n", kStart - 3 * kSecond);
  write_at(dir / "rank-2.txt", "t 3\n", kStart - kSecond);
  auto all = collector(
      "sources: [{engine: regex, file: 'rank-*.txt', multiple: all, patterns: [{regex: 't (\\d)', name: t, "
      "reduce: sum}]}]");
  CHECK_THROWS_WITH(
      campaign::collect::collect({all}, dir.path(), {}, since),
      "rank-*.txt: 2 of 3 files written 3.000 s before attempt 2 started (.started-2): rank-1.txt, "
      "rank-2.txt: an earlier attempt's output, not this attempt's (`any_attempt: true` on the "
      "source collects it anyway)");
  // `multiple: newest` reads the newest match, which is this attempt's.
  auto newest =
      collector("sources: [{engine: regex, file: 'rank-*.txt', patterns: [{regex: 't (\\d)', name: t}]}]");
  CHECK(value(campaign::collect::collect({newest}, dir.path(), {}, since), "t") == 1);
}

TEST_CASE("the job's output is named after its job and is not checked") {
  TempDir dir;
  write_at(dir / "slurm-7.out", "t 4\n", kStart - kSecond);  // opened by the scheduler before the script
  auto c = collector("sources: [{engine: regex, stdout: true, patterns: [{regex: 't (\\d)', name: t}]}]");
  CHECK(value(campaign::collect::collect({c}, dir.path(), dir / "slurm-7.out", AttemptStart{2, kStart}),
              "t") == 4);
}

TEST_CASE("an attempt's start is its start stamp's time; a first attempt has none") {
  TempDir dir;
  std::string warning;
  CHECK_FALSE(campaign::collect::attempt_start(dir.path(), 1, warning));
  CHECK(warning.empty());
  // A retry whose script wrote no stamp (a campaign's own template) is collected unchecked, and said.
  CHECK_FALSE(campaign::collect::attempt_start(dir.path(), 2, warning));
  CHECK(warning.find("no start stamp .started-2") != std::string::npos);
  warning.clear();
  write_at(dir / campaign::render::start_stamp(2), "2\n", kStart);
  write_at(dir / campaign::render::start_stamp(3), "3\n", kStart + kSecond);
  auto s = campaign::collect::attempt_start(dir.path(), 2, warning);
  REQUIRE(s);
  CHECK(s->attempt == 2);
  CHECK(s->ns == kStart);
  CHECK(warning.empty());
  CHECK(campaign::collect::attempt_start(dir.path(), 3, warning)->ns == kStart + kSecond);

  // collect_dir: a stale file makes the attempt's outcome a failure naming it.
  write_at(dir / "history.csv", "epoch,time\n0,1.5\n", kStart - kSecond);
  std::vector<campaign::Metric> metrics;
  auto o = campaign::collect::collect_dir(dir.path(), "", {collector(kHistory)}, metrics, "", s);
  CHECK_FALSE(o.ok);
  CHECK(o.error.rfind("history.csv: written 1.000 s before attempt 2 started", 0) == 0);
  CHECK(metrics.empty());
}

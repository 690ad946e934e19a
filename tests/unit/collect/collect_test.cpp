// collect() as a whole - finding files, the shipped cosmoflow collector on a
// whole run directory, unique (name, step) - and the text helpers under it.
#include <catch2/catch.hpp>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "collect/input.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;
using campaign::collect::load_collector;

TEST_CASE("collect: cosmoflow.yaml on a run directory with history.csv and mlperf.log", "[collect]") {
  TempDir run;
  fs::copy_file(data("keras/history.csv"), run / "history.csv");
  fs::copy_file(data("mllog/daint_gpu_n128_result_1.txt"), run / "mlperf.log");
  auto r = collect({load_collector(repo_root() / "collectors/cosmoflow.yaml")}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(count(r, "epoch_time") == 10);  // from history.csv
  CHECK(value(r, "epoch_time", 0.0) == Approx(31.84));
  CHECK(count(r, "mlperf_epoch_time") == 64);
  CHECK(value(r, "mlperf_epoch_time", 0.0) == Approx(679.175));
  CHECK(value(r, "run_time") == Approx(24046.097));
  CHECK(count(r, "eval_error") == 64);
  CHECK(count(r, "mae") == 10);
  CHECK(count(r, "lr") == 10);
  CHECK(r.files == std::vector<std::string>{"history.csv", "mlperf.log"});

  // Without the optional mlperf.log: the csv part alone, silently.
  fs::remove(run / "mlperf.log");
  auto csv_only = collect({load_collector(repo_root() / "collectors/cosmoflow.yaml")}, run.path());
  CHECK(csv_only.warnings.empty());
  CHECK(csv_only.metrics.size() == 60);
  // Without the required history.csv: an error that names the file.
  fs::remove(run / "history.csv");
  CHECK_THROWS_WITH(collect({load_collector(repo_root() / "collectors/cosmoflow.yaml")}, run.path()),
                    Catch::Matchers::StartsWith("history.csv: no such file in "));
}

TEST_CASE("collect: globs pick the newest match, or all of them for regex", "[collect]") {
  TempDir run;
  write_file(run / "logs/a-1.csv", "x\n1\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_file(run / "logs/a-2.csv", "x\n2\n");
  write_file(run / "logs/.hidden.csv", "x\n3\n");
  write_file(run / "logs/b.txt", "x\n4\n");
  auto r = collect({collector("sources: [{engine: csv, file: 'logs/a-*.csv', metrics: [x]}]")}, run.path());
  CHECK(value(r, "x", 0.0) == 2);
  CHECK(r.files == std::vector<std::string>{"logs/a-2.csv"});
  CHECK(has_warning(r, "logs/a-*.csv: 2 files match; using the newest, logs/a-2.csv"));

  auto all = collect({collector(R"(
sources: [{engine: regex, file: 'logs/*', multiple: all, patterns: [{regex: '^(\d)$', name: sum, reduce: sum}]}]
)")},
                     run.path());
  CHECK(value(all, "sum") == 1 + 2 + 4);  // not the hidden file
  CHECK(all.files.size() == 3);

  CHECK_THROWS_WITH(
      collect({collector("sources: [{engine: csv, file: 'nope/*.csv', metrics: [x]}]")}, run.path()),
      Catch::Matchers::StartsWith("nope/*.csv: no file matches in "));
}

TEST_CASE("collect: the job's output by absolute or relative path", "[collect]") {
  TempDir run;
  write_file(run / "slurm-7.out", "Mean epoch time: 12.5\n");
  auto c = load_collector(repo_root() / "collectors/timers.yaml");
  auto abs = collect({c}, run.path(), run / "slurm-7.out");
  CHECK(value(abs, "mean_epoch_time") == 12.5);
  CHECK(abs.files == std::vector<std::string>{"slurm-7.out"});
  auto rel = collect({c}, run.path(), "slurm-7.out");
  CHECK(value(rel, "mean_epoch_time") == 12.5);
  TempDir elsewhere;
  write_file(elsewhere / "job.out", "Mean epoch time: 1\n");
  auto outside = collect({c}, run.path(), elsewhere / "job.out");
  CHECK(outside.files == std::vector<std::string>{(elsewhere / "job.out").string()});
  // Required stdout source without a known output file.
  CHECK_THROWS_WITH(
      collect({load_collector(repo_root() / "collectors/mlperf.yaml")}, run.path()),
      Catch::StartsWith("<job output>: the job's output file is not known (for imported runs: "));
}

TEST_CASE("collect: one value per (name, step) across sources - the later wins, with a warning",
          "[collect]") {
  TempDir run;
  write_file(run / "a.csv", "epoch,loss\n0,1\n1,2\n");
  write_file(run / "b.json", R"({"loss": [10, 20, 30]})");
  auto r = collect({collector("sources: [{engine: csv, file: a.csv, step: epoch, metrics: [loss]}]"),
                    collector("sources: [{engine: json, file: b.json, values: [loss]}]")},
                   run.path());
  CHECK(r.metrics.size() == 3);
  CHECK(value(r, "loss", 0.0) == 10);
  CHECK(value(r, "loss", 1.0) == 20);
  CHECK(value(r, "loss", 2.0) == 30);
  CHECK(has_warning(r, "metric 'loss': 2 value(s) replaced by a later one for the same step"));

  // Names that alternate (not in runs) but never collide are left alone.
  write_file(run / "c.txt", "a=1\nb=2\na=3\n");
  auto alt = collect({collector(R"(
sources: [{engine: regex, file: c.txt, patterns: [{regex: '(\w)=(\d)', captures: [k, v], value: v, name: '{k}', step: v}]}]
)")},
                     run.path());
  CHECK(alt.warnings.empty());
  CHECK(alt.metrics.size() == 3);
}

TEST_CASE("input: plain decimals read fast, to the double from_chars reads", "[input]") {
  using campaign::collect::read_plain_decimal;
  auto same = [](const std::string& s) {
    double fast = 0, slow = 0;
    if (!read_plain_decimal(s, fast)) return false;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), slow);
    REQUIRE(ec == std::errc());
    REQUIRE(end == s.data() + s.size());
    CHECK(std::memcmp(&fast, &slow, sizeof fast) == 0);  // the very same bits, -0 included
    return true;
  };
  for (const char* s : {"0", "-0", "-0.0", "12", "0.123456789012345", "27.5301", "0.001", "-1.5",
                        "9007199254740992", "0.0000000000000000000001", "1.797693134862315", "00012.50"})
    CHECK(same(s));
  // Anything else is left to parse_number.
  for (const char* s :
       {"", "-", "+1", "1e3", "1.", ".5", "-.5", " 1", "1 ", "1.2.3", "0x10", "nan", "inf", "1,234",
        "9007199254740993", "12345678901234567890", "1.7976931348623157", "0.00000000000000000000001"}) {
    double v = 0;
    CHECK_FALSE(read_plain_decimal(s, v));
  }
  // Many at random (a fixed seed): up to 19 digits, up to 22 of them decimals.
  std::mt19937_64 rng(20261129);
  int fast = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string s = rng() % 4 == 0 ? "-" : "";
    const int whole = 1 + static_cast<int>(rng() % 10), decimals = static_cast<int>(rng() % 16);
    for (int k = 0; k < whole; ++k) s += static_cast<char>('0' + rng() % 10);
    if (decimals) s += '.';
    for (int k = 0; k < decimals; ++k) s += static_cast<char>('0' + rng() % 10);
    fast += same(s);
  }
  CHECK(fast > 100000);  // most of them take the fast way
  // parse_number reads them the same, whichever way.
  CHECK(campaign::collect::parse_number("0.123456789012345") == 0.123456789012345);
  CHECK(campaign::collect::parse_number("-27.5301") == -27.5301);
}

TEST_CASE("input: numbers, TAU times and previews", "[input]") {
  using campaign::collect::parse_number;
  using campaign::collect::parse_tau_msec;
  CHECK(parse_number("12") == 12);
  CHECK(parse_number(" -1.5e3 ") == -1500);
  CHECK(parse_number("+3") == 3);
  CHECK(std::isnan(parse_number("nan").value()));
  CHECK(std::isinf(parse_number("1e999").value()));
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number("1.2.3"));
  CHECK_FALSE(parse_number("12 %"));
  CHECK_FALSE(parse_number("+-1"));
  CHECK_FALSE(parse_number("0x10"));
  CHECK_FALSE(parse_number("1,234"));
  CHECK(parse_number("1,234", true) == 1234);
  CHECK(parse_number("-1,234,567.5", true) == -1234567.5);
  CHECK_FALSE(parse_number("1,23", true));
  CHECK_FALSE(parse_number("1234,567", true));
  CHECK_FALSE(parse_number(",123", true));
  CHECK(parse_tau_msec("0.038") == Approx(0.038));
  CHECK(parse_tau_msec("1,167") == 1167);
  CHECK(parse_tau_msec("1:10.733") == Approx(70733));
  CHECK(parse_tau_msec("1:27:15.217") == Approx(5235217));
  CHECK_FALSE(parse_tau_msec("1:2:3:4"));
  CHECK_FALSE(parse_tau_msec("1:x"));
  CHECK(campaign::collect::preview(std::string("a\0b\xff", 4)) == "'a\\x00b\\xff'");
  CHECK(campaign::collect::preview(std::string(50, 'x'), 3) == "'xxx...'");
  CHECK(campaign::collect::format_number(3) == "3");
  CHECK(campaign::collect::format_number(0.25) == "0.25");
}

TEST_CASE("input: lines, with CRLF and a cut last line", "[input]") {
  campaign::collect::LineReader lines("a\r\nb\n\nc");
  std::string_view line;
  std::vector<std::string> got;
  while (lines.next(line)) got.emplace_back(line);
  CHECK(got == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(lines.unterminated());
  CHECK(lines.number() == 4);
}

TEST_CASE("input: read_file refuses what is not a small regular file", "[input]") {
  TempDir dir;
  write_file(dir / "f", std::string(1000, 'x'));
  CHECK(campaign::collect::read_file(dir / "f", "f").size() == 1000);
  CHECK_THROWS_WITH(campaign::collect::read_file(dir / "f", "f", 999),
                    "f: too large: 1000 bytes (limit 999)");
  CHECK_THROWS_WITH(campaign::collect::read_file(dir / "nope", "nope"), "nope: no such file");
  CHECK_THROWS_WITH(campaign::collect::read_file("/dev/null", "null"), "null: not a regular file");
}

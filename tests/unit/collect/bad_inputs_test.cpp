// Malformed run outputs, table-driven: every input gives the error or warning
// it should, naming the file - never a crash, a hang or a stray exception.
// Committed inputs are in tests/data/collect/bad/; large, binary and special
// files (10 MB lines, NUL bytes, FIFOs, symlinks) are made here at run time.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <random>

#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;

namespace {

const char* kCsv = R"(
sources:
  - engine: csv
    file: history.csv
    step: epoch
    metrics:
      - {column: time, name: epoch_time, unit: s}
      - loss
      - val_loss
)";

const char* kMllog = R"(
sources:
  - engine: mllog
    file: mlperf.log
    values: [eval_error]
)";

const char* kRegex = R"(
sources:
  - engine: regex
    stdout: true
    patterns:
      - {regex: 'Mean epoch time: (?<t>[0-9.eE+-]+)', name: mean_epoch_time, unit: s}
)";

const char* kJson = R"(
sources:
  - engine: json
    file: config.json
    values: [data.n_train, data.n_valid]
)";

const char* kYaml = R"(
sources:
  - engine: yaml
    file: config.yaml
    values: [data.n_train, data.n_valid]
)";

enum class Expect { error, warning, ok };

using Make = void (*)(const fs::path& target);

struct Case {
  const char* name;
  const char* collector;
  const char* target;  // file in the run dir; "out.txt" is also passed as the job's output
  const char* bad;     // file in tests/data/collect/bad/, or nullptr when `make` builds it
  Make make;
  Expect expect;
  const char* says;              // part of the error or of one warning
  const char* metric = nullptr;  // a metric that must (still) be there
  double metric_step = -1;       // its step, -1 for none
};

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  s[n / 2] = '\0';  // at least one NUL
  return s;
}

const std::string kRow = "0,0.5,0.001,0.4,30.0,0.6,0.45\n";
const std::string kHeader = "epoch,loss,lr,mae,time,val_loss,val_mae\n";
const std::string kRecord =
    ":::MLLOG {\"time_ms\": 1000, \"key\": \"epoch_start\", \"value\": null, \"metadata\": {\"epoch_num\": "
    "0}}\n"
    ":::MLLOG {\"time_ms\": 3000, \"key\": \"epoch_stop\", \"value\": null, \"metadata\": {\"epoch_num\": "
    "0}}\n";

const Case kCases[] = {
    // ---- csv
    {"csv empty file", kCsv, "history.csv", "csv_empty.csv", nullptr, Expect::error,
     "history.csv: empty file"},
    {"csv blank lines only", kCsv, "history.csv", "csv_blank.csv", nullptr, Expect::error, "no header line"},
    {"csv header only", kCsv, "history.csv", "csv_header_only.csv", nullptr, Expect::warning,
     "history.csv: no data rows"},
    {"csv missing column", kCsv, "history.csv", "csv_missing_column.csv", nullptr, Expect::error,
     "history.csv:1: no column 'val_loss' in the header ('epoch', 'loss', 'lr', 'mae', 'time', 'val_mae')"},
    {"csv missing step column", kCsv, "history.csv", "csv_missing_step_column.csv", nullptr, Expect::error,
     "history.csv:1: no column 'epoch'"},
    {"csv misspelt column", kCsv, "history.csv", "csv_typo_column.csv", nullptr, Expect::error,
     "no column 'time' in the header ('epoch', 'loss', 'lr', 'mae', 'tme', 'val_loss', 'val_mae'), did you "
     "mean "
     "'tme'?"},
    {"csv non-numeric cell", kCsv, "history.csv", "csv_non_numeric.csv", nullptr, Expect::error,
     "history.csv:4: column 'loss' (2): 'abc' is not a number"},
    {"csv non-numeric step", kCsv, "history.csv", "csv_non_numeric_step.csv", nullptr, Expect::error,
     "history.csv:3: step column 'epoch': 'x' is not a number"},
    {"csv short row", kCsv, "history.csv", "csv_short_row.csv", nullptr, Expect::error,
     "history.csv:3: row has 3 cells, the header has 7"},
    {"csv long row", kCsv, "history.csv", "csv_long_row.csv", nullptr, Expect::error,
     "history.csv:3: row has 9 cells, the header has 7"},
    {"csv cut mid-row", kCsv, "history.csv", "csv_truncated.csv", nullptr, Expect::warning,
     "history.csv:5: last line has no newline (5 of 7 cells", "loss", 2},
    {"csv NaN cell", kCsv, "history.csv", "csv_nan.csv", nullptr, Expect::warning,
     "history.csv:3: column 'loss': 'nan' skipped", "loss", 2},
    {"csv overflowing number", kCsv, "history.csv", "csv_overflow.csv", nullptr, Expect::warning,
     "history.csv:3: column 'loss': '1e999' skipped", "val_loss", 1},
    {"csv duplicate step", kCsv, "history.csv", "csv_duplicate_step.csv", nullptr, Expect::warning,
     "history.csv:5: step 1 also on line 3; this later row is kept", "loss", 1},
    {"csv duplicate header", kCsv, "history.csv", "csv_duplicate_header.csv", nullptr, Expect::error,
     "history.csv:1: column 'loss' appears twice"},
    {"csv unclosed quote", kCsv, "history.csv", "csv_unclosed_quote.csv", nullptr, Expect::error,
     "history.csv:3: row has 2 cells, the header has 7"},
    {"csv UTF-16", kCsv, "history.csv", "csv_utf16.csv", nullptr, Expect::error,
     "binary data (NUL byte at offset 3)"},
    {"csv binary garbage", kCsv, "history.csv", nullptr,
     [](const fs::path& p) { write_file(p, random_bytes(64 << 10, 1)); }, Expect::error,
     "binary data (NUL byte"},
    {"csv 10 MB line", kCsv, "history.csv", nullptr,
     [](const fs::path& p) { write_file(p, kHeader + kRow + std::string(10 << 20, '7') + "\n"); },
     Expect::error, "history.csv:3: line is 10485760 bytes long (limit 1 MiB)"},
    {"csv 10 MB header", kCsv, "history.csv", nullptr,
     [](const fs::path& p) { write_file(p, std::string(10 << 20, ',') + "\n" + kRow); }, Expect::error,
     "history.csv:1: line is 10485760 bytes long"},
    {"csv missing file", kCsv, "history.csv", nullptr, [](const fs::path&) {}, Expect::error,
     "history.csv: no such file in "},
    {"csv is a directory", kCsv, "history.csv", nullptr, [](const fs::path& p) { fs::create_directories(p); },
     Expect::error, "history.csv: is a directory, not a file"},
    {"csv is a FIFO", kCsv, "history.csv", nullptr,
     [](const fs::path& p) { REQUIRE(::mkfifo(p.c_str(), 0600) == 0); }, Expect::error,
     "history.csv: not a regular file"},
    {"csv dangling symlink", kCsv, "history.csv", nullptr,
     [](const fs::path& p) { fs::create_symlink(p.parent_path() / "gone.csv", p); }, Expect::error,
     "history.csv: dangling symbolic link"},
    // ---- mllog
    {"mllog empty file", kMllog, "mlperf.log", "mllog_empty.log", nullptr, Expect::error,
     "mlperf.log: no :::MLLOG records"},
    {"mllog no records", kMllog, "mlperf.log", "mllog_no_records.log", nullptr, Expect::error,
     "mlperf.log: no :::MLLOG records"},
    {"mllog bad JSON", kMllog, "mlperf.log", "mllog_bad_json.log", nullptr, Expect::warning,
     "mlperf.log:7: malformed :::MLLOG record (", "epoch_time", 2},
    {"mllog cut mid-line", kMllog, "mlperf.log", "mllog_truncated.log", nullptr, Expect::warning,
     "mlperf.log:9: truncated: the last record is cut mid-line", "epoch_time", 1},
    {"mllog epoch_stop without start", kMllog, "mlperf.log", "mllog_stop_without_start.log", nullptr,
     Expect::warning, "mlperf.log:7: epoch_stop for epoch 7 without epoch_start", "epoch_time", 1},
    {"mllog epoch never stopped", kMllog, "mlperf.log", "mllog_start_without_stop.log", nullptr,
     Expect::warning, "mlperf.log:10: epoch 2 was never stopped", "epoch_time", 1},
    {"mllog duplicate epoch", kMllog, "mlperf.log", "mllog_duplicate_epoch.log", nullptr, Expect::warning,
     "mlperf.log:11: epoch 1 measured twice; the later one is kept", "epoch_time", 1},
    {"mllog epoch started twice", kMllog, "mlperf.log", "mllog_double_start.log", nullptr, Expect::warning,
     "mlperf.log:5: epoch 0 started again (earlier start on line 4 never stopped)", "epoch_time", 0},
    {"mllog negative duration", kMllog, "mlperf.log", "mllog_negative_duration.log", nullptr, Expect::warning,
     "mlperf.log:8: epoch 1 stops before it starts (line 7)", "epoch_time", 2},
    {"mllog record without key", kMllog, "mlperf.log", "mllog_no_key.log", nullptr, Expect::warning,
     "mlperf.log:7: :::MLLOG record has no \"key\"", "epoch_time", 1},
    {"mllog record without time", kMllog, "mlperf.log", "mllog_no_time.log", nullptr, Expect::warning,
     "mlperf.log:7: 'epoch_start' has no numeric time_ms", "epoch_time", 2},
    {"mllog value not a number", kMllog, "mlperf.log", "mllog_value_not_number.log", nullptr, Expect::warning,
     "mlperf.log:7: value of 'eval_error' is not a number ('\"abc\"')", "eval_error", 2},
    {"mllog record not an object", kMllog, "mlperf.log", "mllog_not_object.log", nullptr, Expect::warning,
     "mlperf.log:4: :::MLLOG record is not a JSON object", "epoch_time", 0},
    {"mllog only broken records", kMllog, "mlperf.log", "mllog_only_garbage_records.log", nullptr,
     Expect::warning, "mlperf.log: no epoch_start/epoch_stop records"},
    {"mllog run never stopped", kMllog, "mlperf.log", "mllog_no_run_stop.log", nullptr, Expect::warning,
     "mlperf.log:1: run was never stopped", "epoch_time", 1},
    {"mllog binary garbage", kMllog, "mlperf.log", nullptr,
     [](const fs::path& p) { write_file(p, random_bytes(256 << 10, 2)); }, Expect::error,
     "no :::MLLOG records"},
    {"mllog binary garbage around records", kMllog, "mlperf.log", nullptr,
     [](const fs::path& p) { write_file(p, random_bytes(4096, 3) + "\n" + kRecord + random_bytes(4096, 4)); },
     Expect::ok, nullptr, "epoch_time", 0},
    {"mllog 10 MB record", kMllog, "mlperf.log", nullptr,
     [](const fs::path& p) {
       write_file(p, ":::MLLOG {\"key\": \"" + std::string(10 << 20, 'k') + "\"}\n" + kRecord);
     },
     Expect::warning, "mlperf.log:1: record is 10485780 bytes long; ignored", "epoch_time", 0},
    {"mllog deeply nested JSON", kMllog, "mlperf.log", nullptr,
     [](const fs::path& p) {
       write_file(p, ":::MLLOG " + std::string(500000, '[') + std::string(500000, ']') + "\n" + kRecord);
     },
     Expect::warning, "mlperf.log:1: :::MLLOG record is not a JSON object", "epoch_time", 0},
    // ---- regex over the job's output
    {"regex pattern never matches", kRegex, "out.txt", "regex_no_match.txt", nullptr, Expect::warning,
     "out.txt: pattern 'Mean epoch time: (?<t>[0-9.eE+-]+)' matched no line"},
    {"regex capture not a number", kRegex, "out.txt", "regex_not_number.txt", nullptr, Expect::warning,
     "out.txt:1: capture 't' '1.2.3' is not a number"},
    {"regex 10 MB line", kRegex, "out.txt", nullptr,
     [](const fs::path& p) { write_file(p, std::string(10 << 20, 'M') + "\nMean epoch time: 2.5\n"); },
     Expect::warning, "out.txt:1: 1 line(s) longer than 64 KiB skipped", "mean_epoch_time", -1},
    {"regex binary output", kRegex, "out.txt", nullptr,
     [](const fs::path& p) { write_file(p, random_bytes(1 << 20, 5) + "\nMean epoch time: 2.5\n"); },
     Expect::ok, nullptr, "mean_epoch_time", -1},
    {"regex missing job output", kRegex, "out.txt", nullptr, [](const fs::path&) {}, Expect::error,
     "out.txt: no such file"},
    // ---- json / yaml
    {"json malformed", kJson, "config.json", "json_malformed.json", nullptr, Expect::error,
     "config.json:6:1: malformed JSON: syntax error while parsing object key"},
    {"json misspelt key", kJson, "config.json", "json_missing_key.json", nullptr, Expect::error,
     "config.json: data.n_train: no key 'n_train' in 'data', did you mean 'n_trian'?"},
    {"json string value", kJson, "config.json", "json_string_value.json", nullptr, Expect::error,
     "config.json: data.n_train is the string '1024', not a number"},
    {"json null value", kJson, "config.json", "json_null_value.json", nullptr, Expect::error,
     "config.json: data.n_train is null, not a number"},
    {"json empty", kJson, "config.json", "json_empty.json", nullptr, Expect::error,
     "config.json: empty file"},
    {"json not an object", kJson, "config.json", "json_not_object.json", nullptr, Expect::error,
     "config.json: data.n_train: the document is a array, it has no 'data'"},
    {"json list of strings", kJson, "config.json", "json_array_of_strings.json", nullptr, Expect::error,
     "config.json: data.n_train[0] is the string 'a', not a number"},
    {"json binary", kJson, "config.json", nullptr,
     [](const fs::path& p) { write_file(p, random_bytes(1000, 6)); }, Expect::error,
     "config.json: binary data"},
    {"json deeply nested", kJson, "config.json", nullptr,
     [](const fs::path& p) { write_file(p, std::string(1000000, '[') + std::string(1000000, ']')); },
     Expect::error, "the document is a array"},
    {"yaml malformed", kYaml, "config.yaml", "yaml_malformed.yaml", nullptr, Expect::error,
     "config.yaml:4:1: malformed YAML: end of sequence flow not found"},
    {"yaml quoted number", kYaml, "config.yaml", "yaml_quoted_number.yaml", nullptr, Expect::error,
     "config.yaml:2:12: data.n_train is the string '1024', not a number"},
    {"yaml misspelt key", kYaml, "config.yaml", "yaml_missing_key.yaml", nullptr, Expect::error,
     "no key 'n_train' in 'data', did you mean 'n_trian'?"},
    {"yaml scalar document", kYaml, "config.yaml", "yaml_scalar_root.yaml", nullptr, Expect::error,
     "data.n_train: the document is the string 'just a string', it has no 'data'"},
    {"yaml deeply nested", kYaml, "config.yaml", nullptr,
     [](const fs::path& p) { write_file(p, std::string(100000, '[')); }, Expect::error,
     "malformed YAML: nested deeper than"},
};

}  // namespace

TEST_CASE("bad inputs: each gives its error or warning, never a crash", "[bad]") {
  size_t errors = 0, warnings = 0;
  for (const Case& c : kCases) {
    SECTION(c.name) {
      TempDir run;
      const fs::path target = run / c.target;
      if (c.bad)
        fs::copy_file(data(std::string("bad/") + c.bad), target);
      else
        c.make(target);
      CollectResult r;
      bool threw = false;
      std::string error;
      try {
        r = collect({collector(c.collector)}, run.path(), "out.txt");
      } catch (const CollectError& e) {
        threw = true;
        error = e.what();
        // Errors start with the file they are about.
        CHECK(error.rfind(c.target, 0) == 0);
      }
      INFO("error: " << error);
      INFO("warnings:\n" << all_warnings(r));
      switch (c.expect) {
        case Expect::error:
          REQUIRE(threw);
          CHECK_THAT(error, Catch::Matchers::Contains(c.says));
          ++errors;
          break;
        case Expect::warning:
          REQUIRE_FALSE(threw);
          CHECK(has_warning(r, c.says));
          ++warnings;
          break;
        case Expect::ok:
          REQUIRE_FALSE(threw);
          break;
      }
      if (c.metric)
        CHECK(value(r, c.metric, c.metric_step < 0 ? std::nullopt : std::optional<double>(c.metric_step)));
      for (const auto& w : r.warnings) CHECK(w.rfind(c.target, 0) == 0);
    }
  }
  (void)errors, (void)warnings;
}

TEST_CASE("bad inputs: the table is as large as promised", "[bad]") {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(data("bad"))) files += entry.is_regular_file();
  size_t committed_used = 0;
  for (const Case& c : kCases) committed_used += c.bad != nullptr;
  CHECK(std::size(kCases) >= 40);
  CHECK(committed_used == files);  // every committed bad input is in the table
}

TEST_CASE("bad inputs: an unreadable file", "[bad]") {
  TempDir run;
  write_file(run / "history.csv", kHeader + kRow);
  fs::permissions(run / "history.csv", fs::perms::none);
  if (::geteuid() == 0) {
    // root reads it regardless of its mode; the collector must then just work.
    auto r = collect({collector(kCsv)}, run.path());
    CHECK(value(r, "loss", 0.0) == 0.5);
  } else {
    CHECK_THROWS_WITH(collect({collector(kCsv)}, run.path()), "history.csv: permission denied");
  }
}

TEST_CASE("bad inputs: problems of optional sources are warnings, a missing optional file is silent",
          "[bad]") {
  TempDir run;
  fs::copy_file(data("bad/csv_non_numeric.csv"), run / "history.csv");
  auto c = collector(R"(
sources:
  - {engine: csv, file: history.csv, required: false, step: epoch, metrics: [loss]}
  - {engine: csv, file: absent.csv, required: false, metrics: [loss]}
  - {engine: regex, stdout: true, required: false, patterns: [{regex: 'x(\d)', name: x}]}
)");
  auto r = collect({c}, run.path());
  CHECK(r.metrics.empty());  // rows before the bad one are not kept: a source is all or nothing
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "history.csv:4: column 'loss' (2): 'abc' is not a number (optional source skipped)");
}

TEST_CASE("bad inputs: a flood of bad lines gives a capped list of warnings", "[bad]") {
  TempDir run;
  std::string log;
  for (int i = 0; i < 1000; ++i) log += ":::MLLOG {broken\n";
  write_file(run / "mlperf.log", log + kRecord);
  auto r = collect({collector(kMllog)}, run.path());
  CHECK(value(r, "epoch_time", 0.0) == 2);
  // 20 line warnings, the count of the others, and the file-level ones (never hidden).
  CHECK(r.warnings.size() == 20 + 1 + 3);
  CHECK(has_warning(r, "mlperf.log: 980 more warnings not shown"));
  CHECK(has_warning(r, "mlperf.log: no run_start/run_stop records"));
}

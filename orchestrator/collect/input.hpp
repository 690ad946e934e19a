// Shared plumbing of the collector engines: reading a run directory's files,
// walking lines, reading numbers, and the capped list of warnings.
//
// Invariant: nothing here trusts the data. Files are read whole but only
// regular files under a size limit (a FIFO or device never blocks us), lines
// may hold any bytes, and number parsing never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collect.hpp"

namespace campaign::collect {

inline constexpr size_t kMaxFileBytes = size_t{1} << 30;  // 1 GiB: beyond that a "log" is not one

// The whole content of a regular file. `display` names it in errors.
// Throws CollectError: missing, dangling symlink, not a regular file,
// permission denied, larger than `limit`.
std::string read_file(const std::filesystem::path& path, const std::string& display,
                      size_t limit = kMaxFileBytes);

// Regular files matching `pattern` (a relative path whose components may use
// * ? [..] as in the shell; no **), as paths relative to `dir`, sorted.
// A pattern without wildcards is returned as is without touching the disk:
// read_file() will say what is wrong with it.
std::vector<std::string> glob(const std::filesystem::path& dir, std::string_view pattern);
bool has_wildcards(std::string_view pattern);

// Iterates over the lines of a text; strips "\n" and a "\r" before it.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  // The next line and its 1-based number; false at the end.
  bool next(std::string_view& line);
  size_t number() const { return number_; }
  // Whether the line last returned had no "\n" after it (a file cut mid-line).
  bool unterminated() const { return unterminated_; }
  bool at_end() const { return pos_ >= text_.size(); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t number_ = 0;
  bool unterminated_ = false;
};

// Strict parse of a whole (space-trimmed) string: "12", "-1.5e3", "+3", "nan",
// "inf". With `grouping`, "1,234,567.5" is read too. nullopt if anything else.
std::optional<double> parse_number(std::string_view s, bool grouping = false);
// The commonest number of a data file, -?DIGITS(.DIGITS)?, read to the same double as
// parse_number (from_chars) reads it, faster: with a mantissa of at most 2^53 and at most 22
// decimals the value is one division of two exact doubles, rounded once. false for anything else
// (a sign '+', an exponent, more digits, a space), which is then parse_number's to read.
inline bool read_plain_decimal(std::string_view s, double& out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = s.data();
  const char* const end = p + s.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  std::uint64_t m = 0;
  int digits = 0;
  const char* const first = p;
  for (; p != end && static_cast<unsigned>(*p - '0') < 10; ++p) {
    m = m * 10 + static_cast<unsigned>(*p - '0');
    digits += m != 0;  // leading zeros do not count
  }
  if (p == first) return false;
  long decimals = 0;
  if (p != end) {
    if (*p != '.') return false;
    const char* const point = ++p;
    for (; p != end && static_cast<unsigned>(*p - '0') < 10; ++p) {
      m = m * 10 + static_cast<unsigned>(*p - '0');
      digits += m != 0;
    }
    decimals = p - point;
    if (decimals == 0 || p != end) return false;
  }
  if (digits > 19 || m > (std::uint64_t{1} << 53) || decimals > 22) return false;
  double v = static_cast<double>(m);
  if (decimals) v /= kPow10[decimals];
  out = negative ? -v : v;
  return true;
}

// parse_number(s) times `scale`. A power of ten (1e6, 1e-3) moves the decimal point of the text
// instead, so the product is the decimal value rounded once, by construction: "1700000001.123456"
// x 1e6 reads as exactly 1700000001123456 (whole microseconds), never through the double of the
// seconds (0.24 us apart at today's dates), whose product with 1e6 lands on the integer only while
// that rounding error stays below half the product's spacing.
std::optional<double> parse_scaled(std::string_view s, double scale);
// A TAU pprof time in msec: "0.038", "1,167", "1:10.733" (m:s), "1:27:15.217" (h:m:s).
std::optional<double> parse_tau_msec(std::string_view s);

// Splits a CSV `line` into `cells` at `delim`, honouring double quotes ("a,b" is one cell without
// its quotes; a doubled quote inside stays doubled). The cells point into `line`.
void split_cells(std::string_view line, char delim, std::vector<std::string_view>& cells);

std::string_view trim_view(std::string_view s);
// `s` quoted for a message: at most `max` bytes, non-printable bytes as \xNN.
std::string preview(std::string_view s, size_t max = 40);
// "3" for integral values, else the shortest round-tripping form.
std::string format_number(double v);

// Warnings of one source, capped so a garbage file cannot flood the event log.
class Warnings {
 public:
  explicit Warnings(std::vector<std::string>& out, size_t limit = 20) : out_(out), limit_(limit) {}
  Warnings(const Warnings&) = delete;
  Warnings& operator=(const Warnings&) = delete;

  // "file:line: message"; line 0 for the file as a whole (capped apart from the others).
  void add(std::string_view file, size_t line, std::string_view message);
  // Appends "N more warnings" if some were dropped; call once at the end.
  void finish();

 private:
  std::vector<std::string>& out_;
  size_t limit_;
  size_t lines_ = 0;  // warnings with a line number so far
  size_t files_ = 0;  // and without
  std::string last_file_;
};

// The text of one file handed to an engine.
struct Input {
  std::string name;  // as shown in messages: relative to the run directory
  std::string_view text;
  std::string wildcard{};  // what the source's glob wildcards matched in `name` (csv's {*})
};

// What the wildcards of `pattern` matched in `path`, one of its matches: the
// text between the pattern's literal head and tail ("rank*.csv", "rank3.csv"
// -> "3"); "" when the pattern has none.
std::string wildcard_text(std::string_view pattern, std::string_view path);

// Where an engine puts what it found.
struct Output {
  std::vector<Metric>& metrics;
  Warnings& warnings;
  bool required = true;  // whether a pattern or event that never occurs deserves a warning
};

}  // namespace campaign::collect

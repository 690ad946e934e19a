// File access and text helpers for the collector engines (see input.hpp).
#include "collect/input.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/fd.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& display, std::string reason) {
  throw CollectError(Location{display, 0, 0}, std::move(reason));
}

}  // namespace

std::string read_file(const fs::path& path, const std::string& display, size_t limit) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang the collector.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    int err = errno;
    struct stat st;
    if (err == ENOENT && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      fail(display, "dangling symbolic link");
    if (err == ENOENT) fail(display, "no such file");
    if (err == EACCES) fail(display, "permission denied");
    fail(display, std::string("cannot open: ") + std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) fail(display, std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(display, "is a directory, not a file");
  if (!S_ISREG(st.st_mode)) fail(display, "not a regular file");
  auto size = static_cast<size_t>(st.st_size);
  if (size > limit)
    fail(display, "too large: " + std::to_string(size) + " bytes (limit " + std::to_string(limit) + ")");

  // A job may still append while we read: take what fstat saw, no more.
  std::string data(size, '\0');
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd.get(), data.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(display, std::string("read error: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  data.resize(got);
  return data;
}

bool has_wildcards(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

std::string wildcard_text(std::string_view pattern, std::string_view path) {
  size_t first = pattern.find_first_of("*?[");
  if (first == std::string_view::npos) return "";
  size_t tail = pattern.size() - pattern.find_last_of("*?]") - 1;
  if (first + tail > path.size()) return std::string(path);  // a pattern glob() normalised ("./x*")
  return std::string(path.substr(first, path.size() - first - tail));
}

std::vector<std::string> glob(const fs::path& dir, std::string_view pattern) {
  if (!has_wildcards(pattern)) return {std::string(pattern)};
  std::vector<std::string> parts;
  for (auto& p : split(pattern, '/'))
    if (!p.empty() && p != ".") parts.push_back(p);

  std::vector<std::string> current{""};
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    bool last = i + 1 == parts.size();
    std::vector<std::string> next;
    for (const auto& prefix : current) {
      auto join = [&](const std::string& name) { return prefix.empty() ? name : prefix + '/' + name; };
      std::error_code ec;
      if (!has_wildcards(part)) {
        fs::path p = dir / join(part);
        if (last ? fs::is_regular_file(p, ec) : fs::is_directory(p, ec)) next.push_back(join(part));
        continue;
      }
      for (fs::directory_iterator it(dir / prefix, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        // FNM_PERIOD: like the shell, '*' does not match hidden files such as .exit.
        if (::fnmatch(part.c_str(), name.c_str(), FNM_PERIOD) != 0) continue;
        std::error_code ec2;
        if (last ? it->is_regular_file(ec2) : it->is_directory(ec2)) next.push_back(join(name));
      }
    }
    current = std::move(next);
  }
  std::sort(current.begin(), current.end());
  return current;
}

bool LineReader::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  const char* begin = text_.data() + pos_;
  const void* nl = std::memchr(begin, '\n', text_.size() - pos_);
  size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - text_.data()) : text_.size();
  line = text_.substr(pos_, end - pos_);
  unterminated_ = nl == nullptr;
  pos_ = nl ? end + 1 : text_.size();
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++number_;
  return true;
}

std::string_view trim_view(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

namespace {

std::optional<double> parse_plain(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s[0] == '+') {
    s.remove_prefix(1);
    if (s.empty() || s[0] == '+' || s[0] == '-') return std::nullopt;
  }
  double v = 0;
  if (read_plain_decimal(s, v)) return v;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (p != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc()) return v;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves v alone; strtod says whether it over- or underflowed.
    std::string copy(s);
    return std::strtod(copy.c_str(), nullptr);
  }
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "1,234,567.5" -> "1234567.5" if the commas group digits by three, else "".
std::string ungroup(std::string_view s) {
  std::string out;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) out += s[i++];
  size_t lead = 0;
  while (i < s.size() && is_digit(s[i])) out += s[i++], ++lead;
  if (lead == 0 || lead > 3) return {};
  bool grouped = false;
  while (i < s.size() && s[i] == ',') {
    if (i + 4 > s.size() || !is_digit(s[i + 1]) || !is_digit(s[i + 2]) || !is_digit(s[i + 3])) return {};
    if (i + 4 < s.size() && is_digit(s[i + 4])) return {};
    out.append(s.substr(i + 1, 3));
    i += 4;
    grouped = true;
  }
  if (!grouped) return {};
  out.append(s.substr(i));
  return out;
}

}  // namespace

std::optional<double> parse_number(std::string_view s, bool grouping) {
  s = trim_view(s);
  if (auto v = parse_plain(s)) return v;
  if (grouping && s.find(',') != std::string_view::npos) {
    std::string plain = ungroup(s);
    if (!plain.empty() && plain.find(',') == std::string::npos) return parse_plain(plain);
  }
  return std::nullopt;
}

std::optional<double> parse_scaled(std::string_view s, double scale) {
  auto v = parse_number(s);
  if (!v || !std::isfinite(*v) || scale == 1) return v ? std::optional<double>(*v * scale) : v;
  int k = -19;
  for (int e = -18; e <= 18 && k == -19; ++e) {
    const std::string p = "1e" + std::to_string(e);
    if (parse_plain(p) == scale) k = e;
  }
  if (k == -19) return *v * scale;
  std::string text(trim_view(s));
  const size_t exp = text.find_first_of("eE");
  long e = k;
  if (exp != std::string::npos) {
    auto given = parse_plain(std::string_view(text).substr(exp + 1));
    if (!given) return *v * scale;
    e += std::lround(*given);
    text.resize(exp);
  }
  auto exact = parse_plain(text + "e" + std::to_string(e));
  return exact ? exact : std::optional<double>(*v * scale);
}

std::optional<double> parse_tau_msec(std::string_view s) {
  s = trim_view(s);
  if (s.find(':') == std::string_view::npos) return parse_number(s, true);
  auto parts = split(s, ':');
  if (parts.size() > 3) return std::nullopt;
  double total_s = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    bool seconds = i + 1 == parts.size();
    const std::string& p = parts[i];
    if (p.empty() ||
        !std::all_of(p.begin(), p.end(), [&](char c) { return is_digit(c) || (seconds && c == '.'); }))
      return std::nullopt;
    auto v = parse_plain(p);
    if (!v) return std::nullopt;
    total_s = total_s * 60 + *v;
  }
  return total_s * 1000;
}

std::string preview(std::string_view s, size_t max) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out + "'";
}

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, p) : std::string("?");
}

void Warnings::add(std::string_view file, size_t line, std::string_view message) {
  // Warnings about the file as a whole are few and say the most: a flood of
  // line warnings must not hide them, so each kind has its own cap.
  size_t& n = line > 0 ? lines_ : files_;
  if (++n > limit_) {
    if (last_file_ != file) last_file_ = file;
    return;
  }
  std::string s(file);
  if (line > 0) s += ':' + std::to_string(line);
  s += ": ";
  s += message;
  out_.push_back(std::move(s));
  if (last_file_ != file) last_file_ = file;
}

void Warnings::finish() {
  size_t hidden = (lines_ > limit_ ? lines_ - limit_ : 0) + (files_ > limit_ ? files_ - limit_ : 0);
  if (hidden) out_.push_back(last_file_ + ": " + std::to_string(hidden) + " more warnings not shown");
  lines_ = files_ = 0;
}

void split_cells(std::string_view line, char delim, std::vector<std::string_view>& cells) {
  cells.clear();
  const size_t n = line.size();
  if (line.find('"') == std::string_view::npos) {
    size_t start = 0;
    for (;;) {
      const void* p = std::memchr(line.data() + start, delim, n - start);
      if (!p) {
        cells.push_back(line.substr(start));
        return;
      }
      size_t pos = static_cast<size_t>(static_cast<const char*>(p) - line.data());
      cells.push_back(line.substr(start, pos - start));
      start = pos + 1;
    }
  }
  size_t i = 0;
  for (;;) {
    size_t b = i;
    while (b < n && (line[b] == ' ' || line[b] == '\t') && line[b] != delim) ++b;
    if (b < n && line[b] == '"') {
      size_t j = b + 1;
      while (j < n && !(line[j] == '"' && !(j + 1 < n && line[j + 1] == '"'))) j += line[j] == '"' ? 2 : 1;
      cells.push_back(line.substr(b + 1, std::min(j, n) - b - 1));
      size_t k = line.find(delim, std::min(j + 1, n));
      if (k == std::string_view::npos) return;
      i = k + 1;
    } else {
      size_t k = line.find(delim, i);
      if (k == std::string_view::npos) {
        cells.push_back(line.substr(i));
        return;
      }
      cells.push_back(line.substr(i, k - i));
      i = k + 1;
    }
  }
}

}  // namespace campaign::collect

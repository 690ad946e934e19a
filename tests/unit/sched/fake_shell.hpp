// A scripted Shell for scheduler tests, in the spirit of ninja's FakeCommandRunner: it answers each
// command from rules keyed by a command prefix and records every call, so a test can assert the
// exact argv a scheduler sent and how many commands one call cost.
//
// Invariants: nothing runs; a command no rule matches throws std::logic_error (not a campaign error,
// so no scheduler code can swallow it and the test fails loudly); files live in `files`.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/shell.hpp"

namespace campaign::testing {

using transport::CommandResult;

inline CommandResult ok(std::string out, std::string err = {}) { return {0, std::move(out), std::move(err)}; }
inline CommandResult failed(int exit_code, std::string err, std::string out = {}) {
  return {exit_code, std::move(out), std::move(err)};
}
inline CommandResult timed_out() { return {137, "", "", true}; }

// A file under tests/data, whole.
inline std::string data_file(const std::string& relative) {
  std::ifstream f(std::string(TEST_DATA_DIR) + "/" + relative, std::ios::binary);
  if (!f) throw std::runtime_error("missing test data: " + relative);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// "2016-02-16T12:16:33" read as local time, as the parsers read scheduler times; for expected values.
inline std::chrono::sys_seconds local(const char* iso) {
  std::tm tm{};
  if (std::sscanf(iso, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec) != 6)
    throw std::logic_error(std::string("bad time in test: ") + iso);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  return std::chrono::sys_seconds(std::chrono::seconds(std::mktime(&tm)));
}

// A command recorded as tests/data/<base>.txt (stdout), <base>.stderr and <base>.exit (both only
// when not empty / not 0), the layout of tests/data/slurm/22.05.
inline CommandResult recorded(const std::string& base) {
  auto optional_file = [](const std::string& relative) {
    std::ifstream f(std::string(TEST_DATA_DIR) + "/" + relative, std::ios::binary);
    std::ostringstream s;
    if (f) s << f.rdbuf();
    return s.str();
  };
  CommandResult r{0, data_file(base + ".txt"), optional_file(base + ".stderr")};
  std::string code = optional_file(base + ".exit");
  if (!code.empty()) r.exit_code = std::stoi(code);
  return r;
}

class FakeShell : public transport::Shell {
 public:
  struct Call {
    std::vector<std::string> argv;
    std::string stdin_data;
    std::chrono::milliseconds timeout{0};
  };
  using Responder = std::function<CommandResult(const std::vector<std::string>&)>;

  // The words the program sees: argv without leading `env VAR=value` words, and without the
  // wrapper that records a submission's outcome (sched/command.hpp, recorded()).
  static std::vector<std::string> program_argv(const std::vector<std::string>& argv) {
    size_t i = 0;
    if (argv.size() > 6 && argv[0] == "sh" && argv[3] == "campaign-submit") i = 6;
    if (i < argv.size() && argv[i] == "env") {
      ++i;
      while (i < argv.size() && argv[i].find('=') != std::string::npos) ++i;
    }
    return {argv.begin() + static_cast<long>(i), argv.end()};
  }
  static std::string joined(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
  }

  // Answers commands whose program_argv, joined by spaces, starts with `prefix`; the longest
  // matching prefix wins. A list of results is returned in turn, its last one repeating.
  FakeShell& on(const std::string& prefix, std::vector<CommandResult> results) {
    auto queue = std::make_shared<std::vector<CommandResult>>(std::move(results));
    auto next = std::make_shared<size_t>(0);
    return on(prefix, Responder([queue, next](const std::vector<std::string>&) {
                size_t i = std::min(*next, queue->size() - 1);
                ++*next;
                return (*queue)[i];
              }));
  }
  FakeShell& on(const std::string& prefix, CommandResult result) {
    return on(prefix, std::vector<CommandResult>{std::move(result)});
  }
  FakeShell& on(const std::string& prefix, Responder responder) {
    rules_[prefix] = std::move(responder);
    return *this;
  }

  CommandResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                    const std::string& stdin_data) override {
    calls.push_back({argv, stdin_data, timeout});
    std::string line = joined(program_argv(argv));
    const Responder* best = nullptr;
    size_t best_len = 0;
    for (const auto& [prefix, responder] : rules_) {
      if (line.compare(0, prefix.size(), prefix) == 0 && (best == nullptr || prefix.size() > best_len)) {
        best = &responder;
        best_len = prefix.size();
      }
    }
    if (best == nullptr) throw std::logic_error("FakeShell: no rule for command: " + joined(argv));
    return (*best)(argv);
  }

  void put(const std::filesystem::path& local, const std::string& remote) override {
    std::ifstream f(local, std::ios::binary);
    if (!f) throw transport::TransportError("FakeShell: cannot read " + local.string());
    std::ostringstream s;
    s << f.rdbuf();
    files[remote] = s.str();
  }
  void get(const std::string& remote, const std::filesystem::path& local) override {
    auto it = files.find(remote);
    if (it == files.end()) throw transport::TransportError("FakeShell: no file " + remote);
    std::ofstream(local, std::ios::binary) << it->second;
  }
  bool exists(const std::string& path) override { return files.count(path) > 0; }
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes) override {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second.substr(0, max_bytes);
  }
  std::string describe() const override { return "fake"; }

  // Calls whose program (argv[0] after `env VAR=value` words) is `program`.
  std::vector<Call> calls_to(const std::string& program) const {
    std::vector<Call> out;
    for (const auto& c : calls) {
      auto p = program_argv(c.argv);
      if (!p.empty() && p[0] == program) out.push_back(c);
    }
    return out;
  }
  size_t count(const std::string& program) const { return calls_to(program).size(); }

  std::vector<Call> calls;
  std::map<std::string, std::string> files;

 private:
  std::map<std::string, Responder> rules_;
};

}  // namespace campaign::testing

// Scheduler times print as local ISO times in failed checks.
template <>
struct Catch::StringMaker<std::optional<std::chrono::sys_seconds>> {
  static std::string convert(const std::optional<std::chrono::sys_seconds>& t) {
    if (!t) return "(none)";
    std::time_t s = t->time_since_epoch().count();
    std::tm tm{};
    localtime_r(&s, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
  }
};

// Shared pieces of the local executor tests: a scratch directory, job scripts shaped like
// templates/local.sh.mustache renders them, and polling with a deadline (never a fixed sleep that
// a slow machine could outrun).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "../temp_dir.hpp"
#include "local/local_scheduler.hpp"

namespace local_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct TempDir : campaign_test::TempDir {
  explicit TempDir(const std::string& tag) : campaign_test::TempDir("local-" + tag) {}
};

inline std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// <root>/<name>/job.sh: the rendered template's preamble (cd, exit marker trap, TERM trap), then
// `body`. Returns the script path.
inline fs::path make_job(const fs::path& root, const std::string& name, const std::string& body) {
  fs::path dir = root / name;
  fs::create_directories(dir);
  fs::path script = dir / "job.sh";
  write(script,
        "#!/bin/bash\n"
        "cd " +
            dir.string() +
            " || exit 1\n"
            "rm -f .exit\n"
            "trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT\n"
            "trap 'exit 143' TERM\n\n" +
            body + "\n");
  return script;
}

inline campaign::sched::SubmitRequest request(const fs::path& script, const std::string& name,
                                              std::vector<std::string> deps = {},
                                              std::vector<std::string> extra = {}) {
  campaign::sched::SubmitRequest r;
  r.script_path = script.string();
  r.job_name = name;
  r.depends_on = std::move(deps);
  r.extra_args = std::move(extra);
  return r;
}

// Polls `pred` every 20 ms until it holds or `limit` passes; returns whether it held.
inline bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds limit = 10s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

inline campaign::sched::JobInfo info(campaign::sched::Scheduler& s, const std::string& id) {
  auto r = s.query({id});
  REQUIRE(r.size() == 1);
  return r[0];
}

// Polls until the job has ended and returns its final info.
inline campaign::sched::JobInfo wait_end(campaign::sched::Scheduler& s, const std::string& id,
                                         std::chrono::milliseconds limit = 10s) {
  campaign::sched::JobInfo last;
  bool ended = eventually(
      [&] {
        last = info(s, id);
        return campaign::is_final(last.state);
      },
      limit);
  INFO("job " << id << " still " << campaign::to_string(last.state));
  REQUIRE(ended);
  return last;
}

// Runs `fn` in a forked child with stdout and stderr going to `output`; returns its exit status
// (128+N for signal N) and, if given, lets `parent` act on the child's pid meanwhile.
inline int in_child(const std::function<int()>& fn, const fs::path& output,
                    const std::function<void(pid_t)>& parent = {}) {
  std::cout.flush();
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::fopen(output.c_str(), "w");
    if (f == nullptr) _exit(99);
    ::dup2(::fileno(f), 1);
    ::dup2(::fileno(f), 2);
    int rc = 99;
    try {
      rc = fn();
    } catch (...) {
    }
    _exit(rc);
  }
  if (parent) parent(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace local_test

#include "cli/backend.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>

#include "local/local_scheduler.hpp"
#include "transport/local_shell.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

Backend make_backend(const spec::System& system, const fs::path& workdir) {
  Backend b;
  if (system.ssh)
    throw Error("system " + system.name + " is reached over ssh, which this build cannot do yet");
  b.shell = std::make_unique<transport::LocalShell>();
  if (system.scheduler == "local") {
    local::LocalOptions o;
    o.spool = workdir / ".local";
    b.scheduler = std::make_unique<local::LocalScheduler>(o);
  } else {
    sched::SchedulerOptions o;
    b.scheduler = sched::make_scheduler(system.scheduler, *b.shell, o);
  }
  return b;
}

namespace {

// The progress line on a terminal: what it shows, so a log message on stderr
// can clear it first and draw it again after (else the message would be
// glued to the end of the line, and the line lost until the next change).
struct ProgressLine {
  std::mutex mutex;
  std::string text;
  bool shown = false;
};
ProgressLine& progress_line() {
  static ProgressLine line;
  return line;
}

class ProgressAwareSink final : public spdlog::sinks::sink {
 public:
  explicit ProgressAwareSink(std::shared_ptr<spdlog::sinks::sink> inner) : inner_(std::move(inner)) {}
  void log(const spdlog::details::log_msg& msg) override {
    ProgressLine& p = progress_line();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.shown) std::fputs("\r\033[K", stdout), std::fflush(stdout);
    inner_->log(msg);
    inner_->flush();
    if (p.shown) std::fputs(p.text.c_str(), stdout), std::fflush(stdout);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> f) override { inner_->set_formatter(std::move(f)); }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};

}  // namespace

void setup_logging(const fs::path& workdir, Verbosity v) {
  fs::create_directories(workdir);
  auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>((workdir / "campaign.log").string());
  file->set_level(spdlog::level::debug);
  auto err = std::make_shared<ProgressAwareSink>(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  err->set_level(v == Verbosity::verbose
                     ? spdlog::level::info
                     : (v == Verbosity::quiet ? spdlog::level::err : spdlog::level::warn));
  err->set_pattern("campaign: %^%l%$: %v");
  auto logger = std::make_shared<spdlog::logger>("campaign", spdlog::sinks_init_list{file, err});
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

std::function<void(const std::string&, bool)> progress_printer(Verbosity v) {
  if (v == Verbosity::quiet) return {};
  bool tty = isatty(STDOUT_FILENO);
  return [tty](const std::string& line, bool final) {
    if (tty) {
      ProgressLine& p = progress_line();
      std::lock_guard<std::mutex> lock(p.mutex);
      std::printf("\r\033[K%s%s", line.c_str(), final ? "\n" : "");
      p.text = line;
      p.shown = !final;
    } else {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  };
}

}  // namespace campaign::cli

#include "cli/backend.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

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

void setup_logging(const fs::path& workdir, Verbosity v) {
  fs::create_directories(workdir);
  auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>((workdir / "campaign.log").string());
  file->set_level(spdlog::level::debug);
  auto err = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
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
      std::printf("\r\033[K%s%s", line.c_str(), final ? "\n" : "");
    } else {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  };
}

}  // namespace campaign::cli

// What the commands that touch a scheduler share: the shell and scheduler
// for a system, the log file in the work directory, and the progress line.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "sched/scheduler.hpp"
#include "spec/system.hpp"
#include "transport/shell.hpp"

namespace campaign::cli {

struct Backend {
  std::unique_ptr<transport::Shell> shell;
  std::unique_ptr<sched::Scheduler> scheduler;
};

// The scheduler of `system`; the local executor keeps its jobs under workdir/.local.
Backend make_backend(const spec::System& system, const std::filesystem::path& workdir);

enum class Verbosity { quiet, normal, verbose };

// Logs to <workdir>/campaign.log (everything) and stderr (warnings and up;
// info too with verbose).
void setup_logging(const std::filesystem::path& workdir, Verbosity v);

// A progress printer: one line rewritten in place on a terminal, plain lines
// (only when something changed) otherwise; nothing when quiet.
std::function<void(const std::string&, bool)> progress_printer(Verbosity v);

}  // namespace campaign::cli

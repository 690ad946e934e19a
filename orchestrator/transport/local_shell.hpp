// Shell on this machine: run_program (util/process.hpp) with shell conventions for exit codes.
//
// Invariants: run() never blocks past its timeout for a child that misbehaves (fills a pipe, closes
// its output and keeps running, ignores stdin); a timed-out child is killed with its whole process
// group; the child gets no descriptor of ours beyond its three pipes, default signal dispositions
// and an empty signal mask, whatever the orchestrator has set up for itself.
#pragma once

#include "transport/shell.hpp"

namespace campaign::transport {

class LocalShell final : public Shell {
 public:
  CommandResult run(const std::vector<std::string>& argv,
                    std::chrono::milliseconds timeout = std::chrono::seconds(60),
                    const std::string& stdin_data = {}) override;
  void put(const std::filesystem::path& local, const std::string& remote) override;
  void get(const std::string& remote, const std::filesystem::path& local) override;
  bool exists(const std::string& path) override;
  std::optional<std::string> read_file(const std::string& path, size_t max_bytes = 1 << 20) override;
  std::string describe() const override { return "local"; }
};

}  // namespace campaign::transport

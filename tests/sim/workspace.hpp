// The run directories in memory: what job scripts write (exit and start markers) and what the engine
// reads and writes through engine::Workspace. A transport failure hides a file or fails a write.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "engine/workspace.hpp"
#include "pack/manifest.hpp"
#include "render/script.hpp"
#include "sched/scheduler.hpp"
#include "world.hpp"

namespace sim {

class FakeWorkspace final : public campaign::engine::Workspace {
 public:
  FakeWorkspace(std::filesystem::path root, Rng& rng, const Faults& faults, Calls& calls)
      : root_(std::move(root)), rng_(rng), faults_(faults), calls_(calls) {}

  std::filesystem::path script_root() const override { return root_; }
  void prepare(const campaign::render::Script& script) override {
    calls_.point("prepare");
    if (rng_.chance(faults_.flaky))
      throw campaign::sched::SchedulerUnavailable("sim: login node unreachable");
    const std::string dir = script.run_dir.string();
    files_.erase(dir + "/" + campaign::render::kExitMarker);
    files_.erase(dir + "/" + campaign::pack::kStartMarker);
    files_.erase(path_in(dir, campaign::render::claim_file(script.attempt)));
  }
  std::vector<std::optional<int>> read_markers(const std::vector<std::string>& run_dirs) override {
    std::vector<std::optional<int>> out;
    for (auto& text : read_in(run_dirs, campaign::render::kExitMarker))
      out.push_back(text ? std::optional<int>(std::stoi(*text)) : std::nullopt);
    return out;
  }
  std::vector<std::optional<std::string>> read_in(const std::vector<std::string>& run_dirs,
                                                  const std::string& name) override {
    calls_.point("read files");
    // An unreachable login node: exit markers read as "none yet" (engine::read_markers), other files
    // fail (RemoteWorkspace::read_in).
    const bool unreachable = rng_.chance(faults_.flaky);
    if (unreachable && name != campaign::render::kExitMarker)
      throw campaign::sched::SchedulerUnavailable("sim: login node unreachable");
    std::vector<std::optional<std::string>> out;
    for (auto& dir : run_dirs) {
      auto it = files_.find(dir + "/" + name);
      out.push_back(unreachable || it == files_.end() ? std::nullopt
                                                      : std::optional<std::string>(it->second));
    }
    return out;
  }
  void put(const std::vector<campaign::batch::File>&) override {
    calls_.point("put");
    if (rng_.chance(faults_.flaky))
      throw campaign::sched::SchedulerUnavailable("sim: login node unreachable");
  }

  // A job script's claim of attempt `number` in `run_dir` (render::claim_file): the job that holds it.
  std::string claim(const std::string& run_dir, int number, const std::string& job) {
    return files_.emplace(path_in(run_dir, campaign::render::claim_file(number)), job).first->second;
  }
  // What a job writes into its run directory.
  void write(const std::string& run_dir, const std::string& name, const std::string& text) {
    files_[run_dir + "/" + name] = text;
  }

 private:
  // DIR/NAME, appended (GCC 12's bogus -Wrestrict on a + "/" + b, PR 105651).
  static std::string path_in(const std::string& dir, const std::string& name) {
    std::string p = dir;
    p += '/';
    p += name;
    return p;
  }
  std::filesystem::path root_;
  Rng& rng_;
  const Faults& faults_;
  Calls& calls_;
  std::map<std::string, std::string> files_;
};

}  // namespace sim

// Where a campaign's job scripts run, seen from the engine: the work directory the scripts refer
// to, how a rendered script gets there before it is submitted, and how the exit markers of running
// jobs are read back. The catalog always records the LOCAL run directories (the orchestrator's own
// work directory: catalog, log, and for a remote system a mirror of the run directories); a
// Workspace maps them to where the jobs really run.
//
// LocalWorkspace is the zero-copy case: scripts run in the local work directory itself. A remote
// one (stage/remote_workspace.hpp) renders scripts with paths on the login node, keeps a copy in
// the local mirror and uploads them.
//
// Invariants: after prepare(), the script is in its run directory where the scheduler reads it and
// no exit marker of an earlier attempt is left there; prepare() either succeeds or submits nothing
// (the engine calls it before committing the attempt as submitting).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/files.hpp"
#include "render/script.hpp"
#include "transport/shell.hpp"

namespace campaign::engine {

class Workspace {
 public:
  virtual ~Workspace() = default;
  // The work directory the scripts refer to (RenderOptions::workdir): run directories are
  // script_root()/<case>.
  virtual std::filesystem::path script_root() const = 0;
  // Makes `script` (rendered under script_root()) ready to submit. Throws
  // sched::SchedulerUnavailable when the place the jobs run cannot be reached now (retried later).
  virtual void prepare(const render::Script& script) = 0;
  // The exit status in each run directory's marker (run directories as the catalog records them),
  // nullopt where there is none yet or it cannot be read now. One entry per directory, in order.
  virtual std::vector<std::optional<int>> read_markers(const std::vector<std::string>& run_dirs) = 0;
  // The file `name` of each run directory (as the catalog records them), e.g. a packed case's start
  // marker: its text, nullopt where there is none; one per directory. sched::SchedulerUnavailable when
  // the files cannot be read now: a start marker that could not be read must not pass for one the
  // driver never wrote (the case would be planned again while it runs).
  virtual std::vector<std::optional<std::string>> read_in(const std::vector<std::string>& run_dirs,
                                                          const std::string& name) = 0;
  // Writes a batch job's own files (batch/files.hpp; paths under script_root()), each replaced whole,
  // in order. Throws sched::SchedulerUnavailable when the place the jobs run cannot be reached now.
  virtual void put(const std::vector<batch::File>& files) = 0;
  // The run directories are on this machine's file system: the engine may watch them for markers
  // (engine/marker_watch.hpp) instead of waiting for the next read.
  virtual bool watchable() const { return false; }
};

// Scripts run where the orchestrator keeps its work directory (the same machine, or a login node
// when the orchestrator itself runs there); markers are read through `shell`.
class LocalWorkspace final : public Workspace {
 public:
  LocalWorkspace(transport::Shell& shell, std::filesystem::path workdir)
      : shell_(shell), workdir_(std::move(workdir)) {}
  std::filesystem::path script_root() const override { return workdir_; }
  void prepare(const render::Script& script) override;
  std::vector<std::optional<int>> read_markers(const std::vector<std::string>& run_dirs) override;
  std::vector<std::optional<std::string>> read_in(const std::vector<std::string>& run_dirs,
                                                  const std::string& name) override;
  void put(const std::vector<batch::File>& files) override;
  bool watchable() const override { return true; }

 private:
  transport::Shell& shell_;
  std::filesystem::path workdir_;
};

}  // namespace campaign::engine

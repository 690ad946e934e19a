#include "engine/workspace.hpp"

#include "engine/markers.hpp"
#include "sched/scheduler.hpp"
#include "util/atomic_file.hpp"

namespace fs = std::filesystem;

namespace campaign::engine {

void LocalWorkspace::prepare(const render::Script& script) {
  // The script and a clean run directory: a stale marker of an earlier attempt must not complete
  // this one, nor a claim of this attempt's number left by an earlier catalog hold its job back; the
  // earlier attempt's script is kept, not overwritten.
  fs::create_directories(script.run_dir);
  render::keep_previous_script(script);
  render::write_script(script);
  std::error_code ec;
  fs::remove(script.run_dir / render::kExitMarker, ec);
  fs::remove(script.run_dir / render::claim_file(script.attempt), ec);
}

std::vector<std::optional<int>> LocalWorkspace::read_markers(const std::vector<std::string>& run_dirs) {
  return engine::read_markers(shell_, run_dirs);
}

std::vector<std::optional<std::string>> LocalWorkspace::read_in(const std::vector<std::string>& run_dirs,
                                                                const std::string& name) {
  std::vector<std::string> paths;
  for (auto& d : run_dirs) paths.push_back((fs::path(d) / name).string());
  try {
    return shell_.read_files(paths, 1 << 16);
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw sched::SchedulerUnavailable("reading " + name + " in the run directories: " + e.what());
  }
}

void LocalWorkspace::put(const std::vector<batch::File>& files) {
  try {
    batch::write_files(files);
  } catch (const StorageError&) {
    throw;  // a full or read-only disk stops the run (exit 4); retrying at the next poll would hang it
  } catch (const Error& e) {
    throw sched::SchedulerUnavailable(e.what());
  }
}

}  // namespace campaign::engine

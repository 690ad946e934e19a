#include "engine/workspace.hpp"

#include "engine/markers.hpp"

namespace fs = std::filesystem;

namespace campaign::engine {

void LocalWorkspace::prepare(const render::Script& script) {
  // The script and a clean run directory: a stale marker of an earlier attempt must not complete
  // this one.
  fs::create_directories(script.run_dir);
  render::write_script(script);
  std::error_code ec;
  fs::remove(script.run_dir / render::kExitMarker, ec);
}

std::vector<std::optional<int>> LocalWorkspace::read_markers(const std::vector<std::string>& run_dirs) {
  return engine::read_markers(shell_, run_dirs);
}

}  // namespace campaign::engine

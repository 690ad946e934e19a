#include "engine/markers.hpp"

#include <charconv>

#include "render/script.hpp"
#include "util/strings.hpp"

namespace campaign::engine {

std::optional<int> parse_marker(const std::string& text) {
  std::string t = trim(text);
  int v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v < 0 || v > 255) return std::nullopt;
  return v;
}

std::vector<std::optional<int>> read_markers(transport::Shell& shell,
                                             const std::vector<std::string>& run_dirs) {
  std::vector<std::string> paths;
  paths.reserve(run_dirs.size());
  for (auto& dir : run_dirs) paths.push_back(dir + "/" + render::kExitMarker);
  std::vector<std::optional<std::string>> texts;
  try {
    texts = shell.read_files(paths, 64);  // one round trip on a remote shell
  } catch (const transport::TransportError&) {
    texts.clear();  // unreadable now; the next cycle tries again
  }
  std::vector<std::optional<int>> out(run_dirs.size());
  for (size_t i = 0; i < out.size() && i < texts.size(); ++i)
    if (texts[i]) out[i] = parse_marker(*texts[i]);
  return out;
}

}  // namespace campaign::engine

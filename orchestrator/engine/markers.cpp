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
  std::vector<std::optional<int>> out;
  out.reserve(run_dirs.size());
  for (auto& dir : run_dirs) {
    std::optional<std::string> text;
    try {
      text = shell.read_file(dir + "/" + render::kExitMarker, 64);
    } catch (const transport::TransportError&) {
      text.reset();  // unreadable now; the next cycle tries again
    }
    out.push_back(text ? parse_marker(*text) : std::nullopt);
  }
  return out;
}

}  // namespace campaign::engine

// Helpers shared by every Shell implementation.
#include "transport/shell.hpp"

#include "util/strings.hpp"

namespace campaign::transport {

std::string display_command(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  quoted.reserve(argv.size());
  for (const auto& a : argv) quoted.push_back(shell_quote(a));
  return join(quoted, " ");
}

std::vector<std::optional<std::string>> Shell::read_files(const std::vector<std::string>& paths,
                                                          size_t max_bytes) {
  std::vector<std::optional<std::string>> out;
  out.reserve(paths.size());
  for (const auto& path : paths) {
    try {
      out.push_back(read_file(path, max_bytes));
    } catch (const TransportError&) {
      out.emplace_back();
    }
  }
  return out;
}

}  // namespace campaign::transport

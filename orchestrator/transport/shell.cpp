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

}  // namespace campaign::transport

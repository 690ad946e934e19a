// Quoting for the remote shell. Unlike display_command(), even "safe" words are quoted: an unquoted
// argv[0] such as `if`, `!` or `A=b` would be read as a keyword or an assignment, not a program.
#include "ssh/remote_command.hpp"

#include "transport/shell.hpp"

namespace campaign::ssh {

std::string remote_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) throw transport::TransportError("cannot run an empty command");
  std::string out;
  for (const auto& word : argv) {
    if (word.find('\0') != std::string::npos)
      throw transport::TransportError("argument holds a NUL byte, which no remote program can receive");
    if (!out.empty()) out += ' ';
    out += '\'';
    for (char c : word) {
      if (c == '\'')
        out += "'\\''";  // close the quote, an escaped quote, reopen
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

}  // namespace campaign::ssh

// Shared plumbing for scheduler commands (see command.hpp).
#include "sched/command.hpp"

#include <set>

#include "util/strings.hpp"

namespace campaign::sched::command {

size_t length(const std::vector<std::string>& argv) {
  size_t n = 0;
  for (const auto& a : argv) n += a.size() + 1;
  return n;
}

std::string failure(const std::vector<std::string>& argv, const transport::CommandResult& r,
                    const transport::Shell& shell) {
  // Built by appending: GCC 12 warns spuriously (-Wrestrict) on chains of operator+ here.
  std::string msg = "`";
  msg.append(transport::display_command(argv)).append("` ");
  if (r.timed_out)
    msg.append("timed out");
  else
    msg.append("failed with exit status ").append(std::to_string(r.exit_code));
  msg.append(" (").append(shell.describe()).append(")");
  std::string shown = trim(r.err.empty() ? r.out : r.err);
  if (shown.size() > 2000) shown.resize(2000), shown.append(" ...");
  if (!shown.empty()) msg.append(": ").append(shown);
  return msg;
}

transport::CommandResult run(transport::Shell& shell, const std::vector<std::string>& argv,
                             const SchedulerOptions& options) {
  auto r = shell.run(argv, options.command_timeout);
  if (r.timed_out || r.exit_code == 126 || r.exit_code == 127)
    throw SchedulerUnavailable(failure(argv, r, shell));
  return r;
}

std::string current_user(transport::Shell& shell, const SchedulerOptions& options) {
  std::vector<std::string> argv = {"id", "-un"};
  auto r = shell.run(argv, options.command_timeout);
  std::string user = trim(r.out);
  if (!r.ok() || user.empty())
    throw SchedulerUnavailable("cannot tell the user name: " + failure(argv, r, shell));
  return user;
}

std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& i : items)
    if (seen.insert(i).second) out.push_back(i);
  return out;
}

}  // namespace campaign::sched::command

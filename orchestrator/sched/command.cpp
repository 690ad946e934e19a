// Shared plumbing for scheduler commands (see command.hpp).
#include "sched/command.hpp"

#include <algorithm>
#include <charconv>
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

void check_submit_ran(const std::vector<std::string>& argv, const transport::CommandResult& r,
                      const transport::Shell& shell) {
  if (r.timed_out)
    throw SubmitError(SubmitFailure::transient,
                      failure(argv, r, shell) + " (the job may have been submitted)");
  if (r.exit_code == 126 || r.exit_code == 127)
    throw SubmitError(SubmitFailure::invalid, failure(argv, r, shell));
  if (killed_by_signal(r))
    throw SubmitError(SubmitFailure::transient,
                      failure(argv, r, shell) + " (killed: the job may have been submitted)");
}

namespace {

// $1 the record's prefix, $2 the time limit in seconds, then the command. Exit status 125 when the
// record cannot be written (nothing was run).
constexpr const char* kRecorded = R"(r=$1; t=$2; shift 2
mkdir -p "${r%/*}" 2>/dev/null
rm -f "$r.rc" 2>/dev/null
if ! : >"$r.out" 2>/dev/null; then echo "cannot write the submission record $r.out" >&2; exit 125; fi
trap '' HUP PIPE
if command -v timeout >/dev/null 2>&1; then set -- timeout -s KILL "$t" "$@"; fi
"$@" >"$r.out" 2>"$r.err"
s=$?
echo "$s" >"$r.rc.tmp" && mv -f "$r.rc.tmp" "$r.rc"
cat "$r.out"
cat "$r.err" >&2
exit "$s"
)";

}  // namespace

std::vector<std::string> recorded(const std::vector<std::string>& argv, const std::string& record,
                                  std::chrono::milliseconds timeout) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
  std::vector<std::string> out = {
      "sh", "-c", kRecorded, "campaign-submit", record, std::to_string(std::max<long long>(1, seconds))};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

transport::CommandResult run_submit(transport::Shell& shell, const std::vector<std::string>& argv,
                                    const std::string& record, std::chrono::milliseconds timeout,
                                    const std::string& stdin_data) {
  if (record.empty()) return shell.run(argv, timeout, stdin_data);
  auto wrapped = recorded(argv, record, timeout);
  auto plain = [&](const transport::TransportError& e) {
    std::string what = e.what();
    const std::string shown = transport::display_command(wrapped);
    if (auto at = what.find(shown); at != std::string::npos)
      what.replace(at, shown.size(), transport::display_command(argv) + " (recorded in " + record + ".*)");
    return what;
  };
  try {
    return shell.run(wrapped, timeout, stdin_data);
  } catch (const transport::AccessError& e) {
    throw transport::AccessError(plain(e));
  } catch (const transport::TransportError& e) {
    throw transport::TransportError(plain(e));
  }
}

std::vector<SubmitRecord> read_records(transport::Shell& shell, const std::vector<std::string>& records,
                                       const std::vector<std::string>& argv, const ReadSubmit& read) {
  std::vector<std::string> paths;
  for (const auto& r : records)
    for (const char* ext : {".rc", ".out", ".err"}) paths.push_back(r + ext);
  std::vector<std::optional<std::string>> texts;
  try {
    texts = shell.read_files(paths);
  } catch (const transport::AccessError&) {
    throw;
  } catch (const transport::TransportError& e) {
    throw SchedulerUnavailable(std::string("reading submission records: ") + e.what());
  }
  std::vector<SubmitRecord> out(records.size());
  for (size_t k = 0; k < records.size(); ++k) {
    const auto& rc = texts.at(3 * k);
    int status = 0;
    const std::string word = rc ? trim(*rc) : "";
    auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), status);
    if (word.empty() || ec != std::errc() || end != word.data() + word.size()) {
      // No status yet: the wrapper writes .out before it runs the command.
      if (texts.at(3 * k + 1)) out[k].outcome = SubmitRecord::Outcome::started;
      continue;
    }
    transport::CommandResult r{status, texts[3 * k + 1].value_or(""), texts[3 * k + 2].value_or(""), false};
    SubmitRecord& rec = out[k];
    try {
      check_submit_ran(argv, r, shell);
      rec.job_id = read(argv, r);
      rec.outcome = SubmitRecord::Outcome::submitted;
    } catch (const SubmitError& e) {
      rec.outcome = e.kind() == SubmitFailure::transient ? SubmitRecord::Outcome::unclear
                                                         : SubmitRecord::Outcome::refused;
      rec.message = e.what();
    }
  }
  return out;
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

// `campaign executor --spool DIR` (hidden): one request to the local executor whose spool is DIR,
// as JSON on standard input, answered as JSON on standard output (local/executor.hpp). It is how a
// campaign on a laptop runs the jobs of a `scheduler: local` system reached over ssh on that
// remote host. Exit status 0 whenever an answer was printed, failures included (they are in it).
#include "local/executor.hpp"

#include <iostream>
#include <iterator>

#include "cli/cli.hpp"

namespace campaign::cli {

void add_executor(CLI::App& app) {
  auto spool = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("executor", "The local executor driven from another machine (internal)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--spool", *spool, "The executor's spool directory")->required();
  auto look = std::make_shared<bool>(false);
  cmd->add_flag("--look", *look, "Start no pending job (a status command's look)");
  cmd->callback([spool, look] {
    std::string request((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    local::LocalOptions o;
    o.spool = *spool;
    o.start_jobs = !*look;
    std::cout << local::serve_executor_request(o, request) << "\n";
  });
}

}  // namespace campaign::cli

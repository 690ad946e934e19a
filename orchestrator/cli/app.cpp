#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/cli.hpp"

namespace campaign::cli {

int main(int argc, char** argv) {
  CLI::App app{
      "campaign: run HPC benchmark campaigns (scaling studies) from a declarative YAML file.\n"
      "Plan the matrix, render job scripts for the system's scheduler (Slurm, LSF or this machine), "
      "submit them, follow them to the end, and resume after any interruption."};
  app.set_version_flag("--version", std::string("campaign ") + CAMPAIGN_VERSION);
  app.require_subcommand(1);
  add_plan(app);
  add_validate(app);
  add_run(app);
  add_status(app);
  add_cancel(app);
  add_launch(app);
  add_results(app);
  add_executor(app);
  add_history(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "campaign: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "campaign: " << e.what() << "\n";
    return 1;
  }
  return g_exit_status;
}

}  // namespace campaign::cli

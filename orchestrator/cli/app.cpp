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
  int status = 0;  // what the subcommand asks for when it ends without an exception
  add_plan(app);
  add_validate(app);
  add_run(app, status);
  add_status(app);
  add_cancel(app);
  add_launch(app, status);
  add_collect(app, status);
  add_import(app);
  add_report(app);
  add_executor(app);
  add_pack_exec(app, status);
  add_sample(app, status);
  add_history(app, status);
  add_trace(app);
  add_site(app, status);
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
  return status;
}

}  // namespace campaign::cli

#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

#include "catalog/errors.hpp"
#include "cli/cli.hpp"
#include "util/atomic_file.hpp"

namespace campaign::cli {

int main(int argc, char** argv) {
  CLI::App app{
      "campaign: run HPC benchmark campaigns (scaling studies) from a declarative YAML file.\n"
      "Plan the matrix, render job scripts for the system's scheduler (Slurm, LSF or this machine), "
      "submit them, follow them to the end, and resume after any interruption."};
  app.set_version_flag(
      "--version",
      [] {
        std::string text = paths_text("");
        text.pop_back();  // CLI11 ends the line
        return text;
      },
      "Print the version and the folders searched for profiles and collectors, then exit");
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
  add_systems(app, status);
  add_paths(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const CorruptCatalogError& e) {
    std::cerr << "campaign: " << e.what() << "\n";
    return 2;
  } catch (const StorageError& e) {
    std::cerr << "campaign: " << e.what() << "\n";
    return 4;
  } catch (const CatalogStorageError& e) {
    std::cerr << "campaign: " << e.what() << "\n";
    return 4;
  } catch (const std::filesystem::filesystem_error& e) {
    // std::filesystem's own calls (creating a run directory): a full disk is told as StorageError.
    const int err =
        e.code().category() == std::generic_category() || e.code().category() == std::system_category()
            ? e.code().value()
            : 0;
    if (is_storage_errno(err)) {
      std::cerr << "campaign: " << StorageError(e.path1().string(), err).what() << "\n";
      return 4;
    }
    std::cerr << "campaign: " << e.what() << "\n";
    return 1;
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

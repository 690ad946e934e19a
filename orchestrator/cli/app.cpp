#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>

#include "catalog/errors.hpp"
#include "cli/cli.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace campaign::cli {

namespace {

// A mistyped command or option said as typed, with the nearest name, where CLI11 says only "A
// subcommand is required" or "The following arguments were not expected"; nullopt: CLI11's own words.
std::optional<std::string> explain(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string first = argv[1];
  std::vector<std::string> commands;
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) commands.push_back(sub->get_name());
  if (dynamic_cast<const CLI::RequiredError*>(&e) && app.get_subcommands().empty() && !first.empty() &&
      first[0] != '-')
    return "unknown command '" + first + "'" + did_you_mean(first, commands) +
           " (commands: " + join(commands, ", ") + "; campaign --help says what each does)";
  if (!dynamic_cast<const CLI::ExtrasError*>(&e) || app.get_subcommands().empty()) return std::nullopt;
  CLI::App* sub = app.get_subcommands().front();
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (word.size() < 2 || word[0] != '-') continue;
    if (auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    if (sub->get_option_no_throw(word)) continue;
    std::vector<std::string> names;
    for (auto* o : sub->get_options())
      for (auto& n : o->get_lnames()) names.push_back("--" + n);
    return "unknown option '" + word + "' of `campaign " + sub->get_name() + "`" + did_you_mean(word, names) +
           " (campaign " + sub->get_name() + " --help lists them)";
  }
  return std::nullopt;
}

}  // namespace

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
  add_show(app);
  add_results(app);
  add_list(app);
  add_cancel(app);
  add_launch(app, status);
  add_collect(app, status);
  add_import(app, status);
  add_report(app, status);
  add_reference(app);
  add_executor(app);
  add_pack_exec(app, status);
  add_sample(app, status);
  add_history(app, status);
  add_trace(app);
  add_site(app, status);
  add_systems(app, status);
  add_paths(app);
  add_completion(app);  // last: it lists the commands above
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (auto why = explain(app, e, argc, argv)) {
      std::cerr << "campaign: " << *why << "\n";
      return 2;
    }
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

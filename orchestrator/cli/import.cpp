// `campaign import`: runs done elsewhere adopted as completed cases, collected, and reported.
#include "collect/import.hpp"

#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "history/code_version.hpp"
#include "transport/local_shell.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

void add_import(CLI::App& app, int& status) {
  struct ImportOptions {
    CampaignOptions campaign;
    std::string from;
    std::string label;
    std::string commit = "HEAD";
    std::string output;
  };
  auto io = std::make_shared<ImportOptions>();
  auto* imp = app.add_subcommand("import",
                                 "Adopt runs done earlier (by hand or other tools): run directories named "
                                 "by the campaign's case_name become completed cases and are collected");
  add_campaign_options(*imp, io->campaign);
  imp->add_option("--from", io->from,
                  "Directory holding the run directories (or timestamped folders of them)")
      ->required();
  imp->add_option("--label", io->label, "Name of the code version that made the runs, recorded with them");
  imp->add_option("--commit", io->commit,
                  "Git revision of the code that made the runs (resolved in code_dir's repository, else the "
                  "campaign file's), recorded with its commit date")
      ->capture_default_str();
  imp->add_option("--output", io->output,
                  "The job's output file in each run directory, for collectors that read it: a name or a "
                  "glob matching one file (default: the one slurm-*.out, job-*.out or lsf-*.out there)");
  imp->callback([io, &status] {
    io->campaign.fit = matrix::Fit::skip;  // the runs came from elsewhere
    Loaded l = load(io->campaign);
    setup_logging(l.workdir, Verbosity::normal);
    const auto& collectors = l.collectors;
    Catalog catalog = Catalog::open(l.catalog_dir);
    transport::LocalShell shell;
    auto code = history::detect_code_version(l.plan, io->label, shell, io->commit);
    auto s =
        collect::import_runs(catalog, l.plan, l.workdir, io->from, collectors, code.record(), io->output);
    for (auto& e : s.errors) std::cerr << "campaign: collect failed: " << e << "\n";
    std::cout << "imported " << s.found - s.already << " of " << s.found + s.absent << " cases ("
              << s.collected << " collected, " << s.failed << " collect_failed, " << s.already
              << " already there, " << s.absent << " not found, left planned) into " << l.workdir.string()
              << "\n";
    if (s.failed) status = 1;  // as `run` when some case did not succeed
    auto found = catalog.find_campaign(l.campaign.catalog_name());
    if (auto report = write_final_report(catalog, l.campaign, found->id, l.workdir))
      std::cout << "report: " << report->string() << "\n";
  });
}

}  // namespace campaign::cli

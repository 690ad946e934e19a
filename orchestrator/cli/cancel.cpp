// `campaign cancel FILE [--case PATTERN]`: cancel the campaign's jobs (all, or
// the cases whose name matches a glob). Cancelled cases can be run again with
// `campaign resume --failed`.
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "engine/engine.hpp"

namespace campaign::cli {

void add_cancel(CLI::App& app) {
  struct Options {
    CampaignOptions campaign;
    std::string pattern;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("cancel", "Cancel the campaign's queued and running jobs and its unsubmitted cases");
  add_campaign_options(*cmd, o->campaign);
  cmd->add_option("--case", o->pattern, "Only cases whose name matches this glob (e.g. 'scaling-gpu-*')");
  cmd->callback([o] {
    Loaded l = load(o->campaign);
    setup_logging(l.workdir, Verbosity::normal);
    Catalog catalog = Catalog::open(l.workdir);
    Backend backend = make_backend(l.plan.system, l.workdir);
    engine::EngineOptions eo;
    eo.campaign_exe = self_exe();
    engine::Engine engine(l.plan, l.workdir, catalog, *backend.scheduler, *backend.shell, eo);
    engine.start();
    int n = engine.cancel(o->pattern);
    std::cout << "cancelled " << n << " case" << (n == 1 ? "" : "s") << "; " << engine.counts().line()
              << "\n";
  });
}

}  // namespace campaign::cli

// `campaign cancel FILE [--case PATTERN]`: cancel the campaign's jobs (all, or
// the cases whose name matches a glob; what that means for packed cases: Engine::cancel).
// Cancelled cases can be run again with `campaign resume --failed`.
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "engine/engine.hpp"

namespace campaign::cli {

void add_cancel(CLI::App& app) {
  struct Options {
    CampaignOptions campaign;
    AccessOptions access;
    std::string pattern;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("cancel", "Cancel the campaign's queued and running jobs and its unsubmitted cases");
  add_campaign_options(*cmd, o->campaign);
  add_access_options(*cmd, o->access);
  cmd->add_option("--case", o->pattern,
                  "Only cases whose name matches this glob (e.g. 'scaling-gpu-*'); a packed case alone: its "
                  "step on Slurm (refused before its step runs), its whole allocation elsewhere");
  cmd->callback([o] {
    // A campaign across several systems: each of them (--system: that one), one after the other.
    auto parts = open_campaigns(o->campaign, o->access, Verbosity::normal);
    require_reachable(parts);
    Catalog catalog = Catalog::open(parts.front().loaded.catalog_dir);
    for (auto& opened : parts) {
      Loaded& l = opened.loaded;
      Backend& backend = opened.backend;
      engine::EngineOptions eo = engine_options(opened);
      engine::Engine engine(l.plan, l.workdir, catalog, *backend.scheduler, *backend.shell, eo);
      engine.start();
      int n = engine.cancel(o->pattern);
      std::cout << (l.part ? l.plan.system.name + ": " : "") << "cancelled " << n << " case"
                << (n == 1 ? "" : "s") << "; " << engine.counts().line() << "\n";
    }
  });
}

}  // namespace campaign::cli

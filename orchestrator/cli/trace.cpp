// `campaign trace [TARGET] [--out FILE] [--by case|node] [--iterations N]`: the campaign's timeline
// (attempts and their phases, failures, collected epochs and per-rank stalls) in the Trace Event
// Format, for chrome://tracing and Perfetto. Reads the catalog without the writer lock, as status does.
#include "trace/trace.hpp"

#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

void add_trace(CLI::App& app) {
  struct Options {
    std::string target, system, workdir, out, by = "case";
    std::optional<std::size_t> iterations;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "trace",
      "Write the campaign's timeline (queued, running, collecting, retries, failures; collected epochs and "
      "per-rank data stalls) as a Chrome trace for Perfetto or chrome://tracing");
  cmd->add_option("TARGET", o->target, "Campaign file or work directory (default: the current directory)");
  cmd->add_option("-s,--system", o->system, "System profile, as for run (with a campaign file)");
  cmd->add_option("-w,--workdir", o->workdir, "Work directory, as for run (with a campaign file)");
  cmd->add_option("-o,--out", o->out, "Trace file to write (default: WORKDIR/trace.json)");
  cmd->add_option("--by", o->by, "One row per case, or per case inside a group per node it ran on")
      ->check(CLI::IsMember({"case", "node"}))
      ->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "Draw at most the first N iterations of each rank")
      ->check(CLI::PositiveNumber);
  cmd->callback([o] {
    std::string target = o->target.empty() ? "." : o->target;
    fs::path workdir;
    std::string name;
    if (fs::is_directory(target)) {
      workdir = fs::absolute(target);
    } else {
      Loaded l = load(CampaignOptions{target, o->system, o->workdir, matrix::Fit::skip});
      workdir = l.workdir;
      name = l.campaign.catalog_name();
    }
    require_catalog(workdir);
    Catalog catalog = Catalog::open_for_reading(workdir);
    auto all = catalog.campaigns();
    if (all.empty()) throw Error("no campaign in " + workdir.string());
    auto rec = name.empty() ? std::optional(all.front()) : catalog.find_campaign(name);
    if (!rec) throw Error("campaign " + name + " has not run in " + workdir.string());
    trace::Options opts{.by = o->by == "node" ? trace::By::node : trace::By::case_,
                        .iterations = o->iterations};
    std::size_t events = 0;
    const std::string text = trace::write(trace::read(catalog, *rec), opts, &events);
    fs::path out = o->out.empty() ? workdir / "trace.json" : fs::absolute(o->out);
    write_file_atomic(out, text);
    std::cout << "wrote " << events << " trace events to " << out.string() << "\n";
  });
}

}  // namespace campaign::cli

// `campaign reference set FILE --from RUN`: the campaign's references per system (`reference:`,
// issue 34) written from a past run: each followed metric's value on each system the run had, with
// bounds from its spread (history/references.hpp).
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "history/following.hpp"
#include "history/references.hpp"
#include "report/input.hpp"
#include "util/atomic_file.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

void add_reference(CLI::App& app) {
  struct Options {
    CampaignOptions campaign;
    std::string from;
    std::vector<std::string> metrics;
    double tolerance = 10;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  auto* ref =
      app.add_subcommand("reference", "The values each system must reach (`reference:` of a campaign)");
  ref->require_subcommand(1);
  auto* set = ref->add_subcommand(
      "set",
      "Write the campaign's references from a past run: each metric's value on each of its systems, bounded "
      "by +-TOLERANCE %, or by 3 standard deviations of its repetitions where wider; other systems' "
      "references in the file stay");
  set->add_option("FILE", o->campaign.file, "Campaign file (campaigns/*.yaml)")->required();
  set->add_option("-s,--system", o->campaign.system,
                  "One of the campaign's systems (default: each system the run has)");
  set->add_option("--from", o->from, "The run: its work directory")->required();
  set->add_option("--metric", o->metrics,
                  "A metric in history's syntax (repeatable; default: the campaign's `track:`, else each "
                  "analysis' headline columns)")
      ->type_name("METRIC");
  set->add_option("--tolerance", o->tolerance, "Bounds, in percent of the value, where the run had no spread")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  set->add_option("-o,--out", o->out,
                  "The file to write (default: the campaign's `reference:` file, else NAME.reference.yaml "
                  "beside the campaign)");
  set->callback([o] {
    auto parts = load_all(
        CampaignOptions{o->campaign.file, o->campaign.system, o->campaign.workdir, matrix::Fit::skip});
    const spec::Campaign& campaign = parts.front().campaign;
    std::vector<std::string> metrics = o->metrics;
    if (metrics.empty()) {
      auto followed = campaign.track.empty() ? history::headline_metrics(campaign.analyses) : campaign.track;
      for (auto& t : followed) metrics.push_back(t.metric);
    }
    if (metrics.empty())
      throw InputError(
          {"campaign reference set"}, "--metric",
          "the campaign follows no metric (no `track:`, no analysis with headline columns): name "
          "one with --metric");
    for (auto& m : metrics) (void)history::parse_metric(m);
    const fs::path run = fs::absolute(o->from);
    require_catalog(run);
    Catalog catalog = Catalog::open_for_reading(run);
    std::vector<spec::Reference> written;
    std::set<std::string> systems;
    for (auto& l : parts) {
      auto rec = catalog.find_campaign(l.campaign.catalog_name());
      if (!rec) {
        if (parts.size() == 1)
          throw Error("campaign " + l.campaign.catalog_name() + " did not run in " + run.string());
        std::cerr << "campaign: warning: " << l.plan.system.name << ": not in " << run.string() << "\n";
        continue;
      }
      auto cases = report::case_results(catalog, rec->id);
      auto refs = history::references_from(metrics, l.plan.system.name, l.campaign.analyses, cases,
                                           o->tolerance / 100);
      systems.insert(l.plan.system.name);
      written.insert(written.end(), refs.begin(), refs.end());
    }
    // The file's references of the other systems stay.
    std::vector<spec::Reference> kept;
    for (auto& r : campaign.references)
      if (!systems.count(r.system)) kept.push_back(r);
    kept.insert(kept.end(), written.begin(), written.end());
    std::stable_sort(kept.begin(), kept.end(), [](auto& a, auto& b) { return a.system < b.system; });
    fs::path out = !o->out.empty()           ? fs::absolute(o->out)
                   : campaign.reference_file ? campaign.dir / *campaign.reference_file
                                             : campaign.dir / (campaign.name + ".reference.yaml");
    write_file_atomic(out, history::references_yaml(kept));
    std::cout << "wrote " << written.size() << " reference" << (written.size() == 1 ? "" : "s") << " of "
              << systems.size() << " system" << (systems.size() == 1 ? "" : "s") << " to " << out.string()
              << "\n";
    if (!campaign.reference_file && o->out.empty())
      std::cout << "the campaign reads it once it says: reference: " << out.filename().string() << "\n";
  });
}

}  // namespace campaign::cli

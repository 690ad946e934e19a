// `campaign collect`: metrics of every finished case from its run directory into the catalog (fetched first
// over ssh).
#include "collect/collect.hpp"

#include <algorithm>
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

// A completion is collected once the scheduler's accounting confirmed it; `again` also takes the
// attempts collected before.
bool collectable(const AttemptRow& a, bool again) {
  if (a.state == State::completed) return a.confirmed;
  return again && (a.state == State::collected || a.state == State::collect_failed);
}

}  // namespace

int collect_finished(Catalog& catalog, std::int64_t campaign_id, const collect::StepCollectors& collectors,
                     bool again, const std::function<void(const std::vector<AttemptRow>&)>& fetch) {
  // A campaign without collectors has nothing to collect: no need to read its rows (at 100,000
  // cases, a second of the run's end).
  if (std::all_of(collectors.begin(), collectors.end(), [](auto& c) { return c.second.empty(); })) return 0;
  std::vector<AttemptRow> take;
  for (auto& a : catalog.latest_attempts(campaign_id)) {
    auto cit = collectors.find(a.step);
    if (!a.in_spec || cit == collectors.end() || cit->second.empty()) continue;
    if (collectable(a, again)) take.push_back(a);
  }
  if (fetch && !take.empty()) fetch(take);
  int failed = 0;
  for (auto& a : take)
    if (!collect::collect_attempt(catalog, a, collectors.at(a.step)).ok) ++failed;
  return failed;
}

void add_collect(CLI::App& app, int& status) {
  struct CollectOptions {
    CampaignOptions campaign;
    AccessOptions access;
  };
  auto co = std::make_shared<CollectOptions>();
  auto* collect = app.add_subcommand("collect",
                                     "(Re)collect the metrics of every finished case with the campaign's "
                                     "collectors (idempotent: metrics are replaced, not appended); for a "
                                     "system reached over ssh, their files are fetched first");
  add_campaign_options(*collect, co->campaign);
  add_access_options(*collect, co->access);
  collect->callback([co, &status] {
    // A campaign across several systems: each of them (--system: that one).
    auto parts = open_campaigns(co->campaign, co->access, Verbosity::normal);
    require_reachable(parts);
    Catalog catalog = Catalog::open(parts.front().loaded.catalog_dir);
    for (auto& opened : parts) {
      Loaded& l = opened.loaded;
      const auto& collectors = l.collectors;
      if (std::all_of(collectors.begin(), collectors.end(), [](auto& c) { return c.second.empty(); }))
        throw Error("campaign " + l.campaign.name + " declares no collectors");
      auto found = catalog.find_campaign(l.campaign.catalog_name());
      if (!found) throw Error("nothing has run in " + l.workdir.string() + " yet");
      int failed =
          collect_finished(catalog, found->id, collectors, true, [&](const std::vector<AttemptRow>& as) {
            fetch_for_collection(opened.backend, l.campaign, collectors, as);
          });
      size_t n = 0;
      for (auto& a : catalog.latest_attempts(found->id)) n += a.state == State::collected ? 1 : 0;
      std::cout << (l.part ? l.plan.system.name + ": " : "") << "collected " << n << " cases, " << failed
                << " failed (see campaign status)\n";
      if (failed) status = 1;
    }
  });
}

}  // namespace campaign::cli

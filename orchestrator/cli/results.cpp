// `campaign collect`, `campaign import` and `campaign report`: metrics from
// run directories into the catalog, runs done elsewhere adopted, and the
// campaign's analyses written as reports.
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/backend.hpp"
#include "cli/cli.hpp"
#include "collect/import.hpp"
#include "history/code_version.hpp"
#include "report/input.hpp"
#include "transport/local_shell.hpp"

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

std::optional<fs::path> write_final_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t id,
                                           const fs::path& workdir) {
  if (!campaign.analyses.IsDefined() || campaign.analyses.size() == 0) return std::nullopt;
  report::ReportRequest req;
  req.formats = report::parse_formats("all");
  req.out_dir = workdir / "report";
  auto r = report::make_report(catalog, campaign, id, req, nullptr);
  for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
  return req.out_dir / "report.html";
}

void add_results(CLI::App& app, int& status) {
  // collect
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
    Opened opened = open_campaign(co->campaign, co->access, Verbosity::normal);
    Loaded& l = opened.loaded;
    const auto& collectors = l.collectors;
    if (std::all_of(collectors.begin(), collectors.end(), [](auto& c) { return c.second.empty(); }))
      throw Error("campaign " + l.campaign.name + " declares no collectors");
    Catalog catalog = Catalog::open(l.workdir);
    auto found = catalog.find_campaign(l.campaign.name);
    if (!found) throw Error("nothing has run in " + l.workdir.string() + " yet");
    int failed =
        collect_finished(catalog, found->id, collectors, true, [&](const std::vector<AttemptRow>& as) {
          fetch_for_collection(opened.backend, l.campaign, collectors, as);
        });
    size_t n = 0;
    for (auto& a : catalog.latest_attempts(found->id)) n += a.state == State::collected ? 1 : 0;
    std::cout << "collected " << n << " cases, " << failed << " failed (see campaign status)\n";
    if (failed) status = 1;
  });

  // import
  struct ImportOptions {
    CampaignOptions campaign;
    std::string from;
    std::string label;
    std::string commit = "HEAD";
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
  imp->callback([io] {
    Loaded l = load(io->campaign);
    setup_logging(l.workdir, Verbosity::normal);
    const auto& collectors = l.collectors;
    Catalog catalog = Catalog::open(l.workdir);
    transport::LocalShell shell;
    auto code = history::detect_code_version(l.plan, io->label, shell, io->commit);
    auto s = collect::import_runs(catalog, l.plan, l.workdir, io->from, collectors, code.record());
    for (auto& e : s.errors) std::cerr << "campaign: collect failed: " << e << "\n";
    std::cout << "imported " << s.found - s.already << " of " << s.found + s.absent << " cases ("
              << s.collected << " collected, " << s.failed << " collect_failed, " << s.already
              << " already there, " << s.absent << " not found, left planned) into " << l.workdir.string()
              << "\n";
    auto found = catalog.find_campaign(l.campaign.name);
    if (auto report = write_final_report(catalog, l.campaign, found->id, l.workdir))
      std::cout << "report: " << report->string() << "\n";
  });

  // report
  struct ReportOptions {
    std::string target;
    std::string system, workdir;
    std::string formats = "md,csv,json,html";
    std::string out;
    bool terminal = false;
  };
  auto ro = std::make_shared<ReportOptions>();
  auto* rep = app.add_subcommand("report",
                                 "Compute the campaign's analyses (weak/strong scaling tables, aggregates) "
                                 "and write reports with plots");
  rep->add_option("TARGET", ro->target, "Campaign file or work directory (default: the current directory)");
  rep->add_option("-s,--system", ro->system, "System profile, as for run (with a campaign file)");
  rep->add_option("-w,--workdir", ro->workdir, "Work directory, as for run (with a campaign file)");
  rep->add_option("--format", ro->formats, "Comma-separated: md, csv, json, html (or all)")
      ->capture_default_str();
  rep->add_option("-o,--out", ro->out, "Output directory (default: WORKDIR/report)");
  rep->add_flag("--terminal", ro->terminal,
                "Print the tables here (and write files only if --format/--out is given)");
  rep->callback([ro, rep] {
    std::string target = ro->target.empty() ? "." : ro->target;
    fs::path workdir;
    std::optional<spec::Campaign> campaign;
    if (fs::is_directory(target)) {
      workdir = fs::absolute(target);
    } else {
      Loaded l = load(CampaignOptions{target, ro->system, ro->workdir});
      workdir = l.workdir;
      campaign = l.campaign;
    }
    if (!fs::exists(Catalog::db_path(workdir))) throw Error("no catalog in " + workdir.string());
    Catalog catalog = Catalog::open_for_reading(workdir);
    auto all = catalog.campaigns();
    if (all.empty()) throw Error("no campaign in " + workdir.string());
    const CampaignRecord& rec = campaign ? *catalog.find_campaign(campaign->name) : all.front();
    if (!campaign) campaign = spec::parse_campaign(rec.spec_text, (workdir / (rec.name + ".yaml")).string());
    report::ReportRequest req;
    bool files = !ro->terminal || rep->count("--format") || rep->count("--out");
    if (files) req.formats = report::parse_formats(ro->formats);
    req.out_dir = ro->out.empty() ? workdir / "report" : fs::absolute(ro->out);
    auto r = report::make_report(catalog, *campaign, rec.id, req, ro->terminal ? &std::cout : nullptr);
    for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
    if (files) std::cout << "wrote " << r.files.size() << " files to " << req.out_dir.string() << "\n";
  });
}

}  // namespace campaign::cli

// `campaign report`: the campaign's analyses (scaling tables, aggregates) written as reports with plots.
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "report/input.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

std::optional<fs::path> write_final_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t id,
                                           const fs::path& workdir) {
  if (campaign.analyses.empty()) return std::nullopt;
  report::ReportRequest req;
  req.formats = report::parse_formats("all");
  req.out_dir = workdir / "report";
  auto r = report::make_report(catalog, campaign, id, req, nullptr);
  for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
  return req.out_dir / "report.html";
}

void add_report(CLI::App& app) {
  struct ReportOptions {
    std::string target;
    std::string system, workdir;
    std::string formats = "md,csv,json,html";
    std::string out;
    bool terminal = false;
    SelectOptions select;
  };
  auto ro = std::make_shared<ReportOptions>();
  auto* rep = app.add_subcommand("report",
                                 "Compute the campaign's analyses (weak/strong scaling tables, aggregates) "
                                 "and write reports with plots. Times are taken after the warm-up: steps "
                                 "below an analysis' time.warmup (default 1: epoch 0 is left out; "
                                 "warmup: 0 keeps it) are dropped, and each report says so");
  rep->add_option("TARGET", ro->target, "Campaign file or work directory (default: the current directory)");
  rep->add_option("-s,--system", ro->system, "System profile, as for run (with a campaign file)");
  rep->add_option("-w,--workdir", ro->workdir, "Work directory, as for run (with a campaign file)");
  rep->add_option("--format", ro->formats, "Comma-separated: md, csv, json, html (or all)")
      ->capture_default_str()
      ->check([](const std::string& list) {  // bad input: exit status 2 before anything is read
        try {
          report::parse_formats(list);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      });
  rep->add_option("-o,--out", ro->out, "Output directory (default: WORKDIR/report)");
  rep->add_flag("--terminal", ro->terminal,
                "Print the tables here (and write files only if --format/--out is given)");
  add_select_options(*rep, ro->select, "in the analyses (the report's header says which)");
  rep->callback([ro, rep] {
    const matrix::Selection selection = selection_of(ro->select, "campaign report");
    std::string target = ro->target.empty() ? "." : ro->target;
    fs::path workdir;
    std::optional<spec::Campaign> campaign;
    if (fs::is_directory(target)) {
      workdir = fs::absolute(target);
    } else {
      Loaded l = load(CampaignOptions{target, ro->system, ro->workdir, matrix::Fit::skip});
      workdir = l.workdir;
      campaign = l.campaign;
    }
    if (!fs::exists(Catalog::db_path(workdir))) throw Error("no catalog in " + workdir.string());
    Catalog catalog = Catalog::open_for_reading(workdir);
    auto all = catalog.campaigns();
    if (all.empty()) throw Error("no campaign in " + workdir.string());
    const CampaignRecord& rec = campaign ? *catalog.find_campaign(campaign->name) : all.front();
    if (!campaign) campaign = report::stored_campaign(rec, workdir);
    report::ReportRequest req;
    bool files = !ro->terminal || rep->count("--format") || rep->count("--out");
    if (files) req.formats = report::parse_formats(ro->formats);
    req.out_dir = ro->out.empty() ? workdir / "report" : fs::absolute(ro->out);
    if (!selection.empty()) {
      req.cases.emplace();
      const std::set<std::int64_t> chosen = chosen_cases(catalog, selection, false, "campaign report");
      for (auto& k : catalog.cases_of(rec.id))
        if (chosen.count(k.id)) req.cases->insert(k.name);
      if (req.cases->empty())
        throw InputError({"campaign report"}, "--case/--only",
                         selection.describe() + ": no case of campaign " + rec.name + " matches");
      req.chosen = selection.describe();
    }
    auto r = report::make_report(catalog, *campaign, rec.id, req, ro->terminal ? &std::cout : nullptr);
    for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
    if (files) std::cout << "wrote " << r.files.size() << " files to " << req.out_dir.string() << "\n";
  });
}

}  // namespace campaign::cli

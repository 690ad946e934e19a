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
  };
  auto ro = std::make_shared<ReportOptions>();
  auto* rep = app.add_subcommand("report",
                                 "Compute the campaign's analyses (weak/strong scaling tables, aggregates) "
                                 "and write reports with plots");
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
  rep->callback([ro, rep] {
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
    auto r = report::make_report(catalog, *campaign, rec.id, req, ro->terminal ? &std::cout : nullptr);
    for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
    if (files) std::cout << "wrote " << r.files.size() << " files to " << req.out_dir.string() << "\n";
  });
}

}  // namespace campaign::cli

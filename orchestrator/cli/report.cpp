// `campaign report`: the campaign's analyses (scaling tables, aggregates) written as reports with plots.
#include <iostream>

#include "catalog/catalog.hpp"
#include "cli/cli.hpp"
#include "report/input.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

std::optional<fs::path> write_final_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t id,
                                           const fs::path& workdir) {
  return write_final_report(catalog, {FinalPart{&campaign, "", id, false}}, workdir).path;
}

void add_reference_checks(report::ReportRequest& request, const std::vector<FinalPart>& parts,
                          history::ReferenceSummary& summary) {
  const spec::Campaign& campaign = *parts.front().campaign;
  if (campaign.references.empty()) return;
  // One system: its cases, whatever their `system` parameter says; several: each case's.
  const std::string system = parts.front().part ? "" : parts.front().system;
  request.extra = [&campaign, system, &summary](const std::vector<analysis::CaseResult>& cases) {
    summary = history::check_references(campaign.references, campaign.analyses, cases, system);
    std::vector<analysis::AnalysisResult> out;
    if (summary.checked) out.push_back(history::reference_table(summary));
    return out;
  };
}

FinalReport write_final_report(Catalog& catalog, const std::vector<FinalPart>& parts,
                               const fs::path& catalog_dir) {
  FinalReport out;
  const spec::Campaign& campaign = *parts.front().campaign;
  if (campaign.analyses.empty() && campaign.references.empty()) return out;
  report::ReportRequest req;
  req.formats = report::parse_formats("all");
  req.out_dir = catalog_dir / "report";
  add_reference_checks(req, parts, out.references);
  std::vector<std::int64_t> ids;
  for (auto& p : parts) ids.push_back(p.campaign_id);
  auto r = report::make_report(catalog, campaign, ids, req, nullptr);
  for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
  out.path = req.out_dir / "report.html";
  return out;
}

void add_report(CLI::App& app, int& status) {
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
  rep->callback([ro, rep, &status] {
    const matrix::Selection selection = selection_of(ro->select, "campaign report");
    std::string target = ro->target.empty() ? "." : ro->target;
    fs::path workdir;
    std::vector<spec::Campaign> campaigns;  // each part's, or the one
    std::vector<std::string> names;         // their catalog names
    if (fs::is_directory(target)) {
      workdir = fs::absolute(target);
    } else {
      for (auto& l : load_all(CampaignOptions{target, ro->system, ro->workdir, matrix::Fit::skip})) {
        workdir = l.catalog_dir;
        names.push_back(l.campaign.catalog_name());
        campaigns.push_back(std::move(l.campaign));
      }
    }
    if (!fs::exists(Catalog::db_path(workdir))) throw Error("no catalog in " + workdir.string());
    Catalog catalog = Catalog::open_for_reading(workdir);
    auto all = catalog.campaigns();
    if (all.empty()) throw Error("no campaign in " + workdir.string());
    std::vector<CampaignRecord> records;
    if (campaigns.empty()) {
      // A work directory: its campaign, with every part of it where it ran on several systems (rows
      // named NAME@SYSTEM of the same campaign file).
      campaigns.push_back(report::stored_campaign(all.front(), workdir));
      const std::string base = campaigns.front().name;
      for (auto& c : all)
        if (c.id == all.front().id ||
            (c.spec_hash == all.front().spec_hash && is_part_of(all.front(), base) && is_part_of(c, base)))
          records.push_back(c);
    } else {
      for (auto& n : names) {
        auto rec = catalog.find_campaign(n);
        if (!rec) throw Error("campaign " + n + " has not run in " + workdir.string() + " yet");
        records.push_back(*rec);
      }
    }
    std::vector<FinalPart> parts;
    for (size_t i = 0; i < records.size(); ++i)
      parts.push_back({&campaigns[std::min(i, campaigns.size() - 1)], records[i].system, records[i].id,
                       is_part_of(records[i], campaigns.front().name)});
    report::ReportRequest req;
    bool files = !ro->terminal || rep->count("--format") || rep->count("--out");
    if (files) req.formats = report::parse_formats(ro->formats);
    req.out_dir = ro->out.empty() ? workdir / "report" : fs::absolute(ro->out);
    if (!selection.empty()) {
      req.cases.emplace();
      const std::set<std::int64_t> chosen = chosen_cases(catalog, selection, false, "campaign report");
      for (auto& p : parts)
        for (auto& k : catalog.cases_of(p.campaign_id))
          if (chosen.count(k.id))
            req.cases->insert(parts.size() > 1 ? report::case_in_report(p.system, k.name) : k.name);
      if (req.cases->empty())
        throw InputError({"campaign report"}, "--case/--only",
                         selection.describe() + ": no case of campaign " + records.front().name + " matches");
      req.chosen = selection.describe();
    }
    history::ReferenceSummary references;
    add_reference_checks(req, parts, references);
    std::vector<std::int64_t> ids;
    for (auto& p : parts) ids.push_back(p.campaign_id);
    auto r = report::make_report(catalog, campaigns.front(), ids, req, ro->terminal ? &std::cout : nullptr);
    for (auto& w : r.warnings) std::cerr << "campaign: warning: " << w << "\n";
    if (files) std::cout << "wrote " << r.files.size() << " files to " << req.out_dir.string() << "\n";
    if (references.checked) {
      history::print_reference_summary(references, std::cerr);
      if (references.out) status = 3;
    }
  });
}

}  // namespace campaign::cli

// report.html: one self-contained file - CSS inline, plots embedded as data
// URIs (SVG, else PNG) - that can be mailed or archived without its folder.
#include <sstream>

#include "report/writers.hpp"
#include "util/strings.hpp"

namespace campaign::report {

std::string table_html(const analysis::Table& t) {
  std::ostringstream h;
  h << "<div class=\"scroll\"><table>\n<tr>";
  for (const auto& c : t.columns) {
    auto u = t.units.find(c);
    h << "<th>" << html_escape(c) << (u == t.units.end() ? "" : " [" + html_escape(u->second) + "]")
      << "</th>";
  }
  h << "</tr>\n";
  std::vector<std::vector<std::string>> text = analysis::formatted(t);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    h << "<tr>";
    for (size_t i = 0; i < t.rows[r].size(); ++i)
      h << (std::holds_alternative<std::string>(t.rows[r][i]) ? "<td>" : "<td class=\"num\">")
        << html_escape(text[r][i]) << "</td>";
    h << "</tr>\n";
  }
  h << "</table></div>\n";
  return h.str();
}

}  // namespace campaign::report

namespace campaign::report::detail {

using analysis::Table;

namespace {

std::string esc(const std::string& s) { return html_escape(s); }

// The first two plot series colours (#1f77b4, #d62728) appear nowhere in this
// style, so a screenshot test can tell the plots are drawn by their colours.
const char* kStyle = R"(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1b1f23;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { border-bottom: 2px solid #34495e; padding-bottom: .3em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; }
th { background: #f0f4f8; text-align: center; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #f8fafc; }
table.prov th { text-align: left; }
code { background: #f0f2f4; padding: 0 4px; border-radius: 3px; }
.notice { border-left: 4px solid #e0a800; background: #fffbea; padding: .6em 1em; margin: 1em 0; }
.note { color: #444; }
figure { margin: 1em 0; }
figure img { width: 100%; max-width: 900px; height: auto; border: 1px solid #eee; }
.scroll { overflow-x: auto; }
)";

}  // namespace

std::string html(const Context& ctx) {
  const ReportInput& in = ctx.input;
  const Provenance& p = in.provenance;
  std::string title = "Campaign report" + (p.campaign.empty() ? "" : ": " + p.campaign);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>" << esc(title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
    << "<h1>" << esc(title) << "</h1>\n<table class=\"prov\">\n";
  auto row = [&](const std::string& k, const std::string& v, bool code = false) {
    if (v.empty()) return;
    h << "<tr><th>" << esc(k) << "</th><td>" << (code ? "<code>" + esc(v) + "</code>" : esc(v))
      << "</td></tr>\n";
  };
  row("Campaign", p.campaign);
  row("Campaign file (sha256)", p.campaign_hash, true);
  row("System", p.system);
  row("Code version", p.code_version, true);
  row("Tags", p.tags);
  row("Cases", p.cases);
  if (p.job_ids.size() > 40)  // every id, folded: the row alone would hide all but the first 40
    h << "<tr><th>Jobs</th><td><details><summary>"
      << esc(std::to_string(p.job_ids.size()) + ": " + abbreviate(p.job_ids, 40)) << "</summary>"
      << esc(join(p.job_ids, ", ")) << "</details></td></tr>\n";
  else
    row("Jobs", p.job_ids.empty() ? "" : std::to_string(p.job_ids.size()) + ": " + join(p.job_ids, ", "));
  row("Nodes", p.nodes.empty() ? "" : abbreviate(p.nodes, 40));
  if (!p.first_start.empty() || !p.last_end.empty()) row("Runs", p.first_start + " to " + p.last_end);
  row("Generated", ctx.generated);
  h << "</table>\n";
  if (!ctx.plot_status.empty())
    h << "<p class=\"notice\"><b>Tables only:</b> " << esc(ctx.plot_status) << "</p>\n";
  for (const auto& w : ctx.warnings) h << "<p class=\"notice\">Warning: " << html_prose(w) << "</p>\n";

  for (const auto& a : in.analyses) {
    h << "<h2 id=\"" << esc(a.spec.name) << "\">" << esc(a.spec.name) << "</h2>\n<p>"
      << html_prose(describe(a.spec)) << "</p>\n";
    for (const auto& n : a.notes) h << "<p class=\"note\">Note: " << html_prose(n) << "</p>\n";
    if (a.tables.empty()) h << "<p>No usable cases.</p>\n";
    for (const auto& t : a.tables) {
      if (std::string title = heading(a, t); !title.empty()) h << "<h3>" << esc(title) << "</h3>\n";
      auto f = ctx.files.find(t.stem());
      if (f != ctx.files.end() && (f->second.svg || f->second.png)) {
        const TableFiles& files = f->second;
        std::string alt = a.spec.name + (t.group.empty() ? "" : ", " + t.group_label());
        std::string src = files.svg ? "data:image/svg+xml;base64," + base64(files.svg_text)
                                    : "data:image/png;base64," + base64(files.png_bytes);
        h << "<figure><img alt=\"" << esc(alt) << "\" src=\"" << src << "\"></figure>\n";
      }
      if (f != ctx.files.end()) {
        std::vector<std::string> links;
        for (auto& [label, href] : data_links(f->second, t.stem()))
          links.push_back("<a href=\"" + esc(href) + "\">" + esc(label) + "</a>");
        if (!links.empty()) h << "<p class=\"files\">" << join(links, " · ") << "</p>\n";
      }
      if (t.detail)
        h << "<p>" << t.rows.size() << " rows of " << t.columns.size()
          << " columns, in the CSV and JSON files.</p>\n";
      else
        h << table_html(t);
      for (const auto& n : t.notes) h << "<p class=\"note\">" << html_prose(n) << "</p>\n";
    }
  }

  std::vector<LeftOut> out = left_out(in);
  if (!out.empty()) {
    h << "<h2 id=\"left-out\">Cases left out</h2>\n<p>Cases in scope that are not in the tables above, and "
         "why.</p>\n"
      << "<div "
         "class=\"scroll\"><table>\n<tr><th>case</th><th>state</th><th>analysis</th><th>reason</th></tr>\n";
    for (const auto& l : out)
      h << "<tr><td>" << esc(l.c.case_name) << "</td><td>" << esc(l.c.state) << "</td><td>" << esc(l.analysis)
        << "</td><td>" << esc(l.c.reason) << "</td></tr>\n";
    h << "</table></div>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace campaign::report::detail

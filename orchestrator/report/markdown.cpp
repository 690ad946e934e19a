// report.md: GitHub/GitLab-flavoured Markdown with pipe tables and plots
// linked relative to the report, so the folder can be committed or browsed as is.
#include <sstream>

#include "report/writers.hpp"

namespace campaign::report::detail {

using analysis::Table;

namespace {

std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

std::string header(const Table& t, const std::string& column) {
  auto it = t.units.find(column);
  return it == t.units.end() ? column : column + " [" + it->second + "]";
}

void pipe_table(std::ostringstream& md, const Table& t) {
  md << "|";
  for (const auto& c : t.columns) md << " " << cell(header(t, c)) << " |";
  md << "\n|";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    bool text = !t.rows.empty() && std::holds_alternative<std::string>(t.rows[0][i]);
    md << (text ? ":---|" : "---:|");
  }
  md << "\n";
  for (const auto& row : analysis::formatted(t)) {
    md << "|";
    for (const auto& c : row) md << " " << cell(c) << " |";
    md << "\n";
  }
}

}  // namespace

std::string markdown(const Context& ctx) {
  const ReportInput& in = ctx.input;
  const Provenance& p = in.provenance;
  std::ostringstream md;
  md << "# Campaign report" << (p.campaign.empty() ? "" : ": " + cell(p.campaign)) << "\n\n";
  md << "| | |\n|---|---|\n";
  auto row = [&](const std::string& k, const std::string& v, bool code = false) {
    if (v.empty()) return;
    md << "| " << k << " | ";
    if (code)
      md << '`' << cell(v) << '`';
    else
      md << cell(v);
    md << " |\n";
  };
  row("Campaign", p.campaign);
  row("Campaign file (sha256)", p.campaign_hash, true);
  row("System", p.system);
  row("Code version", p.code_version, true);
  row("Tags", p.tags);
  row("Cases", p.cases);
  row("Jobs", p.job_ids.empty() ? ""
                                : std::to_string(p.job_ids.size()) + ": " + abbreviate(p.job_ids, 12) +
                                      (p.job_ids.size() > 12 ? " (report.html lists them all)" : ""));
  row("Nodes", p.nodes.empty() ? "" : abbreviate(p.nodes, 12));
  if (!p.first_start.empty() || !p.last_end.empty()) row("Runs", p.first_start + " to " + p.last_end);
  row("Generated", ctx.generated);
  md << "\n";
  if (!ctx.plot_status.empty()) md << "> **Tables only:** " << ctx.plot_status << "\n\n";
  for (const auto& w : ctx.warnings) md << "> Warning: " << cell(w) << "\n\n";

  for (const auto& a : in.analyses) {
    md << "## " << a.spec.name << "\n\n" << describe(a.spec) << "\n\n";
    for (const auto& n : a.notes) md << "- Note: " << n << "\n";
    if (!a.notes.empty()) md << "\n";
    if (a.tables.empty()) md << "No usable cases.\n\n";
    for (const auto& t : a.tables) {
      const std::string stem = t.stem();
      if (std::string h = heading(a, t); !h.empty()) md << "### " << cell(h) << "\n\n";
      auto f = ctx.files.find(stem);
      TableFiles files = f == ctx.files.end() ? TableFiles{} : f->second;
      if (files.png || files.svg)
        md << "![" << a.spec.name << (t.group.empty() ? "" : ", " + t.group_label()) << "](" << stem
           << (files.png ? ".png" : ".svg") << ")\n\n";
      std::vector<std::string> links;
      for (auto& [label, href] : data_links(files, stem)) links.push_back("[" + label + "](" + href + ")");
      if (!links.empty()) {
        for (size_t i = 0; i < links.size(); ++i) md << (i ? " · " : "") << links[i];
        md << "\n\n";
      }
      if (t.detail)  // a curve or one row per iteration: the plot and the files say it better
        md << t.rows.size() << " rows of " << t.columns.size() << " columns, in the CSV and JSON files.\n\n";
      else
        pipe_table(md, t), md << "\n";
      for (const auto& n : t.notes) md << "- " << cell(n) << "\n";
      if (!t.notes.empty()) md << "\n";
    }
  }

  std::vector<LeftOut> out = left_out(in);
  if (!out.empty()) {
    md << "## Cases left out\n\n"
       << "Cases in scope that are not in the tables above, and why.\n\n"
       << "| case | state | analysis | reason |\n|:---|:---|:---|:---|\n";
    for (const auto& l : out)
      md << "| " << cell(l.c.case_name) << " | " << cell(l.c.state) << " | " << cell(l.analysis) << " | "
         << cell(l.c.reason) << " |\n";
    md << "\n";
  }
  return md.str();
}

}  // namespace campaign::report::detail

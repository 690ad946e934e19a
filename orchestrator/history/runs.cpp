// Implements history/runs.hpp.
#include "history/runs.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "analysis/scaling.hpp"
#include "report/input.hpp"

namespace fs = std::filesystem;

namespace campaign::history {

namespace {

void search(const fs::path& dir, const fs::path& root, int depth,
            std::vector<std::pair<fs::path, fs::path>>& out) {
  std::error_code ec;
  if (fs::exists(Catalog::db_path(dir), ec)) {
    out.emplace_back(dir, root);
    return;  // a work directory holds run directories, not other work directories
  }
  if (depth <= 0) return;
  std::vector<fs::path> subdirs;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (it->is_directory(ec) && !it->is_symlink(ec)) subdirs.push_back(it->path());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& d : subdirs) search(d, root, depth - 1, out);
}

}  // namespace

std::string Run::date() const { return report::format_utc(order); }

RunSearch find_runs(const std::vector<fs::path>& roots, const std::string& name, int depth) {
  RunSearch result;
  std::vector<std::pair<fs::path, fs::path>> dirs;  // (work directory, root it was found under)
  for (const auto& root : roots)
    search(fs::absolute(root).lexically_normal(), fs::absolute(root).lexically_normal(), depth, dirs);
  std::set<std::string> names;
  std::set<fs::path> seen;
  for (const auto& [dir, root] : dirs) {
    if (!seen.insert(dir).second) continue;
    try {
      Catalog catalog = Catalog::open_for_reading(dir);
      for (auto& c : catalog.campaigns()) {
        names.insert(c.name);
        if (!name.empty() && c.name != name) continue;
        Run r;
        r.workdir = dir;
        fs::path rel = dir.lexically_relative(root);
        r.name = rel.empty() || rel == "." ? dir.filename().string() : rel.string();
        r.order = c.code.date.value_or(c.created);
        r.campaign = std::move(c);
        result.runs.push_back(std::move(r));
      }
    } catch (const Error& e) {
      result.warnings.push_back(dir.string() + ": " + e.what());
    }
  }
  std::stable_sort(result.runs.begin(), result.runs.end(), [](const Run& a, const Run& b) {
    return std::tie(a.order, a.campaign.created, a.name) < std::tie(b.order, b.campaign.created, b.name);
  });
  result.campaigns.assign(names.begin(), names.end());
  return result;
}

std::vector<size_t> match_runs(const std::vector<Run>& runs, const std::string& ref) {
  std::vector<size_t> out;
  const bool hex = ref.size() >= 4 && std::all_of(ref.begin(), ref.end(), [](char c) {
                     return std::isxdigit(static_cast<unsigned char>(c));
                   });
  std::string lower = ref;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    bool match = r.campaign.code.version == ref || r.name == ref || r.workdir.filename().string() == ref ||
                 (hex && r.campaign.code.commit.rfind(lower, 0) == 0);
    if (match) out.push_back(i);
  }
  return out;
}

Extraction measure(const Run& run, const MetricQuery& query) {
  return measure(run, std::vector{query}).front();
}

std::vector<Extraction> measure(const Run& run, const std::vector<MetricQuery>& queries) {
  Catalog catalog = Catalog::open_for_reading(run.workdir);
  std::vector<analysis::AnalysisSpec> specs;
  try {
    specs = *report::stored_analyses(run.campaign, run.workdir);
  } catch (const Error& e) {
    spdlog::warn("{}: the campaign stored with this run does not parse ({}); only collected metrics are read",
                 run.name, e.what());
  }
  std::set<std::string> wanted = report::metrics_used(specs);
  for (const auto& q : queries) wanted.insert(q.head);
  auto cases = report::case_results(catalog, run.campaign.id, wanted, report::sampled_used(specs));
  auto analyses = analysis::analyze_all(specs, cases);
  std::vector<Extraction> out;
  std::optional<std::vector<analysis::CaseResult>> all;
  for (const auto& q : queries) {
    Extraction e = extract(q, analyses, cases);
    if (e.values.empty()) {
      // Say what there is: every metric's name, for "did you mean".
      if (!all) all = report::case_results(catalog, run.campaign.id);
      e.names = extract(q, analyses, *all).names;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace campaign::history

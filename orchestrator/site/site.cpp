// Implements site/site.hpp: reading the runs and writing the pages.
#include "site/site.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "history/following.hpp"
#include "report/input.hpp"
#include "site/pages.hpp"
#include "site/stalls.hpp"
#include "util/atomic_file.hpp"
#include "util/state.hpp"

namespace fs = std::filesystem;

namespace campaign::site {

namespace {

// Names unique within one folder: a second "a_b" becomes "a_b-2".
class Names {
 public:
  std::string take(const std::string& text) {
    std::string base = slug(text), name = base;
    for (int n = 2; !used_.insert(name).second; ++n) name = base + "-" + std::to_string(n);
    return name;
  }

 private:
  std::set<std::string> used_;
};

}  // namespace

std::vector<ProfileRow> profile_rows(const std::vector<MetricRow>& metrics) {
  static const char* const kFamilies[] = {"component", "tau_exclusive", "nsys_time"};
  std::vector<ProfileRow> out;
  for (const char* family : kFamilies) {
    const std::string prefix = std::string(family) + ":";
    std::map<std::string, ProfileRow> rows;
    for (const auto& m : metrics) {
      if (m.attempt_state != State::collected || m.name.compare(0, prefix.size(), prefix) != 0) continue;
      if (m.step || m.instance || std::isnan(m.value)) continue;  // whole-run values only
      ProfileRow& r = rows[m.name.substr(prefix.size())];
      r.family = family, r.name = m.name.substr(prefix.size()), r.unit = m.unit;
      r.value += m.value, ++r.cases;
    }
    std::vector<ProfileRow> part;
    for (auto& [_, r] : rows) {
      r.value /= static_cast<double>(r.cases);
      part.push_back(r);
    }
    std::sort(part.begin(), part.end(),
              [](const ProfileRow& a, const ProfileRow& b) { return a.value > b.value; });
    if (part.size() > kProfileRows) part.resize(kProfileRows);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

namespace {

// Cases, their outcome, the node-hours, the profiler summaries and the data stalls of one run, from its
// catalog.
void count_cases(RunPage& r) {
  Catalog catalog = Catalog::open_for_reading(r.run.workdir);
  for (const auto& a : catalog.latest_attempts(r.run.campaign.id)) {
    if (!a.in_spec) continue;
    ++r.cases;
    if (a.state == State::collected || a.state == State::completed)
      ++r.completed;
    else if (is_final(a.state))
      ++r.failed;
  }
  r.node_hours = catalog.consumed_node_hours(r.run.campaign.id);
  r.profile = profile_rows(catalog.metrics_of(r.run.campaign.id));
  r.stalls = run_stalls(catalog, r.run);
}

CampaignSite campaign_site(const std::string& name, std::vector<history::Run> runs,
                           const std::vector<std::string>& extra, const fs::path& out,
                           std::vector<fs::path>& files) {
  CampaignSite c;
  c.name = name;
  const std::string dir = slug(name);
  // The newest run's campaign says what to follow and how to link commits.
  history::Following settings = history::following(runs.back());
  c.note = settings.problem;
  const size_t defaults = settings.defaults ? settings.metrics.size() : 0;
  for (const auto& m : extra) settings.metrics.push_back(spec::Tracked{.metric = m});
  // The references of the runs' system: each a metric followed, with its band.
  std::vector<spec::Reference> references;
  try {
    for (auto& r : report::stored_campaign(runs.back().campaign, runs.back().workdir).references)
      if (r.system == runs.back().campaign.system) references.push_back(r);
  } catch (const InputError&) {
    // a campaign that no longer parses: `following` said so in settings.problem
  }
  for (const auto& r : references)
    if (std::none_of(settings.metrics.begin(), settings.metrics.end(),
                     [&](const spec::Tracked& t) { return t.metric == r.metric; }))
      settings.metrics.push_back(spec::Tracked{.metric = r.metric});
  if (settings.metrics.empty() && c.note.empty())
    c.note = "No metric is tracked: list them under `track:` in the campaign (or pass --track METRIC).";
  else if (defaults > 0)
    c.note =
        "Followed by default (marked default): each analysis' headline columns, as the campaign has no "
        "`track:`; list metrics under `track:` to choose them.";

  Names run_names;
  for (auto& run : runs) {
    RunPage r;
    r.run = run;
    const std::string stem = run_names.take(run.name);
    r.page = "runs/" + dir + "/" + stem + ".html";
    try {
      count_cases(r);
    } catch (const Error& e) {  // read a moment ago by find_runs: only a run changing under us
      c.note += (c.note.empty() ? "" : " ") + run.name + ": cases not counted (" + e.what() + ").";
    }
    const fs::path report = run.workdir / "report" / "report.html";
    std::error_code ec;
    if (fs::is_regular_file(report, ec)) {
      r.report = "runs/" + dir + "/" + stem + "/report.html";
      fs::create_directories((out / r.report).parent_path());
      fs::copy_file(report, out / r.report, fs::copy_options::overwrite_existing);
      files.push_back(out / r.report);
      // The data files report.html links to (CSV, JSON, gnuplot script and data, SVG), so its links
      // resolve on the site too; hard links where the file system allows (a site of 1,000 runs).
      for (fs::directory_iterator it(report.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string ext = it->path().extension().string();
        if (ext != ".csv" && ext != ".json" && ext != ".gp" && ext != ".dat" && ext != ".svg") continue;
        const fs::path to = (out / r.report).parent_path() / it->path().filename();
        std::error_code link_ec;
        fs::remove(to, link_ec);
        fs::create_hard_link(it->path(), to, link_ec);
        if (link_ec) fs::copy_file(it->path(), to, fs::copy_options::overwrite_existing);
        files.push_back(to);
      }
    }
    if (!settings.commit_url.empty() && !run.campaign.code.commit.empty())
      r.commit_link = spec::commit_url(settings.commit_url, run.campaign.code.commit);
    c.runs.push_back(std::move(r));
  }
  Names metric_names;
  std::vector<Track> tracks = track(runs, name, settings.metrics);
  for (size_t i = 0; i < tracks.size(); ++i) {
    Track& t = tracks[i];
    t.by_default = i < defaults;
    for (const auto& r : references)
      if (r.metric == t.spec.metric) t.reference = r;
    MetricPage m;
    m.page = "metrics/" + dir + "/" + metric_names.take(t.spec.metric) + ".html";
    m.track = std::move(t);
    c.metrics.push_back(std::move(m));
  }
  return c;
}

void write(const fs::path& path, const std::string& text, std::vector<fs::path>& files) {
  fs::create_directories(path.parent_path());
  write_file_atomic(path, text);
  files.push_back(path);
}

}  // namespace

std::string slug(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                      ch == '-' || ch == '_' || ch == '.';
    out += keep ? ch : '_';
  }
  if (out.empty() || out[0] == '.') out = "_" + out;  // never hidden, never "." or ".."
  return out;
}

std::vector<std::string> regressions(const Site& site) {
  std::vector<std::string> out;
  for (const auto& c : site.campaigns)
    for (const auto& m : c.metrics)
      for (const auto& s : m.track.history.regressed(false))
        out.push_back(c.name + " " + m.track.spec.metric + (s.empty() ? "" : " " + s));
  return out;
}

SiteResult build_site(const std::vector<fs::path>& roots, const std::string& campaign,
                      const std::vector<std::string>& extra, const fs::path& out) {
  SiteResult result;
  history::RunSearch found = history::find_runs(roots, campaign);
  for (const auto& w : found.warnings) {
    // find_runs says "DIR: REASON".
    const size_t colon = w.find(": ");
    result.site.skipped.push_back(
        colon == std::string::npos ? Skipped{w, ""} : Skipped{w.substr(0, colon), w.substr(colon + 2)});
  }
  std::map<std::string, std::vector<history::Run>> by_campaign;  // each oldest first, as found
  for (auto& r : found.runs) by_campaign[r.campaign.name].push_back(std::move(r));
  for (auto& [name, runs] : by_campaign)
    result.site.campaigns.push_back(campaign_site(name, std::move(runs), extra, out, result.files));
  result.site.generated =
      report::format_utc(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));

  const Site& site = result.site;
  write(out / "index.html", index_html(site), result.files);
  for (const auto& c : site.campaigns) {
    for (size_t i = 0; i < c.runs.size(); ++i) write(out / c.runs[i].page, run_html(c, i), result.files);
    for (size_t i = 0; i < c.metrics.size(); ++i)
      write(out / c.metrics[i].page, metric_html(c, i), result.files);
  }
  return result;
}

}  // namespace campaign::site

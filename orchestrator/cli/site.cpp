// `campaign site [PATH...] [--out DIR]`: a static website of every campaign's
// runs under PATH (as `campaign history` finds them) with its tracked metrics;
// exit status 3 when the latest run of a tracked metric regressed, as history.
#include "site/site.hpp"

#include <iostream>

#include "cli/cli.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::cli {

namespace {

struct SiteOptions {
  std::vector<std::string> paths;
  std::string out;
  std::string campaign;
  std::vector<std::string> track;
};

const char* kFooter =
    R"(Metrics: those under `track:` in the campaign stored with the newest run, in the METRIC syntax of
`campaign history` (see campaign history --help), each as a string or {metric:, better:, threshold:}:
  track:
    - throughputs@ranks=4
    - {metric: median(epoch_time)@ranks=max, threshold: 5}
  commit_url: https://github.com/org/repo/commit/{{commit}}   # each run's commit links there

Runs: every work directory at or up to 4 levels under each PATH (default: .); one whose catalog cannot
be read (corrupt, or of a newer schema) is listed as skipped with the reason. Each metric is judged
against the oldest run, as `campaign history` does without --baseline.

Exit status: 0 no regression, 3 the latest run of a tracked metric regressed beyond its threshold,
1 no runs, 2 bad options.)";

int run_site(const SiteOptions& o) {
  std::vector<fs::path> roots;
  for (const auto& p : o.paths) {
    if (!fs::is_directory(p)) throw InputError({"campaign site"}, "PATH", "'" + p + "' is not a directory");
    roots.emplace_back(p);
  }
  if (roots.empty()) roots.emplace_back(".");
  const fs::path out = o.out.empty() ? fs::absolute(roots.front()) / "site" : fs::absolute(o.out);
  site::SiteResult r = site::build_site(roots, o.campaign, o.track, out);
  for (const auto& s : r.site.skipped)
    std::cerr << "campaign: warning: skipped " << s.dir << ": " << s.reason << "\n";
  size_t runs = 0;
  for (const auto& c : r.site.campaigns) {
    runs += c.runs.size();
    for (const auto& m : c.metrics)
      if (!m.track.problem.empty())
        std::cerr << "campaign: warning: " << c.name << ": " << m.track.spec.metric << ": " << m.track.problem
                  << "\n";
  }
  std::cout << "site: " << (out / "index.html").string() << " (" << runs << " runs, " << r.files.size()
            << " files)\n";
  if (runs == 0) {
    std::cerr
        << "campaign: error: no runs under the given paths (a run is a work directory with a campaign.db)\n";
    return 1;
  }
  auto regressed = site::regressions(r.site);
  for (const auto& g : regressed) std::cout << "REGRESSION: " << g << "\n";
  return regressed.empty() ? 0 : 3;
}

}  // namespace

void add_site(CLI::App& app, int& status) {
  auto o = std::make_shared<SiteOptions>();
  auto* cmd = app.add_subcommand("site",
                                 "Write a static website of the runs under PATH: tracked metrics across "
                                 "commits relative to the first run, "
                                 "a page per run and per metric; exit status 3 on a regression");
  cmd->add_option("PATH", o->paths, "Directories to search for work directories (default: .)");
  cmd->add_option("-o,--out", o->out, "Directory of the site (default: FIRST_PATH/site)");
  cmd->add_option("-c,--campaign", o->campaign, "Only this campaign (default: every campaign found)");
  cmd->add_option("--track", o->track, "A metric to follow besides the campaign's `track:` (repeatable)");
  cmd->footer(kFooter);
  cmd->callback([o, &status] { status = run_site(*o); });
}

}  // namespace campaign::cli

// write_report and its writers: files, links, inline plots, the no-gnuplot
// fallback, a failing gnuplot, and the terminal tables.
#include "report/report.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "fixtures.hpp"
#include "report/process.hpp"
#include "report/writers.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

using namespace campaign::report;
using fixtures::slurp;
using fixtures::TempDir;
namespace fs = std::filesystem;

namespace {

bool have_gnuplot() { return find_executable("gnuplot", environment_path()).has_value(); }

// Every target of a Markdown link or image: ](target)
std::vector<std::string> md_links(const std::string& md) {
  std::vector<std::string> out;
  std::regex link(R"(\]\(([^)\s]+)\))");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("formats parse by name with a suggestion for typos", "[report]") {
  CHECK(parse_formats("md,html") == std::vector<Format>{Format::md, Format::html});
  CHECK(parse_formats(" csv , json,csv") == std::vector<Format>{Format::csv, Format::json});
  CHECK(parse_formats("all").size() == 4);
  CHECK_THROWS_WITH(parse_formats("md,htm"), Catch::Contains("unknown report format 'htm'") &&
                                                 Catch::Contains("did you mean 'html'?"));
  CHECK_THROWS_AS(parse_formats(""), campaign::Error);
}

TEST_CASE("provenance collects each job, node list and the run dates once", "[report]") {
  Provenance p;
  p.job_ids = {"1"};
  std::vector<campaign::analysis::CaseResult> cases(3);
  cases[0].job_id = "1", cases[0].nodelist = "nid[1-2]", cases[0].start = "2024-03-02T10:00:00";
  cases[1].job_id = "2", cases[1].nodelist = "nid[1-2]", cases[1].end = "2024-03-03T08:00:00";
  cases[2].job_id = "3", cases[2].start = "2024-03-01T09:00:00", cases[2].end = "2024-03-01T10:00:00";
  add_runs(p, cases);
  CHECK(p.job_ids == std::vector<std::string>{"1", "2", "3"});
  CHECK(p.nodes == std::vector<std::string>{"nid[1-2]"});
  CHECK(p.first_start == "2024-03-01T09:00:00");
  CHECK(p.last_end == "2024-03-03T08:00:00");
}

TEST_CASE("csv and json carry every table at full precision", "[report]") {
  TempDir dir;
  ReportInput in = fixtures::sample_input();
  ReportResult r = write_report(in, {Format::csv, Format::json}, dir.path);
  CHECK_FALSE(r.plotted);  // no md/html: no plots wanted
  CHECK_FALSE(fs::exists(dir.path / "weak_scaling-gpu.gp"));
  CHECK_FALSE(fs::exists(dir.path / "report.md"));
  REQUIRE(r.files.size() == 4);

  std::string csv = slurp(dir.path / "weak_scaling-gpu.csv");
  std::istringstream lines(csv);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  CHECK(header ==
        "ranks,samples,times,times_std,times_min,times_median,throughputs,throughputs_std,throughputs_min,"
        "throughputs_median,ideal,eff,count,times_dummy,times_std_dummy,times_min_dummy,times_median_dummy,"
        "throughputs_dummy,throughputs_std_dummy,throughputs_min_dummy,throughputs_median_dummy,ideal_dummy,"
        "eff_dummy,count_dummy");
  // A single repetition has no std: the cell is empty, not 0.
  CHECK_THAT(first, Catch::StartsWith("1,512,27.58547") && Catch::Contains(",,"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 8);

  auto j = nlohmann::json::parse(slurp(dir.path / "loader_ratio.json"));
  CHECK(j["analysis"] == "loader_ratio");
  CHECK(j["scaling"] == "none");
  CHECK(j["units"]["times"] == "s");
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["loader"] == "original");
  CHECK(j["rows"][0]["count"] == 2);  // the node_fail repetition is not counted
  CHECK(j["rows"][0]["times"].get<double>() == Approx(31.75));
  CHECK(j["rows"][1]["ratio"].is_null());
  CHECK(j["rows"][0]["ratio"].get<double>() == Approx(31.75 / 21.5));
  CHECK(j["rows"][1]["stall"].get<double>() == Approx(0.1));
  auto w = nlohmann::json::parse(slurp(dir.path / "weak_scaling-gpu.json"));
  CHECK(w["group"]["partition"] == "gpu");
  CHECK(w["rows"][6]["throughputs"].get<double>() == Approx(1105.440073).epsilon(1e-9));
}

// Tagged [.gnuplot]: run by ctest as unit_report_gnuplot, skipped there when gnuplot is missing.
TEST_CASE("markdown and html with plots", "[report][.gnuplot]") {
  if (!have_gnuplot()) FAIL("gnuplot is not installed (tools/setup.sh installs it)");
  TempDir dir;
  ReportInput in = fixtures::sample_input();
  ReportResult r = write_report(in, {Format::md, Format::csv, Format::json, Format::html}, dir.path);
  INFO(campaign::join(r.warnings, "\n"));
  CHECK(r.warnings.empty());
  CHECK(r.plotted);
  for (const char* stem : {"weak_scaling-gpu", "loader_ratio"}) {
    for (const char* ext : {".gp", ".dat", ".svg", ".png", ".csv", ".json"}) {
      fs::path p = dir.path / (std::string(stem) + ext);
      INFO(p);
      CHECK(fs::exists(p));
      CHECK(fs::file_size(p) > 0);
    }
  }

  SECTION("every link in report.md resolves to a file beside it") {
    std::string md = slurp(dir.path / "report.md");
    std::vector<std::string> links = md_links(md);
    CHECK(links.size() >= 12);
    for (const auto& l : links) {
      INFO(l);
      CHECK(l.find('/') == std::string::npos);  // relative, same folder
      CHECK(fs::exists(dir.path / l));
    }
    CHECK_THAT(md, Catch::Contains("![weak_scaling, partition=gpu](weak_scaling-gpu.png)"));
    CHECK_THAT(md, Catch::Contains("| ranks | samples | times [s] |"));
    CHECK_THAT(md, Catch::Contains("| 64 | 32768 | 29.642493 |"));
    CHECK_THAT(md, Catch::Contains("| 1105.440073 |"));
    CHECK_THAT(md, Catch::Contains("`9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`"));
    CHECK_THAT(md, Catch::Contains("| loader_original_2 | node_fail | loader_ratio | state is node_fail |"));
    CHECK_THAT(md, Catch::Contains("| prepare_data | failed |  | exit code 1 |"));
    CHECK_THAT(md, Catch::Contains("14 case(s) without parameter 'loader'"));
    CHECK_THAT(md, !Catch::Contains("Tables only"));
  }

  SECTION("report.html is one file with the plots inline") {
    std::string html = slurp(dir.path / "report.html");
    CHECK(count(html, "<img ") == 2);
    CHECK(count(html, "src=\"data:image/svg+xml;base64,") == 2);
    // Nothing is fetched from elsewhere.
    CHECK(count(html, "src=\"http") == 0);
    CHECK(count(html, "<link") == 0);
    CHECK(count(html, "<script") == 0);
    CHECK_THAT(html, Catch::Contains("<td class=\"num\">1105.440073</td>"));
    CHECK_THAT(html, Catch::Contains("<code>1a2b3c4</code>"));
    CHECK_THAT(html, Catch::Contains("Cases left out"));
    // The same files linked as from report.md (issue 33: the HTML had no links to the data files).
    std::vector<std::string> hrefs;
    for (size_t at = html.find("href=\""); at != std::string::npos; at = html.find("href=\"", at + 1)) {
      size_t start = at + 6;
      hrefs.push_back(html.substr(start, html.find('"', start) - start));
    }
    std::vector<std::string> md_hrefs = md_links(slurp(dir.path / "report.md"));
    std::erase_if(md_hrefs, [](const std::string& l) { return l.ends_with(".png"); });  // inline in HTML
    std::sort(hrefs.begin(), hrefs.end());
    std::sort(md_hrefs.begin(), md_hrefs.end());
    CHECK(hrefs == md_hrefs);
    for (const auto& l : hrefs) CHECK(fs::exists(dir.path / l));
    // The embedded image is the SVG gnuplot wrote.
    std::string svg = slurp(dir.path / "weak_scaling-gpu.svg");
    CHECK_THAT(svg, Catch::Contains("<svg"));
    size_t at = html.find("data:image/svg+xml;base64,") + 26;
    std::string head = html.substr(at, 40);
    CHECK(head == detail::base64(svg).substr(0, 40));
  }

  SECTION("the gnuplot script can be re-run by a user") {
    std::string gp = slurp(dir.path / "weak_scaling-gpu.gp");
    CHECK_THAT(gp, Catch::Contains("set logscale x 2"));
    CHECK_THAT(gp, Catch::Contains("set logscale y 10"));
    CHECK_THAT(gp, Catch::Contains("\"ideal_dummy\" with lines lt 2 dt 2"));
    CHECK_THAT(gp, Catch::Contains("set multiplot"));
    CHECK(gp.find(dir.path.string()) == std::string::npos);  // relative paths only
    CHECK(gp.find("\"/") == std::string::npos);
    fs::remove(dir.path / "weak_scaling-gpu.svg");
    auto gnuplot = find_executable("gnuplot", environment_path());
    ProcessResult p = run_process({gnuplot->string(), "-e", "fmt='svg'", "weak_scaling-gpu.gp"}, dir.path,
                                  std::chrono::seconds(60));
    CHECK(p.exit_code == 0);
    CHECK(fs::exists(dir.path / "weak_scaling-gpu.svg"));
  }
}

TEST_CASE("without gnuplot the report has tables only and says so", "[report]") {
  TempDir dir;
  ReportInput in = fixtures::sample_input();
  // A stale plot from an earlier report must not be shown as this one's.
  { std::ofstream(dir.path / "weak_scaling-gpu.png") << "old"; }

  ReportOptions opt;
  SECTION("empty search path") { opt.search_path = ""; }
  SECTION("a gnuplot path that does not exist") { opt.gnuplot = (dir.path / "no-such-gnuplot").string(); }

  ReportResult r = write_report(in, {Format::md, Format::html}, dir.path, opt);
  CHECK_FALSE(r.plotted);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("gnuplot not found"));
  CHECK_FALSE(fs::exists(dir.path / "weak_scaling-gpu.png"));
  CHECK(fs::exists(dir.path / "weak_scaling-gpu.gp"));  // kept, so plots can be drawn later

  std::string md = slurp(dir.path / "report.md");
  CHECK_THAT(md, Catch::Contains("**Tables only:** gnuplot was not found"));
  CHECK_THAT(md, !Catch::Contains("!["));
  for (const auto& l : md_links(md)) CHECK(fs::exists(dir.path / l));
  CHECK_THAT(md, Catch::Contains("| 2 | 1024 | 28.193059 |"));

  std::string html = slurp(dir.path / "report.html");
  CHECK(count(html, "<img ") == 0);
  CHECK_THAT(html, Catch::Contains("<b>Tables only:</b> gnuplot was not found"));
  CHECK_THAT(html, Catch::Contains("<td class=\"num\">0.978449</td>"));
}

TEST_CASE("a failing gnuplot is a warning, not a broken report", "[report]") {
  TempDir dir;
  fs::path fake = dir.path / "fake-gnuplot";
  { std::ofstream(fake) << "#!/bin/sh\necho 'line 3: unknown terminal' >&2\nexit 3\n"; }
  fs::permissions(fake, fs::perms::owner_all);
  ReportOptions opt;
  opt.gnuplot = fake.string();
  ReportResult r = write_report(fixtures::sample_input(), {Format::md}, dir.path / "out", opt);
  CHECK_FALSE(r.plotted);
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] == "weak_scaling-gpu.gp: gnuplot failed (exit 3): line 3: unknown terminal");
  std::string md = slurp(dir.path / "out" / "report.md");
  CHECK_THAT(md, Catch::Contains("> Warning: loader_ratio.gp: gnuplot failed (exit 3)"));
  CHECK_THAT(md, !Catch::Contains("!["));
}

TEST_CASE("terminal tables are aligned", "[report]") {
  campaign::analysis::AnalysisResult a;
  a.spec.name = "loader";
  a.spec.x = "loader";
  campaign::analysis::Table t;
  t.analysis = "loader";
  t.x = "loader";
  t.columns = {"loader", "times", "ratio"};
  t.rows = {{std::string("original"), 31.75, 1.5},
            {std::string("ring_buffer"), 21.5, campaign::analysis::Cell()}};
  t.notes = {"times(loader=original) / times(loader=ring_buffer) = 1.476744"};
  a.tables = {t};
  a.excluded = {{"loader_original_2", "node_fail", "state is node_fail"}};
  std::ostringstream os;
  print_tables(os, {a});
  CHECK(os.str() ==
        "== loader (none, x = loader) ==\n"
        "\n"
        "loader           times     ratio\n"
        "original     31.750000  1.500000\n"
        "ring_buffer  21.500000\n"
        "  times(loader=original) / times(loader=ring_buffer) = 1.476744\n"
        "\n"
        "left out (1):\n"
        "  loader_original_2 [node_fail]: state is node_fail\n");
}

TEST_CASE("report.html lists every job id and shows code spans as code", "[report]") {
  TempDir dir;
  ReportInput in = fixtures::sample_input();
  in.provenance.job_ids.clear();
  for (int i = 1; i <= 50; ++i) in.provenance.job_ids.push_back(std::to_string(1000 + i));
  ReportOptions opt;
  opt.search_path = "";  // tables only: no gnuplot needed
  write_report(in, {Format::md, Format::html}, dir.path, opt);
  std::string html = slurp(dir.path / "report.html");
  CHECK_THAT(html, Catch::Contains("<summary>50: 1001, 1002"));
  CHECK_THAT(html, Catch::Contains("1049, 1050</details>"));  // the ids past the first 40 too
  CHECK_THAT(slurp(dir.path / "report.md"), Catch::Contains("(50 in all) (report.html lists them all)"));
  CHECK(count(html, "`") == 0);  // no literal backticks: descriptions and notes use <code>
}

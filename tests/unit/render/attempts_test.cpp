// Every attempt's script and start are kept (render/script.hpp): each shipped template's first act
// after entering the run directory is the attempt's start stamp, and a retry keeps the script it
// replaces as attempt-<N-1>/job.sh, once.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "render/script.hpp"
#include "spec/library.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {

matrix::Plan plan_of(const std::string& yaml, const std::string& sys) {
  auto c = spec::parse_campaign(yaml, "c.yaml");
  auto s = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", sys, ".yaml"));
  return matrix::expand(spec::for_system(c, sys), s, "/w");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The lines after `cd RUN_DIR || exit 1`, skipping comments and the claim of the attempt
// (render::claim_file; a statement of two lines); `claimed`: whether there was one.
std::string line_after_cd(const render::Script& s, bool* claimed = nullptr) {
  std::istringstream in(s.text);
  std::string line;
  bool after = false;
  if (claimed) *claimed = false;
  while (std::getline(in, line)) {
    if (after && line.find(render::claim_file(s.attempt)) != std::string::npos) {
      if (claimed) *claimed = true;
      std::getline(in, line);  // its second line
      continue;
    }
    if (after && !line.empty() && line[0] != '#') return line;
    if (line == "cd " + s.run_dir.string() + " || exit 1") after = true;
  }
  return "";
}

}  // namespace

TEST_CASE("every shipped template claims its attempt, then stamps the attempt's start, first") {
  const std::string campaign = "name: t\njob: {command: \"true\"}\n";
  // local, Slurm and LSF scripts, and a packed case's script. The local executor never runs a job
  // twice: its script claims nothing.
  for (const char* sys : {"local", "testcluster", "summit"}) {
    auto p = plan_of(campaign, sys);
    render::Renderer r(p);
    render::RenderOptions o{"/w", "/bin/campaign", 3, 0, {}};
    auto s = r.render(p.cases.at(0), o);
    INFO(sys);
    CHECK(s.attempt == 3);
    bool claimed = false;
    CHECK(line_after_cd(s, &claimed) == "echo 3 >.started-3");
    CHECK(claimed == (std::string(sys) != "local"));
    o.packed = true;
    if (std::string(sys) != "local") {
      CHECK(line_after_cd(r.render(p.cases.at(0), o), &claimed) == "echo 3 >.started-3");
      CHECK(claimed);
    }
  }
}

TEST_CASE("a second job of an attempt leaves its run directory to the first; the same job again goes on") {
  // The Slurm template's claim, run by bash with the job ids a scheduler would set.
  auto p = plan_of("name: t\njob: {launch: false, command: \"echo ran >> out.txt\"}\n", "testcluster");
  fs::path dir = fs::temp_directory_path() / ("campaign-claim-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto scripts = render::render_all(p, render::RenderOptions{dir, "/bin/false", 1, 0, {}});
  render::write_scripts(scripts, dir);
  const fs::path run = scripts.at(0).run_dir;
  auto job = [&](const char* id) {
    int rc =
        std::system(("SLURM_JOB_ID=" + std::string(id) + " bash " + scripts.at(0).path.string()).c_str());
    return WEXITSTATUS(rc);
  };
  CHECK(job("100") == 0);
  CHECK(job("101") == render::kClaimedElsewhere);  // answered twice: the copy leaves
  CHECK(slurp(run / "out.txt") == "ran\n");
  CHECK(slurp(run / render::kExitMarker) == "0\n");  // the first job's marker, untouched
  CHECK(job("100") == 0);                            // requeued: its own claim
  CHECK(slurp(run / "out.txt") == "ran\nran\n");
  fs::remove_all(dir);
}

TEST_CASE("a local script writes its attempt's start stamp when it runs") {
  auto p = plan_of("name: t\njob: {launch: false, command: \"echo ran > out.txt\"}\n", "local");
  fs::path dir = fs::temp_directory_path() / ("campaign-stamp-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto scripts = render::render_all(p, render::RenderOptions{dir, "/bin/false", 2, 0, {}});
  render::write_scripts(scripts, dir);
  REQUIRE(std::system(("bash " + scripts.at(0).path.string()).c_str()) == 0);
  const fs::path run = scripts.at(0).run_dir;
  CHECK(slurp(run / render::start_stamp(2)) == "2\n");
  CHECK_FALSE(fs::last_write_time(run / "out.txt") < fs::last_write_time(run / render::start_stamp(2)));
  fs::remove_all(dir);
}

TEST_CASE("a retry keeps the script it replaces as attempt-<N-1>/job.sh, once") {
  fs::path dir = fs::temp_directory_path() / ("campaign-keep-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  render::Script s;
  s.case_name = "c";
  s.run_dir = dir;
  s.path = dir / render::kScriptName;
  auto prepare = [&](int attempt) {
    s.attempt = attempt;
    s.text = "attempt " + std::to_string(attempt) + "\n";
    render::keep_previous_script(s);
    render::write_script(s);
  };
  prepare(1);
  CHECK_FALSE(fs::exists(dir / "attempt-0"));
  CHECK_FALSE(fs::exists(dir / "attempt-1"));
  prepare(2);
  CHECK(slurp(dir / "attempt-1" / "job.sh") == "attempt 1\n");
  CHECK(slurp(dir / "job.sh") == "attempt 2\n");
  // Attempt 2 prepared again (its submission retried): attempt 1's copy stays attempt 1's.
  prepare(2);
  CHECK(slurp(dir / "attempt-1" / "job.sh") == "attempt 1\n");
  prepare(3);
  CHECK(slurp(dir / "attempt-2" / "job.sh") == "attempt 2\n");
  CHECK(slurp(dir / "attempt-1" / "job.sh") == "attempt 1\n");
  CHECK(slurp(dir / "job.sh") == "attempt 3\n");
  CHECK((fs::status(dir / "attempt-2" / "job.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  fs::remove_all(dir);
}

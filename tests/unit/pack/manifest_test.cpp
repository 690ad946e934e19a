#include "pack/manifest.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../temp_dir.hpp"
#include "pack/driver.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

using namespace campaign;
using namespace campaign::pack;

namespace {

Allocation sample(const std::filesystem::path& workdir) {
  Allocation a;
  a.job_name = "cmpabc123-pack1-a1";
  a.partition = "mc";
  a.nodes = 3;
  a.walltime_s = 1800;
  a.dir = allocation_dir(workdir, a.job_name);
  a.grace_s = 2.5;
  for (int i = 0; i < 3; ++i) {
    PackedCase c;
    c.key = "00000000000000a" + std::to_string(i);
    c.case_name = "case-" + std::to_string(i);
    c.job_name = "cmpabc123-case-" + std::to_string(i) + "-a1";
    c.run_dir = workdir / c.case_name;
    c.nodes = 1 + i % 2;
    c.ranks = 4 * c.nodes;
    c.walltime_s = 600;
    c.script = c.run_dir / "job.sh";
    a.cases.push_back(c);
  }
  return a;
}

// The error message of reading `text` as a manifest ("" when it is accepted).
std::string error_of(const std::string& text) {
  try {
    from_json(text, "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a manifest read back equals the one written", "[pack]") {
  campaign_test::TempDir t("pack");
  Allocation a = sample(t.path);
  write_manifest(a);
  CHECK(manifest_path(a) == t.path / ".alloc" / a.job_name / "manifest.json");
  CHECK(read_manifest(manifest_path(a)) == a);
  CHECK(case_output(a.cases[1]) == t.path / "case-1" / "cmpabc123-case-1-a1.out");
}

TEST_CASE("bad manifests are refused with the file and the key", "[pack]") {
  auto j = nlohmann::json::parse(to_json(sample("/w")));
  CHECK(error_of(j.dump()).empty());
  CHECK(error_of("{").find("m.json: not JSON") != std::string::npos);
  CHECK(error_of("[]").find("a manifest is a JSON object") != std::string::npos);

  auto with = [&](auto change) {
    auto k = j;
    change(k);
    return error_of(k.dump());
  };
  CHECK(with([](auto& k) { k["version"] = 2; }).find("version") != std::string::npos);
  CHECK(with([](auto& k) { k.erase("job_name"); }).find("job_name: required key is missing") !=
        std::string::npos);
  CHECK(with([](auto& k) { k["nodes"] = 0; }).find("nodes: must be a positive integer") != std::string::npos);
  CHECK(with([](auto& k) { k["dir"] = "rel/dir"; }).find("dir: must be an absolute path") !=
        std::string::npos);
  CHECK(with([](auto& k) { k["grace_s"] = "x"; }).find("grace_s") != std::string::npos);
  CHECK(with([](auto& k) { k["cases"] = nlohmann::json::array(); }).find("cases: must be a non-empty list") !=
        std::string::npos);
  CHECK(with([](auto& k) {
          k["cases"][1]["ranks"] = "4";
        }).find("cases[1].ranks: must be a positive integer") != std::string::npos);
  CHECK(with([](auto& k) { k["cases"][2]["nodes"] = 4; }).find("cases[2].nodes: 4 nodes do not fit") !=
        std::string::npos);
  CHECK(with([](auto& k) {
          k["cases"][2]["run_dir"] = k["cases"][0]["run_dir"];
        }).find("cases[2].run_dir: another case") != std::string::npos);
  CHECK(with([](auto& k) { k["cases"][0].erase("script"); }).find("cases[0].script: required") !=
        std::string::npos);
}

TEST_CASE("a missing manifest names its path", "[pack]") {
  CHECK_THROWS_WITH(read_manifest("/nonexistent/manifest.json"),
                    Catch::Contains("/nonexistent/manifest.json") && Catch::Contains("cannot read"));
}

TEST_CASE("a start marker reads back; a missing or broken one is none", "[pack]") {
  campaign_test::TempDir t("pack");
  StartMarker m{"cmpx-alloc1", "cmpx-a-a1", 1764064800.25, {"cn1", "cn2"}, {0, 1}};
  write_file_atomic(t.path / kStartMarker, to_json(m));
  auto r = read_start_marker(t.path);
  REQUIRE(r);
  CHECK(r->allocation == m.allocation);
  CHECK(r->job_name == m.job_name);
  CHECK(r->time == m.time);
  CHECK(r->nodes == m.nodes);
  CHECK(r->slots == m.slots);
  write_file_atomic(t.path / kStartMarker, "{\"allocation\": 1}");
  CHECK_FALSE(read_start_marker(t.path));
  CHECK_FALSE(read_start_marker(t.path / "none"));
}

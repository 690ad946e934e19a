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
  a.dir = workdir / ".alloc" / a.job_name;
  a.grace_s = 2.5;
  a.node = {4, 2, 1000};
  a.driver_binds_gpus = true;
  for (int i = 0; i < 3; ++i) {
    PackedCase c;
    c.key = "00000000000000a" + std::to_string(i);
    c.case_name = "case-" + std::to_string(i);
    c.job_name = "cmpabc123-case-" + std::to_string(i) + "-a1";
    c.run_dir = workdir / c.case_name;
    c.demand = {1 + i % 2, 2 + i, i % 2, 100L * i, i == 2};
    c.ranks = 4 * c.demand.nodes;
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
  CHECK(with([](auto& k) { k["version"] = 3; }).find("version") != std::string::npos);
  CHECK(with([](auto& k) {
          k["cases"][0]["cores"] = 5;
        }).find("cases[0].cores: does not fit the allocation's nodes: 5 cores per node") !=
        std::string::npos);
  CHECK(with([](auto& k) { k["cases"][0]["gpus"] = 3; }).find("3 GPUs per node") != std::string::npos);
  CHECK(with([](auto& k) { k.erase("node"); }).find("node: required key is missing") != std::string::npos);
  CHECK(with([](auto& k) {
          k["cases"][0]["exclusive"] = 1;
        }).find("cases[0].exclusive: must be true or false") != std::string::npos);
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

TEST_CASE("a version 1 manifest (before cases shared nodes) gives each case its nodes whole", "[pack]") {
  auto j = nlohmann::json::parse(to_json(sample("/w")));
  j["version"] = 1;
  j.erase("node");
  j.erase("driver_binds_gpus");
  for (auto& c : j["cases"])
    for (const char* k : {"cores", "gpus", "memory_mb", "exclusive"}) c.erase(k);
  Allocation a = from_json(j.dump(), "old.json");
  CHECK(a.cases[1].demand == campaign::resource::Demand{2, 1, 0, 0, true});
  CHECK_FALSE(a.driver_binds_gpus);
}

TEST_CASE("a missing manifest names its path", "[pack]") {
  CHECK_THROWS_WITH(read_manifest("/nonexistent/manifest.json"),
                    Catch::Contains("/nonexistent/manifest.json") && Catch::Contains("cannot read"));
}

TEST_CASE("a start marker reads back; a missing or broken one is none", "[pack]") {
  campaign_test::TempDir t("pack");
  StartMarker m{"cmpx-alloc1",  "cmpx-a-a1", 1764064800.25,
                {"cn1", "cn2"}, {0, 1},      {{0, {0, 1}, {1}}, {1, {0, 1}, {}}}};
  write_file_atomic(t.path / kStartMarker, to_json(m));
  auto r = read_start_marker(t.path);
  REQUIRE(r);
  CHECK(r->allocation == m.allocation);
  CHECK(r->job_name == m.job_name);
  CHECK(r->time == m.time);
  CHECK(r->nodes == m.nodes);
  CHECK(r->slots == m.slots);
  CHECK(r->placement == m.placement);
  CHECK(r->launched);
  m.launched = false;  // written before the launch
  write_file_atomic(t.path / kStartMarker, to_json(m));
  CHECK_FALSE(read_start_marker(t.path)->launched);
  // A marker of an older driver, which wrote it only before the launch, counts as launched.
  write_file_atomic(t.path / kStartMarker,
                    R"({"allocation": "a", "job_name": "j", "time": 1.5, "nodes": [], "slots": [0]})");
  CHECK(read_start_marker(t.path)->launched);
  write_file_atomic(t.path / kStartMarker, "{\"allocation\": 1}");
  CHECK_FALSE(read_start_marker(t.path));
  CHECK_FALSE(read_start_marker(t.path / "none"));
}

#include "report/usage.hpp"

#include <catch2/catch.hpp>

using namespace campaign::report;

TEST_CASE("a case's request from its definition in the catalog") {
  auto r = request_of(R"({"partition":"gpu","ranks":4,"cpus_per_rank":2,"gpus_per_rank":0.5,"nodes":1})");
  CHECK(r.partition == "gpu");
  CHECK(r.cores == 8);
  CHECK(r.gpus == 2);
  CHECK(r.wants_gpu());
  auto cpu = request_of(R"({"partition":"cpu","ranks":2,"cpus_per_rank":1,"gpus_per_rank":0})");
  CHECK_FALSE(cpu.wants_gpu());
  CHECK(request_of("").cores == 0);
  CHECK(request_of("not json").partition.empty());
}

TEST_CASE("use against request: a GPU case whose processes touched no GPU, more cores than held") {
  UsageRequest gpu{"gpu", 2, 1};
  // Its process on the GPU: nothing to say.
  CHECK(usage_check(gpu, {{"gpus_held", 1}, {"gpus_used", 1}, {"cores_used_mean", 1.5}}).empty());
  // No process of it on a GPU.
  CHECK(usage_check(gpu, {{"gpus_held", 1}, {"gpus_used", 0}}) ==
        "asked for 1 GPU but no process of it used a GPU");
  // Not even one visible (issue 31's CPU runs under a GPU label).
  CHECK(usage_check(UsageRequest{"gpu", 2, 0}, {{"gpus_held", 0}, {"gpus_used", 0}}) ==
        "runs on partition gpu but held none (no GPU visible to it)");
  // Not measured (no nvidia-smi where it ran): no verdict.
  CHECK(usage_check(gpu, {{"cores_used_mean", 1}}).empty());
  // A CPU case is not asked about GPUs.
  CHECK(usage_check(UsageRequest{"cpu", 2, 0}, {{"gpus_held", 0}, {"gpus_used", 0}}).empty());
  // Cores: 10 % over what it held is slack, more is marked.
  CHECK(usage_check(UsageRequest{"cpu", 2, 0}, {{"cores_used_mean", 2.2}}).empty());
  CHECK(usage_check(UsageRequest{"cpu", 2, 0}, {{"cores_used_mean", 3.5}}) ==
        "used 3.5 cores on average, held 2");
  CHECK(usage_check(gpu, {{"gpus_used", 0}, {"cores_used_mean", 4}}) ==
        "asked for 1 GPU but no process of it used a GPU; used 4.0 cores on average, held 2");
  CHECK(usage_check(UsageRequest{"cpu", 0, 0}, {{"cores_used_mean", 40}}).empty());  // no request known
}

TEST_CASE("the report's usage table: a row per case, its check, the sources in notes") {
  std::vector<CaseUsage> cases{
      {"gpu-used",
       UsageRequest{"gpu", 2, 1},
       {{"gpus_held", 1}, {"gpus_used", 1}, {"gpu_energy_j", 2816.928}},
       ""},
      {"gpu-idle",
       UsageRequest{"gpu", 2, 1},
       {{"gpus_held", 1}, {"gpus_used", 0}, {"gpu_energy_j", 100}},
       ""},
  };
  for (auto& c : cases) c.check = usage_check(c.request, c.metrics);
  CHECK_FALSE(usage_table({}));
  auto a = usage_table(cases);
  REQUIRE(a);
  REQUIRE(a->tables.size() == 1);
  auto& t = a->tables[0];
  CHECK(t.columns == std::vector<std::string>{"case", "cores_asked", "gpus_asked", "gpus_held", "gpus_used",
                                              "gpu_energy_j", "check"});
  CHECK(t.units.at("gpu_energy_j") == "J");
  REQUIRE(t.rows.size() == 2);
  CHECK(std::get<std::string>(t.rows[0].back()) == "ok");
  CHECK(std::get<std::string>(t.rows[1].back()) == "asked for 1 GPU but no process of it used a GPU");
  CHECK(*t.number(0, "gpu_energy_j") == Approx(2816.928));
  bool gpu_only = false, no_rapl = false;
  for (auto& n : t.notes) {
    gpu_only |= n.find("GPU only") != std::string::npos;
    no_rapl |= n.find("not measured: no powercap") != std::string::npos;
  }
  CHECK(gpu_only);
  CHECK(no_rapl);
  CHECK_FALSE(a->spec.description.empty());
}

TEST_CASE("GPU energy per sample: the case's gpu_energy_j over its analysis' samples") {
  campaign::analysis::AnalysisSpec spec;
  spec.name = "weak";
  spec.samples = "n_train * n_epochs";
  campaign::analysis::AnalysisSpec other;  // no samples: not asked
  other.name = "epochs";
  campaign::analysis::CaseResult a, b;
  a.name = "a";
  a.params = {{"n_train", "256"}, {"n_epochs", "4"}};
  b.name = "b";
  b.params = {{"n_train", "x"}};  // not a number: no samples, no figure
  auto samples = samples_of({other, spec}, {a, b});
  CHECK(samples.by_case == std::map<std::string, double>{{"a", 1024}});
  CHECK(samples.what == "`n_train * n_epochs` of analysis weak");
  std::vector<CaseUsage> cases{{"a", UsageRequest{"gpu", 1, 1}, {{"gpu_energy_j", 2816.928}}, ""},
                               {"b", UsageRequest{"gpu", 1, 1}, {{"gpu_energy_j", 100}}, ""}};
  auto t = usage_table(cases, samples)->tables[0];
  REQUIRE(t.has("gpu_energy_per_sample_j"));
  CHECK(*t.number(0, "gpu_energy_per_sample_j") == Approx(2816.928 / 1024));  // 2.7509 J a sample
  CHECK_FALSE(t.number(1, "gpu_energy_per_sample_j"));
  bool said = false;
  for (auto& n : t.notes)
    said |= n ==
            "gpu_energy_per_sample_j: gpu_energy_j over the case's samples, `n_train * n_epochs` of analysis "
            "weak.";
  CHECK(said);
  // Without samples, no column.
  CHECK_FALSE(usage_table(cases)->tables[0].has("gpu_energy_per_sample_j"));
}

TEST_CASE("an analysis over a case whose use contradicts its request says so in a note") {
  campaign::analysis::AnalysisResult weak, other_step, left_out;
  weak.spec.name = "weak";
  other_step.spec.name = "prepare";
  other_step.spec.step = "prepare";
  left_out.spec.name = "strong";
  left_out.excluded.push_back({"gpu-idle", "collected", "no epoch_time"});
  campaign::analysis::CaseResult idle, used;
  idle.name = "gpu-idle", idle.step = "train", idle.state = "collected";
  used.name = "gpu-used", used.step = "train", used.state = "collected";
  std::vector<CaseUsage> usage{{"gpu-idle", UsageRequest{"gpu", 1, 1}, {{"gpus_used", 0}}, ""},
                               {"gpu-used", UsageRequest{"gpu", 1, 1}, {{"gpus_used", 1}}, ""}};
  for (auto& u : usage) u.check = usage_check(u.request, u.metrics);
  std::vector<campaign::analysis::AnalysisResult> analyses{weak, other_step, left_out};
  mark_analyses(analyses, {idle, used}, usage);
  REQUIRE(analyses[0].notes.size() == 1);
  CHECK(analyses[0].notes[0] ==
        "case gpu-idle asked for 1 GPU but no process of it used a GPU (its use contradicts its request: see "
        "the "
        "usage table)");
  CHECK(analyses[1].notes.empty());  // another step's analysis
  CHECK(analyses[2].notes.empty());  // left out there
}

TEST_CASE("a job's accounted energy: a case's whole, or split among a pack's cases by cores x seconds held",
          "[energy]") {
  // One job, one case: all of it, whatever it held.
  CHECK(sacct_energy_shares({{"10", 5000, 4, 0}}) == std::vector<double>{5000});
  // Allocation 11: a (2 cores, 60 s), b (1 core, 60 s), c (1 core, 120 s): held 120, 60, 120 of 300
  // core-seconds; job 12 alone; 11's energy is recorded on each of its attempts.
  auto shares = sacct_energy_shares(
      {{"11", 9000, 2, 60}, {"12", 700, 1, 30}, {"11", 9000, 1, 60}, {"11", 9000, 1, 120}});
  REQUIRE(shares.size() == 4);
  CHECK(shares[0] == Approx(9000.0 * 120 / 300));
  CHECK(shares[1] == Approx(700));
  CHECK(shares[2] == Approx(9000.0 * 60 / 300));
  CHECK(shares[3] == Approx(9000.0 * 120 / 300));
  CHECK(shares[0] + shares[2] + shares[3] == Approx(9000));
  // No elapsed time known: by cores; a request of no cores counts as one.
  auto untimed = sacct_energy_shares({{"13", 300, 2, 0}, {"13", 300, 0, 0}});
  CHECK(untimed[0] == Approx(200));
  CHECK(untimed[1] == Approx(100));
}

// Profiler collectors and components on recorded real outputs (tests/data/profilers/README.md
// names each file's source): the nsys engine on `nsys stats` CSV of both report generations, and
// the components summed over them (the tau engine: tau_test.cpp).
#include <catch2/catch.hpp>

#include "collect/components.hpp"
#include "collect/engines.hpp"
#include "helpers.hpp"

using namespace collect_test;
using campaign::collect::collect;
using campaign::collect::CollectError;
using campaign::collect::load_collector;

namespace {

fs::path profile(const std::string& name) { return fs::path(TEST_DATA_DIR) / "profilers" / name; }

Collector shipped(const std::string& name) {
  return load_collector(repo_root() / "collectors" / (name + ".yaml"));
}

// The shipped collector with a campaign's component added, as load_collectors does.
Collector with(Collector c, const std::string& name, const std::string& match) {
  campaign::collect::set_component(c, campaign::collect::make_component(name, match));
  return c;
}

bool has(const CollectResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return true;
  return false;
}

}  // namespace

TEST_CASE("profilers: nsys engine on cuda_gpu_kern_sum and the console's cuda_gpu_mem_time_sum",
          "[profilers]") {
  TempDir run;
  fs::copy_file(profile("nsys_cuda_gpu_kern_sum.csv"), run / "nsys_cuda_gpu_kern_sum.csv");
  fs::copy_file(profile("nsys-stats-vllm-7599.csv"), run / "nsys-stats.csv");
  auto c =
      with(with(shipped("nsys"), "memcpy_htod", R"(\[CUDA memcpy (HtoD|Host-to-Device)\])"), "gemm", "gemm");
  auto r = collect({c}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(r.files.size() == 2);
  CHECK(value(r, "nsys_time:flash_attention_prefill_f16") == Approx(0.099385786));
  CHECK(value(r, "nsys_instances:flash_attention_prefill_f16") == 32);
  CHECK(value(r, "nsys_avg:flash_attention_prefill_f16") == Approx(0.099385786 / 32));
  CHECK(value(r, "nsys_time:[CUDA memcpy Host-to-Device]") == Approx(2.472025475));
  CHECK(value(r, "nsys_instances:[CUDA memcpy Host-to-Device]") == 27260);
  CHECK(value(r, "nsys_avg:[CUDA memcpy Device-to-Host]") == Approx(4058353e-9 / 1711));
  // 15 kernels and 4 operation kinds, 3 metrics each; 2 components, 2 metrics each.
  CHECK(r.metrics.size() == 19 * 3 + 2 * 2);
  // Shares of the GPU time, kernels and copies: 198,511,027 + 2,558,925,158 ns.
  CHECK(value(r, "component:memcpy_htod") == Approx(2.472025475));
  CHECK(value(r, "component_percent:memcpy_htod") == Approx(89.649417399));
  CHECK(value(r, "component:gemm") == Approx(0.046645497));  // three cuBLAS GEMMs, not the GEMV
  CHECK(value(r, "component_percent:gemm") == Approx(1.6916256214));
}

TEST_CASE("profilers: nsys engine on the pre-2022.4 gpukernsum / gpumemtimesum layout", "[profilers]") {
  TempDir run;
  fs::copy_file(profile("nsys_gpukernsum.csv"), run / "nsys_gpukernsum.csv");
  fs::copy_file(profile("nsys_gpumemtimesum.csv"), run / "nsys_gpumemtimesum.csv");
  auto r =
      collect({with(shipped("nsys"), "memcpy_htod", R"(\[CUDA memcpy (HtoD|Host-to-Device)\])")}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  const std::string conv =
      "void conv2d_fwd_kernel<float, 3>(const float *, const float *, float *, int, int)";
  CHECK(value(r, "nsys_time:" + conv) == Approx(0.001448));
  CHECK(value(r, "nsys_instances:" + conv) == 40);
  CHECK(value(r, "nsys_avg:relu_kernel") == Approx(10050e-9));
  CHECK(value(r, "nsys_instances:[CUDA memcpy HtoD]") == 4);
  CHECK(value(r, "component:memcpy_htod") == Approx(0.00088));
  CHECK(value(r, "component_percent:memcpy_htod") ==
        Approx(100 * 880000.0 / (1448000 + 402000 + 880000 + 120000)));
}

TEST_CASE("profilers: nsys engine, rows split per grid size are summed", "[profilers]") {
  std::vector<campaign::collect::Metric> metrics;
  std::vector<std::string> warnings;
  campaign::collect::Warnings capped(warnings);
  campaign::collect::Output out{metrics, capped, true};
  const std::string text =
      "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev "
      "(ns),GridXYZ,BlockXYZ,Name\n"
      "60.0,600,2,300.0,300.0,290,310,1.0,\" 896    1    1\",\" 128    1    1\",gemv\n"
      "40.0,\"1,400\",5,280.0,280.0,270,290,1.0,\" 256    1    1\",\" 128    1    1\",gemv\n";
  campaign::collect::run_nsys({campaign::collect::Input{"k.csv", text}}, out);
  REQUIRE(metrics.size() == 3);
  CHECK(metrics[0].name == "nsys_time:gemv");
  CHECK(metrics[0].value == Approx(2000e-9));
  CHECK(metrics[1].value == 7);
  CHECK(metrics[2].value == Approx(2000e-9 / 7));
}

TEST_CASE("profilers: nsys engine errors and warnings name the file and line", "[profilers]") {
  auto run = [](const std::string& text, std::vector<std::string>* warned = nullptr) {
    std::vector<campaign::collect::Metric> metrics;
    std::vector<std::string> warnings;
    campaign::collect::Warnings capped(warnings);
    campaign::collect::Output out{metrics, capped, true};
    campaign::collect::run_nsys({campaign::collect::Input{"nsys_k.csv", text}}, out);
    capped.finish();
    if (warned) *warned = warnings;
    return metrics;
  };
  const std::string header = "Time (%),Total Time (ns),Instances,Avg (ns),Name\n";
  CHECK_THROWS_WITH(run(header + "50.0,100,2,50.0,k\n50.0,100,2\n"),
                    "nsys_k.csv:3: row has 3 cells, the header has 5");
  CHECK_THROWS_WITH(
      run(header + "50.0,1e9x,2,50.0,k\n"),
      Catch::Matchers::StartsWith("nsys_k.csv:2: Total Time (ns) is not a non-negative number"));
  CHECK_THROWS_WITH(run("Time (%),Total Time (ns),Num Calls,Avg (ns),Name\n1.0,5,1,5.0,cudaMalloc\n"),
                    Catch::Matchers::StartsWith("nsys_k.csv: no kernel or memory-time summary"));
  CHECK_THROWS_WITH(run(header + "50.0,100,2,50.0,\n"), "nsys_k.csv:2: empty kernel or operation name");
  std::vector<std::string> warnings;
  CHECK(run("Processing [r.sqlite] with [cuda_gpu_kern_sum.py]...\n"
            "SKIPPED: r.sqlite does not contain CUDA kernel data.\n",
            &warnings)
            .empty());
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Matchers::Contains("no GPU summary: nsys says 'SKIPPED: r.sqlite"));
  // A file cut mid-row keeps the rows before it; the tool's next message ends a table.
  auto m = run(header + "50.0,100,2,50.0,k\nProcessing [x]...\n" + header + "50.0,300,3,100.0,j\n50.0,1",
               &warnings);
  CHECK(m.size() == 6);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Matchers::StartsWith("nsys_k.csv:6: last line has no newline"));
}

TEST_CASE("profilers: a component that matches nothing is 0 and says so; no profile, no component",
          "[profilers]") {
  TempDir run;
  fs::copy_file(profile("nsys_cuda_gpu_kern_sum.csv"), run / "nsys_cuda_gpu_kern_sum.csv");
  auto r = collect({with(shipped("nsys"), "conv_kernels", "conv2d")}, run.path());
  CHECK(value(r, "component:conv_kernels") == 0);
  CHECK(value(r, "component_percent:conv_kernels") == 0);
  REQUIRE(r.warnings.size() == 1);
  CHECK(
      r.warnings[0] ==
      "nsys: component 'conv_kernels' ('conv2d') matches none of 15 nsys_time:{name} values; recorded as 0");
  TempDir empty;
  auto none = collect({with(shipped("nsys"), "conv_kernels", "conv2d"), shipped("tau")}, empty.path());
  CHECK(none.metrics.empty());
  CHECK(none.warnings.empty());
  CHECK_FALSE(has(none, "component:mpi"));
}

TEST_CASE("profilers: percent_of divides by a metric of the same case, from any collector", "[profilers]") {
  TempDir run;
  fs::copy_file(profile("nsys-stats-vllm-7599.csv"), run / "nsys-stats.csv");
  write_file(run / "timing.json", R"({"run_time": 50})");
  Collector nsys = shipped("nsys");
  campaign::collect::set_component(
      nsys, campaign::collect::make_component("htod", R"(\[CUDA memcpy Host-to-Device\])", "run_time"));
  // The run's wall time comes from a collector listed after nsys: components wait for all of them.
  Collector timing =
      collector("name: timing\nsources: [{engine: json, file: timing.json, values: [run_time]}]\n");
  auto r = collect({nsys, timing}, run.path());
  INFO(all_warnings(r));
  CHECK(r.warnings.empty());
  CHECK(value(r, "component_percent:htod") == Approx(100 * 2.472025475 / 50));
  // Without that metric: the seconds, no percentage, and a warning that says why.
  fs::remove(run / "timing.json");
  auto none = collect({nsys}, run.path());
  CHECK(value(none, "component:htod") == Approx(2.472025475));
  CHECK_FALSE(has(none, "component_percent:htod"));
  CHECK(has_warning(none, "nsys: component 'htod': no metric 'run_time' to divide by"));
}

TEST_CASE("profilers: collector components are read strictly", "[profilers]") {
  using Catch::Matchers::Contains;
  const std::string src = "sources: [{engine: nsys, file: 'n*.csv'}]\n";
  CHECK(collector(src + "components: {metric: 'nsys_time:{name}', defaults: {all: '.'}}").components.size() ==
        1);
  CHECK_THROWS_WITH(collector(src + "components: {metric: nsys_time}"),
                    Contains("components.metric: a metric name with one {part}"));
  CHECK_THROWS_WITH(collector(src + "components: {metric: 'a{x}{y}'}"),
                    Contains("components.metric: a metric name with one {part}"));
  CHECK_THROWS_WITH(collector(src + "components: {metric: 'a:{x}', defaults: {mpi: '(MPI'}}"),
                    Contains("components.defaults.mpi: bad regex"));
  CHECK_THROWS_WITH(collector(src + "components: {metric: 'a:{x}', defaults: {'m pi': MPI}}"),
                    Contains("components.defaults.m pi: a component name is a word"));
  CHECK_THROWS_WITH(collector(src + "components: {metrc: 'a:{x}'}"), Contains("did you mean 'metric'"));
  CHECK_THROWS_WITH(collector(src + "components: {metric: 'a:{x}', per_rank: a_rank}"),
                    Contains("components.per_rank: a metric name with one {part}"));
  CHECK(collector(src + "components: {metric: 'a:{x}', percent_of: t}").component_percent_of == "t");
  CHECK_THROWS_WITH(collector("sources: [{engine: nsys, file: n.csv, metrics: [x]}]"),
                    Contains("unknown key for a nsys source"));
}

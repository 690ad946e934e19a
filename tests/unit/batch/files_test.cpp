#include "batch/files.hpp"

#include <catch2/catch.hpp>

#include "pack/manifest.hpp"
#include "spec/library.hpp"

using namespace campaign;
using Catch::Contains;

namespace {

const char* kCampaign = R"Y(name: packed
matrix:
  nodes: [1, 2]
case_name: p-N{{nodes}}
job:
  partition: cpu
  nodes: nodes
  ranks_per_node: 2
  walltime: 10m
  command: "sleep 1"
systems:
  local: {job: {oversubscribe: true}}  # 4 ranks on a machine of 2 cores
)Y";

matrix::Plan plan_of(const std::string& sys) {
  auto c = spec::parse_campaign(kCampaign, "c.yaml");
  auto s = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", sys, ".yaml"));
  return matrix::expand(spec::for_system(c, sys), s, "/w");
}

render::Script packed(const matrix::Plan& p, size_t i) {
  render::RenderOptions o{"/w", "/opt/bin/campaign", 2, 0, "abc123"};
  o.packed = true;
  return render::Renderer(p).render(p.cases[i], o);
}

// Both cases as one allocation of 3 nodes and 30 minutes named cmpabc123-alloc1-a1 under /w.
batch::Files allocation_of(const matrix::Plan& p, const std::string& exe = "/opt/bin/campaign") {
  batch::Shape s{batch::Kind::allocation, 0, {0, 1}, {600, 600}, 3, 1800, 0};
  return batch::files_of(p, s, "cmpabc123-alloc1-a1", "/w", {packed(p, 0), packed(p, 1)}, exe, 0);
}

}  // namespace

TEST_CASE("a packed Slurm case is one srun step on its own nodes, without directives", "[batch]") {
  auto p = plan_of("testcluster");
  auto s = packed(p, 1);
  CHECK(s.job_name == "cmpabc123-p-N2-a2");
  CHECK(s.path == "/w/p-N2/job.sh");
  CHECK_THAT(s.text, !Contains("#SBATCH"));
  CHECK_THAT(s.text, Contains("trap 'echo $? > .exit.tmp && mv -f .exit.tmp .exit' EXIT"));
  CHECK_THAT(s.text, Contains("\nsrun --exact -N 2 -n 4 --ntasks-per-node=2 --cpus-per-task=2 -t 00:10:00 "
                              "-J cmpabc123-p-N2-a2 ${CAMPAIGN_NODES:+-w \"$CAMPAIGN_NODES\"} sleep 1\n"));
  // The profile's own flags follow the step's.
  CHECK_THAT(packed(plan_of("daint"), 0).text, Contains("-w \"$CAMPAIGN_NODES\"} -l -u sleep 1\n"));
  // Not packed: the job script as before.
  render::RenderOptions o{"/w", "/opt/bin/campaign", 2, 0, "abc123"};
  auto plain = render::Renderer(p).render(p.cases[1], o);
  CHECK_THAT(plain.text, Contains("#SBATCH --nodes=2"));
  CHECK_THAT(plain.text, Contains("\nsrun sleep 1\n"));
}

TEST_CASE("packed cases on LSF and on this machine use their launchers as they are", "[batch]") {
  auto summit = packed(plan_of("summit"), 1);
  CHECK_THAT(summit.text, !Contains("#BSUB"));
  CHECK_THAT(summit.text, Contains("\njsrun -n 4 -r 2 "));
  CHECK_THAT(packed(plan_of("local"), 1).text, Contains("\n/opt/bin/campaign launch -n 4 -- sleep 1\n"));
}

TEST_CASE("an allocation's files: its manifest, then its script, which asks for it and runs the driver",
          "[batch]") {
  auto p = plan_of("testcluster");
  auto f = allocation_of(p);
  REQUIRE(f.files.size() == 2);
  CHECK(f.files[0].path == "/w/.alloc/cmpabc123-alloc1-a1/manifest.json");
  CHECK_FALSE(f.files[0].executable);
  CHECK(f.files[1].path == f.script);
  CHECK(f.files[1].executable);
  auto a = pack::from_json(f.files[0].text, "m.json");
  REQUIRE(a.cases.size() == 2);
  CHECK(a.cases[1].demand == campaign::resource::Demand{2, 4, 0, 0, false});  // 2 ranks x 2 cpus per node
  CHECK(a.node == campaign::resource::Node{4, 0, 4000});
  CHECK_FALSE(a.driver_binds_gpus);
  CHECK(a.cases[1].ranks == 4);
  CHECK(a.cases[1].walltime_s == 600);
  CHECK(a.cases[1].script == "/w/p-N2/job.sh");
  CHECK(f.script == "/w/.alloc/cmpabc123-alloc1-a1/job.sh");
  for (const char* line :
       {"#SBATCH --job-name=cmpabc123-alloc1-a1\n", "#SBATCH --nodes=3\n", "#SBATCH --exclusive\n",
        "#SBATCH --time=00:30:00\n", "#SBATCH --output=/w/.alloc/cmpabc123-alloc1-a1/slurm-%j.out\n",
        "#SBATCH --no-requeue\n", "#SBATCH --constraint=mc\n",
        "nodes=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\n",
        "(trap - INT QUIT; exec /opt/bin/campaign pack-exec --nodes \"$nodes\" "
        "/w/.alloc/cmpabc123-alloc1-a1/manifest.json) &\n"})
    CHECK_THAT(f.files[1].text, Contains(line));
  CHECK_THAT(f.files[1].text, !Contains("--gpus-per-node"));

  auto lp = plan_of("summit");
  auto ls = allocation_of(lp, "campaign").files[1].text;
  CHECK_THAT(ls, Contains("#BSUB -nnodes 3\n"));
  CHECK_THAT(ls, Contains("#BSUB -W 00:30\n"));
  CHECK_THAT(ls, Contains("exec campaign pack-exec /w/.alloc/cmpabc123-alloc1-a1/manifest.json\n"));
  // On one host the driver names each case's GPUs itself.
  auto local = plan_of("local");
  CHECK(pack::from_json(allocation_of(local).files[0].text, "m.json").driver_binds_gpus);
}

TEST_CASE("an array's files: its index, then its script", "[batch]") {
  auto p = plan_of("testcluster");
  batch::Shape s{batch::Kind::array, 0, {0, 1}, {600, 300}, 1, 600, 5};
  auto f = batch::files_of(p, s, "cmpabc123-arr1", "/w", {packed(p, 0), packed(p, 1)}, "campaign", 0);
  REQUIRE(f.files.size() == 2);
  CHECK(f.files[0].path == "/w/.alloc/cmpabc123-arr1/index");
  CHECK(f.files[0].text == "/w/p-N1/job.sh\n/w/p-N2/job.sh\n");
  CHECK_THAT(f.files[1].text, Contains("#SBATCH --array=0-1%5\n"));
  CHECK_THAT(f.files[1].text, Contains("#SBATCH --time=00:10:00\n"));
  // A single case is no batch of several.
  batch::Shape one{batch::Kind::single, 0, {0}, {600}, 1, 600, 0};
  CHECK_THROWS(batch::files_of(p, one, "x", "/w", {packed(p, 0)}, "campaign", 0));
}

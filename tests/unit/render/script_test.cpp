#include "render/script.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "render/catalog_rows.hpp"
#include "spec/library.hpp"

using namespace campaign;
namespace fs = std::filesystem;

namespace {
matrix::Plan plan_of(const std::string& yaml, const std::string& sys) {
  auto c = spec::parse_campaign(yaml, "c.yaml");
  auto s = spec::load_system_file(*spec::find_data_file(CAMPAIGN_SOURCE_DIR, "systems", sys, ".yaml"));
  return matrix::expand(spec::for_system(c, sys), s, "/w");
}
}  // namespace

TEST_CASE("rendered scripts run the command with each value as one literal word") {
  auto p = plan_of(R"Y(name: t
matrix:
  file:
    - {name: a, value: "my data.txt"}
    - {name: b, value: "it's"}
    - {name: c, value: "$(touch pwned)"}
job: {command: "printf '%s|' {{value}} > out.txt"}
)Y",
                   "local");
  fs::path dir = fs::temp_directory_path() / ("campaign-render-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  render::RenderOptions o{dir, "/bin/false", 1, 0, {}};
  auto scripts = render::render_all(p, o);
  REQUIRE(scripts.size() == 3);
  // Run without the launcher: the local launch line names the campaign binary.
  for (auto& s : scripts) {
    std::string text = s.text;
    auto pos = text.find("/bin/false launch -n 1 -- ");
    REQUIRE(pos != std::string::npos);
    text.erase(pos, std::string("/bin/false launch -n 1 -- ").size());
    const_cast<render::Script&>(s).text = text;
  }
  render::write_scripts(scripts, dir);
  for (auto& s : scripts) REQUIRE(std::system(("bash " + s.path.string()).c_str()) == 0);
  auto read = [&](const std::string& c) {
    std::ifstream in(dir / c / "out.txt");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  CHECK(read("a") == "my data.txt|");
  CHECK(read("b") == "it's|");
  CHECK(read("c") == "$(touch pwned)|");
  CHECK_FALSE(fs::exists(dir / "c" / "pwned"));
  // Each script left its exit status in the marker file.
  std::ifstream marker(dir / "a" / render::kExitMarker);
  std::string status;
  marker >> status;
  CHECK(status == "0");
  fs::remove_all(dir);
}

TEST_CASE("slurm scripts carry the partition's directives and the job geometry") {
  auto p = plan_of(
      "name: t\nmatrix: {ranks: [4]}\njob: {command: x, partition: cpu, ranks: ranks, walltime: 90m}\n",
      "daint");
  render::Renderer r(p);
  auto s = r.render(p.cases[0], render::RenderOptions{"/scratch/w", "campaign", 2, 0, {}});
  CHECK(s.text.find("#SBATCH --constraint=mc\n") != std::string::npos);
  CHECK(s.text.find("#SBATCH --nodes=4\n") != std::string::npos);
  CHECK(s.text.find("#SBATCH --time=01:30:00\n") != std::string::npos);
  // A failing `module load` ends the job with 78; `module` is read from the module system's init
  // when the job's environment does not bring it.
  CHECK(s.text.find("module load daint-mc || exit 78\n") != std::string::npos);
  CHECK(s.text.find("type module >/dev/null 2>&1 ||") < s.text.find("module load daint-mc"));
  CHECK(s.text.find("/etc/profile.d/lmod.sh") != std::string::npos);
  CHECK(s.text.find("\nsrun -l -u x\n") != std::string::npos);
  CHECK(s.job_name == render::job_name(render::campaign_id("t", "/scratch/w"), p.cases[0], 2));
  CHECK(s.job_name.substr(s.job_name.size() - 3) == "-a2");
  // A retry with a longer walltime renders the new limit.
  auto longer = r.render(p.cases[0], render::RenderOptions{"/scratch/w", "campaign", 2, 8100, {}});
  CHECK(longer.text.find("#SBATCH --time=02:15:00\n") != std::string::npos);
}

TEST_CASE("a script without modules reads no module system's init") {
  auto p = plan_of("name: t\nmatrix: {r: [1]}\njob: {command: x}\n", "local");
  auto s = render::Renderer(p).render(p.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}});
  CHECK(s.text.find("module") == std::string::npos);
}

TEST_CASE("write_scripts never leaves a partial new directory") {
  auto p = plan_of("name: t\nmatrix: {r: [1, 2]}\njob: {command: x}\n", "local");
  fs::path dir = fs::temp_directory_path() / ("campaign-partial-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto scripts = render::render_all(p, render::RenderOptions{dir, "campaign", 1, 0, {}});
  scripts.push_back(scripts[0]);
  scripts.back().path = dir / "../../../proc/forbidden/job.sh";  // cannot be written
  CHECK_THROWS(render::write_scripts(scripts, dir));
  CHECK_FALSE(fs::exists(dir));
  for (auto& e : fs::directory_iterator(fs::temp_directory_path()))
    CHECK(e.path().filename().string().find("campaign-partial-" + std::to_string(::getpid()) + ".partial") ==
          std::string::npos);
}

TEST_CASE("instances run side by side, each in its own directory; .exit is the first non-zero status") {
  // Instance i exits with status i % 3: instances 1 and 2 fail, so the job's status is 1.
  auto p = plan_of(R"Y(name: t
job:
  instances: 4
  oversubscribe: true  # one host: 4 instances on any machine
  launch: false
  command: "echo {{instance}} of {{instances}} > which.txt; pwd > where.txt; exit $(( {{instance}} % 3 ))"
)Y",
                   "local");
  fs::path dir = fs::temp_directory_path() / ("campaign-instances-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto scripts = render::render_all(p, render::RenderOptions{dir, "/bin/false", 1, 0, {}});
  render::write_scripts(scripts, dir);
  std::system(("bash " + scripts.at(0).path.string()).c_str());
  auto read = [&](const fs::path& f) {
    std::ifstream in(f);
    std::string s;
    std::getline(in, s);
    return s;
  };
  for (int i = 0; i < 4; ++i) {
    fs::path d = dir / "main" / render::instance_dir(i);
    CHECK(read(d / "which.txt") == std::to_string(i) + " of 4");
    CHECK(read(d / "where.txt") == d.string());
    CHECK(fs::exists(d / render::kInstanceOutput));
  }
  CHECK(read(dir / "main" / render::kExitMarker) == "1");
  fs::remove_all(dir);
}

TEST_CASE("on Slurm each instance is its own step on its own nodes of a K x nodes job") {
  auto p = plan_of(
      "name: t\njob: {command: \"train {{instance}}\", partition: gpu, nodes: 4, instances: 128}\n", "daint");
  render::Renderer r(p);
  auto s = r.render(p.cases[0], render::RenderOptions{"/scratch/w", "campaign", 1, 0, {}});
  CHECK(s.text.find("#SBATCH --nodes=512\n") != std::string::npos);
  CHECK(s.text.find("#SBATCH --ntasks=512\n") != std::string::npos);
  // Each instance is a step as a packed case is (sched/launchers.hpp): srun --exact with its geometry.
  // Daint's gpu nodes have one GPU each: one per rank, asked for per task.
  const std::string step =
      "srun --exact -N 4 -n 4 --ntasks-per-node=1 --cpus-per-task=12 --gpus-per-task=1 -t 01:00:00 -J " +
      s.job_name + " ${CAMPAIGN_NODES:+-w \"$CAMPAIGN_NODES\"} -l -u ";
  CHECK(s.text.find("mkdir -p instance-0 && (cd instance-0 && " + step +
                    "train 0) >instance-0/output.log 2>&1 &\n") != std::string::npos);
  CHECK(s.text.find("(cd instance-127 && " + step + "train 127)") != std::string::npos);
  CHECK(s.text.find("instance-128") == std::string::npos);
  CHECK(s.text.find("\nexit \"$status\"\n") != std::string::npos);
  // Without instances: the one run line, as before.
  auto one = plan_of("name: t\njob: {command: train, partition: gpu, nodes: 4}\n", "daint");
  auto s1 =
      render::Renderer(one).render(one.cases[0], render::RenderOptions{"/scratch/w", "campaign", 1, 0, {}});
  CHECK(s1.text.find("\nsrun -l -u train\n") != std::string::npos);
  CHECK(s1.text.find("instance") == std::string::npos);
}

TEST_CASE("job option sample: the sampler beside the job, one per node on Slurm, stopped before .exit") {
  const std::string yaml =
      "name: t\nmatrix: {ranks: [4]}\njob: {command: x, partition: cpu, ranks: ranks, sample: 0.25}\n"
      "steps: {with: {enabled: true}, without: {job: {sample: false}}}\n"
      "systems: {local: {job: {oversubscribe: true}}}\n";
  auto slurm = plan_of(yaml, "daint");
  render::Renderer r(slurm);
  auto s = r.render(slurm.cases[0], render::RenderOptions{"/scratch/w", "/opt/campaign", 1, 0, {}});
  CHECK(s.text.find(
            "srun --overlap --ntasks-per-node=1 -N \"$SLURM_NNODES\" -n \"$SLURM_NNODES\" "
            "--cpus-per-task=1 \\\n  /opt/campaign sample --interval 0.25 --gpu auto &\nsampler=$!\n") !=
        std::string::npos);
  // After the command, before the script's exit (whose trap writes .exit), with the command's status.
  CHECK(s.text.find(
            "\nsrun -l -u x\nstatus=$?\nkill -TERM \"$sampler\" && wait \"$sampler\"\nexit \"$status\"\n") !=
        std::string::npos);
  // The step that turns it off renders as without the option.
  auto off = r.render(slurm.cases[1], render::RenderOptions{"/scratch/w", "/opt/campaign", 1, 0, {}});
  CHECK(off.text.find("sample") == std::string::npos);
  CHECK(off.text.find("\nsrun -l -u x\n") != std::string::npos);

  auto lsf = plan_of(yaml, "summit");
  auto l = render::Renderer(lsf).render(lsf.cases[0], render::RenderOptions{"/w", "/opt/campaign", 1, 0, {}});
  CHECK(l.text.find("\n/opt/campaign sample --interval 0.25 --gpu auto &\n") != std::string::npos);
  auto local = plan_of(yaml, "local");
  auto lo =
      render::Renderer(local).render(local.cases[0], render::RenderOptions{"/w", "/opt/campaign", 1, 0, {}});
  CHECK(lo.text.find("\n/opt/campaign sample --interval 0.25 --gpu auto --pid $$ &\n") != std::string::npos);
}

TEST_CASE("job option sample with when: gpus: the sampler beside the cases that hold GPUs only") {
  auto p = plan_of(R"Y(name: t
matrix:
  mode: [{name: gpu, g: 1}, {name: cpu, g: 0}]
case_name: "{{mode}}"
job: {command: x, partition: gpu, ranks: 4, ranks_per_node: 4, gpus_per_rank: g, sample: {when: gpus}}
)Y",
                   "perlmutter");
  render::Renderer r(p);
  auto gpu = r.render(p.cases[0], render::RenderOptions{"/w", "/opt/campaign", 1, 0, {}});
  auto cpu = r.render(p.cases[1], render::RenderOptions{"/w", "/opt/campaign", 1, 0, {}});
  CHECK(gpu.text.find("/opt/campaign sample --interval 0.1 --gpu auto &") != std::string::npos);
  CHECK(cpu.text.find("sample") == std::string::npos);
}

TEST_CASE("scripts ask for what the case needs: GPUs per task, memory, whole nodes") {
  auto p = plan_of(R"Y(name: t
matrix:
  mode: [{name: gpu, g: 1, whole: false}, {name: cpu, g: 0, whole: true}]
case_name: "{{mode}}"
job: {command: x, partition: gpu, ranks: 4, ranks_per_node: 4, cpus_per_rank: 16, gpus_per_rank: g,
      memory: 64G, exclusive: "{{whole}}"}
)Y",
                   "perlmutter");
  render::Renderer r(p);
  auto gpu = r.render(p.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(gpu.find("#SBATCH --gpus-per-task=1\n") != std::string::npos);
  CHECK(gpu.find("#SBATCH --mem=65536M\n") != std::string::npos);
  CHECK(gpu.find("#SBATCH --exclusive\n") == std::string::npos);
  // Site rules stay (constraint, QOS); the partition no longer asks for every GPU of the node.
  CHECK(gpu.find("#SBATCH --constraint=gpu\n") != std::string::npos);
  CHECK(gpu.find("--gpus-per-node") == std::string::npos);
  auto cpu = r.render(p.cases[1], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(cpu.find("--gpus-per-task") == std::string::npos);
  CHECK(cpu.find("#SBATCH --exclusive\n") != std::string::npos);
}

TEST_CASE("ranks sharing GPUs: the node's GPUs, k ranks bound to each (Slurm, packed steps, jsrun)") {
  const std::string yaml = R"Y(name: t
job: {command: x, partition: gpu, ranks: 8, ranks_per_node: 8, cpus_per_rank: 2, gpus_per_rank: 0.5}
)Y";
  auto p = plan_of(yaml, "perlmutter");
  render::Renderer r(p);
  auto one = r.render(p.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(one.find("#SBATCH --gpus-per-node=4\n#SBATCH --gpu-bind=single:2\n") != std::string::npos);
  CHECK(one.find("--gpus-per-task") == std::string::npos);
  render::RenderOptions packed{"/w", "campaign", 1, 0, {}};
  packed.packed = true;
  auto step = r.render(p.cases[0], packed).text;
  CHECK(step.find(" --gpus-per-node=4 --gpu-bind=single:2 ") != std::string::npos);
  CHECK(step.find("--gpus-per-task") == std::string::npos);
  // Summit: 6 GPUs per node; 8 ranks at 0.5 are 4 resource sets of 2 ranks, 4 cores and one GPU.
  auto s = plan_of(yaml, "summit");
  auto lsf = render::Renderer(s).render(s.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(lsf.find("jsrun -n 4 -r 4 -a 2 -c 4 -g 1 -b rs") != std::string::npos);
  // Frontier's own srun line: the node's GCDs and k ranks on each, or whole GCDs per task and closest.
  auto f = plan_of(yaml, "frontier");
  auto fr = render::Renderer(f).render(f.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(fr.find("\nsrun --gpus-per-node=4 --gpu-bind=single:2 x\n") != std::string::npos);
  auto w =
      plan_of("name: t\njob: {command: x, partition: gpu, ranks: 8, ranks_per_node: 8, cpus_per_rank: 2}\n",
              "frontier");
  auto wr = render::Renderer(w).render(w.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}}).text;
  CHECK(wr.find("\nsrun --gpus-per-task=1 --gpu-bind=closest x\n") != std::string::npos);
  // A node's GPUs are ceil(ranks x share): 4 ranks at 0.25 ask one.
  auto l = plan_of(
      "name: t\njob: {command: x, partition: gpu, ranks: 4, ranks_per_node: 4, cpus_per_rank: 1, "
      "gpus_per_rank: 0.25, "
      "oversubscribe: true}\n",
      "testcluster");
  CHECK(l.demand_of(l.cases[0]).gpus == 1);
}

TEST_CASE("a local script's #LOCAL line holds what the job takes of the machine") {
  auto p = plan_of(
      "name: t\njob: {command: x, partition: cpu, ranks: 2, cpus_per_rank: 1, memory: 1G, exclusive: true}\n",
      "local");
  auto s = render::Renderer(p).render(p.cases[0], render::RenderOptions{"/w", "campaign", 1, 0, {}});
  // Two ranks, one per node by default: 1G per node is 2G of the one host.
  CHECK(s.text.find("#LOCAL --cores=2 --gpus=0 --mem=2048 --exclusive\n") != std::string::npos);
}

TEST_CASE("definition_changes names each field that differs, with both values") {
  using campaign::render::definition_changes;
  CHECK(definition_changes(R"({"command":"sleep 30","nodes":1})", R"({"command":"sleep 3","nodes":1})") ==
        std::vector<std::string>{"command: 'sleep 30' -> 'sleep 3'"});
  CHECK(definition_changes(R"({"nodes":1,"exclusive":true})", R"({"nodes":2,"memory_mb":4096})") ==
        std::vector<std::string>{"memory_mb: (none) -> 4096", "nodes: 1 -> 2", "exclusive: true -> (none)"});
  CHECK(definition_changes("", R"({"nodes":1})") == std::vector<std::string>{"definition"});
}

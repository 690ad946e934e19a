#include "pack/script.hpp"

#include "render/batch.hpp"
#include "util/atomic_file.hpp"
#include "util/mustache.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::pack {

Allocation allocation_of(const matrix::Plan& plan, const StepAllocation& planned, const std::string& job_name,
                         const fs::path& workdir) {
  Allocation a;
  a.job_name = job_name;
  const spec::Partition& part = plan.system.partitions[planned.partition];
  a.partition = part.name;
  a.nodes = planned.nodes;
  a.node = spec::node_of(part);
  a.driver_binds_gpus = plan.system.one_host();
  a.walltime_s = planned.walltime_s;
  a.dir = allocation_dir(workdir, job_name);
  return a;
}

PackedCase packed_case(const matrix::Plan& plan, const matrix::Case& c, const render::Script& s,
                       long walltime_s) {
  PackedCase p;
  p.key = c.key;
  p.case_name = c.name;
  p.job_name = s.job_name;
  p.run_dir = s.run_dir;
  p.demand = plan.demand_of(c);
  p.ranks = c.ranks;
  p.walltime_s = walltime_s > 0 ? walltime_s : c.walltime_s;
  p.script = s.path;
  return p;
}

AllocationScript render_allocation(const matrix::Plan& plan, const Allocation& a, const std::string& exe) {
  Mustache tmpl = render::batch_template(plan, "pack", "packed runs");
  std::vector<const matrix::Case*> cases;
  for (auto& pc : a.cases)
    for (auto& c : plan.cases)
      if (c.key == pc.key) cases.push_back(&c);
  MustacheData d = render::batch_data(plan, a.partition, cases, a.job_name, a.walltime_s);
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  set("nodes", std::to_string(a.nodes));
  // The allocation holds whole nodes; it asks for their GPUs and memory when a case uses them.
  bool gpus = false, memory = false;
  for (auto& pc : a.cases) {
    gpus |= pc.demand.gpus > 0;
    memory |= pc.demand.memory_mb > 0;
  }
  d.set("gpus", MustacheData(gpus));
  d.set("memory", MustacheData(memory));
  set("gpus_per_node", std::to_string(a.node.gpus));
  set("cases", std::to_string(a.cases.size()));
  set("dir", a.dir.string());
  set("manifest", manifest_path(a).string());
  set("campaign_exe", exe);
  return {a.dir / kAllocationScript, tmpl.render(d, true)};
}

void write_allocation(const Allocation& a, const AllocationScript& script) {
  write_manifest(a);
  write_file_atomic(script.path, script.text,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec);
}

}  // namespace campaign::pack

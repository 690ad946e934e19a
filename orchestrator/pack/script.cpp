#include "pack/script.hpp"

#include "render/batch.hpp"
#include "util/atomic_file.hpp"
#include "util/mustache.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::pack {

PackedCase packed_case(const matrix::Case& c, const render::Script& s, long walltime_s) {
  PackedCase p;
  p.key = c.key;
  p.case_name = c.name;
  p.job_name = s.job_name;
  p.run_dir = s.run_dir;
  p.nodes = c.nodes;
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

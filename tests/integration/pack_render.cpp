// pack_render CAMPAIGN SYSTEM WORKDIR CAMPAIGN_EXE NODES WALLTIME_S: renders the cases of CAMPAIGN
// for SYSTEM (a name in systems/) as one packed allocation of NODES nodes under WORKDIR, as the
// orchestrator will (case scripts, manifest, allocation script), and prints the allocation script's
// path. For the pack tests on a real scheduler (pack_slurm.sh).
#include <iostream>

#include "pack/script.hpp"
#include "spec/library.hpp"

using namespace campaign;

int main(int argc, char** argv) {
  if (argc != 7) {
    std::cerr << "Usage: pack_render CAMPAIGN SYSTEM WORKDIR CAMPAIGN_EXE NODES WALLTIME_S\n";
    return 2;
  }
  try {
    std::string sys_name = argv[2];
    auto c = spec::load_campaign(argv[1]);
    auto sys = spec::load_system_file(*spec::find_data_file(c.dir, "systems", sys_name, ".yaml"));
    std::filesystem::path wd = std::filesystem::absolute(argv[3]);
    auto plan = matrix::expand(spec::for_system(c, sys_name), sys, wd.string());
    render::RenderOptions o;
    o.workdir = wd;
    o.campaign_exe = argv[4];
    o.packed = true;
    render::Renderer r(plan);
    pack::StepAllocation planned;
    planned.partition = plan.cases.at(0).partition;
    planned.nodes = std::stol(argv[5]);
    planned.walltime_s = std::stol(argv[6]);
    pack::Allocation a =
        pack::allocation_of(plan, planned, "cmp" + render::campaign_id(c.name, wd) + "-alloc1", wd);
    std::vector<render::Script> scripts;
    for (auto& k : plan.cases) {
      scripts.push_back(r.render(k, o));
      a.cases.push_back(pack::packed_case(plan, k, scripts.back()));
    }
    render::write_scripts(scripts, wd);
    auto s = pack::render_allocation(plan, a, o.campaign_exe);
    pack::write_allocation(a, s);
    std::cout << s.path.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pack_render: " << e.what() << "\n";
    return 1;
  }
}

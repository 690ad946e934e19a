// pack_render CAMPAIGN SYSTEM WORKDIR CAMPAIGN_EXE NODES WALLTIME_S: renders the cases of CAMPAIGN
// for SYSTEM (a name in systems/) as one packed allocation of NODES nodes under WORKDIR, as the
// orchestrator will (case scripts, manifest, allocation script), and prints the allocation script's
// path. For the pack tests on a real scheduler (pack_slurm.sh).
#include <iostream>

#include "batch/files.hpp"
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
    batch::Shape shape;
    shape.kind = batch::Kind::allocation;
    shape.partition = plan.cases.at(0).partition;
    shape.nodes = std::stol(argv[5]);
    shape.walltime_s = std::stol(argv[6]);
    std::vector<render::Script> scripts;
    for (size_t i = 0; i < plan.cases.size(); ++i) {
      shape.ids.push_back(i);
      shape.walltimes.push_back(plan.cases[i].walltime_s);
      scripts.push_back(r.render(plan.cases[i], o));
    }
    render::write_scripts(scripts, wd);
    auto files = batch::files_of(plan, shape, "cmp" + render::campaign_id(c.name, wd) + "-alloc1", wd,
                                 scripts, o.campaign_exe, 0);
    batch::write_files(files.files);
    std::cout << files.script.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pack_render: " << e.what() << "\n";
    return 1;
  }
}

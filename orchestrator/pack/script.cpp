#include "pack/script.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "spec/library.hpp"
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
  const auto& sys = plan.system;
  const spec::Partition* part = spec::find_partition(sys, a.partition);
  if (!part)
    throw InputError(Location{sys.file}, "partitions",
                     "no partition '" + a.partition + "' for allocation " + a.job_name);
  auto path = spec::find_data_file(plan.campaign.dir, "templates/pack", sys.scheduler, ".sh.mustache");
  if (!path)
    throw InputError(Location{"templates/pack/" + sys.scheduler + ".sh.mustache"}, "",
                     "no such template (packed runs on " + sys.name + " need it)");
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  Mustache tmpl(text.str(), Location{path->string()}, "");

  MustacheData d;
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  // The first case's values, for directives that use them (all cases share the step's options).
  const matrix::Case* first = nullptr;
  std::vector<size_t> steps;
  for (auto& pc : a.cases)
    for (auto& c : plan.cases)
      if (c.key == pc.key) {
        if (!first) first = &c;
        if (std::find(steps.begin(), steps.end(), c.step) == steps.end()) steps.push_back(c.step);
      }
  if (first) {
    const auto& sc = *plan.step_of(*first).schema;
    for (size_t i = 0; i < sc.names.size(); ++i) set(sc.names[i], first->values[i].text);
  }
  set("campaign", plan.campaign.name);
  set("system", sys.name);
  set("job_name", a.job_name);
  set("nodes", std::to_string(a.nodes));
  set("cases", std::to_string(a.cases.size()));
  set("walltime", format_hms(a.walltime_s));
  set("walltime_minutes", std::to_string(walltime_minutes(a.walltime_s)));
  set("walltime_hhmm", format_hhmm(a.walltime_s));
  set("dir", a.dir.string());
  set("manifest", manifest_path(a).string());
  set("campaign_exe", exe);
  set("partition_name", part->name);
  set("queue", part->queue);
  set("account", plan.campaign.account ? *plan.campaign.account : sys.account);

  std::vector<std::string> directives = part->options;
  for (size_t st : steps)
    if (const auto& opts = plan.steps[st].job.scheduler_options)
      for (auto& o : *opts)
        if (std::find(directives.begin(), directives.end(), o) == directives.end()) directives.push_back(o);
  MustacheData list(MustacheData::type::list);
  for (auto& dir : directives)
    list.push_back(MustacheData(Mustache(dir, Location{sys.file}, "directives").render(d, false)));
  d.set("directives", list);
  return {a.dir / kAllocationScript, tmpl.render(d, true)};
}

void write_allocation(const Allocation& a, const AllocationScript& script) {
  write_manifest(a);
  write_file_atomic(script.path, script.text,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec);
}

}  // namespace campaign::pack

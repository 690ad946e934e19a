#include "render/batch.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "spec/library.hpp"
#include "util/walltime.hpp"

namespace campaign::render {

Mustache batch_template(const matrix::Plan& plan, const std::string& kind, const std::string& what) {
  const auto& sys = plan.system;
  auto path = spec::find_data_file(plan.campaign.dir, "templates/" + kind, sys.scheduler, ".sh.mustache");
  if (!path)
    throw InputError(Location{"templates/" + kind + "/" + sys.scheduler + ".sh.mustache"}, "",
                     "no such template (" + what + " on " + sys.name + " need it)");
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return Mustache(text.str(), Location{path->string()}, "");
}

MustacheData batch_data(const matrix::Plan& plan, const std::string& partition,
                        const std::vector<const matrix::Case*>& cases, const std::string& job_name,
                        long walltime_s) {
  const auto& sys = plan.system;
  const spec::Partition* part = spec::find_partition(sys, partition);
  if (!part)
    throw InputError(Location{sys.file}, "partitions", "no partition '" + partition + "' for " + job_name);
  MustacheData d;
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  std::vector<size_t> steps;
  for (auto* c : cases)
    if (std::find(steps.begin(), steps.end(), c->step) == steps.end()) steps.push_back(c->step);
  if (!cases.empty()) {
    const matrix::Case& first = *cases.front();
    const auto& sc = *plan.step_of(first).schema;
    for (size_t i = 0; i < sc.names.size(); ++i) set(sc.names[i], first.values[i].text);
  }
  set("campaign", plan.campaign.name);
  set("system", sys.name);
  set("job_name", job_name);
  set("walltime", format_hms(walltime_s));
  set("walltime_minutes", std::to_string(walltime_minutes(walltime_s)));
  set("walltime_hhmm", format_hhmm(walltime_s));
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
  return d;
}

void set_case_resources(MustacheData& d, const matrix::Plan& plan, const matrix::Case& c) {
  auto set = [&](const std::string& k, long v) { d.set(k, scalar_data(std::to_string(v))); };
  const resource::Demand demand = plan.demand_of(c);
  set("ranks_per_node", c.ranks_per_node);
  set("cpus_per_rank", c.cpus_per_rank);
  set("gpus_per_rank", c.gpus_per_rank);
  set("node_cores", demand.cores);
  set("node_gpus", demand.gpus);
  set("node_memory_mb", demand.memory_mb);
  set("memory_mb", c.memory_mb);
  d.set("gpus", MustacheData(c.gpus_per_rank > 0));
  d.set("memory", MustacheData(c.memory_mb > 0));
  d.set("exclusive", MustacheData(c.exclusive));
  d.set("oversubscribe", MustacheData(c.oversubscribe));
}

}  // namespace campaign::render

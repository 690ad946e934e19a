#include "batch/files.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <tuple>

#include "pack/manifest.hpp"
#include "spec/library.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/mustache.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::batch {

namespace {

// templates/<kind>/<scheduler>.sh.mustache, the campaign's own first (spec::find_data_file). Read
// once per process and campaign folder, as the cases' own templates are read once per run
// (render::Renderer): a run submits thousands of batches, each looked up along the search path.
const Mustache& batch_template(const matrix::Plan& plan, const std::string& kind, const std::string& what) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, std::string>, std::unique_ptr<Mustache>> read;
  const auto& sys = plan.system;
  std::lock_guard lock(mutex);
  auto& tmpl = read[{plan.campaign.dir.string(), kind, sys.scheduler}];
  if (tmpl) return *tmpl;
  auto path = spec::find_data_file(plan.campaign.dir, "templates/" + kind, sys.scheduler, ".sh.mustache");
  if (!path)
    throw InputError(Location{"templates/" + kind + "/" + sys.scheduler + ".sh.mustache"}, "",
                     "no such template (" + what + " on " + sys.name + " need it)");
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  tmpl = std::make_unique<Mustache>(text.str(), Location{path->string()}, "");
  return *tmpl;
}

// The values every batch template may use: the first case's parameters (for directives that use
// them; the cases share their steps' options), campaign, system, job_name, walltime (and
// walltime_minutes, walltime_hhmm), partition_name, queue, account, dir, campaign_exe and
// `directives`: the partition's options and the scheduler options of the cases' steps, each once.
MustacheData batch_data(const matrix::Plan& plan, const Shape& s, const std::string& job_name,
                        const fs::path& dir, const std::string& exe) {
  const auto& sys = plan.system;
  const spec::Partition& part = sys.partitions.at(s.partition);
  MustacheData d;
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  const matrix::Case& first = plan.cases[s.ids.front()];
  const auto& sc = *plan.step_of(first).schema;
  for (size_t i = 0; i < sc.names.size(); ++i) set(sc.names[i], first.values[i].text);
  set("campaign", plan.campaign.name);
  set("system", sys.name);
  set("job_name", job_name);
  set("walltime", format_hms(s.walltime_s));
  set("walltime_minutes", std::to_string(walltime_minutes(s.walltime_s)));
  set("walltime_hhmm", format_hhmm(s.walltime_s));
  set("partition_name", part.name);
  set("queue", part.queue);
  set("account", plan.campaign.account ? *plan.campaign.account : sys.account);
  set("dir", dir.string());
  set("campaign_exe", exe);
  std::vector<std::string> directives = part.options;
  std::vector<size_t> steps;
  for (size_t i : s.ids)
    if (std::find(steps.begin(), steps.end(), plan.cases[i].step) == steps.end())
      steps.push_back(plan.cases[i].step);
  for (size_t st : steps)
    if (const auto& opts = plan.steps[st].job.scheduler_options)
      for (auto& o : *opts)
        if (std::find(directives.begin(), directives.end(), o) == directives.end()) directives.push_back(o);
  MustacheData list(MustacheData::type::list);
  for (auto& dir_text : directives)
    list.push_back(MustacheData(Mustache(dir_text, Location{sys.file}, "directives").render(d, false)));
  d.set("directives", list);
  return d;
}

// The manifest the driver reads: what each node offers, what each case asks of them.
pack::Allocation manifest_of(const matrix::Plan& plan, const Shape& s, const std::string& job_name,
                             const fs::path& dir, const std::vector<render::Script>& scripts) {
  pack::Allocation a;
  a.job_name = job_name;
  const spec::Partition& part = plan.system.partitions.at(s.partition);
  a.partition = part.name;
  a.nodes = s.nodes;
  a.node = spec::node_of(part);
  a.driver_binds_gpus = plan.system.one_host();  // no launcher binds them on the local executor
  a.walltime_s = s.walltime_s;
  a.dir = dir;
  for (size_t k = 0; k < s.ids.size(); ++k) {
    const matrix::Case& c = plan.cases[s.ids[k]];
    pack::PackedCase p;
    p.key = c.key;
    p.case_name = c.name;
    p.job_name = scripts[k].job_name;
    p.run_dir = scripts[k].run_dir;
    p.demand = plan.demand_of(c);
    p.ranks = c.ranks;
    p.walltime_s = s.walltimes[k];
    p.script = scripts[k].path;
    a.cases.push_back(std::move(p));
  }
  return a;
}

}  // namespace

Files files_of(const matrix::Plan& plan, const Shape& s, const std::string& job_name, const fs::path& workdir,
               const std::vector<render::Script>& scripts, const std::string& campaign_exe, long first_task) {
  if (s.kind == Kind::single || s.ids.empty() || scripts.size() != s.ids.size())
    throw Error("batch files: " + job_name + " is not a batch of several cases with their scripts");
  const fs::path dir = dir_of(workdir, job_name);
  Files out;
  out.script = dir / kScriptName;
  MustacheData d = batch_data(plan, s, job_name, dir, campaign_exe);
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  if (s.kind == Kind::allocation) {
    pack::Allocation a = manifest_of(plan, s, job_name, dir, scripts);
    // The allocation holds whole nodes; it asks for their GPUs and memory when a case uses them.
    bool gpus = false, memory = false;
    for (auto& pc : a.cases) {
      gpus |= pc.demand.gpus > 0;
      memory |= pc.demand.memory_mb > 0;
    }
    d.set("gpus", MustacheData(gpus));
    d.set("memory", MustacheData(memory));
    set("gpus_per_node", std::to_string(a.node.gpus));
    set("nodes", std::to_string(a.nodes));
    set("cases", std::to_string(a.cases.size()));
    set("manifest", manifest_path(a).string());
    out.files.push_back({manifest_path(a), pack::to_json(a), false});
    out.files.push_back({out.script, batch_template(plan, "pack", "packed runs").render(d, true), true});
    return out;
  }
  const matrix::Case& first = plan.cases[s.ids.front()];
  render::set_case_resources(d, plan, first);
  const long tasks = static_cast<long>(s.ids.size());
  set("nodes", std::to_string(first.job_nodes()));
  set("ranks", std::to_string(first.job_ranks()));
  set("tasks", std::to_string(tasks));
  set("first_task", std::to_string(first_task));
  set("last_task", std::to_string(first_task + tasks - 1));
  set("throttle", s.throttle > 0 ? std::to_string(s.throttle) : "");
  set("index", (dir / kIndexName).string());
  std::string index;
  for (auto& sc : scripts) index += sc.path.string() + "\n";
  out.files.push_back({dir / kIndexName, index, false});
  out.files.push_back({out.script, batch_template(plan, "array", "job arrays").render(d, true), true});
  return out;
}

void write_files(const std::vector<File>& files) {
  constexpr fs::perms kReadable =
      fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
  constexpr fs::perms kExecutable =
      kReadable | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  for (auto& f : files) {
    std::error_code ec;
    fs::create_directories(f.path.parent_path(), ec);
    if (ec) throw Error("cannot create " + f.path.parent_path().string() + ": " + ec.message());
    write_file_atomic(f.path, f.text, f.executable ? kExecutable : kReadable);
  }
}

}  // namespace campaign::batch

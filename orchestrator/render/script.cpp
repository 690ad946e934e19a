#include "render/script.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "sched/launchers.hpp"
#include "spec/library.hpp"
#include "util/atomic_file.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/walltime.hpp"

namespace fs = std::filesystem;

namespace campaign::render {

using matrix::Escape;

void set_case_resources(MustacheData& d, const matrix::Plan& plan, const matrix::Case& c) {
  auto set = [&](const std::string& k, long v) { d.set(k, scalar_data(std::to_string(v))); };
  const resource::Demand demand = plan.demand_of(c);
  set("ranks_per_node", c.ranks_per_node);
  set("cpus_per_rank", c.cpus_per_rank);
  d.set("gpus_per_rank", scalar_data(matrix::format_number(c.gpus_per_rank)));
  set("ranks_per_gpu", resource::ranks_per_gpu(c.gpus_per_rank));
  set("node_cores", demand.cores);
  set("node_gpus", demand.gpus);
  set("node_memory_mb", demand.memory_mb);
  set("memory_mb", c.memory_mb);
  // Whole GPUs per rank (--gpus-per-task), or ranks sharing GPUs: the node's GPUs (--gpus-per-node)
  // and k ranks bound to each (--gpu-bind=single:k).
  const bool shared = c.gpus_per_rank > 0 && c.gpus_per_rank < 1;
  d.set("gpus", MustacheData(c.gpus_per_rank > 0));
  // jsrun's resource sets: one per rank, or k ranks with one GPU when they share.
  const long k = shared ? resource::ranks_per_gpu(c.gpus_per_rank) : 1;
  set("resource_sets", (c.ranks + k - 1) / k);
  set("resource_sets_per_node", (c.ranks_per_node + k - 1) / k);
  set("ranks_per_resource_set", k);
  set("cpus_per_resource_set", k * c.cpus_per_rank);
  d.set("gpus_per_resource_set", scalar_data(shared ? "1" : matrix::format_number(c.gpus_per_rank)));
  d.set("gpus_whole", MustacheData(c.gpus_per_rank >= 1));
  d.set("gpus_shared", MustacheData(shared));
  d.set("memory", MustacheData(c.memory_mb > 0));
  d.set("exclusive", MustacheData(c.exclusive));
  d.set("oversubscribe", MustacheData(c.oversubscribe));
}

std::string campaign_id(const std::string& campaign_name, const fs::path& workdir, const std::string& salt) {
  return hex64(
             fnv1a64(campaign_name + '\n' + fs::absolute(workdir).lexically_normal().string() + '\n' + salt))
      .substr(0, 6);
}

std::string job_name(const std::string& id, const matrix::Case& c, int attempt) {
  return "cmp" + id + "-" + c.name + "-a" + std::to_string(attempt);
}

std::string allocation_name(const std::string& id, std::int64_t first_attempt) {
  return "cmp" + id + "-pack" + std::to_string(first_attempt);
}

std::string array_name(const std::string& id, std::int64_t first_attempt) {
  return "cmp" + id + "-arr" + std::to_string(first_attempt);
}

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(Location{p.string()}, "", "cannot read template");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The partials `text` includes (templates/partials/NAME.sh.mustache, found as templates are), and
// the partials they include. One not found is left out: Mustache reports it at its tag.
std::vector<MustachePartial> partials_of(const fs::path& near, const std::string& text) {
  std::vector<MustachePartial> found;
  std::vector<std::string> names = partial_names(text);
  for (size_t i = 0; i < names.size(); ++i) {
    auto known = [&](const MustachePartial& p) { return p.name == names[i]; };
    if (std::any_of(found.begin(), found.end(), known)) continue;
    auto path = spec::find_data_file(near, "templates/partials", names[i], ".sh.mustache");
    if (!path) continue;
    found.push_back({names[i], read_file(*path), Location{path->string()}});
    for (auto& n : partial_names(found.back().text)) names.push_back(n);
  }
  return found;
}

// A job template read from its file, with its partials.
std::shared_ptr<Mustache> job_template(const fs::path& near, const fs::path& path) {
  std::string text = read_file(path);
  return std::make_shared<Mustache>(text, Location{path.string()}, "", partials_of(near, text));
}

MustacheData list_data(const std::vector<std::string>& items) {
  MustacheData list(MustacheData::type::list);
  for (auto& s : items) list.push_back(MustacheData(s));
  return list;
}

}  // namespace

Renderer::Renderer(const matrix::Plan& plan) : plan_(plan) {
  const auto& sys = plan.system;
  if (auto p = spec::find_data_file(plan.campaign.dir, "templates/pack", "case", ".sh.mustache"))
    case_script_ = job_template(plan.campaign.dir, *p);
  for (auto& sp : plan.steps) {
    StepTemplates t;
    const auto& job = sp.job;
    std::string name = job.template_name ? *job.template_name
                                         : (sys.template_name.empty() ? sys.scheduler : sys.template_name);
    auto path = spec::find_data_file(plan.campaign.dir, "templates", name, ".sh.mustache");
    if (!path) {
      auto names = spec::available(plan.campaign.dir, "templates", ".sh.mustache");
      if (job.template_name)
        throw InputError(job.template_name.where, "job.template",
                         "no template '" + name + "'" + did_you_mean(name, names) +
                             " (templates: " + join(names, ", ") + ")");
      throw InputError(Location{sys.file}, "template", "no template '" + name + "' for system " + sys.name);
    }
    t.path = *path;
    t.script = job_template(plan.campaign.dir, *path);
    std::string launch = (job.launch && !*job.launch) ? "" : sys.launcher.command;
    t.launch = std::make_shared<Mustache>(launch, Location{sys.file}, "launcher.command");
    std::optional<std::string> step =
        (job.launch && !*job.launch) ? ""
                                     : sched::step_launch_template(sys.launcher.kind, sys.launcher.command);
    if (step) t.step_launch = std::make_shared<Mustache>(*step, Location{sys.file}, "launcher.command");
    if (job.container) {
      if (!sys.container)
        throw InputError(
            job.container.where, "job.container",
            "system '" + sys.name + "' has no container runtime (add `container:` to its profile)");
      t.container =
          std::make_shared<Mustache>(sys.container->command, Location{sys.file}, "container.command");
    }
    const matrix::Schema& sc = *sp.schema;
    std::vector<std::string> setup = sys.setup;
    if (job.setup) setup.insert(setup.end(), job.setup->begin(), job.setup->end());
    for (auto& line : setup)
      t.setup.emplace_back(line, sc, job.setup ? job.setup.where : Location{sys.file}, "job.setup");
    for (auto& [k, v] : sys.env)
      t.sys_env.emplace_back(k, matrix::TextTemplate(v, sc, Location{sys.file}, "env." + k));
    for (size_t i = 0; i < job.env.size(); ++i)
      t.job_env.emplace_back(job.env[i].first, matrix::TextTemplate(job.env[i].second, sc, job.env_where[i],
                                                                    "job.env." + job.env[i].first));
    steps_.push_back(std::move(t));
  }
}

Script Renderer::render(const matrix::Case& c, const RenderOptions& o) const {
  const auto& sp = plan_.step_of(c);
  const auto& t = steps_[c.step];
  const auto& sys = plan_.system;
  const auto& part = plan_.partition_of(c);
  const auto& job = sp.job;
  const matrix::Schema& sc = *sp.schema;

  Script s;
  s.case_name = c.name;
  s.job_name = job_name(o.campaign_id.empty() ? campaign_id(plan_.campaign.name, o.workdir) : o.campaign_id,
                        c, o.attempt);
  s.run_dir = o.workdir / c.name;
  s.path = s.run_dir / kScriptName;
  s.attempt = o.attempt;
  long walltime = o.walltime_s > 0 ? o.walltime_s : c.walltime_s;

  MustacheData d;
  for (size_t i = 0; i < sc.names.size(); ++i) d.set(sc.names[i], scalar_data(c.values[i].text));
  auto set = [&](const std::string& k, const std::string& v) { d.set(k, scalar_data(v)); };
  set("case_name", c.name);
  set("job_name", s.job_name);
  set("attempt", std::to_string(o.attempt));
  set("workdir", o.workdir.string());
  set("run_dir", s.run_dir.string());
  set("script_path", s.path.string());
  set("exit_marker", kExitMarker);
  set("start_stamp", start_stamp(o.attempt));
  set("claim", claim_file(o.attempt));
  set("claimed_elsewhere", std::to_string(kClaimedElsewhere));
  set("claim_job_id", sched::claim_job_id(sys.scheduler, o.packed));
  set("campaign_exe", o.campaign_exe);
  set("nodes", std::to_string(c.nodes));
  set("ranks", std::to_string(c.ranks));
  set_case_resources(d, plan_, c);
  set("walltime", format_hms(walltime));
  set("walltime_minutes", std::to_string(walltime_minutes(walltime)));
  set("walltime_hhmm", format_hhmm(walltime));
  set("partition_name", part.name);
  set("queue", part.queue);
  std::string account = plan_.campaign.account ? *plan_.campaign.account : sys.account;
  set("account", account);

  std::vector<std::string> directives = part.options;
  if (job.scheduler_options)
    directives.insert(directives.end(), job.scheduler_options->begin(), job.scheduler_options->end());
  std::vector<std::string> modules = sys.modules;
  modules.insert(modules.end(), part.modules.begin(), part.modules.end());
  if (job.modules) modules.insert(modules.end(), job.modules->begin(), job.modules->end());
  std::vector<std::string> setup_lines;
  for (auto& line : part.setup) setup_lines.push_back(line);
  for (auto& tt : t.setup) setup_lines.push_back(tt.render(c.values, Escape::shell));
  // Environment: system, then partition, then job; a later definition wins.
  std::vector<std::pair<std::string, std::string>> env;
  auto put_env = [&](const std::string& k, const std::string& v) {
    for (auto& e : env)
      if (e.first == k) {
        e.second = v;
        return;
      }
    env.emplace_back(k, v);
  };
  for (auto& [k, tt] : t.sys_env) put_env(k, tt.render(c.values, Escape::shell));
  for (auto& [k, v] : part.env) put_env(k, v);
  for (auto& [k, tt] : t.job_env) put_env(k, tt.render(c.values, Escape::shell));

  if (o.packed && !case_script_)
    throw InputError(Location{"templates/pack/case.sh.mustache"}, "",
                     "no such template (packed runs need it)");
  if ((o.packed || job.instances) && !t.step_launch)
    throw InputError(Location{sys.file}, "launcher.command",
                     std::string(o.packed ? "packed runs" : "instances") + ": " +
                         sched::step_launch_requirement(sys.launcher.kind));
  std::string container;
  if (t.container) {
    MustacheData cd = d;
    cd.set("image", job.container->image);
    cd.set("container_options", join(job.container->options, " "));
    container = t.container->render(cd, true);
    directives.insert(directives.end(), sys.container->options.begin(), sys.container->options.end());
  }
  auto run_line = [&](const Mustache& launch_tmpl, const MustacheData& data,
                      const std::vector<spec::Value>& values) {
    std::string launch = launch_tmpl.render(data, true);
    std::string command = sp.command.render(values, Escape::shell);
    std::vector<std::string> run;
    for (auto* piece : {&launch, &container, &command})
      if (!trim(*piece).empty()) run.push_back(trim(*piece));
    set("launch", launch);
    set("command", command);
    return join(run, " ");
  };
  // Instances: the same run line K times, each with its own `instance` and directory, each a step
  // on its own nodes as a packed case is.
  MustacheData instance_runs(MustacheData::type::list);
  if (job.instances) {
    size_t slot = static_cast<size_t>(sc.find("instance"));
    std::vector<spec::Value> values = c.values;
    MustacheData di = d;
    for (long i = 0; i < c.instances; ++i) {
      values[slot] = spec::Value::from_text(std::to_string(i));
      di.set("instance", std::to_string(i));
      MustacheData run;
      run.set("instance", std::to_string(i));
      run.set("dir", instance_dir(i));
      run.set("run_line", run_line(*t.step_launch, di, values));
      instance_runs.push_back(run);
    }
  }
  set("run_line", run_line(o.packed ? *t.step_launch : *t.launch, d, c.values));
  d.set("instance_runs", instance_runs);
  d.set("instanced", MustacheData(job.instances.value.has_value()));
  set("instance_output", kInstanceOutput);
  // The job asks for every instance's nodes and ranks.
  set("nodes", std::to_string(c.job_nodes()));
  set("ranks", std::to_string(c.job_ranks()));

  // Directives may use case values too (e.g. --image={{image}} for Shifter).
  for (auto& dir : directives) dir = Mustache(dir, Location{sys.file}, "directives").render(d, false);
  d.set("directives", list_data(directives));
  d.set("modules", list_data(modules));
  d.set("has_modules", MustacheData(!modules.empty()));
  set("module_load_failed", std::to_string(kModuleLoadFailed));
  d.set("setup", list_data(setup_lines));
  MustacheData env_list(MustacheData::type::list);
  for (auto& [k, v] : env) {
    MustacheData e;
    e.set("name", k);
    e.set("value", v);
    env_list.push_back(e);
  }
  d.set("env", env_list);
  set("container_exec", container);
  // The utilisation sampler (job option `sample`): the templates start `campaign sample` beside the
  // job and stop it after the command.
  bool sampling = job.sample && job.sample->enabled && (job.sample->when != "gpus" || c.gpus_per_rank > 0);
  d.set("sample", MustacheData(sampling));
  std::ostringstream interval;
  interval << (sampling ? job.sample->interval_s : 0.0);
  set("sample_interval", interval.str());
  set("sample_gpu", sampling ? job.sample->gpu : "");
  // A packed case's sampler: beside its step on each of its nodes where the scheduler can (a case
  // that runs its command in its script, `launch: false`, is sampled where the script runs).
  const bool steps = !(job.launch && !*job.launch);
  const std::string sample_launch = o.packed && steps ? sched::step_sampler_launch(sys.scheduler) : "";
  set("sample_launch",
      sample_launch.empty() ? "" : Mustache(sample_launch, Location{sys.file}, "launcher").render(d, false));
  s.text = (o.packed ? case_script_ : t.script)->render(d, true);
  return s;
}

std::vector<Script> render_all(const matrix::Plan& plan, const RenderOptions& options) {
  Renderer r(plan);
  std::vector<Script> out;
  out.reserve(plan.cases.size());
  for (auto& c : plan.cases) {
    RenderOptions o = options;
    o.packed = plan.step_of(c).pack.has_value();  // a job step of a shared allocation (pack/)
    out.push_back(r.render(c, o));
  }
  return out;
}

namespace {
constexpr fs::perms kScriptPerms = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                   fs::perms::others_read | fs::perms::others_exec;
}  // namespace

void write_script(const Script& script) { write_file_atomic(script.path, script.text, kScriptPerms); }

void keep_previous_script(const Script& script) {
  if (script.attempt <= 1) return;
  const fs::path kept = script.run_dir / attempt_dir(script.attempt - 1) / kScriptName;
  std::error_code ec;
  if (fs::exists(kept, ec) || !fs::exists(script.path, ec)) return;
  std::ifstream in(script.path, std::ios::binary);
  if (!in) throw Error("cannot read " + script.path.string() + " to keep it as " + kept.string());
  std::ostringstream text;
  text << in.rdbuf();
  fs::create_directories(kept.parent_path());
  write_file_atomic(kept, text.str(), kScriptPerms);
}

void write_scripts(const std::vector<Script>& scripts, const fs::path& workdir) {
  std::error_code ec;
  bool fresh = !fs::exists(workdir, ec);
  fs::path target = workdir;
  fs::path staging = workdir;
  if (fresh) {
    // Build a new directory beside the target and rename it into place, so an
    // interrupted write never leaves a partial work directory behind.
    std::random_device rd;
    staging += ".partial-" + std::to_string(rd());
    fs::create_directories(staging);
  }
  try {
    for (auto& s : scripts) {
      fs::path rel = s.path.lexically_relative(target);
      fs::path p = staging / rel;
      fs::create_directories(p.parent_path());
      write_file_atomic(p, s.text, kScriptPerms);
    }
    if (fresh) fs::rename(staging, target);
  } catch (...) {
    if (fresh) fs::remove_all(staging, ec);
    throw;
  }
}

}  // namespace campaign::render

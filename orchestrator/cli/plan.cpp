// `campaign plan FILE [--system S] [--out DIR]`: expand and render every case
// without submitting; print the table and the node-hours requested.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "batch/files.hpp"
#include "cli/cli.hpp"
#include "engine/decide.hpp"
#include "render/script.hpp"
#include "sched/scheduler.hpp"
#include "util/columns.hpp"
#include "util/walltime.hpp"

namespace campaign::cli {

namespace {

struct PlanOptions {
  CampaignOptions campaign;
  std::string out;
  bool quiet = false;
  bool json = false;
};

void print_table(const matrix::Plan& plan, std::ostream& os) {
  // Instances only when a case has them: nodes is then the whole job's (instances x nodes per instance).
  bool instances = false;
  for (auto& c : plan.cases) instances |= c.instances > 1;
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"case", "step", "partition", "nodes", "ranks", "walltime", "node-h"});
  if (instances) rows[0].insert(rows[0].begin() + 3, "instances");
  for (auto& c : plan.cases) {
    char nh[32];
    std::snprintf(nh, sizeof nh, "%.2f", plan.node_hours_of(c));
    rows.push_back({c.name, plan.step_of(c).name, plan.partition_of(c).name, std::to_string(c.job_nodes()),
                    std::to_string(c.job_ranks()), format_hms(c.walltime_s), nh});
    if (instances)
      rows.back().insert(
          rows.back().begin() + 3,
          c.instances > 1 ? std::to_string(c.instances) + " x " + std::to_string(c.nodes) : "");
  }
  // Numbers right-aligned (from nodes on) so digits line up.
  std::vector<bool> right(rows[0].size());
  for (size_t i = 3; i < right.size(); ++i) right[i] = true;
  os << format_columns(rows, right);
}

// The jobs `run` would submit if every case were ready at once, with its empty queue: the engine's own
// choice (engine/choose.cpp) over the cases as the planned first attempts of a fresh catalog (their
// attempt ids are the plan indices + 1, as a fresh catalog numbers them), without a queue limit or
// budget. Allocations and arrays are named as `run` names them.
struct Jobs {
  engine::SubmitChoice choice;
  std::vector<std::string> names;  // of each batch
  double node_hours = 0;
};

Jobs choose_jobs(const matrix::Plan& plan, const std::vector<render::Script>& scripts,
                 const std::string& id) {
  std::vector<AttemptRow> rows;
  std::vector<std::int64_t> case_ids;
  for (size_t i = 0; i < plan.cases.size(); ++i) {
    AttemptRow r;
    r.id = r.case_id = static_cast<std::int64_t>(i + 1);
    r.number = 1;
    r.case_name = plan.cases[i].name;
    rows.push_back(std::move(r));
    case_ids.push_back(static_cast<std::int64_t>(i + 1));
  }
  engine::SubmitLimits limits;
  limits.queue = false;
  limits.arrays = sched::array_traits(plan.system.scheduler).supported;
  Jobs jobs;
  jobs.choice = engine::choose_submissions(plan, engine::interleaved_order(plan), case_ids, rows, limits);
  for (auto& b : jobs.choice.batches) {
    const auto first = static_cast<std::int64_t>(b.shape.ids.front() + 1);
    jobs.names.push_back(b.shape.kind == batch::Kind::allocation ? render::allocation_name(id, first)
                         : b.shape.kind == batch::Kind::array    ? render::array_name(id, first)
                                                                 : scripts[b.shape.ids.front()].job_name);
    jobs.node_hours += b.node_hours;
  }
  return jobs;
}

// The batches of several cases, per step: allocations with their cases, arrays with their first and last.
void print_batches(const matrix::Plan& plan, const Jobs& jobs, std::ostream& os) {
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const auto& step = plan.steps[s];
    if ((!step.pack && !step.array) || step.case_count == 0) continue;
    std::vector<size_t> mine;
    for (size_t k = 0; k < jobs.choice.batches.size(); ++k)
      if (plan.cases[jobs.choice.batches[k].shape.ids.front()].step == s) mine.push_back(k);
    if (step.array && !sched::array_traits(plan.system.scheduler).supported) {
      os << "step " << step.name << ": " << plan.system.scheduler
         << " has no job arrays; its cases run as one job each\n\n";
      continue;
    }
    if (step.pack)
      os << "step " << step.name << ": " << step.case_count << " cases packed into " << mine.size()
         << " allocation" << (mine.size() == 1 ? "" : "s") << " of at most " << plan.pack_nodes(*step.pack)
         << " nodes\n";
    else
      os << "step " << step.name << ": " << step.case_count << " cases as " << mine.size() << " job array"
         << (mine.size() == 1 ? "" : "s")
         << (step.array->throttle ? ", at most " + std::to_string(*step.array->throttle) + " tasks running"
                                  : "")
         << '\n';
    for (size_t n = 0; n < mine.size(); ++n) {
      const batch::Shape& b = jobs.choice.batches[mine[n]].shape;
      char line[200];
      if (b.kind == batch::Kind::allocation) {
        std::snprintf(line, sizeof line,
                      "  allocation %zu: partition %s, %ld nodes, %s, %zu cases, %.2f node-h:", n + 1,
                      plan.system.partitions[b.partition].name.c_str(), b.nodes,
                      format_hms(b.walltime_s).c_str(), b.ids.size(),
                      jobs.choice.batches[mine[n]].node_hours);
        os << line;
        for (size_t i : b.ids) os << ' ' << plan.cases[i].name;
      } else {
        const auto& first = plan.cases[b.ids.front()];
        os << "  array " << n + 1 << ": partition " << plan.system.partitions[b.partition].name << ", "
           << b.ids.size() << " tasks of " << first.job_nodes() << " node"
           << (first.job_nodes() == 1 ? "" : "s") << " x " << first.job_ranks() << " rank"
           << (first.job_ranks() == 1 ? "" : "s") << ", " << format_hms(b.walltime_s) << ": " << first.name
           << (b.ids.size() > 1 ? " ... " + plan.cases[b.ids.back()].name : std::string());
      }
      os << '\n';
    }
    os << '\n';
  }
}

// Every job as JSON, for tools and for the test that compares plan with run.
void print_json(const matrix::Plan& plan, const Jobs& jobs, std::ostream& os) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t k = 0; k < jobs.choice.batches.size(); ++k) {
    const auto& b = jobs.choice.batches[k];
    nlohmann::json cases = nlohmann::json::array();
    for (size_t i : b.shape.ids) cases.push_back(plan.cases[i].name);
    list.push_back({{"job", jobs.names[k]},
                    {"kind", std::string(batch::to_string(b.shape.kind))},
                    {"partition", plan.system.partitions[b.shape.partition].name},
                    {"nodes", b.shape.nodes},
                    {"walltime_s", b.shape.walltime_s},
                    {"node_hours", b.node_hours},
                    {"cases", cases}});
  }
  os << nlohmann::json{{"campaign", plan.campaign.name},
                       {"system", plan.system.name},
                       {"jobs", list},
                       {"node_hours", jobs.node_hours}}
            .dump(1)
     << '\n';
}

// The files of the batches of several cases under workdir/.alloc/<job name>/.
size_t write_batches(const matrix::Plan& plan, const Jobs& jobs, const std::vector<render::Script>& scripts,
                     const std::filesystem::path& workdir) {
  size_t n = 0;
  for (size_t k = 0; k < jobs.choice.batches.size(); ++k) {
    const batch::Shape& s = jobs.choice.batches[k].shape;
    if (s.kind == batch::Kind::single) continue;
    std::vector<render::Script> members;
    for (size_t i : s.ids) members.push_back(scripts[i]);
    auto files = batch::files_of(plan, s, jobs.names[k], workdir, members, self_exe(),
                                 sched::array_traits(plan.system.scheduler).first_task);
    batch::write_files(files.files);
    ++n;
  }
  return n;
}

}  // namespace

void add_plan(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  auto* cmd = app.add_subcommand("plan",
                                 "Expand the matrix and render every job script without submitting; "
                                 "print the cases and the node-hours requested");
  add_campaign_options(*cmd, o->campaign);
  cmd->add_option("-o,--out", o->out,
                  "Write the job scripts under DIR/<case>/job.sh (DIR is the work directory the "
                  "scripts refer to)");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only the summary line");
  cmd->add_flag("--json", o->json,
                "Print the jobs run would submit (kind, cases, nodes, walltime, node-hours) as JSON");
  cmd->callback([o] {
    // A campaign across several systems: each system's cases and node-hours apart, then summed.
    auto parts = load_all(o->campaign, o->out);
    const bool several = parts.front().part;  // one of several systems (a lone system is no part)
    nlohmann::json systems = nlohmann::json::array();
    double total_hours = 0;
    size_t total_cases = 0;
    for (auto& l : parts) {
      const std::filesystem::path& workdir = l.workdir;
      render::RenderOptions ro{workdir, self_exe(), 1, 0, {}};
      // Rendering every case checks every template, even without --out.
      auto scripts = render::render_all(l.plan, ro);
      Jobs jobs = choose_jobs(l.plan, scripts, render::campaign_id(l.plan.campaign.catalog_name(), workdir));
      total_hours += jobs.node_hours;
      total_cases += l.plan.cases.size();
      if (o->json) {
        std::ostringstream one;
        print_json(l.plan, jobs, one);
        if (!several)
          std::cout << one.str();
        else
          systems.push_back(nlohmann::json::parse(one.str()));
        continue;
      }
      if (!o->out.empty()) render::write_scripts(scripts, workdir);
      if (!o->quiet) {
        std::cout << "campaign " << l.campaign.name << " on " << l.plan.system.name << " (" << l.system_how
                  << ")\n\n";
        print_table(l.plan, std::cout);
        std::cout << '\n';
        print_batches(l.plan, jobs, std::cout);
      }
      size_t allocations = 0, arrays = 0;
      for (auto& b : jobs.choice.batches) {
        allocations += b.shape.kind == batch::Kind::allocation;
        arrays += b.shape.kind == batch::Kind::array;
      }
      char nh[64];
      std::snprintf(nh, sizeof nh, "%.2f", jobs.node_hours);
      if (several) std::cout << l.plan.system.name << ": ";
      std::cout << l.plan.cases.size() << " cases in " << l.plan.steps.size() << " step"
                << (l.plan.steps.size() == 1 ? "" : "s") << ", ";
      if (allocations)
        std::cout << allocations << " allocation" << (allocations == 1 ? "" : "s") << " for packed cases, ";
      if (arrays) std::cout << arrays << " job array" << (arrays == 1 ? "" : "s") << ", ";
      std::cout << nh << " node-hours requested";
      if (l.campaign.budget_node_hours) {
        std::snprintf(nh, sizeof nh, "%.2f", *l.campaign.budget_node_hours);
        std::cout << " (budget " << nh << ")";
      }
      std::cout << '\n';
      if (several && !o->quiet) std::cout << '\n';
      if (!o->out.empty()) {
        write_batches(l.plan, jobs, scripts, workdir);
        std::cout << "wrote " << scripts.size() << " scripts";
        if (allocations) std::cout << " and " << allocations << " allocation scripts (.alloc/)";
        if (arrays) std::cout << " and " << arrays << " array scripts (.alloc/)";
        std::cout << " under " << workdir.string() << '\n';
      }
    }
    if (several && o->json) {
      std::cout << nlohmann::json{{"campaign", parts.front().campaign.name},
                                  {"systems", systems},
                                  {"node_hours", total_hours}}
                       .dump(1)
                << '\n';
    } else if (several) {
      char nh[64];
      std::snprintf(nh, sizeof nh, "%.2f", total_hours);
      std::cout << "all " << parts.size() << " systems: " << total_cases << " cases, " << nh
                << " node-hours requested\n";
    }
  });
}

}  // namespace campaign::cli

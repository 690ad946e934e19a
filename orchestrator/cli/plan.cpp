// `campaign plan FILE [--system S] [--out DIR]`: expand and render every case
// without submitting; print the table and the node-hours requested.
#include <cstdio>
#include <iostream>

#include "array/array.hpp"
#include "cli/cli.hpp"
#include "pack/planner.hpp"
#include "pack/script.hpp"
#include "render/batch.hpp"
#include "render/script.hpp"
#include "sched/scheduler.hpp"
#include "util/walltime.hpp"

namespace campaign::cli {

namespace {

struct PlanOptions {
  CampaignOptions campaign;
  std::string out;
  bool quiet = false;
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
  std::vector<size_t> width(rows[0].size());
  for (auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  for (auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      bool numeric = i >= 3;
      std::string pad(width[i] - r[i].size(), ' ');
      line += numeric ? pad + r[i] : r[i] + pad;
      if (i + 1 < r.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << '\n';
  }
}

// Packed steps: the allocations their cases would share if all were ready at once.
struct Packed {
  double node_hours = 0;        // of the allocations
  double cases_node_hours = 0;  // of their cases, as requested one job each
  std::vector<pack::StepAllocation> allocations;
};

Packed print_allocations(const matrix::Plan& plan, std::ostream* os) {
  Packed total;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const auto& step = plan.steps[s];
    if (!step.pack || step.case_count == 0) continue;
    std::vector<size_t> cases(step.case_count);
    for (size_t i = 0; i < cases.size(); ++i) cases[i] = step.first_case + i;
    auto allocs = pack::allocate_step(plan, cases);
    double nh = 0;
    for (auto& a : allocs) nh += a.node_hours();
    for (size_t i : cases) total.cases_node_hours += plan.node_hours_of(plan.cases[i]);
    total.node_hours += nh;
    total.allocations.insert(total.allocations.end(), allocs.begin(), allocs.end());
    if (!os) continue;
    *os << "step " << step.name << ": " << cases.size() << " cases packed into " << allocs.size()
        << " allocation" << (allocs.size() == 1 ? "" : "s") << " of at most " << step.pack->nodes
        << " nodes\n";
    for (size_t k = 0; k < allocs.size(); ++k) {
      const auto& a = allocs[k];
      char line[160];
      std::snprintf(line, sizeof line,
                    "  allocation %zu: partition %s, %ld nodes, %s, %zu cases, %.2f node-h:", k + 1,
                    plan.system.partitions[a.partition].name.c_str(), a.nodes,
                    format_hms(a.walltime_s).c_str(), a.ids.size(), a.node_hours());
      *os << line;
      for (size_t i : a.ids) *os << ' ' << plan.cases[i].name;
      *os << '\n';
    }
    *os << '\n';
  }
  return total;
}

// The allocation scripts and manifests under workdir/.alloc/, numbered in plan order (a run names
// them after their first attempt instead).
void write_allocations(const matrix::Plan& plan, const std::vector<pack::StepAllocation>& allocs,
                       const std::vector<render::Script>& scripts, const std::filesystem::path& workdir) {
  const std::string id = render::campaign_id(plan.campaign.name, workdir);
  for (size_t k = 0; k < allocs.size(); ++k) {
    const auto& alloc = allocs[k];
    pack::Allocation a = pack::allocation_of(
        plan, alloc, render::allocation_name(id, static_cast<std::int64_t>(k + 1)), workdir);
    for (size_t i : alloc.ids) a.cases.push_back(pack::packed_case(plan, plan.cases[i], scripts[i]));
    pack::write_allocation(a, pack::render_allocation(plan, a, self_exe()));
  }
}

// Array steps: the job arrays their cases would form if all were ready at once (one job per case on
// a scheduler without arrays).
std::vector<array::PlannedArray> print_arrays(const matrix::Plan& plan, std::ostream* os) {
  std::vector<array::PlannedArray> all;
  const bool supported = sched::array_traits(plan.system.scheduler).supported;
  for (const auto& step : plan.steps) {
    if (!step.array || step.case_count == 0) continue;
    if (!supported) {
      if (os)
        *os << "step " << step.name << ": " << plan.system.scheduler
            << " has no job arrays; its cases run as one job each\n\n";
      continue;
    }
    std::vector<size_t> cases(step.case_count);
    for (size_t i = 0; i < cases.size(); ++i) cases[i] = step.first_case + i;
    auto arrays = array::group_arrays(plan, cases);
    all.insert(all.end(), arrays.begin(), arrays.end());
    if (!os) continue;
    *os << "step " << step.name << ": " << cases.size() << " cases as " << arrays.size() << " job array"
        << (arrays.size() == 1 ? "" : "s");
    if (step.array->throttle) *os << ", at most " << *step.array->throttle << " tasks running";
    *os << '\n';
    for (size_t k = 0; k < arrays.size(); ++k) {
      const auto& a = arrays[k];
      const auto& first = plan.cases[a.ids.front()];
      *os << "  array " << k + 1 << ": partition " << plan.system.partitions[a.partition].name << ", "
          << a.ids.size() << " tasks of " << first.job_nodes() << " node"
          << (first.job_nodes() == 1 ? "" : "s") << " x " << first.job_ranks() << " rank"
          << (first.job_ranks() == 1 ? "" : "s") << ", " << format_hms(a.walltime_s) << ": "
          << plan.cases[a.ids.front()].name
          << (a.ids.size() > 1 ? " ... " + plan.cases[a.ids.back()].name : std::string()) << '\n';
    }
    *os << '\n';
  }
  return all;
}

// The array scripts and index files under workdir/.alloc/, numbered in plan order.
void write_arrays(const matrix::Plan& plan, const std::vector<array::PlannedArray>& arrays,
                  const std::vector<render::Script>& scripts, const std::filesystem::path& workdir) {
  const std::string id = render::campaign_id(plan.campaign.name, workdir);
  for (size_t k = 0; k < arrays.size(); ++k) {
    const auto& planned = arrays[k];
    const auto& first = plan.cases[planned.ids.front()];
    array::ArrayJob job;
    job.job_name = render::array_name(id, static_cast<std::int64_t>(k + 1));
    job.partition = plan.system.partitions[planned.partition].name;
    job.walltime_s = planned.walltime_s;
    job.throttle = plan.step_of(first).array->throttle.value_or(0);
    job.first_task = sched::array_traits(plan.system.scheduler).first_task;
    job.dir = render::batch_dir(workdir, job.job_name);
    for (size_t i : planned.ids) job.scripts.push_back(scripts[i].path);
    array::write_array(job, array::render_array(plan, first, job));
  }
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
  cmd->callback([o] {
    Loaded l = load(o->campaign, o->out);
    const std::filesystem::path& workdir = l.workdir;
    render::RenderOptions ro{workdir, self_exe(), 1, 0, {}};
    // Rendering every case checks every template, even without --out.
    auto scripts = render::render_all(l.plan, ro);
    if (!o->out.empty()) render::write_scripts(scripts, workdir);
    if (!o->quiet) {
      std::cout << "campaign " << l.campaign.name << " on " << l.plan.system.name << " (" << l.system_how
                << ")\n\n";
      print_table(l.plan, std::cout);
      std::cout << '\n';
    }
    Packed packed = print_allocations(l.plan, o->quiet ? nullptr : &std::cout);
    auto arrays = print_arrays(l.plan, o->quiet ? nullptr : &std::cout);
    char nh[64];
    std::snprintf(nh, sizeof nh, "%.2f", l.plan.node_hours - packed.cases_node_hours + packed.node_hours);
    std::cout << l.plan.cases.size() << " cases in " << l.plan.steps.size() << " step"
              << (l.plan.steps.size() == 1 ? "" : "s") << ", ";
    if (!packed.allocations.empty())
      std::cout << packed.allocations.size() << " allocation" << (packed.allocations.size() == 1 ? "" : "s")
                << " for packed cases, ";
    if (!arrays.empty())
      std::cout << arrays.size() << " job array" << (arrays.size() == 1 ? "" : "s") << ", ";
    std::cout << nh << " node-hours requested";
    if (l.campaign.budget_node_hours) {
      std::snprintf(nh, sizeof nh, "%.2f", *l.campaign.budget_node_hours);
      std::cout << " (budget " << nh << ")";
    }
    std::cout << '\n';
    if (!o->out.empty()) {
      write_allocations(l.plan, packed.allocations, scripts, workdir);
      write_arrays(l.plan, arrays, scripts, workdir);
      std::cout << "wrote " << scripts.size() << " scripts";
      if (!packed.allocations.empty())
        std::cout << " and " << packed.allocations.size() << " allocation scripts (.alloc/)";
      if (!arrays.empty()) std::cout << " and " << arrays.size() << " array scripts (.alloc/)";
      std::cout << " under " << workdir.string() << '\n';
    }
  });
}

}  // namespace campaign::cli

#include "report/usage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/scaling.hpp"
#include "sample/energy.hpp"
#include "spec/expression.hpp"

namespace campaign::report {

namespace {

double usage_number(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

std::optional<double> usage_metric(const std::map<std::string, double>& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::string plural(double n, const char* one) { return fmt::format("{:g} {}{}", n, one, n == 1 ? "" : "s"); }

}  // namespace

std::vector<double> sacct_energy_shares(const std::vector<HeldEnergy>& held) {
  std::vector<double> out(held.size(), 0);
  std::map<std::string, std::vector<std::size_t>> jobs;
  for (std::size_t i = 0; i < held.size(); ++i) jobs[held[i].job_id].push_back(i);
  for (auto& [job, members] : jobs) {
    std::vector<double> by_time, by_cores;
    for (auto i : members) {
      double cores = held[i].cores > 0 ? held[i].cores : 1;
      by_cores.push_back(cores);
      by_time.push_back(cores * std::max(held[i].seconds, 0.0));
    }
    double total = held[members.front()].energy_j;  // the job's, recorded on each of its attempts
    bool timed = std::any_of(by_time.begin(), by_time.end(), [](double v) { return v > 0; });
    auto shares = sample::split_by_held(total, timed ? by_time : by_cores);
    for (std::size_t k = 0; k < members.size(); ++k) out[members[k]] = shares[k];
  }
  return out;
}

UsageRequest request_of(const std::string& definition) {
  UsageRequest r;
  auto d = nlohmann::json::parse(definition, nullptr, false);
  if (d.is_discarded() || !d.is_object()) return r;
  if (auto p = d.find("partition"); p != d.end() && p->is_string()) r.partition = p->get<std::string>();
  double ranks = usage_number(d, "ranks");
  r.cores = ranks * usage_number(d, "cpus_per_rank");
  r.gpus = ranks * usage_number(d, "gpus_per_rank");
  return r;
}

std::string usage_check(const UsageRequest& r, const std::map<std::string, double>& m) {
  std::vector<std::string> out;
  if (r.wants_gpu()) {
    const std::string asked =
        r.gpus > 0 ? "asked for " + plural(r.gpus, "GPU") : "runs on partition " + r.partition;
    auto held = usage_metric(m, "gpus_held");
    auto used = usage_metric(m, "gpus_used");
    if (held && *held == 0)
      out.push_back(asked + " but held none (no GPU visible to it)");
    else if (used && *used == 0)
      out.push_back(asked + " but no process of it used a GPU");
  }
  auto cores = usage_metric(m, "cores_used_mean");
  if (cores && r.cores > 0 && *cores > r.cores * kCoresSlack)
    out.push_back(fmt::format("used {:.1f} cores on average, held {:g}", *cores, r.cores));
  std::string s;
  for (auto& o : out) s += (s.empty() ? "" : "; ") + o;
  return s;
}

const std::set<std::string>& usage_metric_names() {
  static const std::set<std::string> names = {"sampled_s",
                                              "cores_held",
                                              "cores_used_mean",
                                              "cpu_seconds",
                                              "rss_peak_mib",
                                              "gpus_held",
                                              "gpus_used",
                                              "gpu_apps",
                                              "gpu_memory_peak_mib",
                                              "gpu_energy_j",
                                              "gpu_energy_to_train_j",
                                              "gpu_power_mean_w",
                                              "cpu_package_readable",
                                              "cpu_package_energy_j",
                                              "cpu_package_energy_share_j"};
  return names;
}

std::vector<CaseUsage> case_usage(Catalog& catalog, std::int64_t campaign_id) {
  return case_usage(catalog, campaign_id, catalog.latest_attempts(campaign_id));
}

std::vector<CaseUsage> case_usage(Catalog& catalog, std::int64_t campaign_id,
                                  const std::vector<AttemptRow>& latest) {
  // The usage metrics first: a case without any (and without energy) needs no request parsed.
  std::map<std::int64_t, std::map<std::string, double>> metrics;
  catalog.for_each_series(campaign_id, usage_metric_names(), [&](Catalog::Series&& s) {
    if (!s.values.empty()) metrics[s.attempt_id][s.name] = s.values.back();
  });
  std::map<std::int64_t, std::string> definitions;
  std::map<std::int64_t, CaseUsage> by_attempt;
  std::vector<std::int64_t> order;
  std::vector<HeldEnergy> held;
  std::vector<std::int64_t> held_by;
  for (auto& a : latest) {
    const bool energy = a.energy_j && !a.job_id.empty();
    const bool used = a.in_spec && metrics.count(a.id);
    if (!energy && !used) continue;
    if (definitions.empty()) definitions = catalog.case_definitions(campaign_id);
    auto request = request_of(definitions[a.case_id]);
    if (energy) {  // a case left out of the file still held its part
      held.push_back({a.job_id, *a.energy_j, request.cores, static_cast<double>(a.elapsed_s.value_or(0))});
      held_by.push_back(a.id);
    }
    if (!a.in_spec) continue;
    by_attempt[a.id] = CaseUsage{a.case_name, request, {}, ""};
    order.push_back(a.id);
  }
  auto shares = sacct_energy_shares(held);
  for (std::size_t i = 0; i < held.size(); ++i)
    if (auto it = by_attempt.find(held_by[i]); it != by_attempt.end())
      it->second.metrics["sacct_energy_j"] = shares[i];
  for (auto& [id, m] : metrics)
    if (auto it = by_attempt.find(id); it != by_attempt.end()) it->second.metrics.insert(m.begin(), m.end());
  std::vector<CaseUsage> out;
  for (auto id : order) {
    auto& c = by_attempt[id];
    if (c.metrics.empty()) continue;
    c.check = usage_check(c.request, c.metrics);
    out.push_back(std::move(c));
  }
  return out;
}

void mark_analyses(std::vector<analysis::AnalysisResult>& analyses,
                   const std::vector<analysis::CaseResult>& cases, const std::vector<CaseUsage>& usage) {
  std::map<std::string, std::string> checks;
  for (auto& u : usage)
    if (!u.check.empty()) checks[u.case_name] = u.check;
  if (checks.empty()) return;
  for (auto& a : analyses) {
    std::set<std::string> left_out;
    for (auto& e : a.excluded) left_out.insert(e.case_name);
    for (auto& c : cases) {
      if (!a.spec.step.empty() && c.step != a.spec.step) continue;
      if (!analysis::usable_state(c.state) || left_out.count(c.name)) continue;
      auto it = checks.find(c.name);
      if (it != checks.end())
        a.notes.push_back("case " + c.name + " " + it->second +
                          " (its use contradicts its request: see the usage table)");
    }
  }
}

SamplesOf samples_of(const std::vector<analysis::AnalysisSpec>& specs,
                     const std::vector<analysis::CaseResult>& cases) {
  SamplesOf out;
  for (auto& s : specs) {
    if (s.samples.empty()) continue;
    spec::Expression e(s.samples);
    for (auto& c : cases) {
      if (!s.step.empty() && c.step != s.step) continue;
      try {
        double v = e.eval(c.params);
        if (v > 0) out.by_case[c.name] = v;
      } catch (const spec::ExpressionError&) {
      }
    }
    out.what = "`" + s.samples + "` of analysis " + s.name;
    break;
  }
  return out;
}

std::optional<analysis::AnalysisResult> usage_table(const std::vector<CaseUsage>& cases,
                                                    const SamplesOf& samples) {
  if (cases.empty()) return std::nullopt;
  analysis::AnalysisResult a;
  a.spec.name = "usage";
  a.spec.x = "case";
  a.spec.description =
      "What each case used beside what it asked, from the sampler beside its job (`campaign sample`, "
      "collectors/usage.yaml); `check` names a use that contradicts the request.";
  analysis::Table t;
  t.analysis = "usage";
  t.x = "case";
  // (column, metric, unit); a column only where some case has the metric.
  const std::vector<std::tuple<std::string, std::string, std::string>> columns = {
      {"cores_asked", "", ""},
      {"cores_used_mean", "cores_used_mean", ""},
      {"rss_peak_mib", "rss_peak_mib", "MiB"},
      {"gpus_asked", "", ""},
      {"gpus_held", "gpus_held", ""},
      {"gpus_used", "gpus_used", ""},
      {"gpu_memory_peak_mib", "gpu_memory_peak_mib", "MiB"},
      {"gpu_energy_j", "gpu_energy_j", "J"},
      {"gpu_power_mean_w", "gpu_power_mean_w", "W"},
      {"gpu_energy_per_sample_j", "", "J"},
      {"gpu_energy_to_train_j", "gpu_energy_to_train_j", "J"},
      {"cpu_package_energy_share_j", "cpu_package_energy_share_j", "J"},
      {"sacct_energy_j", "sacct_energy_j", "J"},
  };
  t.columns.push_back("case");
  std::vector<const std::tuple<std::string, std::string, std::string>*> kept;
  for (auto& col : columns) {
    const auto& metric = std::get<1>(col);
    bool any = metric.empty();
    if (std::get<0>(col) == "gpu_energy_per_sample_j") {
      any = false;
      for (auto& c : cases) any |= c.metrics.count("gpu_energy_j") && samples.by_case.count(c.case_name);
    }
    for (auto& c : cases) any |= c.metrics.count(metric) > 0;
    if (!any) continue;
    kept.push_back(&col);
    t.columns.push_back(std::get<0>(col));
    if (!std::get<2>(col).empty()) t.units[std::get<0>(col)] = std::get<2>(col);
  }
  t.columns.push_back("check");
  for (auto& c : cases) {
    std::vector<analysis::Cell> row{c.case_name};
    for (auto* col : kept) {
      const auto& [name, metric, unit] = *col;
      if (name == "cores_asked")
        row.push_back(c.request.cores > 0 ? analysis::Cell(c.request.cores) : analysis::Cell());
      else if (name == "gpus_asked")
        row.push_back(c.request.gpus);
      else if (name == "gpu_energy_per_sample_j") {
        auto e = usage_metric(c.metrics, "gpu_energy_j");
        auto n = samples.by_case.find(c.case_name);
        row.push_back(e && n != samples.by_case.end() ? analysis::Cell(*e / n->second) : analysis::Cell());
      } else if (auto v = usage_metric(c.metrics, metric))
        row.push_back(*v);
      else
        row.push_back(analysis::Cell());
    }
    row.push_back(c.check.empty() ? std::string("ok") : c.check);
    t.rows.push_back(std::move(row));
  }
  // Where each figure comes from, and what it leaves out.
  t.notes.push_back(
      "cores_used_mean, rss_peak_mib: the job's process tree on the node the sampler ran on (/proc), CPU "
      "time "
      "over the sampled time and the largest resident memory of a sample; processes started elsewhere (other "
      "nodes without a sampler of their own) are not counted.");
  t.notes.push_back(
      "gpus_used: GPUs on which nvidia-smi --query-compute-apps showed a process of the job's tree "
      "(without a tree, any process on a held GPU; pids as nvidia-smi sees them, so a container with a pid "
      "namespace of its own reads as none); gpu_memory_peak_mib: memory.used of the held GPUs, the whole "
      "GPU's.");
  t.notes.push_back(
      "gpu_energy_j, gpu_power_mean_w: GPU only: nvidia-smi's power.draw of the held GPUs (the whole board; "
      "a "
      "1 s average on Ampere and newer) integrated by the trapezoid rule over its time stamps, from the "
      "first "
      "reading to the last; no CPU, memory, network or cooling.");
  if (t.has("gpu_energy_to_train_j"))
    t.notes.push_back(
        "gpu_energy_to_train_j: MLPerf Power's energy to train, GPU only: each held GPU's power.draw samples "
        "that fall within the run's window (the MLPerf log's run_start to run_stop, time_ms: collectors "
        "mlperf and mlperf_weak; with instances the earliest start to the latest stop), integrated by the "
        "trapezoid rule and summed over the GPUs; nothing interpolated at the window's edges.");
  if (t.has("gpu_energy_per_sample_j"))
    t.notes.push_back("gpu_energy_per_sample_j: gpu_energy_j over the case's samples, " + samples.what + ".");
  bool readable = false, unreadable = false;
  for (auto& c : cases) {
    auto r = usage_metric(c.metrics, "cpu_package_readable");
    readable |= r && *r == 1;
    unreadable |= r && *r == 0;
  }
  t.notes.push_back(
      readable
          ? "cpu_package_energy_share_j: the node's RAPL package counters (powercap) over the run, times the "
            "case's share of the node's CPUs: packages only (no DRAM, GPUs), other processes on the "
            "packages included."
      : unreadable ? "CPU package energy: not measured: the powercap (RAPL) counters are there but not "
                     "readable (root only "
                     "since Linux 5.10)."
                   : "CPU package energy: not measured: no powercap (RAPL) package zone on the nodes.");
  if (t.has("sacct_energy_j"))
    t.notes.push_back(
        "sacct_energy_j: the scheduler's accounting (Slurm's ConsumedEnergy, from its AcctGatherEnergyType "
        "plugin: the whole nodes of the job as that plugin measures them, other work on them included); a "
        "case packed with others in one allocation gets the allocation's energy times its share of cores x "
        "seconds held (its step's elapsed time).");
  a.tables.push_back(std::move(t));
  return a;
}

}  // namespace campaign::report

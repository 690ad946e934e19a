#include "analysis/mlperf.hpp"

#include <algorithm>
#include <map>

#include "analysis/scaling.hpp"

namespace campaign::analysis {

std::vector<InstanceRun> instance_runs(const CaseResult& c) {
  std::map<long, InstanceRun> by;
  std::map<long, double> run_time;
  for (const MetricRow& m : c.metrics) {
    if (!m.instance || m.step) continue;
    InstanceRun& r = by[*m.instance];
    r.instance = *m.instance;
    if (m.name == kRunStartMs) r.start_s = m.value / 1000;
    if (m.name == kRunStopMs) r.stop_s = m.value / 1000;
    if (m.name == kRunSuccess) r.reached = m.value >= 1;
    if (m.name == kRunTime) run_time[*m.instance] = m.value;
  }
  std::vector<InstanceRun> out;
  for (auto& [i, r] : by) {
    if (r.start_s && r.stop_s)
      r.time_to_train_s = *r.stop_s - *r.start_s;
    else if (auto it = run_time.find(i); it != run_time.end())
      r.time_to_train_s = it->second;
    out.push_back(r);
  }
  return out;
}

WeakScalingScore weak_scaling_score(const std::vector<InstanceRun>& runs) {
  WeakScalingScore s;
  s.instances = runs.size();
  std::optional<double> first_start, last_stop, slowest;
  bool timestamps = true;
  for (const InstanceRun& r : runs) {
    if (!r.reached || !r.time_to_train_s) continue;
    ++s.reached;
    slowest = std::max(slowest.value_or(*r.time_to_train_s), *r.time_to_train_s);
    if (!r.start_s || !r.stop_s) {
      timestamps = false;
      continue;
    }
    first_start = std::min(first_start.value_or(*r.start_s), *r.start_s);
    last_stop = std::max(last_stop.value_or(*r.stop_s), *r.stop_s);
  }
  if (s.reached == 0) return s;
  // Without timestamps the instances are taken to start together: the slowest one's time.
  s.time_to_train_all_s = timestamps ? *last_stop - *first_start : *slowest;
  if (*s.time_to_train_all_s > 0)
    s.models_per_minute = static_cast<double>(s.reached) / (*s.time_to_train_all_s / 60);
  return s;
}

CaseValue measure_time_to_train(const CaseResult& c) {
  std::optional<double> time;
  bool reached = false;
  for (const MetricRow& m : c.metrics) {
    if (m.instance || m.step) continue;
    if (m.name == kRunTime) time = m.value;
    if (m.name == kRunSuccess) reached = m.value >= 1;
  }
  if (!time) return {std::nullopt, "", "no run_time (run_start and run_stop in the MLLOG)"};
  if (!reached) return {std::nullopt, "", "did not reach the target (run_stop status is not success)"};
  if (!(*time > 0)) return {std::nullopt, "", "time to train is " + format_cell(*time, false) + " s"};
  return {time, "s", ""};
}

std::optional<double> time_to_train_score(std::vector<double> times) {
  if (times.size() < 3) return std::nullopt;
  std::sort(times.begin(), times.end());
  double sum = 0;
  for (size_t i = 1; i + 1 < times.size(); ++i) sum += times[i];
  return sum / static_cast<double>(times.size() - 2);
}

AnalysisResult analyze_mlperf_weak(const AnalysisSpec& spec, const std::vector<CaseResult>& cases) {
  AnalysisResult res;
  res.spec = spec;
  Table summary =
      case_table(spec, {"case", "instances", "reached", "time_to_train_all", "models_per_minute"});
  summary.units = {{"time_to_train_all", "s"}, {"models_per_minute", "1/min"}};
  std::vector<Table> per_case;
  for (const CaseResult& c : cases) {
    if (!spec.step.empty() && c.step != spec.step) continue;
    if (!usable_state(c.state)) {
      res.excluded.push_back({c.name, c.state, "not collected"});
      continue;
    }
    auto runs = instance_runs(c);
    if (runs.empty()) {
      res.excluded.push_back({c.name, c.state, "no metrics keyed by instance (a case without instances?)"});
      continue;
    }
    Table t;
    t.analysis = spec.name;
    t.scaling = spec.scaling;
    t.x = "instance";
    t.group = {{"case", c.name}};
    t.series = {{"", ""}};
    t.columns = {"instance", "time_to_train", "reached", "run_start", "run_stop"};
    t.units = {{"time_to_train", "s"}, {"run_start", "s"}, {"run_stop", "s"}};
    // Starts and stops from the case's first run_start, so that they read as offsets.
    std::optional<double> origin;
    for (auto& r : runs)
      if (r.start_s) origin = std::min(origin.value_or(*r.start_s), *r.start_s);
    auto cell = [](std::optional<double> v, std::optional<double> from = 0.0) {
      return v && from ? Cell(*v - *from) : Cell();
    };
    for (auto& r : runs)
      t.rows.push_back({Cell(static_cast<double>(r.instance)), cell(r.time_to_train_s),
                        Cell(std::string(r.reached ? "yes" : "no")), cell(r.start_s, origin),
                        cell(r.stop_s, origin)});
    WeakScalingScore s = weak_scaling_score(runs);
    t.notes.push_back(std::to_string(s.reached) + " of " + std::to_string(s.instances) +
                      " instances reached the target");
    if (s.time_to_train_all_s)
      t.notes.push_back("time to train all: " + format_cell(*s.time_to_train_all_s, false) + " s");
    if (s.models_per_minute)
      t.notes.push_back("models per minute: " + format_cell(*s.models_per_minute, false));
    summary.rows.push_back({Cell(c.name), Cell(static_cast<double>(s.instances)),
                            Cell(static_cast<double>(s.reached)), cell(s.time_to_train_all_s),
                            cell(s.models_per_minute)});
    per_case.push_back(std::move(t));
  }
  if (!summary.rows.empty()) res.tables.push_back(std::move(summary));
  for (auto& t : per_case) res.tables.push_back(std::move(t));
  return res;
}

}  // namespace campaign::analysis

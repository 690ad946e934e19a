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
    if (m.name == kSeed) r.seed = m.value;
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

namespace {

// The reached instances whose seed no other instance logged, and those whose seed another did.
void score_candidates(const std::vector<InstanceRun>& runs, WeakScalingScore& s,
                      std::vector<const InstanceRun*>& out) {
  std::map<double, int> seeds;
  for (const InstanceRun& r : runs)
    if (r.seed) ++seeds[*r.seed];
  for (const InstanceRun& r : runs) {
    if (!r.reached || !r.time_to_train_s) continue;
    if (r.seed && seeds[*r.seed] > 1)
      s.same_seed.push_back(r.instance);
    else
      out.push_back(&r);
  }
}

// M'/TTTa over the instances chosen; TTTa from their time stamps, else (one lacks them) the slowest.
void score_over(const std::vector<const InstanceRun*>& chosen, WeakScalingScore& s) {
  std::optional<double> first_start, last_stop, slowest;
  bool stamped = true;
  for (const InstanceRun* r : chosen) {
    s.scored.push_back(r->instance);
    slowest = std::max(slowest.value_or(*r->time_to_train_s), *r->time_to_train_s);
    stamped = stamped && r->start_s && r->stop_s;
    if (stamped) {
      first_start = std::min(first_start.value_or(*r->start_s), *r->start_s);
      last_stop = std::max(last_stop.value_or(*r->stop_s), *r->stop_s);
    }
  }
  std::sort(s.scored.begin(), s.scored.end());
  if (chosen.empty()) return;
  s.time_to_train_all_score_s = stamped ? *last_stop - *first_start : *slowest;
  if (*s.time_to_train_all_score_s > 0)
    s.models_per_minute_score = static_cast<double>(chosen.size()) / (*s.time_to_train_all_score_s / 60);
}

// The rules' optional pruning: the window [run_start(a), run_stop(b)] whose instances (those that
// start and stop inside it), at least `min` of them, give the most models per minute. Walking the
// instances by run_stop for each first start a, the count inside grows by one at each stop.
std::vector<const InstanceRun*> best_window(std::vector<const InstanceRun*> c, size_t min) {
  std::sort(c.begin(), c.end(), [](auto* x, auto* y) { return *x->stop_s < *y->stop_s; });
  double best = -1;
  size_t best_n = 0;
  double best_from = 0, best_to = 0;
  for (const InstanceRun* a : c) {
    size_t n = 0;
    for (const InstanceRun* b : c) {
      if (*b->start_s < *a->start_s) continue;
      ++n;
      double span = *b->stop_s - *a->start_s;
      if (n < min || !(span > 0)) continue;
      double rate = static_cast<double>(n) / span;
      if (rate > best || (rate == best && n > best_n))
        best = rate, best_n = n, best_from = *a->start_s, best_to = *b->stop_s;
    }
  }
  std::vector<const InstanceRun*> out;
  if (best < 0) return out;
  for (const InstanceRun* r : c)
    if (*r->start_s >= best_from && *r->stop_s <= best_to) out.push_back(r);
  return out;
}

}  // namespace

WeakScalingScore weak_scaling_score(const std::vector<InstanceRun>& runs, std::optional<long> min_models) {
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
  if (s.reached == 0) {
    s.no_score = "no instance reached the target";
    return s;
  }
  // Without timestamps the instances are taken to start together: the slowest one's time.
  s.time_to_train_all_s = timestamps ? *last_stop - *first_start : *slowest;
  if (*s.time_to_train_all_s > 0)
    s.models_per_minute = static_cast<double>(s.reached) / (*s.time_to_train_all_s / 60);

  std::vector<const InstanceRun*> candidates;
  score_candidates(runs, s, candidates);
  if (!min_models) {
    score_over(candidates, s);
    if (candidates.empty()) s.no_score = "every instance that reached the target shares its seed";
    return s;
  }
  const auto min = static_cast<size_t>(*min_models);
  if (candidates.size() < min) {
    s.no_score = std::to_string(candidates.size()) + " instances can be scored, fewer than min_models " +
                 std::to_string(min);
    return s;
  }
  if (!timestamps) {
    s.no_score = "an instance has no run_start or run_stop time stamp: the pruning needs them";
    return s;
  }
  std::vector<const InstanceRun*> chosen = best_window(candidates, min);
  for (const InstanceRun* r : candidates)
    if (std::find(chosen.begin(), chosen.end(), r) == chosen.end()) s.pruned.push_back(r->instance);
  std::sort(s.pruned.begin(), s.pruned.end());
  score_over(chosen, s);
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
  Table summary = case_table(spec, {"case", "instances", "reached", "time_to_train_all", "models_per_minute",
                                    "models_score", "time_to_train_all_score", "models_per_minute_score"});
  summary.units = {{"time_to_train_all", "s"},
                   {"models_per_minute", "1/min"},
                   {"time_to_train_all_score", "s"},
                   {"models_per_minute_score", "1/min"}};
  summary.notes.push_back(
      spec.min_models
          ? "the score (the rules' M' and TTTa): reached instances, none sharing a seed, pruned to the "
            "most models per minute with at least " +
                std::to_string(*spec.min_models) + " (min_models)"
          : "the score (the rules' M' and TTTa): reached instances, none sharing a seed; not pruned "
            "further (min_models unset)");
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
    t.columns = {"instance", "time_to_train", "reached", "run_start", "run_stop", "scored"};
    t.units = {{"time_to_train", "s"}, {"run_start", "s"}, {"run_stop", "s"}};
    // Starts and stops from the case's first run_start, so that they read as offsets.
    std::optional<double> origin;
    for (auto& r : runs)
      if (r.start_s) origin = std::min(origin.value_or(*r.start_s), *r.start_s);
    auto cell = [](std::optional<double> v, std::optional<double> from = 0.0) {
      return v && from ? Cell(*v - *from) : Cell();
    };
    WeakScalingScore s = weak_scaling_score(runs, spec.min_models);
    auto has = [](const std::vector<long>& v, long i) { return std::find(v.begin(), v.end(), i) != v.end(); };
    for (auto& r : runs) {
      const char* scored = has(s.scored, r.instance)      ? "yes"
                           : has(s.same_seed, r.instance) ? "no: same seed"
                           : has(s.pruned, r.instance)    ? "no: pruned"
                                                          : "no";
      t.rows.push_back({Cell(static_cast<double>(r.instance)), cell(r.time_to_train_s),
                        Cell(std::string(r.reached ? "yes" : "no")), cell(r.start_s, origin),
                        cell(r.stop_s, origin), Cell(std::string(scored))});
    }
    t.notes.push_back(std::to_string(s.reached) + " of " + std::to_string(s.instances) +
                      " instances reached the target");
    if (s.time_to_train_all_s)
      t.notes.push_back("time to train all: " + format_cell(*s.time_to_train_all_s, false) + " s");
    if (s.models_per_minute)
      t.notes.push_back("models per minute: " + format_cell(*s.models_per_minute, false));
    if (s.models_per_minute_score)
      t.notes.push_back("score: M' " + std::to_string(s.scored.size()) + ", TTTa " +
                        format_cell(*s.time_to_train_all_score_s, false) + " s, models per minute " +
                        format_cell(*s.models_per_minute_score, false) +
                        (s.pruned.empty() ? "" : ", " + std::to_string(s.pruned.size()) + " pruned") +
                        (s.same_seed.empty()
                             ? ""
                             : ", " + std::to_string(s.same_seed.size()) + " left out for a shared seed"));
    else
      t.notes.push_back("no score: " + s.no_score);
    summary.rows.push_back({Cell(c.name), Cell(static_cast<double>(s.instances)),
                            Cell(static_cast<double>(s.reached)), cell(s.time_to_train_all_s),
                            cell(s.models_per_minute),
                            s.models_per_minute_score ? Cell(static_cast<double>(s.scored.size())) : Cell(),
                            cell(s.time_to_train_all_score_s), cell(s.models_per_minute_score)});
    per_case.push_back(std::move(t));
  }
  if (!summary.rows.empty()) res.tables.push_back(std::move(summary));
  for (auto& t : per_case) res.tables.push_back(std::move(t));
  return res;
}

}  // namespace campaign::analysis

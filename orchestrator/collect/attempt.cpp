// Implements collect/attempt.hpp.
#include "collect/attempt.hpp"

#include <spdlog/spdlog.h>

#include "spec/library.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::collect {

StepCollectors load_collectors(const spec::Campaign& campaign) {
  std::map<std::string, Collector> loaded;
  auto load = [&](const std::string& name, const Location& where, const std::string& key) {
    if (auto it = loaded.find(name); it != loaded.end()) return it->second;
    auto path = spec::find_data_file(campaign.dir, "collectors", name, ".yaml");
    if (!path) {
      auto names = spec::available(campaign.dir, "collectors", ".yaml");
      throw InputError(where, key,
                       "no collector '" + name + "'" + did_you_mean(name, names) +
                           " (collectors: " + join(names, ", ") + ")");
    }
    return loaded.emplace(name, load_collector(*path)).first->second;
  };
  StepCollectors out;
  for (auto& step : campaign.steps) {
    auto& list = out[step.name];
    if (step.collectors) {
      for (auto& name : *step.collectors)
        list.push_back(load(name, step.collectors.where, "steps." + step.name + ".collectors"));
    } else {
      for (size_t i = 0; i < campaign.collectors.size(); ++i)
        list.push_back(load(campaign.collectors[i], campaign.collectors_where[i], "collectors"));
    }
  }
  return out;
}

fs::path job_output(const fs::path& run_dir, const std::string& job_id) {
  if (job_id.empty()) return {};
  std::error_code ec;
  for (const char* pattern : {"slurm-", "job-", "lsf-"}) {
    fs::path p = run_dir / (pattern + job_id + ".out");
    if (fs::exists(p, ec)) return p;
  }
  return {};
}

std::vector<campaign::Metric> to_catalog(const std::vector<Metric>& metrics) {
  std::vector<campaign::Metric> out;
  out.reserve(metrics.size());
  for (auto& m : metrics) {
    campaign::Metric c;
    c.name = m.name;
    if (m.step) c.step = static_cast<std::int64_t>(*m.step);
    c.value = m.value;
    c.unit = m.unit;
    out.push_back(std::move(c));
  }
  return out;
}

CollectOutcome collect_dir(const fs::path& run_dir, const std::string& job_id,
                           const std::vector<Collector>& collectors, std::vector<campaign::Metric>& metrics) {
  CollectOutcome o;
  try {
    auto r = collect(collectors, run_dir, job_output(run_dir, job_id));
    metrics = to_catalog(r.metrics);
    o.ok = true;
    o.metrics = metrics.size();
    o.warnings = std::move(r.warnings);
  } catch (const CollectError& e) {
    o.error = e.what();
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

CollectOutcome collect_attempt(Catalog& catalog, const AttemptRow& attempt,
                               const std::vector<Collector>& collectors) {
  std::vector<campaign::Metric> metrics;
  CollectOutcome o = collect_dir(attempt.run_dir, attempt.job_id, collectors, metrics);
  for (auto& w : o.warnings) spdlog::warn("{}: {}", attempt.case_name, w);
  if (o.ok) {
    catalog.record_collection(attempt.id, metrics);
  } else {
    spdlog::warn("{}: collection failed: {}", attempt.case_name, o.error);
    JobUpdate u;
    u.reason = o.error;
    catalog.update_state(attempt.id, State::collect_failed, u);
  }
  return o;
}

}  // namespace campaign::collect

// Implements collect/attempt.hpp.
#include "collect/attempt.hpp"

#include <fnmatch.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>

#include "collect/components.hpp"
#include "render/script.hpp"
#include "spec/library.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::collect {

StepCollectors load_collectors(const spec::Campaign& campaign) {
  std::map<std::string, Collector> loaded;
  auto load = [&](const std::string& name, const Location& where, const std::string& key) {
    if (loaded.count(name)) return;
    auto path = spec::find_data_file(campaign.dir, "collectors", name, ".yaml");
    if (!path) {
      auto names = spec::available(campaign.dir, "collectors", ".yaml");
      throw InputError(where, key,
                       "no collector '" + name + "'" + did_you_mean(name, names) +
                           " (collectors: " + join(names, ", ") + ")");
    }
    loaded.emplace(name, load_collector(*path));
  };
  std::map<std::string, std::vector<std::string>> names;  // each step's collectors
  for (auto& step : campaign.steps) {
    auto& list = names[step.name];
    if (step.collectors) {
      for (auto& name : *step.collectors) {
        load(name, step.collectors.where, "steps." + step.name + ".collectors");
        list.push_back(name);
      }
    } else {
      for (size_t i = 0; i < campaign.collectors.size(); ++i) {
        load(campaign.collectors[i], campaign.collectors_where[i], "collectors");
        list.push_back(campaign.collectors[i]);
      }
    }
  }
  // The campaign's components join their collector's own, wherever it is used.
  for (const auto& comp : campaign.components) {
    const std::string key = "components." + comp.name + ".collector";
    auto it = loaded.find(comp.collector);
    if (it == loaded.end()) {
      std::vector<std::string> used;
      for (auto& [name, c] : loaded) used.push_back(name);
      throw InputError(comp.collector_where, key,
                       "'" + comp.collector + "' is not among the campaign's collectors" +
                           did_you_mean(comp.collector, used) + " (" + join(used, ", ") + ")");
    }
    if (it->second.component_metric.empty())
      throw InputError(comp.collector_where, key,
                       "collector '" + comp.collector + "' names no metric for components to sum (" +
                           "its `components: metric:`; tau and nsys do)");
    set_component(it->second,
                  make_component(comp.name, comp.match, comp.percent_of));  // the regex was checked by spec/
  }
  StepCollectors out;
  for (auto& [step, list] : names) {
    auto& collectors = out[step];
    for (auto& name : list) collectors.push_back(loaded.at(name));
  }
  return out;
}

fs::path job_output(const fs::path& run_dir, const std::string& job_id, const std::string& step_name,
                    const std::string& name) {
  std::error_code ec;
  if (!step_name.empty()) {
    fs::path p = run_dir / (step_name + ".out");  // pack::case_output
    if (fs::exists(p, ec)) return p;
  }
  if (job_id.empty()) {
    std::vector<fs::path> found;
    for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string f = it->path().filename().string();
      const bool match =
          name.empty() ? (fnmatch("slurm-*.out", f.c_str(), 0) == 0 ||
                          fnmatch("job-*.out", f.c_str(), 0) == 0 || fnmatch("lsf-*.out", f.c_str(), 0) == 0)
                       : fnmatch(name.c_str(), f.c_str(), 0) == 0;
      if (match && it->is_regular_file(ec)) found.push_back(it->path());
    }
    return found.size() == 1 ? found.front() : fs::path();
  }
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

long instance_count(const fs::path& run_dir) {
  std::error_code ec;
  long highest = -1;
  const std::string prefix = render::kInstanceDirPrefix;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0 || !it->is_directory(ec))
      continue;
    const std::string digits = n.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    highest = std::max(highest, std::stol(digits));
  }
  return highest + 1;
}

CollectOutcome collect_dir(const fs::path& run_dir, const std::string& job_id,
                           const std::vector<Collector>& collectors, std::vector<campaign::Metric>& metrics,
                           const std::string& step_name, const std::optional<AttemptStart>& since,
                           const std::string& output_name) {
  CollectOutcome o;
  const long instances = instance_count(run_dir);
  std::string where;
  try {
    if (instances == 0) {
      auto r = collect(collectors, run_dir, job_output(run_dir, job_id, step_name, output_name), since);
      metrics = to_catalog(r.metrics);
      o.warnings = std::move(r.warnings);
    }
    for (long i = 0; i < instances; ++i) {
      where = render::instance_dir(i) + ": ";
      const fs::path dir = run_dir / render::instance_dir(i);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) throw Error("no such directory in " + run_dir.string());
      auto r = collect(collectors, dir, dir / render::kInstanceOutput, since);
      for (auto& m : to_catalog(r.metrics)) {
        metrics.push_back(std::move(m));
        metrics.back().instance = i;
      }
      for (auto& w : r.warnings) o.warnings.push_back(where + w);
    }
    o.ok = true;
    o.metrics = metrics.size();
  } catch (const CollectError& e) {
    o.error = where + e.what();
  } catch (const Error& e) {
    o.error = where + e.what();
  }
  return o;
}

std::optional<AttemptStart> attempt_start(const fs::path& run_dir, int attempt, std::string& warning) {
  if (attempt <= 1) return std::nullopt;
  const std::string stamp = render::start_stamp(attempt);
  struct stat st;
  if (::stat((run_dir / stamp).c_str(), &st) != 0) {
    warning = "no start stamp " + stamp + " (the job script does not write {{start_stamp}}): its files are " +
              "not checked against earlier attempts'";
    return std::nullopt;
  }
  return AttemptStart{attempt, st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
}

CollectOutcome collect_attempt(Catalog& catalog, const AttemptRow& attempt,
                               const std::vector<Collector>& collectors) {
  std::vector<campaign::Metric> metrics;
  std::string warning;
  const auto since = attempt_start(attempt.run_dir, attempt.number, warning);
  CollectOutcome o =
      collect_dir(attempt.run_dir, attempt.job_id, collectors, metrics, attempt.step_name, since);
  if (!warning.empty()) o.warnings.insert(o.warnings.begin(), warning);
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

// Implements collect/attempt.hpp.
#include "collect/attempt.hpp"

#include <dirent.h>
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

namespace {

// What job_output and instance_count look for in a run directory, found in one pass over it (an
// import reads 10,000 of them): the instance directories and, without a job id, the files that
// may be the job's output.
struct RunDirScan {
  long instances = 0;
  std::vector<fs::path> outputs;  // regular files (or links to one) named as job_output looks for
};

// A name's patterns: `name` when given, else the schedulers' output files.
bool is_output_name(const char* f, const std::string& name) {
  return name.empty() ? (fnmatch("slurm-*.out", f, 0) == 0 || fnmatch("job-*.out", f, 0) == 0 ||
                         fnmatch("lsf-*.out", f, 0) == 0)
                      : fnmatch(name.c_str(), f, 0) == 0;
}

RunDirScan scan_run_dir(const fs::path& run_dir, const std::string& name, bool outputs) {
  RunDirScan s;
  DIR* dir = ::opendir(run_dir.c_str());
  if (!dir) return s;
  const std::string_view prefix = render::kInstanceDirPrefix;
  long highest = -1;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    // As directory_entry's is_directory / is_regular_file: a link is followed.
    auto is = [&](mode_t type) {
      if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
        return static_cast<mode_t>(DTTOIF(e->d_type)) == type;
      struct stat st;
      return ::stat((run_dir / e->d_name).c_str(), &st) == 0 && (st.st_mode & S_IFMT) == type;
    };
    if (n.size() > prefix.size() && n.substr(0, prefix.size()) == prefix) {
      const std::string_view digits = n.substr(prefix.size());
      if (digits.find_first_not_of("0123456789") == std::string_view::npos && digits.size() <= 9 &&
          is(S_IFDIR))
        highest = std::max(highest, std::stol(std::string(digits)));
    }
    if (outputs && is_output_name(e->d_name, name) && is(S_IFREG)) s.outputs.push_back(run_dir / e->d_name);
  }
  ::closedir(dir);
  s.instances = highest + 1;
  return s;
}

// job_output, with the directory already scanned when `scan` is given.
fs::path output_of(const fs::path& run_dir, const std::string& job_id, const std::string& step_name,
                   const std::string& name, const RunDirScan* scan) {
  std::error_code ec;
  if (!step_name.empty()) {
    fs::path p = run_dir / (step_name + ".out");  // pack::case_output
    if (fs::exists(p, ec)) return p;
  }
  if (job_id.empty()) {
    const RunDirScan found = scan ? *scan : scan_run_dir(run_dir, name, true);
    return found.outputs.size() == 1 ? found.outputs.front() : fs::path();
  }
  for (const char* pattern : {"slurm-", "job-", "lsf-"}) {
    fs::path p = run_dir / (pattern + job_id + ".out");
    if (fs::exists(p, ec)) return p;
  }
  return {};
}

}  // namespace

fs::path job_output(const fs::path& run_dir, const std::string& job_id, const std::string& step_name,
                    const std::string& name) {
  return output_of(run_dir, job_id, step_name, name, nullptr);
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

long instance_count(const fs::path& run_dir) { return scan_run_dir(run_dir, "", false).instances; }

namespace {

// collect() over the run directory, or over each of its instance directories; `take` gets each
// result and its instance (none for a case without instances).
template <class Take>
CollectOutcome collect_each(const fs::path& run_dir, const std::string& job_id,
                            const std::vector<Collector>& collectors, const std::string& step_name,
                            const std::optional<AttemptStart>& since, const std::string& output_name,
                            Take take) {
  CollectOutcome o;
  // Without a job id, the one pass over the directory also finds its output.
  const RunDirScan scan = scan_run_dir(run_dir, output_name, job_id.empty());
  const long instances = scan.instances;
  std::string where;
  try {
    if (instances == 0) {
      auto r = collect(collectors, run_dir, output_of(run_dir, job_id, step_name, output_name, &scan), since);
      take(r.metrics, std::optional<std::int64_t>());
      o.warnings = std::move(r.warnings);
    }
    for (long i = 0; i < instances; ++i) {
      where = render::instance_dir(i) + ": ";
      const fs::path dir = run_dir / render::instance_dir(i);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) throw Error("no such directory in " + run_dir.string());
      auto r = collect(collectors, dir, dir / render::kInstanceOutput, since);
      take(r.metrics, std::optional<std::int64_t>(i));
      for (auto& w : r.warnings) o.warnings.push_back(where + w);
    }
    o.ok = true;
  } catch (const CollectError& e) {
    o.error = where + e.what();
  } catch (const Error& e) {
    o.error = where + e.what();
  }
  return o;
}

}  // namespace

CollectOutcome collect_dir(const fs::path& run_dir, const std::string& job_id,
                           const std::vector<Collector>& collectors, std::vector<campaign::Metric>& metrics,
                           const std::string& step_name, const std::optional<AttemptStart>& since,
                           const std::string& output_name) {
  CollectOutcome o = collect_each(run_dir, job_id, collectors, step_name, since, output_name,
                                  [&](const std::vector<Metric>& got, std::optional<std::int64_t> instance) {
                                    for (auto& m : to_catalog(got)) {
                                      metrics.push_back(std::move(m));
                                      metrics.back().instance = instance;
                                    }
                                  });
  if (o.ok) o.metrics = metrics.size();
  return o;
}

CollectOutcome collect_series(const fs::path& run_dir, const std::string& job_id,
                              const std::vector<Collector>& collectors, std::vector<MetricSeries>& series,
                              const std::string& step_name, const std::optional<AttemptStart>& since,
                              const std::string& output_name) {
  SeriesBuilder group(series);
  CollectOutcome o = collect_each(
      run_dir, job_id, collectors, step_name, since, output_name,
      [&](const std::vector<Metric>& got, std::optional<std::int64_t> instance) {
        // A run of metrics of one series (a column of a history file) in one go, as add() for each.
        for (size_t i = 0, j = 0; i < got.size(); i = j) {
          const Metric& m = got[i];
          const bool stepped = m.step.has_value();
          for (j = i + 1; j < got.size() && got[j].step.has_value() == stepped && got[j].name == m.name &&
                          got[j].unit == m.unit;
               ++j) {
          }
          MetricSeries& s = group.series(m.name, m.unit, stepped, instance);
          if (const size_t need = s.vals.size() + (j - i); need > s.vals.capacity()) {
            s.vals.reserve(std::max(need, 2 * s.vals.capacity()));  // runs of one: still amortised
            if (stepped) s.steps.reserve(s.vals.capacity());
          }
          for (size_t k = i; k < j; ++k) {
            if (stepped) s.steps.push_back(static_cast<std::int64_t>(*got[k].step));
            s.vals.push_back(got[k].value);
          }
        }
      });
  if (o.ok) o.metrics = value_count(series);
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

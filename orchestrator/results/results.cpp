#include "results/results.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <ostream>
#include <set>
#include <thread>

#include "analysis/scaling.hpp"
#include "analysis/spec.hpp"
#include "render/script.hpp"
#include "spec/library.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace campaign::results {

StepCollectors load_collectors(const spec::Campaign& campaign) {
  std::map<std::string, collect::Collector> loaded;
  auto load = [&](const std::string& name, const Location& where, const std::string& key) {
    if (auto it = loaded.find(name); it != loaded.end()) return it->second;
    auto path = spec::find_data_file(campaign.dir, "collectors", name, ".yaml");
    if (!path) {
      auto names = spec::available(campaign.dir, "collectors", ".yaml");
      throw InputError(where, key,
                       "no collector '" + name + "'" + did_you_mean(name, names) +
                           " (collectors: " + join(names, ", ") + ")");
    }
    return loaded.emplace(name, collect::load_collector(*path)).first->second;
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

std::vector<Metric> to_catalog(const std::vector<collect::Metric>& metrics) {
  std::vector<Metric> out;
  out.reserve(metrics.size());
  for (auto& m : metrics) {
    Metric c;
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
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    const std::string prefix = render::kInstanceDirPrefix;
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0 || !it->is_directory(ec))
      continue;
    const std::string digits = n.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    highest = std::max(highest, std::stol(digits));
  }
  return highest + 1;
}

CollectOutcome collect_dir(const fs::path& run_dir, const std::string& job_id,
                           const std::vector<collect::Collector>& collectors, std::vector<Metric>& metrics) {
  CollectOutcome o;
  const long instances = instance_count(run_dir);
  std::string where;
  try {
    if (instances == 0) {
      auto r = collect::collect(collectors, run_dir, job_output(run_dir, job_id));
      metrics = to_catalog(r.metrics);
      o.warnings = std::move(r.warnings);
    }
    for (long i = 0; i < instances; ++i) {
      where = render::instance_dir(i) + ": ";
      const fs::path dir = run_dir / render::instance_dir(i);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) throw Error("no such directory in " + run_dir.string());
      auto r = collect::collect(collectors, dir, dir / render::kInstanceOutput);
      for (auto& m : to_catalog(r.metrics)) {
        metrics.push_back(std::move(m));
        metrics.back().instance = i;
      }
      for (auto& w : r.warnings) o.warnings.push_back(where + w);
    }
    o.ok = true;
    o.metrics = metrics.size();
  } catch (const collect::CollectError& e) {
    o.error = where + e.what();
  } catch (const Error& e) {
    o.error = where + e.what();
  }
  return o;
}

CollectOutcome collect_attempt(Catalog& catalog, const AttemptRow& attempt,
                               const std::vector<collect::Collector>& collectors) {
  std::vector<Metric> metrics;
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

std::int64_t sync_campaign(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                           const CodeVersion& code,
                           const std::function<std::string(const matrix::Case&)>& run_dir_of) {
  CampaignRow row;
  row.name = plan.campaign.name;
  row.spec_text = plan.campaign.text;
  row.spec_hash = plan.campaign.sha256;
  row.system = plan.system.name;
  row.workdir = workdir.string();
  std::int64_t id = catalog.upsert_campaign(row);
  catalog.record_code_version(id, code.record());
  std::vector<CaseRow> rows;
  rows.reserve(plan.cases.size());
  for (auto& c : plan.cases) {
    CaseRow r;
    r.key = c.key;
    r.step = plan.step_of(c).name;
    r.name = c.name;
    const auto& names = plan.step_of(c).schema->names;
    for (size_t i = 0; i < names.size(); ++i) r.params[names[i]] = c.values[i].text;
    r.run_dir = run_dir_of ? run_dir_of(c) : (workdir / c.name).string();
    r.script = (fs::path(r.run_dir) / render::kScriptName).string();
    rows.push_back(std::move(r));
  }
  catalog.sync_cases(id, rows);
  return id;
}

ImportSummary import_runs(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                          const fs::path& from, const StepCollectors& collectors, const CodeVersion& code) {
  std::error_code ec;
  if (!fs::is_directory(from, ec)) throw Error("cannot import from " + from.string() + ": not a directory");
  // Run directories directly under `from`, or one level down (timestamped
  // result trees); the newest wins when a name appears more than once.
  std::map<std::string, fs::path> found;
  std::map<std::string, fs::file_time_type> when;
  std::set<std::string> wanted;
  for (auto& c : plan.cases) wanted.insert(c.name);
  auto consider = [&](const fs::path& dir) {
    std::string name = dir.filename().string();
    if (!wanted.count(name)) return false;
    auto t = fs::last_write_time(dir, ec);
    if (!found.count(name) || t > when[name]) found[name] = dir, when[name] = t;
    return true;
  };
  for (auto& e : fs::directory_iterator(from, ec)) {
    if (!e.is_directory(ec)) continue;
    if (consider(e.path())) continue;
    for (auto& sub : fs::directory_iterator(e.path(), ec))
      if (sub.is_directory(ec)) consider(sub.path());
  }
  std::int64_t id = sync_campaign(catalog, plan, workdir, code, [&](const matrix::Case& c) {
    auto it = found.find(c.name);
    return it != found.end() ? fs::absolute(it->second).string() : (workdir / c.name).string();
  });
  ImportSummary s;
  struct Todo {
    const AttemptRow* attempt;
    fs::path dir;
  };
  std::vector<Todo> todo;
  auto latest = catalog.latest_attempts(id);
  for (auto& a : latest) {
    auto it = found.find(a.case_name);
    if (it == found.end()) {
      ++s.absent;
      continue;
    }
    ++s.found;
    if (a.state != State::planned) {
      ++s.already;
      continue;
    }
    todo.push_back(Todo{&a, it->second});
  }
  // Collection reads and parses files, the catalog only writes: a batch is collected on every core
  // but one while the previous batch is committed (one transaction) on this thread. Batches bound
  // the memory: at most two batches' metrics are held at once.
  const size_t batch = 512;
  const size_t workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  static const std::vector<collect::Collector> none;
  struct Batch {
    size_t first = 0;
    std::vector<Catalog::ImportedRun> runs;
    std::vector<CollectOutcome> outcomes;
  };
  auto collect_batch = [&](size_t first, size_t threads) {
    Batch b;
    b.first = first;
    size_t n = std::min(batch, todo.size() - first);
    b.runs.resize(n);
    b.outcomes.resize(n);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) {
        const Todo& t = todo[first + i];
        auto cit = collectors.find(t.attempt->step);
        b.runs[i].attempt_id = t.attempt->id;
        b.runs[i].origin = fs::absolute(t.dir).string();
        b.outcomes[i] =
            collect_dir(t.dir, "", cit == collectors.end() ? none : cit->second, b.runs[i].metrics);
      }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < threads; ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return b;
  };
  auto commit = [&](Batch& b) {
    for (size_t i = 0; i < b.runs.size(); ++i) {
      if (b.outcomes[i].ok) {
        ++s.collected;
      } else {
        ++s.failed;
        b.runs[i].collect_error = b.outcomes[i].error;
        s.errors.push_back(todo[b.first + i].attempt->case_name + ": " + b.outcomes[i].error);
      }
    }
    catalog.import_runs(b.runs);
  };
  if (todo.empty()) return s;
  Batch current = collect_batch(0, workers);
  for (size_t next_first = batch;; next_first += batch) {
    std::future<Batch> next;
    if (next_first < todo.size())
      next = std::async(std::launch::async, collect_batch, next_first, std::max<size_t>(1, workers - 1));
    commit(current);
    if (!next.valid()) break;
    current = next.get();
  }
  return s;
}

std::vector<analysis::CaseResult> case_results(Catalog& catalog, std::int64_t campaign_id,
                                               const std::set<std::string>& metrics) {
  auto latest = catalog.latest_attempts(campaign_id);
  std::map<std::int64_t, const AttemptRow*> latest_by_attempt;
  for (auto& a : latest) latest_by_attempt[a.id] = &a;
  std::map<std::int64_t, nlohmann::json> params;
  for (auto& c : catalog.cases_of(campaign_id)) params[c.id] = c.params;
  std::map<std::int64_t, analysis::CaseResult> by_attempt;
  for (auto& a : latest) {
    if (!a.in_spec) continue;
    analysis::CaseResult r;
    r.name = a.case_name;
    r.step = a.step;
    for (auto& [k, v] : params[a.case_id].items())
      r.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
    r.state = std::string(to_string(a.state));
    r.job_id = a.job_id;
    r.nodelist = a.node_list;
    by_attempt[a.id] = std::move(r);
  }
  for (auto& series : catalog.metric_series_of(campaign_id, metrics)) {
    auto it = by_attempt.find(series.attempt_id);
    if (it == by_attempt.end()) continue;  // an earlier attempt's metrics
    auto& out = it->second.metrics;
    out.reserve(out.size() + series.values.size());
    for (size_t i = 0; i < series.values.size(); ++i) {
      analysis::MetricRow row;
      row.name = series.name;
      if (series.steps[i]) row.step = static_cast<double>(*series.steps[i]);
      row.instance = series.instance;
      row.value = series.values[i];
      row.unit = series.unit;
      out.push_back(std::move(row));
    }
  }
  std::vector<analysis::CaseResult> out;
  out.reserve(by_attempt.size());
  for (auto& a : latest) {
    auto it = by_attempt.find(a.id);
    if (it != by_attempt.end()) out.push_back(std::move(it->second));
  }
  return out;
}

std::vector<analysis::AnalysisSpec> load_analyses(const matrix::Plan& plan,
                                                  const StepCollectors& collectors) {
  analysis::CampaignNames names;
  for (const auto& step : plan.campaign.steps) {
    analysis::StepNames s{step.name, {}, {}, {}, false};
    auto sp =
        std::find_if(plan.steps.begin(), plan.steps.end(), [&](auto& p) { return p.name == step.name; });
    if (sp != plan.steps.end()) s = {step.name, sp->schema->names, sp->axes, {}, true};
    if (auto it = collectors.find(step.name); it != collectors.end())
      for (const auto& c : it->second)
        for (auto& m : collect::declared_metrics(c))
          if (std::find(s.metrics.begin(), s.metrics.end(), m) == s.metrics.end()) s.metrics.push_back(m);
    names.steps.push_back(std::move(s));
  }
  names.values = [&plan](const std::string& step, const std::string& param) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& c : plan.cases) {
      const matrix::StepPlan& sp = plan.step_of(c);
      int k = sp.schema->find(param);
      if ((!step.empty() && sp.name != step) || k < 0) continue;
      const std::string& v = c.values[static_cast<size_t>(k)].text;
      if (seen.insert(v).second) out.push_back(v);
    }
    return out;
  };
  return analysis::parse_analyses(plan.campaign.analyses, plan.campaign.file, names);
}

std::set<std::string> metrics_used(const std::vector<analysis::AnalysisSpec>& specs) {
  std::set<std::string> names;
  for (auto& s : specs) {
    names.insert(s.time.metric);
    if (s.stall) names.insert(s.stall->data), names.insert(s.stall->compute);
    if (s.scaling == analysis::Scaling::mlperf_weak)
      names.insert({analysis::kRunStartMs, analysis::kRunStopMs, analysis::kRunSuccess});
  }
  return names;
}

report::ReportResult make_report(Catalog& catalog, const spec::Campaign& campaign, std::int64_t campaign_id,
                                 const ReportRequest& request, std::ostream* terminal) {
  auto specs = analysis::parse_analyses(campaign.analyses, campaign.file);
  auto cases = case_results(catalog, campaign_id, metrics_used(specs));
  report::ReportInput input;
  input.analyses = analysis::analyze_all(specs, cases);
  input.provenance.campaign = campaign.name;
  input.provenance.campaign_hash = campaign.sha256;
  for (auto& c : catalog.campaigns())
    if (c.id == campaign_id)
      input.provenance.system = c.system, input.provenance.code_version = describe_code(c.code);
  report::add_runs(input.provenance, cases);
  // Failed cases outside any analysis are listed too.
  for (auto& c : cases)
    if (!analysis::usable_state(c.state)) {
      bool listed = false;
      for (auto& a : input.analyses)
        for (auto& e : a.excluded) listed |= e.case_name == c.name;
      if (!listed) input.failed.push_back(analysis::Excluded{c.name, c.state, "did not complete"});
    }
  if (terminal) report::print_tables(*terminal, input.analyses);
  if (request.formats.empty()) return {};
  return report::write_report(input, request.formats, request.out_dir);
}

}  // namespace campaign::results

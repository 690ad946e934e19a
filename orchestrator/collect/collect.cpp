// collect(): finds each source's file in the run directory, reads it whole,
// hands it to its engine, and makes the combined result keep the promises of
// collect.hpp (unique (name, step), required vs optional sources).
#include "collect/collect.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <sstream>

#include "collect/components.hpp"
#include "collect/engines.hpp"
#include "collect/source.hpp"
#include "render/script.hpp"
#include "sample/energy.hpp"
#include "util/strings.hpp"

namespace campaign::collect {

namespace fs = std::filesystem;

namespace {

std::string message(const Location& where, const std::string& reason) { return where.str() + ": " + reason; }

struct Found {
  fs::path path;
  std::string display;
};

std::int64_t mtime_ns(const fs::path& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec : 0LL;
}

std::string seconds_text(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e9);
  return buf;
}

// A retry's files must be its own (collect.hpp): those modified before the attempt's start are an
// earlier attempt's. Files that cannot be stat'ed are left to the reading to report.
void check_fresh(const Source& src, const std::vector<Found>& files, const AttemptStart& since) {
  std::vector<std::string> stale;
  std::int64_t oldest = since.ns;
  for (const Found& f : files) {
    struct stat st;
    if (::stat(f.path.c_str(), &st) != 0) continue;
    const std::int64_t t = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    if (t >= since.ns) continue;
    stale.push_back(f.display);
    oldest = std::min(oldest, t);
  }
  if (stale.empty()) return;
  std::ostringstream what;
  if (files.size() == 1)
    what << "written";
  else
    what << stale.size() << " of " << files.size() << " files written";
  what << ' ' << seconds_text(since.ns - oldest) << " s before attempt " << since.attempt << " started ("
       << render::start_stamp(since.attempt) << ')';
  if (files.size() > 1) what << ": " << join(stale, ", ");
  what << ": an earlier attempt's output, not this attempt's (`any_attempt: true` on the source collects it "
          "anyway)";
  throw CollectError(Location{src.file, 0, 0}, what.str());
}

// The files a source reads: none (missing), one, or all matches for `multiple: all`.
std::vector<Found> find_files(const Source& src, const fs::path& run_dir, const fs::path& job_output,
                              const std::optional<AttemptStart>& since, std::vector<std::string>& warnings) {
  if (src.from_stdout) {
    if (job_output.empty())
      throw CollectError(Location{"<job output>", 0, 0},
                         "the job's output file is not known (for imported runs: the one slurm-*.out, "
                         "job-*.out or lsf-*.out in the run directory, or name it with import --output)");
    fs::path p = job_output.is_absolute() ? job_output : run_dir / job_output;
    std::string display = job_output.string();
    if (job_output.is_absolute()) {
      fs::path rel = job_output.lexically_relative(run_dir);
      if (!rel.empty() && *rel.begin() != "..") display = rel.string();
    }
    return {Found{p, display}};
  }
  if (!has_wildcards(src.file)) {
    std::vector<Found> one{Found{run_dir / src.file, src.file}};
    if (since && !src.any_attempt) check_fresh(src, one, *since);
    return one;
  }
  std::vector<Found> found;
  for (auto& rel : glob(run_dir, src.file)) found.push_back(Found{run_dir / rel, rel});
  if (found.size() > 1 && src.multiple == Multiple::newest) {
    // Several attempts' outputs, say: the newest is the one this attempt wrote.
    auto newest = std::max_element(found.begin(), found.end(), [&](const Found& a, const Found& b) {
      auto ta = mtime_ns(a.path), tb = mtime_ns(b.path);
      return ta != tb ? ta < tb : a.display < b.display;
    });
    warnings.push_back(src.file + ": " + std::to_string(found.size()) + " files match; using the newest, " +
                       newest->display);
    found = {*newest};
  }
  if (found.empty()) throw CollectError(Location{src.file, 0, 0}, "no file matches in " + run_dir.string());
  if (since && !src.any_attempt) check_fresh(src, found, *since);
  return found;
}

void read_source(const Source& src, const fs::path& run_dir, const fs::path& job_output,
                 const std::optional<AttemptStart>& since, CollectResult& r,
                 std::vector<std::string>& warnings, Warnings& capped) {
  std::vector<Found> files = find_files(src, run_dir, job_output, since, warnings);
  // An optional file that is not there (nor a dangling link to one) is silence, as below when
  // reading it fails with "no such file": found here without throwing for every run that lacks it.
  struct stat st;
  if (!src.required && !src.from_stdout && files.size() == 1 && ::lstat(files[0].path.c_str(), &st) != 0 &&
      errno == ENOENT)
    return;
  std::vector<std::string> texts;
  std::vector<Input> inputs;
  texts.reserve(files.size());
  for (const auto& f : files) {
    try {
      texts.push_back(read_file(f.path, f.display));
    } catch (const CollectError& e) {
      if (e.reason() == "no such file" && !src.from_stdout)
        throw CollectError(e.where(), "no such file in " + run_dir.string());
      throw;
    }
    inputs.push_back(Input{f.display, texts.back(), wildcard_text(src.file, f.display)});
  }
  Output out{r.metrics, capped, src.required};
  switch (src.engine) {
    case Engine::csv:
      for (const Input& in : inputs) run_csv(std::get<CsvSpec>(src.spec), in, out);
      break;
    case Engine::mllog:
      run_mllog(std::get<MllogSpec>(src.spec), inputs.front(), out);
      break;
    case Engine::regex:
      run_regex(std::get<RegexSpec>(src.spec), inputs, out);
      break;
    case Engine::json:
      run_json(std::get<DocSpec>(src.spec), inputs.front(), out);
      break;
    case Engine::yaml:
      run_yaml(std::get<DocSpec>(src.spec), inputs.front(), out);
      break;
    case Engine::nsys:
      run_nsys(inputs, out);
      break;
    case Engine::tau:
      run_tau(inputs.front(), out);
      break;
  }
  for (const auto& f : files)  // once each, however many sources read it
    if (std::find(r.files.begin(), r.files.end(), f.display) == r.files.end()) r.files.push_back(f.display);
}

void run_source(const Source& src, const fs::path& run_dir, const fs::path& job_output,
                const std::optional<AttemptStart>& since, CollectResult& r) {
  const size_t first_metric = r.metrics.size();
  const size_t first_file = r.files.size();
  std::vector<std::string> warnings;
  Warnings capped(warnings);
  try {
    try {
      read_source(src, run_dir, job_output, since, r, warnings, capped);
    } catch (const CollectError&) {
      throw;
    } catch (const std::exception& e) {
      // The engines report bad data as CollectError; anything else (a library's
      // exception, memory) still only fails this source, the same way.
      throw CollectError(Location{src.from_stdout ? "<job output>" : src.file, 0, 0},
                         std::string("cannot collect: ") + e.what());
    }
  } catch (const CollectError& e) {
    if (src.required) throw;
    // An optional source is all or nothing: drop what it produced before failing.
    r.metrics.erase(r.metrics.begin() + static_cast<ptrdiff_t>(first_metric), r.metrics.end());
    r.files.resize(first_file);
    // A missing optional file is what `required: false` is for; anything else is worth a word.
    const std::string& why = e.reason();
    bool missing = why.rfind("no such file", 0) == 0 || why.rfind("no file matches", 0) == 0 ||
                   why.rfind("the job's output", 0) == 0;
    if (!missing) warnings.push_back(std::string(e.what()) + " (optional source skipped)");
  }
  capped.finish();
  r.warnings.insert(r.warnings.end(), warnings.begin(), warnings.end());
}

}  // namespace

CollectError::CollectError(Location where, std::string reason)
    : Error(message(where, reason)), where_(std::move(where)), reason_(std::move(reason)) {}

namespace {

bool less_step(const std::optional<double>& a, const std::optional<double>& b) { return a < b; }

// Keeps collect.hpp's promise of unique (name, step): the later metric wins.
// Fast path in O(n): every run of equal names has increasing steps and no
// name has two runs (what the engines produce); otherwise sort.
void dedupe(std::vector<Metric>& metrics, std::vector<std::string>& warnings) {
  bool clean = true;
  std::vector<std::string_view> run_names;
  for (size_t i = 0; i < metrics.size() && clean; ++i) {
    if (i == 0 || metrics[i].name != metrics[i - 1].name) {
      run_names.push_back(metrics[i].name);
    } else if (!less_step(metrics[i - 1].step, metrics[i].step)) {
      clean = false;
    }
  }
  if (clean) {
    std::sort(run_names.begin(), run_names.end());
    clean = std::adjacent_find(run_names.begin(), run_names.end()) == run_names.end();
  }
  if (clean) return;

  std::map<std::pair<std::string_view, std::optional<double>>, size_t> last;
  for (size_t i = 0; i < metrics.size(); ++i) {
    auto [it, inserted] = last.try_emplace({metrics[i].name, metrics[i].step}, i);
    if (!inserted) it->second = i;
  }
  std::vector<char> keep(metrics.size(), 0);
  for (const auto& [key, i] : last) keep[i] = 1;
  std::map<std::string, size_t> dropped;
  for (size_t i = 0; i < metrics.size(); ++i)
    if (!keep[i]) ++dropped[metrics[i].name];
  for (const auto& [name, n] : dropped)
    warnings.push_back("metric '" + name + "': " + std::to_string(n) +
                       " value(s) replaced by a later one for the same step");
  std::vector<Metric> out;
  out.reserve(last.size());
  for (size_t i = 0; i < metrics.size(); ++i)
    if (keep[i]) out.push_back(std::move(metrics[i]));
  metrics = std::move(out);
}

// MLPerf Power's energy to train (its paper, arXiv 2410.12032: the power samples within the MLPerf
// log's run_start..run_stop, integrated over time, summed over the components), over the GPUs the
// sampler read (power:<node>:gpu<i>, steps in ms); with instances the earliest start to the latest
// stop. A metric like any other, so that history and the site follow it.
void add_energy_to_train(std::vector<Metric>& metrics) {
  std::optional<double> start, stop;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> gpus;  // seconds, watts
  for (const auto& m : metrics) {
    const std::string_view name = m.name;  // compared by length first: millions of names a run
    if (name == "run_start_ms") start = std::min(start.value_or(m.value), m.value);
    if (name == "run_stop_ms") stop = std::max(stop.value_or(m.value), m.value);
    if (m.step && name.substr(0, 6) == "power:" &&
        m.name.substr(m.name.rfind(':') + 1).rfind("gpu", 0) == 0) {
      auto& [t, w] = gpus[m.name];
      t.push_back(static_cast<double>(*m.step) / 1000);
      w.push_back(m.value);
    }
  }
  if (!start || !stop || gpus.empty()) return;
  std::optional<double> total;
  for (auto& [name, tw] : gpus)
    if (auto e = sample::energy_within(tw.first, tw.second, *start / 1000, *stop / 1000))
      total = total.value_or(0) + *e;
  if (total) metrics.push_back(Metric{"gpu_energy_to_train_j", std::nullopt, *total, "J"});
}

}  // namespace

CollectResult collect(const std::vector<Collector>& collectors, const fs::path& run_dir,
                      const fs::path& job_output, const std::optional<AttemptStart>& since) {
  CollectResult r;
  std::vector<size_t> bounds{0};  // collector i produced metrics[bounds[i]..bounds[i + 1])
  for (const Collector& c : collectors) {
    for (const auto& src : c.sources) run_source(*src, run_dir, job_output, since, r);
    bounds.push_back(r.metrics.size());
  }
  for (size_t i = 0; i < collectors.size(); ++i)
    add_components(collectors[i], r.metrics, bounds[i], bounds[i + 1], r.warnings);
  dedupe(r.metrics, r.warnings);
  add_energy_to_train(r.metrics);
  return r;
}

}  // namespace campaign::collect

// Implements collect/import.hpp.
#include "collect/import.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "render/catalog_rows.hpp"
#include "util/beside.hpp"

namespace fs = std::filesystem;

namespace campaign::collect {

namespace {

std::int64_t record_campaign(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                             const CodeRecord& code, const std::vector<CaseRow>& rows) {
  std::int64_t id = catalog.upsert_campaign(render::campaign_row(plan, workdir));
  catalog.record_code_version(id, code);
  catalog.sync_cases(id, rows);
  return id;
}

}  // namespace

std::int64_t sync_campaign(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                           const CodeRecord& code,
                           const std::function<std::string(const matrix::Case&)>& run_dir_of) {
  return record_campaign(catalog, plan, workdir, code, render::case_rows(plan, workdir, run_dir_of));
}

namespace {

// The run directories an import collects, collected on helper threads from the start (while this
// thread records the campaign and its cases) in the plan's order, each at most once; the committing
// thread takes what it needs next itself when no helper has. Helpers collect ahead while fewer than
// `max_runs` runs and `max_values` values are held, then wait for committed ones to be released.
class ImportCollection {
 public:
  struct Run {
    fs::path dir;
    const std::vector<Collector>* collectors = nullptr;
    std::vector<MetricSeries> series{};
    CollectOutcome outcome{};
    size_t values = 0;                               // in `series` once collected
    bool taken = false, done = false, skip = false;  // guarded by mutex_
  };

  ImportCollection(std::vector<Run> runs, const std::string& output, size_t helpers, size_t max_runs,
                   size_t max_values)
      : runs_(std::move(runs)), output_(output), max_runs_(max_runs), max_values_(max_values) {
    try {
      for (size_t h = 0; h < helpers; ++h) helpers_.emplace_back([this] { help(); });
    } catch (const std::system_error&) {
      // No more threads to be had: those started help, complete() collects the rest.
    }
  }
  ImportCollection(const ImportCollection&) = delete;
  ImportCollection& operator=(const ImportCollection&) = delete;
  ~ImportCollection() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    room_.notify_all();
    for (auto& t : helpers_) t.join();
  }

  size_t size() const { return runs_.size(); }

  // Runs the catalog does not need after all (already imported): not collected, or released.
  void skip(const std::vector<bool>& needed) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < runs_.size(); ++i) {
      if (needed[i]) continue;
      runs_[i].skip = true;
      if (runs_[i].done) release_locked(i);
    }
    room_.notify_all();
  }

  // Runs `wanted` collected: those no helper has taken yet on this thread, then waits for the rest.
  void complete(const std::vector<size_t>& wanted) {
    for (size_t i : wanted) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (runs_[i].taken) continue;
        runs_[i].taken = true;
        ++held_;
      }
      collect_one(i);
    }
    std::unique_lock<std::mutex> lock(mutex_);
    for (size_t i : wanted) done_.wait(lock, [&] { return runs_[i].done; });
  }

  Run& at(size_t i) { return runs_[i]; }  // once complete() returned for it, until released

  void release(const std::vector<size_t>& runs) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i : runs) release_locked(i);
    room_.notify_all();
  }

 private:
  void collect_one(size_t i) {
    Run& r = runs_[i];
    CollectOutcome o = collect_series(r.dir, "", *r.collectors, r.series, {}, std::nullopt, output_);
    std::lock_guard<std::mutex> lock(mutex_);
    r.outcome = std::move(o);
    r.done = true;
    r.values = value_count(r.series);
    values_ += r.values;
    if (r.skip) release_locked(i);
    done_.notify_all();
  }

  void release_locked(size_t i) {
    values_ -= runs_[i].values;
    runs_[i].values = 0;
    std::vector<MetricSeries>().swap(runs_[i].series);
    runs_[i].outcome = {};
    --held_;
  }

  void help() {
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return stop_ || (held_ < max_runs_ && values_ < max_values_); });
        while (next_ < runs_.size() && (runs_[next_].taken || runs_[next_].skip)) ++next_;
        if (stop_ || next_ == runs_.size()) return;
        i = next_++;
        runs_[i].taken = true;
        ++held_;
      }
      collect_one(i);
    }
  }

  std::vector<Run> runs_;
  const std::string& output_;
  const size_t max_runs_, max_values_;
  std::mutex mutex_;
  std::condition_variable room_, done_;
  size_t next_ = 0, held_ = 0, values_ = 0;  // runs taken and not released, the values they hold
  bool stop_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace

ImportSummary import_runs(Catalog& catalog, const matrix::Plan& plan, const fs::path& workdir,
                          const fs::path& from, const StepCollectors& collectors, const CodeRecord& code,
                          const std::string& output) {
  std::error_code ec;
  if (!fs::is_directory(from, ec)) throw Error("cannot import from " + from.string() + ": not a directory");
  // The cases' rows (parameters and definitions, rendered) are made on a thread of their own while
  // the run directories are looked for; only their run directories wait for what is found.
  std::vector<CaseRow> rows;
  Beside rendering([&] { rows = render::case_rows(plan, workdir); });
  // Run directories directly under `from`, or one level down (timestamped
  // result trees); the newest wins when a name appears more than once.
  std::unordered_map<std::string, fs::path> found;
  std::unordered_set<std::string_view> wanted;
  for (auto& c : plan.cases) wanted.insert(c.name);
  auto consider = [&](const fs::path& dir) {
    std::string name = dir.filename().string();
    if (!wanted.count(name)) return false;
    auto [it, fresh] = found.try_emplace(std::move(name), dir);
    // Times are read only for a name seen twice (a stat per run directory otherwise).
    if (!fresh && fs::last_write_time(dir, ec) > fs::last_write_time(it->second, ec)) it->second = dir;
    return true;
  };
  for (auto& e : fs::directory_iterator(from, ec)) {
    if (!e.is_directory(ec)) continue;
    if (consider(e.path())) continue;
    for (auto& sub : fs::directory_iterator(e.path(), ec))
      if (sub.is_directory(ec)) consider(sub.path());
  }
  static const std::vector<Collector> none;
  auto collectors_of = [&](const std::string& step) {
    auto it = collectors.find(step);
    return it == collectors.end() ? &none : &it->second;
  };
  // Collection reads and parses files, the catalog only writes: collection starts at once on every
  // core but one, before the campaign and its cases are recorded, with each found case of the plan
  // and its step's collectors. Batches of runs are committed (one transaction each) on this thread,
  // which collects what it needs that no helper has taken. Helpers collect ahead up to 4 M values
  // (64 MiB with their steps): the time the cases take to record is worth thousands of runs.
  const size_t batch = 512;
  const size_t workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<ImportCollection::Run> runs;
  std::unordered_map<std::string_view, size_t> run_of;  // case name -> its run
  for (auto& c : plan.cases)
    if (auto it = found.find(c.name); it != found.end() && !run_of.count(c.name)) {
      run_of.emplace(c.name, runs.size());
      runs.push_back(ImportCollection::Run{it->second, collectors_of(plan.step_of(c).name)});
    }
  std::optional<ImportCollection> collection;
  if (!runs.empty()) collection.emplace(std::move(runs), output, workers - 1, 32 * batch, size_t{4} << 20);

  rendering.wait();
  for (size_t i = 0; i < plan.cases.size(); ++i)  // as case_rows with the run directories found
    if (auto it = found.find(plan.cases[i].name); it != found.end())
      render::set_run_dir(rows[i], fs::absolute(it->second).string());
  Catalog::BulkWrites bulk(catalog);  // one checkpoint of the log at the end, not one per 4 MB
  std::int64_t id = record_campaign(catalog, plan, workdir, code, rows);
  ImportSummary s;
  struct Todo {
    const AttemptRow* attempt;
    fs::path dir;
    size_t run;  // in `collection`; none when its step is not the one collected for it
  };
  const size_t no_run = SIZE_MAX;
  std::vector<Todo> todo;
  std::vector<bool> needed(collection ? collection->size() : 0, false);
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
    size_t run = no_run;
    if (auto r = run_of.find(a.case_name); r != run_of.end() &&
                                           collection->at(r->second).collectors == collectors_of(a.step) &&
                                           !needed[r->second])
      run = r->second, needed[run] = true;
    todo.push_back(Todo{&a, it->second, run});
  }
  if (collection) collection->skip(needed);
  for (size_t first = 0; first < todo.size(); first += batch) {
    const size_t n = std::min(batch, todo.size() - first);
    std::vector<size_t> mine;
    for (size_t i = first; i < first + n; ++i)
      if (todo[i].run != no_run) mine.push_back(todo[i].run);
    if (collection) collection->complete(mine);
    std::vector<Catalog::ImportedRun> batch_runs(n);
    for (size_t i = 0; i < n; ++i) {
      const Todo& t = todo[first + i];
      Catalog::ImportedRun& r = batch_runs[i];
      r.attempt_id = t.attempt->id;
      r.origin = fs::absolute(t.dir).string();
      CollectOutcome o;
      if (t.run != no_run) {
        ImportCollection::Run& got = collection->at(t.run);
        o = std::move(got.outcome);
        r.series = std::move(got.series);
      } else {
        o = collect_series(t.dir, "", *collectors_of(t.attempt->step), r.series, {}, std::nullopt, output);
      }
      if (o.ok) {
        ++s.collected;
      } else {
        ++s.failed;
        r.collect_error = o.error;
        s.errors.push_back(t.attempt->case_name + ": " + o.error);
      }
    }
    catalog.import_runs(batch_runs);
    batch_runs.clear();  // its metrics are written: freed, and room made for the helpers
    if (collection) collection->release(mine);
  }
  return s;
}

}  // namespace campaign::collect
